"""The vector leg's best rows are scored with code plus residual: the float32 order."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from privault.caller import Caller
from privault.retrieval import vectors
from privault.retrieval.embedder import FakeEmbedder
from privault.retrieval.vectors import VectorIndex
from privault.store import index_reads, vector_codes, vector_residuals
from privault.store.connection import write
from tests.helpers import fake_vault

OWNER = Caller.owner()
DIM = 384
ROWS = 400
TURN = 0.3  # how far each vector is turned from the common direction
KEY = "a passphrase for the residual tests"


class NearTieEmbedder(FakeEmbedder):
    """Note `row N` is the N-th of `ROWS` unit vectors around one direction, each turned
    by a small random amount; the query lies among them. The best twenty differ by 2.6e-5
    to a few 1e-4 of cosine in turn: int8 rounding (~5e-4 here) reorders them, the
    residual's (~1e-6) does not.
    A note naming someone, with the name masked out, is embedded with a turn of its own
    (the masked vector)."""

    name = "fake-near-tie"

    def __init__(self) -> None:
        super().__init__(DIM)
        rng = np.random.default_rng(23)
        base = rng.standard_normal(DIM)
        base /= np.linalg.norm(base)
        rows = base + TURN * rng.standard_normal((ROWS, DIM)) / np.sqrt(DIM)
        self.rows = (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)
        masked = base + TURN * rng.standard_normal((ROWS, DIM)) / np.sqrt(DIM)
        self.masked = (masked / np.linalg.norm(masked, axis=1, keepdims=True)).astype(np.float32)
        query = base + TURN * rng.standard_normal(DIM) / np.sqrt(DIM)
        self.query = (query / np.linalg.norm(query)).astype(np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        out = []
        for text in texts:
            number = int(re.search(r"row (\d+)", text).group(1))  # type: ignore[union-attr]
            masked = "wrote" in text and "Maria" not in text  # the name masked out
            out.append(self.masked[number] if masked else self.rows[number])
        return np.stack(out)

    def embed_query(self, text: str) -> np.ndarray:
        return self.query


def _filled(path: Path, **settings: object):  # type: ignore[no-untyped-def]
    embedder = NearTieEmbedder()
    vault = fake_vault(path, embedder=embedder, **settings)
    notes = [{"text": f"row {i}"} for i in range(ROWS)]
    added = vault.note_many(notes, caller=OWNER)
    return vault, embedder, added


def _exact_order(conn, query: np.ndarray, count: int) -> list[int]:  # type: ignore[no-untyped-def]
    ids, matrix = index_reads.vectors_after(conn, 0, DIM)
    scores = matrix.astype(np.float64) @ query.astype(np.float64)
    order = np.argsort(-scores)[: count + 1]
    gaps = -np.diff(scores[order])
    assert gaps.min() > 3e-6  # the order is well defined at the residual's precision
    return ids[order[:count]].tolist()


def test_the_best_rows_come_back_in_the_exact_float32_order(tmp_path: Path) -> None:
    vault, embedder, _ = _filled(tmp_path / "v.db")
    conn = vault.conn
    index = VectorIndex(DIM)
    index.refresh(conn)
    exact = _exact_order(conn, embedder.query, 20)
    assert [cid for cid, _ in index.search(embedder.query, 20, conn=conn)] == exact
    assert [cid for cid, _ in index.search(embedder.query, 240, conn=conn)][:20] == exact
    vault.close()


def test_codes_alone_would_not_give_that_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The set-up is one where int8 rounding reorders the best rows (else the test above
    could not fail)."""
    vault, embedder, _ = _filled(tmp_path / "v.db")
    monkeypatch.setattr(vectors, "EXACT_RESCORE", 0)
    index = VectorIndex(DIM)
    index.refresh(vault.conn)
    found = [cid for cid, _ in index.search(embedder.query, 20, conn=vault.conn)]
    assert found != _exact_order(vault.conn, embedder.query, 20)
    vault.close()


def test_scores_of_the_best_rows_are_their_float32_cosines(tmp_path: Path) -> None:
    vault, embedder, _ = _filled(tmp_path / "v.db")
    conn = vault.conn
    ids, matrix = index_reads.vectors_after(conn, 0, DIM)
    exact = dict(zip(ids.tolist(), (matrix @ embedder.query).tolist(), strict=True))
    index = VectorIndex(DIM)
    index.refresh(conn)
    found = index.search(embedder.query, 100, conn=conn)
    for cid, score in found[:20]:  # among the best EXACT_RESCORE by code
        assert abs(score - exact[cid]) < 3e-6
    assert max(abs(score - exact[cid]) for cid, score in found) < 2e-3  # codes only below
    vault.close()


