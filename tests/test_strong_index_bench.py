"""`benchmarks.strong_index` gives a vault strong rows from its own vectors and measures
both ways of the strong index on them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks import strong_index as bench
from privault import Caller, Vault
from privault.privacy.detector import FakeDetector
from privault.retrieval.strong_vectors import StrongIndex
from privault.store.connection import connect
from tests.helpers import fake_vault


def test_both_ways_are_measured_on_rows_made_from_the_vaults_vectors(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    with fake_vault(path) as vault:
        vault.note_many(
            [{"text": f"Boiler {i} visit {i * 7} invoice {i * 13}"} for i in range(300)],
            caller=Caller.owner(),
        )
    ids, vectors = bench.fill(path, 250)
    assert len(ids) == 250 and vectors.shape == (250, bench.DIM)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    conn = connect(path, readonly=True)
    assert conn.execute("SELECT count(*) FROM strong_chunks").fetchone() == (250,)
    conn.close()
    out = bench.measure(path, ids, vectors, 5)
    assert set(out) == {"in_memory", "sign_bits", "sign_bits_keeps_of_the_exact"}
    assert out["in_memory"]["resident_megabytes"] > out["sign_bits"]["resident_megabytes"]
    # Every row is in the shortlist: the best EXACT_RESCORE are ranked by their vectors,
    # the rest by their int8 codes (a near-tie around the 50th may swap).
    kept = out["sign_bits_keeps_of_the_exact"]
    assert kept["top_10"] == 1.0 and kept["top_50"] >= 0.98


@pytest.mark.real
def test_context_is_timed_with_the_strong_leg_over_every_window_or_some(
    tmp_path: Path, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "v.db"
    with Vault.open(path, models_dir=models_dir, detector_factory=FakeDetector) as vault:
        vault.note_many(
            [{"text": f"Boiler {i} visit {i * 7} invoice {i * 13}"} for i in range(40)],
            caller=Caller.owner(),
        )
    missing = bench.context_timing(path, models_dir, 3)
    assert set(missing) == {"context"} and "not measured" in missing["context"]
    searched: list[int] = []
    search = StrongIndex.search

    def counted(self: StrongIndex, *args: Any, **kwargs: Any) -> list[tuple[int, float]]:
        searched.append(1)
        return search(self, *args, **kwargs)

    monkeypatch.setattr(StrongIndex, "search", counted)
    for rows, coverage in ((10, 0.25), (None, 1.0)):
        ids, _ = bench.fill(path, rows)
        assert len(ids) == (rows or 40)
        searched.clear()
        out = bench.context_timing(path, models_dir, 3)
        assert set(out) == {"context_ms", "first_context_seconds", "context_strong_coverage"}
        assert out["context_strong_coverage"] == coverage
        assert len(searched) == 4  # the warm-up and three queries, each through the strong leg
        assert 0 < out["context_ms"]["p50"] <= out["context_ms"]["max"]
