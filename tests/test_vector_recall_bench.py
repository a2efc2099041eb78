"""`benchmarks.perf --recall`: the exact scan it compares with, and its figures."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchmarks import perf, vector_recall
from privault.caller import Caller
from privault.retrieval import vectors
from privault.store import index_reads
from privault.store.connection import connect
from tests.helpers import fake_vault
from tests.test_vector_residuals import DIM, NearTieEmbedder

OWNER = Caller.owner()


@pytest.fixture
def kept(tmp_path: Path) -> tuple[Path, NearTieEmbedder]:
    """A small vault with masked entries, closed (the benchmark opens it read-only)."""
    embedder = NearTieEmbedder()
    path = tmp_path / "kept.db"
    vault = fake_vault(path, embedder=embedder)
    notes = [
        {"text": f"Mrs. Maria Lopez wrote row {i}" if i % 3 == 0 else f"row {i}"}
        for i in range(120)
    ]
    vault.note_many(notes, caller=OWNER)
    vault.search("warm", caller=OWNER)  # residuals noted complete: read-only from here
    vault.close()
    return path, embedder


@pytest.mark.parametrize("view", ["plain", "masked"])
def test_the_exact_scan_is_every_vector_of_the_view(
    kept: tuple[Path, NearTieEmbedder], view: str
) -> None:
    path, embedder = kept
    conn = connect(path, readonly=True)
    ids, matrix = index_reads.vectors_after(conn, 0, DIM)
    if view == "masked":
        for chunk_id, blob in conn.execute(
            "SELECT chunk_id, embedding FROM masked_chunks WHERE length(embedding)"
        ):
            matrix[int(np.flatnonzero(ids == chunk_id)[0])] = np.frombuffer(blob, np.float32)
    query = embedder.query[None, :]
    scores = matrix @ embedder.query
    expected = {int(ids[i]): float(scores[i]) for i in np.argsort(-scores)[:10]}
    found = vector_recall.exact_top(conn, query, 10, DIM, view)[0]
    assert list(found) == list(expected)
    assert np.allclose(list(found.values()), list(expected.values()), atol=1e-6)
    conn.close()


def test_the_figures_of_a_small_vault(
    kept: tuple[Path, NearTieEmbedder], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, embedder = kept
    result = vector_recall.measure([path, path], Path("unused"), "masked", embedder)
    first, second = result["vaults"]
    assert first["rows"] == 120 and first["queries"] == second["queries"] > 0
    assert first["recall_at_10"] == 1.0 and first["missed_of_top_10"] == 0  # every row scored
    assert first["leg_cpu_ms_k240"]["p50"] > 0
    monkeypatch.setattr(vectors, "EXACT_RESCORE", 0)  # codes only: near-ties reorder
    worse = vector_recall.measure([path], Path("unused"), "plain", embedder)["vaults"][0]
    assert worse["recall_at_10"] < 1.0


def test_the_command_prints_json(
    kept: tuple[Path, NearTieEmbedder],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, embedder = kept
    monkeypatch.setattr(vector_recall, "default_embedder", lambda models: embedder)
    assert perf.main(["--recall", str(path), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["view"] == "plain" and printed["vaults"][0]["vault"] == str(path)
