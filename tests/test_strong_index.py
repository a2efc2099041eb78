"""The strong leg's mirror keeps sign bits, not vectors: it ranks as an exact scan of the
stored vectors would (scores are the stored vectors' own), while its memory is 104 bytes
a row at 768 dimensions instead of 3 KB."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from privault import Caller
from privault.retrieval import strong_vectors, vectors
from privault.retrieval.strong_vectors import StrongIndex
from privault.store import strong_codes, strong_index
from privault.store.connection import Connection
from tests.helpers import fake_vault

OWNER = Caller.owner()
DIM = 128


def _sentence_like(rng: np.random.Generator, n: int) -> np.ndarray:
    """Unit vectors shaped like sentence embeddings: a direction all of them share, and
    meaning that varies along a few directions (12 here) more than along the rest."""
    shared = np.random.default_rng(0)  # the same space for the rows and the queries
    common = shared.standard_normal(DIM)
    meaning = shared.standard_normal((12, DIM))
    rows = common + rng.standard_normal((n, 12)) @ meaning + 0.3 * rng.standard_normal((n, DIM))
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _filled(conn: Connection, chunk_ids: list[int], rows: np.ndarray) -> None:
    """Strong rows for these chunks (their plain view), written as the pass writes them."""
    vectors = {hashlib.sha256(row.tobytes()).digest(): row.tobytes() for row in rows}
    digests = list(vectors)
    strong_index.store(
        conn, vectors, [(cid, d, None) for cid, d in zip(chunk_ids, digests, strict=True)]
    )


@pytest.fixture
def filled(tmp_path: Path) -> tuple[Connection, np.ndarray, np.ndarray]:
    vault = fake_vault(tmp_path / "v.db")
    vault.note_many([{"text": f"Note {i}"} for i in range(1500)], caller=OWNER)
    ids = np.array([r[0] for r in vault.conn.execute("SELECT id FROM chunks ORDER BY id")])
    rows = _sentence_like(np.random.default_rng(7), len(ids))
    _filled(vault.conn, ids.tolist(), rows)
    yield vault.conn, ids, rows
    vault.close()


def test_the_shortlist_ranks_as_the_exact_scan(
    filled: tuple[Connection, np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    conn, ids, rows = filled
    monkeypatch.setattr(strong_vectors, "EXACT_ROWS", 1000)  # 1,500 rows: sign bits only
    monkeypatch.setattr(strong_vectors, "RESCORE_MIN", 60)  # 60 of them read back (4%)
    read: list[int] = []
    vectors_of = strong_index.vectors_of

    def counted(conn: Connection, chunk_ids: list[int], view: str) -> list[tuple[int, bytes]]:
        read.append(len(chunk_ids))
        return vectors_of(conn, chunk_ids, view)

    monkeypatch.setattr(strong_index, "vectors_of", counted)
    coded: list[int] = []
    codes_of = strong_codes.vectors_of

    def counted_codes(conn: Connection, chunk_ids: list[int], view: str, dim: int) -> object:
        coded.append(len(chunk_ids))
        return codes_of(conn, chunk_ids, view, dim)

    monkeypatch.setattr(strong_codes, "vectors_of", counted_codes)
    index = StrongIndex(DIM)
    index.refresh(conn)
    assert len(index) == len(ids)
    assert index.resident_bytes == len(ids) * (8 + 16)  # the id and 128 bits
    queries = _sentence_like(np.random.default_rng(8), 30)
    recalls = []
    for query in queries:
        found = index.search(query, 10, conn=conn)
        exact = rows @ query
        best = ids[np.argsort(-exact)[:10]]
        recalls.append(len({cid for cid, _ in found} & set(best.tolist())) / 10)
        by_id = dict(zip(ids.tolist(), exact.tolist(), strict=True))
        assert [score for _, score in found] == sorted((s for _, s in found), reverse=True)
        assert all(abs(score - by_id[cid]) < 1e-5 for cid, score in found)
    assert np.mean(recalls) >= 0.98  # a shortlist drawn at random would hold 4% of them
    # Only the shortlist's codes were read, and the vectors of its best EXACT_RESCORE.
    assert coded and max(coded) == 60
    assert read and max(read) == vectors.EXACT_RESCORE


@pytest.mark.parametrize(("exact_rows", "codes"), [(32_768, True), (1000, True), (1000, False)])
def test_both_ways_score_as_the_stored_vectors(
    filled: tuple[Connection, np.ndarray, np.ndarray],
    monkeypatch: pytest.MonkeyPatch,
    exact_rows: int,
    codes: bool,
) -> None:
    """Few rows are kept and scanned in memory; many are kept as bits, and a shortlist
    as large as the index is the exact scan read back from the file: as vectors, or as
    codes whose best EXACT_RESCORE are scored again from their vectors."""
    conn, ids, rows = filled
    monkeypatch.setattr(strong_vectors, "EXACT_ROWS", exact_rows)
    if not codes:
        monkeypatch.setattr(strong_codes, "known_complete", lambda conn: False)
    index = StrongIndex(DIM)
    index.refresh(conn)
    kept = len(ids) * DIM * 4 if exact_rows > len(ids) else 0
    assert index.resident_bytes == len(ids) * (8 + 16) + kept
    query = _sentence_like(np.random.default_rng(9), 1)[0]
    found = index.search(query, 1500, conn=conn)  # shortlist 6,000 > 1,500 rows: all of them
    exact = rows @ query
    order = ids[np.argsort(-exact, kind="stable")].tolist()
    by_id = dict(zip(ids.tolist(), exact.tolist(), strict=True))
    if codes and exact_rows < len(ids):
        top = vectors.EXACT_RESCORE
        assert [cid for cid, _ in found[:top]] == order[:top]
        assert [score for _, score in found[:top]] == pytest.approx([by_id[c] for c in order[:top]])
        assert sorted(cid for cid, _ in found) == sorted(order)
        assert all(abs(score - by_id[cid]) < 2e-3 for cid, score in found)
    else:
        assert [cid for cid, _ in found] == order
        assert [score for _, score in found] == pytest.approx(np.sort(exact)[::-1].tolist())
    some = ids[[3, 70, 999]].tolist()
    assert index.scores(query, some, conn=conn) == pytest.approx(
        {cid: float(exact[np.searchsorted(ids, cid)]) for cid in some}
    )


@pytest.mark.parametrize("exact_rows", [32_768, 0])
def test_rows_added_later_and_out_of_order_are_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exact_rows: int
) -> None:
    monkeypatch.setattr(strong_vectors, "EXACT_ROWS", exact_rows)
    with fake_vault(tmp_path / "v.db") as vault:
        vault.note_many([{"text": f"Note {i}"} for i in range(300)], caller=OWNER)
        ids = [r[0] for r in vault.conn.execute("SELECT id FROM chunks ORDER BY id")]
        rows = _sentence_like(np.random.default_rng(3), len(ids))
        index = StrongIndex(DIM)
        _filled(vault.conn, ids[100:200], rows[100:200])  # the pass's first round
        index.refresh(vault.conn)
        assert len(index) == 100
        _filled(vault.conn, ids[:100] + ids[200:], np.concatenate([rows[:100], rows[200:]]))
        index.refresh(vault.conn)  # below and above the highest id seen
        assert len(index) == 300
        for i in (5, 150, 290):
            assert index.search(rows[i], 1, conn=vault.conn)[0][0] == ids[i]
        vault.conn.execute("DELETE FROM strong_chunks WHERE chunk_id = ?", (ids[5],))
        vault.conn.commit()
        index.refresh(vault.conn)
        assert len(index) == 299
        assert index.search(rows[5], 1, conn=vault.conn)[0][0] != ids[5]


def test_a_large_index_loads_its_signs_from_the_codes(
    filled: tuple[Connection, np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beyond EXACT_ROWS only the signs are kept: they are read from the codes (a quarter
    of the bytes), and rank as well as signs read from the vectors."""
    conn, ids, rows = filled
    monkeypatch.setattr(strong_vectors, "EXACT_ROWS", 1000)
    monkeypatch.setattr(strong_vectors, "RESCORE_MIN", 60)
    vectors_after = strong_index.batches_after

    def no_vectors(*args: object) -> None:
        raise AssertionError("the load read vectors")

    monkeypatch.setattr(strong_index, "batches_after", no_vectors)
    index = StrongIndex(DIM)
    index.refresh(conn)
    monkeypatch.setattr(strong_index, "batches_after", vectors_after)
    assert len(index) == len(ids)
    assert index.resident_bytes == len(ids) * (8 + 16)
    recalls = []
    for query in _sentence_like(np.random.default_rng(10), 30):
        best = set(ids[np.argsort(-(rows @ query))[:10]].tolist())
        recalls.append(len({cid for cid, _ in index.search(query, 10, conn=conn)} & best) / 10)
    assert np.mean(recalls) >= 0.98