def test_an_encrypted_vault_ranks_the_same(tmp_path: Path) -> None:
    plain_vault, embedder, _ = _filled(tmp_path / "plain.db")
    secret_vault, _, _ = _filled(tmp_path / "secret.db", key=KEY)
    assert b"SQLite format 3" not in (tmp_path / "secret.db").read_bytes()[:16]
    ranked = {}
    for name, vault in (("plain", plain_vault), ("secret", secret_vault)):
        index = VectorIndex(DIM)
        index.refresh(vault.conn)
        ranked[name] = [cid for cid, _ in index.search(embedder.query, 20, conn=vault.conn)]
    assert (
        ranked["secret"] == ranked["plain"] == _exact_order(secret_vault.conn, embedder.query, 20)
    )
    plain_vault.close()
    secret_vault.close()


@pytest.mark.parametrize("codes_in_memory", [True, False])
def test_deleted_rows_take_their_residuals_and_never_come_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, codes_in_memory: bool
) -> None:
    if not codes_in_memory:
        monkeypatch.setattr(vectors, "CODES_IN_MEMORY_BYTES", 0)
    vault, embedder, added = _filled(tmp_path / "v.db")
    conn = vault.conn
    index = VectorIndex(DIM)
    index.refresh(conn)
    best = [cid for cid, _ in index.search(embedder.query, 5, conn=conn)]
    doc_of = dict(
        conn.execute(
            "SELECT c.id, s.doc_id FROM chunks c JOIN sections s ON s.id = c.section_id"
        ).fetchall()
    )
    for cid in best[:3]:
        vault.forget(doc_of[cid], caller=OWNER)
    (left,) = conn.execute("SELECT count(*) FROM chunk_residuals").fetchone()
    (chunks,) = conn.execute("SELECT count(*) FROM chunks").fetchone()
    assert left == chunks == ROWS - 3
    index.refresh(conn)
    found = [cid for cid, _ in index.search(embedder.query, 20, conn=conn)]
    live = {cid for (cid,) in conn.execute("SELECT id FROM chunks")}
    # Deleted rows stay in the mirror until its next whole reload but are never returned
    # (codes in memory: masked out; else: dropped where their codes are read back).
    assert set(found) <= live and len(found) == 20
    assert found == _exact_order(conn, embedder.query, 20)
    assert not set(best[:3]) & set(vector_residuals.refined_of(conn, best, "plain", DIM)[0])
    vault.close()


