"""The strong leg's int8 codes (m029): written with each strong row, in both views, gone
with the row, and made by the background indexer for rows written before they existed."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from privault import Caller
from privault.store import strong_codes, strong_index, vector_codes
from privault.store.connection import Connection, write
from tests.helpers import fake_vault

OWNER = Caller.owner()
DIM = 64


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    rows = rng.standard_normal((n, DIM)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _digest(row: np.ndarray) -> bytes:
    return hashlib.sha256(row.tobytes()).digest()


def _chunk_ids(conn: Connection) -> list[int]:
    return [cid for (cid,) in conn.execute("SELECT id FROM chunks ORDER BY id")]


def _codes(conn: Connection) -> dict[int, tuple[bytes, bytes | None]]:
    rows = conn.execute("SELECT chunk_id, plain, masked FROM strong_codes").fetchall()
    return {cid: (plain, masked) for cid, plain, masked in rows}


def _store_plain(conn: Connection, seed: int) -> None:
    """A plain strong row for every window, as the pass writes them."""
    ids = _chunk_ids(conn)
    rows = _unit(np.random.default_rng(seed), len(ids))
    strong_index.store(
        conn,
        {_digest(r): r.tobytes() for r in rows},
        [(cid, _digest(r), None) for cid, r in zip(ids, rows, strict=True)],
    )


def test_codes_are_written_with_the_strong_rows_and_decode_to_their_vectors(
    tmp_path: Path,
) -> None:
    with fake_vault(tmp_path / "v.db") as vault:
        vault.note_many([{"text": f"Note {i}"} for i in range(40)], caller=OWNER)
        conn = vault.conn
        assert strong_codes.known_complete(conn)  # no strong rows when m029 ran
        ids = _chunk_ids(conn)
        rows = _unit(np.random.default_rng(1), len(ids))
        first = {_digest(row): row.tobytes() for row in rows[:30]}
        pairs = [(cid, _digest(row), None) for cid, row in zip(ids[:30], rows[:30], strict=True)]
        strong_index.store(conn, first, pairs)
        assert len(_codes(conn)) == 30
        # A row whose vector is already stored (the same text elsewhere) gets its code too,
        # read from the file.
        strong_index.store(conn, {}, [(ids[35], _digest(rows[0]), None)])
        found, decoded = strong_codes.vectors_of(conn, [ids[0], ids[35], ids[39]], "plain", DIM)
        assert found.tolist() == [ids[0], ids[35]]  # the last has no strong row
        cosine = decoded @ rows[0] / np.linalg.norm(decoded, axis=1)
        assert (cosine > 0.9999).all()


def test_the_masked_view_takes_a_masked_windows_masked_code_or_nothing(tmp_path: Path) -> None:
    with fake_vault(tmp_path / "v.db") as vault:
        vault.note("Write to anna@example.com about the roof", caller=OWNER)
        vault.note("The roof needs new tiles", caller=OWNER)
        vault.note("Ring 555-12-3456 about the tiles", caller=OWNER)
        conn = vault.conn
        ids = _chunk_ids(conn)
        masked = {cid for (cid,) in conn.execute("SELECT chunk_id FROM masked_chunks")}
        assert masked and set(ids) - masked  # some windows hold a masked value, some not
        plain_rows, masked_rows = _unit(np.random.default_rng(2), len(ids) * 2).reshape(2, -1, DIM)
        with_masked = min(masked)
        vectors = {_digest(r): r.tobytes() for r in (*plain_rows, masked_rows[0])}
        strong_index.store(
            conn,
            vectors,
            [
                (cid, _digest(p), _digest(masked_rows[0]) if cid == with_masked else None)
                for cid, p in zip(ids, plain_rows, strict=True)
            ],
        )
        plain_found, plain_codes = strong_codes.vectors_of(conn, ids, "plain", DIM)
        assert plain_found.tolist() == ids
        gated_found, gated_codes = strong_codes.vectors_of(conn, ids, "masked", DIM)
        # A masked window without a masked vector is absent for gated callers, as its
        # vectors are (`strong_index.vectors_of`).
        assert gated_found.tolist() == [
            cid for cid, _ in strong_index.vectors_of(conn, ids, "masked")
        ]
        assert with_masked in gated_found.tolist()
        at = gated_found.tolist().index(with_masked)
        assert gated_codes[at] @ masked_rows[0] / np.linalg.norm(gated_codes[at]) > 0.9999
        for cid in set(masked) - {with_masked}:
            assert cid not in gated_found.tolist()


def test_codes_go_with_their_chunk_and_with_another_models_rows(tmp_path: Path) -> None:
    with fake_vault(tmp_path / "v.db") as vault:
        added = vault.note_many([{"text": f"Note {i}"} for i in range(10)], caller=OWNER)
        conn = vault.conn
        strong_index.claim(conn, "model-a")
        _store_plain(conn, seed=3)
        vault.forget(added[0].doc_id, caller=OWNER)
        left = {cid for (cid,) in conn.execute("SELECT id FROM chunks")}
        assert set(_codes(conn)) == left
        strong_index.claim(conn, "model-b")  # another model's vectors are not comparable
        assert _codes(conn) == {}


def test_rows_written_before_the_codes_get_them_from_the_indexer(tmp_path: Path) -> None:
    with fake_vault(tmp_path / "v.db") as vault:
        vault.note_many([{"text": f"Note {i}"} for i in range(25)], caller=OWNER)
        conn = vault.conn
        _store_plain(conn, seed=4)
        expected = _codes(conn)
        with write(conn):  # as a vault whose strong rows were written before m029
            conn.execute("DELETE FROM strong_codes")
            conn.execute("DELETE FROM meta WHERE key = ?", (strong_codes.COMPLETE_KEY,))
        assert not strong_codes.known_complete(conn)
        assert vault.indexing.has_work()
        assert strong_codes.fill_some(conn, rows=10) == 10
        assert strong_codes.fill_some(conn, rows=10) == 10  # resumes after the first ten
        steps = []
        while not (step := vault.indexing.step(caller=OWNER)).idle:
            steps.append(step.stage)
        assert steps == ["strong codes of older windows"]  # the last five; then noted
        assert strong_codes.known_complete(conn)
        assert _codes(conn) == expected  # the same bytes as written with the rows
        assert not vault.indexing.has_work()
        assert vector_codes.known_complete(conn, strong_codes.COMPLETE_KEY)
