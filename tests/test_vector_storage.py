"""Where the vector leg's rows come from: `chunks_vec`'s own storage read directly (the same
rows as through vec0, after deletes and slot reuse; vec0 itself for a layout it does not
know), and the int8 codes the search re-scores with, in both views."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from privault.caller import Caller
from privault.retrieval import vectors
from privault.retrieval.embedder import FakeEmbedder
from privault.retrieval.vectors import VectorIndex
from privault.store import index_reads, vector_codes
from privault.store.connection import write
from tests.helpers import fake_vault

OWNER = Caller.owner()
VIEWS = ("plain", "masked")


def _through_vec0(conn, after: int, dim: int) -> index_reads.Vectors:
    pairs = conn.execute(
        "SELECT rowid, embedding FROM chunks_vec WHERE rowid > ? ORDER BY rowid", (after,)
    ).fetchall()
    return index_reads.as_vectors(pairs, dim)


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


def test_both_views_keep_codes_that_differ_exactly_where_a_masked_entry_exists(
    tmp_path: Path,
) -> None:
    vault = fake_vault(tmp_path / "v.db")
    texts = [
        f"Ask Dr. Maria Lopez at 10.0.0.{i} about it" if i % 4 == 0 else f"plain {i}"
        for i in range(90)
    ]
    vault.note_many([{"text": text} for text in texts], caller=OWNER)
    conn, dim = vault.conn, vault.embedder.dim
    chunk_ids = [cid for (cid,) in conn.execute("SELECT id FROM chunks ORDER BY id")]
    loaded = {view: vector_codes.vectors_of(conn, chunk_ids, view, dim) for view in VIEWS}
    np.testing.assert_array_equal(loaded["plain"][0], loaded["masked"][0])
    masked_rows = conn.execute("SELECT count(*) FROM masked_chunks").fetchone()[0]
    assert masked_rows > 0
    differing = (loaded["plain"][1] != loaded["masked"][1]).any(axis=1)
    assert int(differing.sum()) == masked_rows
    # Each view's codes are its float32 vectors, to rounding.
    plain = index_reads.vectors_after(conn, 0, dim)
    np.testing.assert_allclose(loaded["plain"][1], plain[1], atol=0.01)
    for view in VIEWS:
        index = VectorIndex(dim, view)
        index.refresh(conn)
        assert len(index) == len(chunk_ids)
    vault.close()


def test_codes_round_trip_within_rounding() -> None:
    rng = np.random.default_rng(1)
    rows = rng.standard_normal((50, 384)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    values, scales = vector_codes.decode(vector_codes.encode(rows), 384)
    decoded = values.astype(np.float32) * scales[:, None]
    assert np.abs(decoded - rows).max() <= scales.max() / 2 + 1e-7  # half a step at most
    cosine = (decoded * rows).sum(axis=1) / np.linalg.norm(decoded, axis=1)
    assert cosine.min() > 0.9999


class DenseEmbedder(FakeEmbedder):
    """The fake embedder turned by a fixed rotation: the same cosines, but dense vectors
    as a real model's are (the fake's are mostly zeros, which have no sign to keep)."""

    name = "fake-dense"

    def __init__(self) -> None:
        super().__init__()
        rng = np.random.default_rng(5)
        self._turn = np.linalg.qr(rng.standard_normal((self.dim, self.dim)))[0].astype(np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return super().embed(texts) @ self._turn

    def embed_query(self, text: str) -> np.ndarray:
        return super().embed_query(text) @ self._turn


def test_the_quantised_search_ranks_as_an_exact_scan(tmp_path: Path) -> None:
    vault = fake_vault(tmp_path / "v.db", embedder=DenseEmbedder())
    words = "garden kitchen roof bees paint invoice travel doctor school recipe".split()
    rng = np.random.default_rng(3)
    notes = [{"text": " ".join(rng.choice(words, 6))} for _ in range(3000)]
    vault.note_many(notes, caller=OWNER)
    conn, dim = vault.conn, vault.embedder.dim
    index = VectorIndex(dim)
    index.refresh(conn)
    ids, matrix = index_reads.vectors_after(conn, 0, dim)
    found = 0
    for query in ("garden roof", "kitchen paint", "doctor school recipe", "bees travel"):
        vector = vault.embedder.embed_query(query)
        exact = matrix @ vector
        tenth = np.sort(exact)[-10]
        top = index.search(vector, 10, conn=conn)
        by_id = dict(zip(ids.tolist(), exact.tolist(), strict=True))
        found += sum(by_id[cid] >= tenth - 1e-6 for cid, _ in top)  # ties count as found
        for cid, score in top:
            assert abs(score - by_id[cid]) < 2e-3
    assert found / 40 >= 0.98
    vault.close()


def test_a_vault_written_before_codes_gets_them_on_the_first_search(tmp_path: Path) -> None:
    vault = fake_vault(tmp_path / "v.db")
    added = vault.note_many([{"text": f"note {i} about bees"} for i in range(30)], caller=OWNER)
    conn = vault.conn
    with write(conn):
        conn.execute("DELETE FROM chunk_codes")
    assert vector_codes.missing(conn) > 0
    hits = vault.search("bees", caller=OWNER).results
    assert hits and vector_codes.missing(conn) == 0
    vault.forget(added[0].doc_id, caller=OWNER)
    (left,) = conn.execute("SELECT count(*) FROM chunk_codes").fetchone()
    (chunks,) = conn.execute("SELECT count(*) FROM chunks").fetchone()
    assert left == chunks  # a deleted chunk's codes went with it
    vault.close()


def test_codes_are_counted_once_per_vault_not_in_every_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "v.db"
    vault = fake_vault(path)
    vault.note_many([{"text": f"note {i} about bees"} for i in range(5)], caller=OWNER)
    assert not vector_codes.known_complete(vault.conn)
    assert vault.search("bees", caller=OWNER).results  # counts once, finds none missing
    assert vector_codes.known_complete(vault.conn)
    vault.close()

    def counted(conn: object) -> int:
        raise AssertionError("the codes were counted again")

    monkeypatch.setattr(vector_codes, "missing", counted)
    again = fake_vault(path)
    assert again.search("bees", caller=OWNER).results
    again.close()


def _dense_vault(path: Path, notes: int):
    vault = fake_vault(path, embedder=DenseEmbedder())
    words = "garden kitchen roof bees paint invoice travel doctor school recipe".split()
    rng = np.random.default_rng(3)
    added = vault.note_many(
        [{"text": " ".join(rng.choice(words, 6))} for _ in range(notes)], caller=OWNER
    )
    return vault, added


QUERIES = ("garden roof", "kitchen paint", "doctor school recipe", "bees travel")


def test_codes_kept_in_memory_rank_as_codes_read_from_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, _ = _dense_vault(tmp_path / "v.db", 600)
    conn, dim = vault.conn, vault.embedder.dim
    held = VectorIndex(dim)
    held.refresh(conn)
    monkeypatch.setattr(vectors, "CODES_IN_MEMORY_BYTES", 0)
    read = VectorIndex(dim)
    read.refresh(conn)
    assert held.resident_bytes - read.resident_bytes == 600 * (dim + 4)
    for query in QUERIES:
        vector = vault.embedder.embed_query(query)
        for period in (None, (0, 2**62)):
            from_memory = held.search(vector, 10, period, conn=conn)
            from_file = read.search(vector, 10, period, conn=conn)
            assert [cid for cid, _ in from_memory] == [cid for cid, _ in from_file]
            np.testing.assert_allclose(
                [s for _, s in from_memory], [s for _, s in from_file], rtol=1e-6
            )
    vault.close()


def test_codes_leave_memory_when_the_vault_outgrows_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, _ = _dense_vault(tmp_path / "v.db", 200)
    conn, dim = vault.conn, vault.embedder.dim
    monkeypatch.setattr(vectors, "CODES_IN_MEMORY_BYTES", 300 * (dim + 4))
    index = VectorIndex(dim)
    index.refresh(conn)
    small = index.resident_bytes
    assert small > 200 * (dim + 4)
    vault.note_many([{"text": f"roof garden note {i}"} for i in range(150)], caller=OWNER)
    index.refresh(conn)
    assert index.resident_bytes < small  # 350 rows: only ids, dates and bits are left
    vector = vault.embedder.embed_query("roof garden")
    monkeypatch.setattr(vectors, "CODES_IN_MEMORY_BYTES", 0)
    read = VectorIndex(dim)
    read.refresh(conn)
    assert index.resident_bytes == read.resident_bytes
    assert index.search(vector, 10, conn=conn) == read.search(vector, 10, conn=conn)
    vault.close()


def test_rows_deleted_while_codes_are_in_memory_never_come_back(tmp_path: Path) -> None:
    vault, added = _dense_vault(tmp_path / "v.db", 300)
    conn, dim = vault.conn, vault.embedder.dim
    index = VectorIndex(dim)
    index.refresh(conn)
    vector = vault.embedder.embed_query("garden roof")
    for round_ in range(2):
        best = [cid for cid, _ in index.search(vector, 5, conn=conn)]
        doc_of = dict(
            conn.execute(
                "SELECT c.id, s.doc_id FROM chunks c JOIN sections s ON s.id = c.section_id"
            )
        )
        for cid in best[:2]:
            vault.forget(doc_of[cid], caller=OWNER)
        vault.note_many([{"text": f"garden roof {round_} {i}"} for i in range(3)], caller=OWNER)
        index.refresh(conn)
        assert len(index) == 300 + 3 * (round_ + 1)  # deleted rows wait for a reload
        found = [cid for cid, _ in index.search(vector, 20, conn=conn)]
        live = {cid for (cid,) in conn.execute("SELECT id FROM chunks")}
        assert set(found) <= live and not set(best[:2]) & set(found) and len(found) == 20
        new = {cid for (cid,) in conn.execute("SELECT id FROM chunks ORDER BY id DESC LIMIT 3")}
        assert new <= {cid for cid, _ in index.search(vector, 400, conn=conn)}
    vault.close()


def test_held_codes_grow_in_place_and_a_taken_view_does_not_change() -> None:
    held = vectors.HeldCodes(4)
    first = (np.ones((3, 4), dtype=np.int8), np.ones(3, dtype=np.float32))
    held.extend([first], limit=100)
    assert held.rows == 3 and held.nbytes == 3 * (4 + 4)  # a first load takes just its rows
    taken = held.rows_so_far()
    later = (np.full((2, 4), 7, dtype=np.int8), np.full(2, 2.0, dtype=np.float32))
    held.extend([later, later], limit=100)
    assert held.rows == 7 and len(taken[0]) == 3 and (taken[0] == 1).all()
    values, scales = held.rows_so_far()
    assert (
        values.tolist() == [[1] * 4] * 3 + [[7] * 4] * 4
        and scales.tolist() == [1.0] * 3 + [2.0] * 4
    )
    assert held.nbytes == 100 * (4 + 4)  # grown with room to spare, up to the limit