def test_a_vault_without_residuals_gets_them_from_the_indexer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A vault indexed before m027 searches at once (rows score by their codes) and the
    background indexer fills the residuals, a batch a step, with the bytes written with
    each chunk."""
    vault, embedder, _ = _filled(tmp_path / "v.db", key=KEY)
    conn = vault.conn
    written = dict(conn.execute("SELECT chunk_id, plain FROM chunk_residuals").fetchall())
    with write(conn):
        conn.execute("DELETE FROM chunk_residuals")
        conn.execute("DELETE FROM meta WHERE key = ?", (vector_residuals.COMPLETE_KEY,))
    assert vault.indexing.has_work()
    assert vault.search("probe", caller=OWNER).results  # no residuals: not blocked on them
    assert vector_residuals.missing(conn)  # the search made none
    monkeypatch.setattr(vector_residuals, "FILL_ROWS", 150)
    stages = []
    while not (step := vault.indexing.step(caller=OWNER)).idle:
        stages.append((step.stage, step.done))
    assert stages == [("residual codes of older windows", 0)] * 3  # 400 rows, 150 a step
    assert not vector_residuals.missing(conn) and vector_residuals.known_complete(conn)
    assert not vault.indexing.has_work()
    again = dict(conn.execute("SELECT chunk_id, plain FROM chunk_residuals").fetchall())
    assert again == written
    found = vault.vectors.search(embedder.query, 20, conn=conn)
    assert [cid for cid, _ in found] == _exact_order(conn, embedder.query, 20)
    vault.close()


def test_the_fill_passes_over_a_chunk_deleted_since_it_was_read(tmp_path: Path) -> None:
    vault, _, added = _filled(tmp_path / "v.db")
    conn = vault.conn
    with write(conn):
        conn.execute("DELETE FROM chunk_residuals")
    gone = conn.execute("SELECT max(id) FROM chunks").fetchone()[0]
    vector = conn.execute("SELECT embedding FROM chunks_vec WHERE rowid = ?", (gone,)).fetchone()
    with write(conn):
        conn.execute("DELETE FROM chunks WHERE id = ?", (gone,))
        assert vector_residuals._fill(conn, {gone: vector[0]}, DIM) == 0
    filled = []
    while (done := vector_residuals.fill_some(conn, 64)) is not None:
        filled.append(done)
    assert sum(filled) == ROWS - 1 and max(filled) == 64
    vault.close()


def test_a_new_vault_starts_with_its_residuals_complete(tmp_path: Path) -> None:
    with fake_vault(tmp_path / "v.db") as vault:
        assert vector_residuals.known_complete(vault.conn)
        assert not vault.indexing.has_work()
        vault.note("row 1", caller=OWNER)
        assert not vault.indexing.has_work()


def test_the_masked_view_uses_its_own_residuals(tmp_path: Path) -> None:
    embedder = NearTieEmbedder()
    vault = fake_vault(tmp_path / "v.db", embedder=embedder)
    notes = [
        {"text": f"Mrs. Maria Lopez wrote row {i}" if i % 3 == 0 else f"row {i}"} for i in range(60)
    ]
    vault.note_many(notes, caller=OWNER)
    conn = vault.conn
    masked = dict(
        conn.execute("SELECT chunk_id, embedding FROM masked_chunks WHERE length(embedding)")
    )
    assert masked
    ids, plain = index_reads.vectors_after(conn, 0, DIM)
    truth = {
        "plain": dict(zip(ids.tolist(), plain, strict=True)),
        "masked": {
            cid: np.frombuffer(masked[cid], dtype=np.float32) if cid in masked else row
            for cid, row in zip(ids.tolist(), plain, strict=True)
        },
    }
    for view, vectors_of_view in truth.items():
        found, refined = vector_residuals.refined_of(conn, ids.tolist(), view, DIM)
        assert sorted(found.tolist()) == sorted(ids.tolist())
        for cid, vector in zip(found.tolist(), refined, strict=True):
            assert np.abs(vector - vectors_of_view[cid]).max() < 1e-5
    # A masked code whose masked residual is missing is left out, not given the plain one.
    some = next(iter(masked))
    with write(conn):
        conn.execute("UPDATE chunk_residuals SET masked = NULL WHERE chunk_id = ?", (some,))
    assert some not in vector_residuals.refined_of(conn, [some], "masked", DIM)[0].tolist()
    assert some in vector_residuals.refined_of(conn, [some], "plain", DIM)[0].tolist()
    vault.close()


def test_code_plus_residual_is_the_vector_to_a_few_millionths() -> None:
    rng = np.random.default_rng(1)
    rows = rng.standard_normal((50, DIM)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    codes = vector_codes.encode(rows)
    values, scales = vector_codes.decode(codes, DIM)
    fine, fine_scales = vector_codes.decode(vector_codes.residuals(rows, codes), DIM)
    both = (
        values.astype(np.float32) * scales[:, None] + fine.astype(np.float32) * fine_scales[:, None]
    )
    assert np.abs(both - rows).max() <= fine_scales.max() / 2 + 1e-7
    assert fine_scales.max() <= scales.max() / 254 + 1e-9  # a residual is at most half a step
    assert np.abs((both * rows).sum(axis=1) - 1).max() < 5e-6


def test_the_sign_stage_is_the_query_summed_under_each_rows_signs() -> None:
    rng = np.random.default_rng(2)
    rows = rng.standard_normal((30, DIM)).astype(np.float32)
    centre = rows.mean(axis=0)
    bits = np.ascontiguousarray(vectors.pack_signs(rows >= centre, DIM).T)
    query = rng.standard_normal(DIM).astype(np.float32) - centre
    picked = np.array([3, 0, 17, 29])
    expected = np.where(rows[picked] >= centre, 1.0, -1.0) @ query
    np.testing.assert_allclose(vectors.sign_scores(bits, picked, query), expected, rtol=1e-5)


@pytest.mark.real
def test_the_real_embedder_gets_the_exact_order_through_every_stage(
    tmp_path: Path, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MiniLM on near-duplicate notes, with a shortlist small enough that the sign stages
    narrow 400 rows to 60 before the codes are read."""
    from privault.vault.embedding import default_embedder

    embedder = default_embedder(models_dir)
    vault = fake_vault(tmp_path / "v.db", embedder=embedder)  # type: ignore[arg-type]
    people = "Anna Ben Carla Dmitri Esme Farid Greta Hugo".split()
    topics = "the roof repair|the school trip|the tax return|the garden shed|a flu jab".split("|")
    days = "Monday Tuesday Wednesday Thursday Friday".split()
    notes = [
        {"text": f"Meeting with {person} about {topic} on {day}, room {room}."}
        for person in people
        for topic in topics
        for day in days
        for room in (1, 2)
    ]
    vault.note_many(notes, caller=OWNER)
    conn, dim = vault.conn, embedder.dim
    monkeypatch.setattr(vectors, "RESCORE_MIN", 60)
    index = VectorIndex(dim)
    index.refresh(conn)
    assert len(index) == len(notes) == 400
    ids, matrix = index_reads.vectors_after(conn, 0, dim)
    for query in ("when do I see Carla about the roof", "flu jab on Friday", "tax with Hugo"):
        vector = embedder.embed_query(query)
        scores = matrix.astype(np.float64) @ vector.astype(np.float64)
        order = np.argsort(-scores)
        ranked = [cid for cid, _ in index.search(vector, 10, conn=conn)]
        assert (-np.diff(scores[order[:11]])).min() > 3e-6  # an order to get right
        assert ranked == ids[order[:10]].tolist()  # (codes alone get it wrong here)
    vault.close()


