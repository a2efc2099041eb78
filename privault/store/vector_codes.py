"""Quantised index vectors (m019): int8 with a per-row scale, read back by chunk id.

A code is a float32 scale followed by `dim` int8 values: `vector ≈ values * scale`, with
the scale chosen so the row's largest component is ±127. On all-MiniLM-L6-v2 vectors the
cosine computed from codes differs from the float32 one by a few 1e-4, at a quarter of
the bytes. That is below the gap between most neighbours, not all: at a million windows
the tenth and eleventh best are often closer than that.

So each code has a residual (m027, `store.vector_residuals`): what the code leaves out,
coded again the same way. Code plus residual is the vector to a few 1e-6 of cosine (the
residual's step is 1/254 of the code's), and the vector leg scores its best rows with it.

The sign bits of the values are the first stage of the vector search
(`retrieval.vectors`); the codes re-score its shortlist, the residuals its best rows.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from privault.store.connection import Connection, in_batches, write, write_if_free

STREAM_ROWS = 20_000  # rows fetched at a time when loading (bounded memory while loading)
BACKFILL_ROWS = 5_000  # chunks given codes per transaction by `backfill`

_VIEW_COLUMN = {"plain": "k.plain", "masked": "coalesce(k.masked, k.plain)"}


def encode(vectors: np.ndarray) -> list[bytes]:
    """One code per row of `vectors` (float32, n x dim)."""
    rows = np.asarray(vectors, dtype=np.float32).reshape(len(vectors), -1)
    scale = np.maximum(np.abs(rows).max(axis=1), 1e-12) / 127.0
    values = np.rint(rows / scale[:, None]).astype(np.int8)
    scales = scale.astype(np.float32)
    return [scales[i : i + 1].tobytes() + values[i].tobytes() for i in range(len(rows))]


def residuals(rows: np.ndarray, codes: Sequence[bytes]) -> list[bytes]:
    """The residual code of each row of `rows` against its code (`codes`, from `encode`)."""
    values, scales = decode(codes, rows.shape[1])
    return encode(rows - values.astype(np.float32) * scales[:, None])


def decode(blob: bytes | Sequence[bytes], dim: int) -> tuple[np.ndarray, np.ndarray]:
    """(int8 values n x dim, float32 scales n) of codes (one code, or several)."""
    blobs = [blob] if isinstance(blob, bytes | bytearray | memoryview) else list(blob)
    if not blobs:
        return np.zeros((0, dim), dtype=np.int8), np.zeros(0, dtype=np.float32)
    raw = np.frombuffer(b"".join(bytes(b) for b in blobs), dtype=np.uint8)
    table = raw.reshape(len(blobs), 4 + dim)
    scales = table[:, :4].copy().view(np.float32).reshape(-1)
    return table[:, 4:].view(np.int8), scales


def save(
    conn: Connection, chunk_id: int, plain: np.ndarray, masked: np.ndarray | None = None
) -> None:
    """Store a chunk's codes and their residuals (inside the caller's write, with the
    chunk)."""
    rows = np.stack([plain] if masked is None else [plain, masked]).astype(np.float32)
    codes = encode(rows)
    rests = residuals(rows, codes)
    second = 1 if masked is not None else None
    conn.execute(
        "INSERT OR REPLACE INTO chunk_codes (chunk_id, plain, masked) VALUES (?, ?, ?)",
        (chunk_id, codes[0], None if second is None else codes[second]),
    )
    conn.execute(
        "INSERT OR REPLACE INTO chunk_residuals (chunk_id, plain, masked) VALUES (?, ?, ?)",
        (chunk_id, rests[0], None if second is None else rests[second]),
    )


def rows_after(
    conn: Connection, after_id: int, view: str, dim: int
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """(chunk ids, int8 values, scales, document dates) of the chunks above `after_id`
    that have codes, in id order, `STREAM_ROWS` at a time; the masked view takes a
    chunk's masked code where it has one."""
    cursor = conn.execute(
        f"SELECT k.chunk_id, d.created_at, {_VIEW_COLUMN[view]} FROM chunk_codes k"
        " JOIN chunks c ON c.id = k.chunk_id JOIN sections s ON s.id = c.section_id"
        " JOIN documents d ON d.id = s.doc_id WHERE k.chunk_id > ? ORDER BY k.chunk_id",
        (after_id,),
    )
    while batch := cursor.fetchmany(STREAM_ROWS):
        ids = np.fromiter((row[0] for row in batch), np.int64, len(batch))
        dates = np.fromiter((row[1] for row in batch), np.int64, len(batch))
        values, scales = decode([row[2] for row in batch], dim)
        yield ids, values, scales, dates


