"""Strong codes (m029): each window's strong vectors as int8 codes, by chunk id.

Beyond `EXACT_ROWS` windows the strong leg (`retrieval.strong_vectors`) ranks a shortlist
read back from the file: up to 4,096 windows at a million. A strong vector is 3 KB found
through its digest (two lookups among large rows, 20–50 µs a window: 155 ms for 4,096 at
a million windows). Its int8 code (`vector_codes.encode`: 772 bytes) keyed by the chunk id
is one lookup (15 ms for the same 4,096). The leg ranks the shortlist by the codes'
cosine (off by a few 1e-4) and scores its best rows again from their float32 vectors, so
the top of the ranking is exact.

A chunk's codes are written with its strong row (`strong_index.store`) and go with it
(the table references `strong_chunks`); rows are never changed once written. A vault with
strong rows from before m029 gets their codes from the background indexer (`fill_some`, a
batch a step); until they are all there the leg reads vectors, as before.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import numpy as np

from privault.store import vector_codes
from privault.store.connection import Connection, in_batches, write
from privault.store.sync_state import meta_get, meta_set

COMPLETE_KEY = "strong_codes_complete"  # meta: every strong row has its codes
PROGRESS_KEY = "strong_codes_after"  # meta: the last chunk id a fill step passed
FILL_ROWS = 1000  # strong rows given codes per background step (~60 ms)

# A view's code: in the masked view a chunk with a masked entry is its masked code, or
# absent when it has none (as `strong_index` reads vectors).
_VIEW_CODE = {
    "plain": "SELECT c.chunk_id, c.plain FROM strong_codes c WHERE {where}",
    "masked": "SELECT c.chunk_id, CASE WHEN m.chunk_id IS NULL THEN c.plain ELSE c.masked END"
    " FROM strong_codes c LEFT JOIN masked_chunks m ON m.chunk_id = c.chunk_id WHERE {where}",
}

Row = tuple[int, bytes, bytes | None]  # chunk id, plain digest, masked digest
STREAM_ROWS = 16_384  # codes read per batch by `batches_after` (12 MB at 768 dimensions)


def _query(view: str) -> str:
    try:
        return _VIEW_CODE[view]
    except KeyError:
        raise ValueError(f"unknown index view {view!r}") from None


def save(conn: Connection, rows: Sequence[Row], vectors: Mapping[bytes, bytes]) -> int:
    """Codes for these strong rows whose `strong_chunks` row exists, inside the caller's
    transaction; a digest's vector comes from `vectors` (digest -> float32 bytes) or the
    file. Returns rows written."""
    before = conn.total_changes
    conn.executemany(
        "INSERT OR IGNORE INTO strong_codes (chunk_id, plain, masked)"
        " SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM strong_chunks WHERE chunk_id = ?)",
        [(cid, plain, masked, cid) for cid, plain, masked in _coded(conn, rows, vectors)],
    )
    return conn.total_changes - before


def _coded(
    conn: Connection, rows: Sequence[Row], vectors: Mapping[bytes, bytes]
) -> list[tuple[int, bytes, bytes | None]]:
    """(chunk id, plain code, masked code) of the rows whose vectors are known."""
    digests = {d for _, plain, masked in rows for d in (plain, masked) if d is not None}
    known = {d: vectors[d] for d in digests if d in vectors}
    wanted = [d for d in digests if d not in known]
    for batch, marks in in_batches(wanted):
        known.update(
            conn.execute(
                f"SELECT digest, embedding FROM strong_vectors WHERE digest IN ({marks})", batch
            ).fetchall()
        )
    if not known:
        return []
    order = list(known)
    matrix = np.frombuffer(b"".join(bytes(known[d]) for d in order), dtype=np.float32)
    codes = dict(zip(order, vector_codes.encode(matrix.reshape(len(order), -1)), strict=True))
    return [
        (cid, codes[plain], codes.get(masked) if masked is not None else None)
        for cid, plain, masked in rows
        if plain in codes
    ]


def vectors_of(
    conn: Connection, chunk_ids: Sequence[int], view: str, dim: int
) -> tuple[np.ndarray, np.ndarray]:
    """(chunk ids found, float32 vectors decoded from their codes) in one view."""
    query = _query(view)
    found: list[int] = []
    blobs: list[bytes] = []
    for batch, marks in in_batches(list(chunk_ids)):
        for chunk_id, blob in conn.execute(query.format(where=f"c.chunk_id IN ({marks})"), batch):
            if blob is not None:
                found.append(int(chunk_id))
                blobs.append(blob)
    values, scales = vector_codes.decode(blobs, dim)
    return np.asarray(found, dtype=np.int64), values.astype(np.float32) * scales[:, None]


def batches_after(
    conn: Connection, after_id: int, view: str, dim: int
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(chunk ids, float32 vectors decoded from their codes) of the chunks above
    `after_id` in one view, in id order, a batch at a time (a quarter of the bytes of
    `strong_index.batches_after`)."""
    cursor = conn.execute(
        _query(view).format(where="c.chunk_id > ? ORDER BY c.chunk_id"), (after_id,)
    )
    while batch := cursor.fetchmany(STREAM_ROWS):
        kept = [(chunk_id, blob) for chunk_id, blob in batch if blob is not None]
        values, scales = vector_codes.decode([blob for _, blob in kept], dim)
        ids = np.fromiter((chunk_id for chunk_id, _ in kept), np.int64, len(kept))
        yield ids, values.astype(np.float32) * scales[:, None]


def known_complete(conn: Connection) -> bool:
    """Whether every strong row is known to have its codes (noted by m029 or `fill_some`)."""
    return vector_codes.known_complete(conn, COMPLETE_KEY)


def fill_some(conn: Connection, rows: int | None = None) -> int | None:
    """Codes for the next `rows` (FILL_ROWS) strong rows in chunk-id order that have none,
    in one transaction; None when none is left, which is then noted (`known_complete`).
    Resumes after the last chunk id a step passed."""
    after = int(meta_get(conn, PROGRESS_KEY) or 0)
    found = conn.execute(
        "SELECT k.chunk_id, k.plain, k.masked FROM strong_chunks k WHERE k.chunk_id > ?"
        " AND NOT EXISTS (SELECT 1 FROM strong_codes c WHERE c.chunk_id = k.chunk_id)"
        " ORDER BY k.chunk_id LIMIT ?",
        (after, FILL_ROWS if rows is None else rows),
    ).fetchall()
    with write(conn):
        if not found:
            conn.execute("DELETE FROM meta WHERE key = ?", (PROGRESS_KEY,))
            meta_set(conn, COMPLETE_KEY, "1")
            return None
        done = save(conn, [(int(cid), plain, masked) for cid, plain, masked in found], {})
        meta_set(conn, PROGRESS_KEY, str(found[-1][0]))
    return done