def test_the_centre_is_taken_again_while_the_index_grows_fourfold(tmp_path: Path) -> None:
    vault, embedder, _ = _filled(tmp_path / "v.db")  # 400 rows
    conn = vault.conn
    index = VectorIndex(DIM)
    index.refresh(conn)
    ids, matrix = index_reads.vectors_after(conn, 0, DIM)
    assert index._centre_rows == ROWS
    np.testing.assert_allclose(index._centre, matrix.mean(axis=0), atol=2e-3)  # from codes
    more = [{"text": f"row {i % ROWS}, copy {i}"} for i in range(3 * ROWS - 1)]
    vault.note_many(more, caller=OWNER)
    index.refresh(conn)
    assert index._centre_rows == ROWS  # not yet four times as many
    vault.note_many([{"text": "row 5, the last copy"}], caller=OWNER)
    index.refresh(conn)
    assert index._centre_rows == len(index) == 4 * ROWS
    ids, matrix = index_reads.vectors_after(conn, 0, DIM)
    best = dict(zip(ids.tolist(), (matrix @ embedder.query).tolist(), strict=True))
    found = index.search(embedder.query, 4, conn=conn)  # the best row and its three copies
    assert all(abs(best[cid] - max(best.values())) < 3e-6 for cid, _ in found)
    vault.close()


def test_a_period_keeps_the_exact_order_among_its_own_rows(tmp_path: Path) -> None:
    embedder = NearTieEmbedder()
    vault = fake_vault(tmp_path / "v.db", embedder=embedder)
    notes = [{"text": f"row {i}", "created_at": 1_000 * (i % 4)} for i in range(ROWS)]
    vault.note_many(notes, caller=OWNER)
    conn = vault.conn
    index = VectorIndex(DIM)
    index.refresh(conn)
    ids, matrix = index_reads.vectors_after(conn, 0, DIM)
    created = dict(
        conn.execute(
            "SELECT c.id, d.created_at FROM chunks c JOIN sections s ON s.id = c.section_id"
            " JOIN documents d ON d.id = s.doc_id"
        ).fetchall()
    )
    inside = np.array([1_000 <= created[int(cid)] < 2_000 for cid in ids])
    assert 0 < inside.sum() < len(ids)
    scores = matrix[inside] @ embedder.query
    expected = ids[inside][np.argsort(-scores)[:10]].tolist()
    found = index.search(embedder.query, 10, (1_000, 2_000), conn=conn)
    assert [cid for cid, _ in found] == expected
    vault.close()


def test_the_sign_stage_reads_dimensions_that_do_not_fill_whole_words() -> None:
    rng = np.random.default_rng(4)
    rows = rng.standard_normal((12, 20)).astype(np.float32)  # one 64-bit word, 44 of padding
    bits = np.ascontiguousarray(vectors.pack_signs(rows >= 0, 20).T)
    query = rng.standard_normal(20).astype(np.float32)
    expected = np.where(rows >= 0, 1.0, -1.0) @ query
    np.testing.assert_allclose(vectors.sign_scores(bits, np.arange(12), query), expected, rtol=1e-5)
