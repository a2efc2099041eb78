"""Residual codes (m027): what each chunk's int8 code leaves out, coded again.

The vector leg ranks its shortlist by the int8 codes (`store.vector_codes`), whose cosine
is off by a few 1e-4. At a million windows the best ten and the next are often closer
than that, so the leg scores its best rows again with code plus residual, which is the
float32 vector to a few 1e-6 of cosine.

Why not the float32 vectors themselves: they sit in `vec0`'s blocks of 1,024 rows, and a
row read from there costs 100–300 µs (warm) to 1–3 ms (cold) at a million windows, even
through incremental blob I/O: SQLite walks the block's chain of overflow pages up to the
row's offset (a block of 1.5 MB is ~400 pages). A residual is an ordinary row of 388 bytes,
read in microseconds; at half the bytes of a float16 copy it is also the closer of the
two.

Residuals are written with their codes (`vector_codes.save`) and go with their chunk. A
vault written before m027 gets them from the background indexer (`fill_some`, a batch a
step); until then its search scores the rows without one by their code alone.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from privault.store import vector_codes
from privault.store.connection import Connection, in_batches, write
from privault.store.sync_state import meta_get, meta_set

COMPLETE_KEY = "vector_residuals_complete"  # meta: every code has its residual

# A view's code and its residual: a masked chunk is represented by its masked entry in the
# masked view, so both columns switch together (never a plain residual on a masked code).
_VIEW_COLUMNS = {
    "plain": "k.plain, r.plain",
    "masked": "coalesce(k.masked, k.plain),"
    " CASE WHEN k.masked IS NULL THEN r.plain ELSE r.masked END",
}


def refined_of(
    conn: Connection, chunk_ids: Sequence[int], view: str, dim: int
) -> tuple[np.ndarray, np.ndarray]:
    """(chunk ids found, float32 vectors: code plus residual) of these chunks in `view`.
    A chunk without a residual is left out (its code alone is what the caller has)."""
    found_ids: list[int] = []
    codes: list[bytes] = []
    rests: list[bytes] = []
    for batch, marks in in_batches(list(chunk_ids)):
        for chunk_id, code, rest in conn.execute(
            f"SELECT k.chunk_id, {_VIEW_COLUMNS[view]} FROM chunk_codes k"
            f" JOIN chunk_residuals r ON r.chunk_id = k.chunk_id WHERE k.chunk_id IN ({marks})",
            batch,
        ):
            if rest is not None:
                found_ids.append(int(chunk_id))
                codes.append(code)
                rests.append(rest)
    values, scales = vector_codes.decode(codes, dim)
    fine, fine_scales = vector_codes.decode(rests, dim)
    vectors = values.astype(np.float32) * scales[:, None]
    vectors += fine.astype(np.float32) * fine_scales[:, None]
    return np.asarray(found_ids, dtype=np.int64), vectors


def known_complete(conn: Connection) -> bool:
    """Whether this vault is known to hold a residual for every code (noted once)."""
    return vector_codes.known_complete(conn, COMPLETE_KEY)


def mark_complete(conn: Connection) -> None:
    """Note that every code has its residual; only if no writer holds the file."""
    vector_codes.mark_complete(conn, COMPLETE_KEY)


FILL_ROWS = 1_000  # residuals made per `fill_some` step (a vector read from vec0 by rowid
# costs 0.1-0.3 ms at a million windows: a step of well under a second)
PROGRESS_KEY = "vector_residuals_after"  # meta: the highest chunk id `fill_some` has passed


def missing(conn: Connection) -> bool:
    """Whether some code has no residual yet (written before m027)."""
    (found,) = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM chunk_codes k WHERE NOT EXISTS"
        " (SELECT 1 FROM chunk_residuals r WHERE r.chunk_id = k.chunk_id))"
    ).fetchone()
    return bool(found)


def fill_some(conn: Connection, rows: int | None = None) -> int | None:
    """Residuals for the next `rows` (FILL_ROWS) codes in chunk-id order that have none, from their
    float32 vectors (one transaction); None when none is left, which is then noted
    (`known_complete`). Resumes after the last chunk id a step passed."""
    after = int(meta_get(conn, PROGRESS_KEY) or 0)
    ids = [
        int(chunk_id)
        for (chunk_id,) in conn.execute(
            "SELECT k.chunk_id FROM chunk_codes k WHERE k.chunk_id > ? AND NOT EXISTS"
            " (SELECT 1 FROM chunk_residuals r WHERE r.chunk_id = k.chunk_id)"
            " ORDER BY k.chunk_id LIMIT ?",
            (after, FILL_ROWS if rows is None else rows),
        )
    ]
    with write(conn):
        if not ids:
            conn.execute("DELETE FROM meta WHERE key = ?", (PROGRESS_KEY,))
            meta_set(conn, COMPLETE_KEY, "1")
            return None
        plain = {}
        for chunk_id in ids:  # vec0 serves `rowid IN (...)` by a scan: one row at a time
            found = conn.execute(
                "SELECT embedding FROM chunks_vec WHERE rowid = ?", (chunk_id,)
            ).fetchone()
            if found is not None:
                plain[chunk_id] = found[0]
        done = _fill(conn, plain, len(next(iter(plain.values()))) // 4) if plain else 0
        meta_set(conn, PROGRESS_KEY, str(ids[-1]))
    return done


def _fill(conn: Connection, plain: dict[int, bytes], dim: int) -> int:
    """Residuals for the chunks of `plain` (id -> float32 vector) that have codes and no
    residual yet (a chunk deleted since it was read has no codes: it is passed over)."""
    done = 0
    for batch, marks in in_batches(sorted(plain)):
        found = conn.execute(
            "SELECT k.chunk_id, k.plain, k.masked, m.embedding FROM chunk_codes k"
            " LEFT JOIN masked_chunks m ON m.chunk_id = k.chunk_id AND length(m.embedding) > 0"
            f" WHERE k.chunk_id IN ({marks}) AND NOT EXISTS"
            " (SELECT 1 FROM chunk_residuals r WHERE r.chunk_id = k.chunk_id)",
            batch,
        ).fetchall()
        if not found:
            continue
        vectors = _matrix([plain[int(row[0])] for row in found], dim)
        rests: list[bytes | None] = list(vector_codes.residuals(vectors, [row[1] for row in found]))
        masked_rests: list[bytes | None] = [None] * len(found)
        both = [i for i, row in enumerate(found) if row[2] is not None and row[3] is not None]
        if both:
            masked = _matrix([found[i][3] for i in both], dim)
            codes = [found[i][2] for i in both]
            for i, rest in zip(both, vector_codes.residuals(masked, codes), strict=True):
                masked_rests[i] = rest
        conn.executemany(
            "INSERT INTO chunk_residuals (chunk_id, plain, masked) VALUES (?, ?, ?)",
            [(row[0], rests[i], masked_rests[i]) for i, row in enumerate(found)],
        )
        done += len(found)
    return done


def _matrix(blobs: Sequence[bytes], dim: int) -> np.ndarray:
    """float32 vectors stored as blobs, one row each."""
    return np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim)
