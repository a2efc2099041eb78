"""The in-memory vector index reads `chunks_vec`'s own storage: the same rows as through
vec0, after deletes and slot reuse, in both views, and vec0 itself for a layout it does
not know."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from privault.caller import Caller
from privault.retrieval.vectors import VectorIndex
from privault.store import index_reads
from tests.helpers import fake_vault

OWNER = Caller.owner()


def _through_vec0(conn, after: int, dim: int) -> index_reads.Vectors:
    pairs = conn.execute(
        "SELECT rowid, embedding FROM chunks_vec WHERE rowid > ? ORDER BY rowid", (after,)
    ).fetchall()
    return index_reads._as_vectors(pairs, dim)


def _assert_same(left: index_reads.Vectors, right: index_reads.Vectors) -> None:
    np.testing.assert_array_equal(left[0], right[0])
    np.testing.assert_array_equal(left[1], right[1])


def test_stored_vectors_equal_vec0_rows_after_deletes_and_reuse(tmp_path: Path) -> None:
    vault = fake_vault(tmp_path / "v.db")
    notes = [{"text": f"note {i} about the garden, the kitchen and item {i}"} for i in range(2100)]
    added = vault.note_many(notes, caller=OWNER)
    for item in added[100:1500:3]:  # holes in the first blocks of slots
        vault.forget(item.doc_id, caller=OWNER)
    vault.note_many([{"text": f"later note {i} on the roof"} for i in range(300)], caller=OWNER)
    conn, dim = vault.conn, vault.embedder.dim
    for after in (0, 1, 700, 2300, 10**9):
        stored = index_reads._stored_vectors_after(conn, after, dim)
        assert stored is not None
        _assert_same(stored, _through_vec0(conn, after, dim))
    assert len(index_reads.vectors_after(conn, 0, dim)[0]) == 2100 - 467 + 300
    vault.close()


def test_an_unknown_layout_is_read_through_vec0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = fake_vault(tmp_path / "v.db")
    vault.note_many([{"text": f"note {i} on bees"} for i in range(40)], caller=OWNER)
    conn, dim = vault.conn, vault.embedder.dim
    monkeypatch.setattr(index_reads, "_VEC0_LAYOUTS", {"v9.9.9"})
    assert index_reads._stored_vectors_after(conn, 0, dim) is None
    _assert_same(index_reads.vectors_after(conn, 0, dim), _through_vec0(conn, 0, dim))
    vault.close()


def test_both_views_of_the_index_load_the_same_rows_either_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = fake_vault(tmp_path / "v.db")
    texts = [
        f"Ask Dr. Maria Lopez at 10.0.0.{i} about it" if i % 4 == 0 else f"plain {i}"
        for i in range(90)
    ]
    vault.note_many([{"text": text} for text in texts], caller=OWNER)
    loaded = {}
    for layouts in (index_reads._VEC0_LAYOUTS, set()):
        monkeypatch.setattr(index_reads, "_VEC0_LAYOUTS", layouts)
        for view in ("plain", "masked"):
            index = VectorIndex(vault.embedder.dim, view)
            index.refresh(vault.conn)
            loaded[(bool(layouts), view)] = (index._ids.copy(), index._matrix.copy())
    for view in ("plain", "masked"):
        _assert_same(loaded[(True, view)], loaded[(False, view)])
    masked_rows = vault.conn.execute("SELECT count(*) FROM masked_chunks").fetchone()[0]
    assert masked_rows > 0
    differing = (loaded[(True, "plain")][1] != loaded[(True, "masked")][1]).any(axis=1)
    assert int(differing.sum()) == masked_rows
    vault.close()