def vectors_of(
    conn: Connection, chunk_ids: Sequence[int], view: str, dim: int
) -> tuple[np.ndarray, np.ndarray]:
    """(chunk ids found, float32 vectors decoded from their codes) for these chunks."""
    found_ids: list[int] = []
    blobs: list[bytes] = []
    for batch, marks in in_batches(list(chunk_ids)):
        for chunk_id, blob in conn.execute(
            f"SELECT k.chunk_id, {_VIEW_COLUMN[view]} FROM chunk_codes k"
            f" WHERE k.chunk_id IN ({marks})",
            batch,
        ):
            found_ids.append(int(chunk_id))
            blobs.append(blob)
    values, scales = decode(blobs, dim)
    return np.asarray(found_ids, dtype=np.int64), values.astype(np.float32) * scales[:, None]


COMPLETE_KEY = "vector_codes_complete"  # meta: every chunk has its codes (see `known_complete`)


def known_complete(conn: Connection, key: str = COMPLETE_KEY) -> bool:
    """Whether this vault is known to hold codes for every embedded chunk (with another
    `key`: whatever else was noted complete the same way, e.g. the residuals of m027).

    Codes are written with their chunk (`save`, in `sections`), so once the chunks written
    before m019 have theirs, every later chunk has them too. Counting to find out reads the
    codes table and the masked vectors whole (over a second at 450,000 sections), and the
    vector index would do it at the start of every process: it is done once, then noted."""
    found = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return found is not None


def mark_complete(conn: Connection, key: str = COMPLETE_KEY) -> None:
    """Note that every embedded chunk has its codes (after `missing` found none). Only if
    no writer holds the file: a search never waits for this (another process notes it)."""
    with write_if_free(conn) as free:
        if free:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, '1') ON CONFLICT (key) DO NOTHING",
                (key,),
            )


def missing(conn: Connection) -> int:
    """How many embedded chunks have no codes yet (written before m019), counted."""
    (count,) = conn.execute(
        "SELECT count(*) FROM masked_chunks m WHERE length(m.embedding) > 0"
        " AND NOT EXISTS (SELECT 1 FROM chunk_codes k WHERE k.chunk_id = m.chunk_id)"
    ).fetchone()
    (plain,) = conn.execute(
        "SELECT (SELECT count(*) FROM chunks_vec) - (SELECT count(*) FROM chunk_codes)"
    ).fetchone()
    return int(count) + max(int(plain), 0)


def backfill(conn: Connection) -> int:
    """Give every embedded chunk without codes its codes, a batch per transaction;
    returns how many were written."""
    done = 0
    while True:
        with write(conn):
            pairs = conn.execute(
                "SELECT v.rowid, v.embedding, m.embedding FROM chunks_vec v"
                " LEFT JOIN masked_chunks m ON m.chunk_id = v.rowid AND length(m.embedding) > 0"
                " WHERE v.rowid IN (SELECT c.id FROM chunks c WHERE NOT EXISTS"
                " (SELECT 1 FROM chunk_codes k WHERE k.chunk_id = c.id)) LIMIT ?",
                (BACKFILL_ROWS,),
            ).fetchall()
            for chunk_id, plain, masked in pairs:
                save(
                    conn,
                    int(chunk_id),
                    np.frombuffer(plain, dtype=np.float32),
                    np.frombuffer(masked, dtype=np.float32) if masked else None,
                )
        done += len(pairs)
        if len(pairs) < BACKFILL_ROWS:
            return done
