"""The vector leg of search: sign bits in memory, a shortlist re-scored from the file.

Embeddings live in the vault file: float32 in sqlite-vec's `vec0` table (durable, exact)
and, for search, an int8 code with a scale of its own per row (`store.vector_codes`). An
exact float32 scan of every vector in memory was the memory-bandwidth floor at 100k
sections (9 ms, 150 MB), but it grows with the vault: 1.5 GB and ~90 ms at a million.

So the index keeps only each row's sign bits in memory (48 bytes a row for 384
dimensions, 32 times less than float32) and searches in two stages: the Hamming distance
of every row's bits to the query's bits (xor and popcount over six words a row) picks a
shortlist of about `RESCORE_FACTOR` times the rows asked for (at least `RESCORE_MIN`), and
those rows' codes are read back from the file (an ordinary table, a few microseconds a
row) and scored by cosine. What comes back is the best `k` of the shortlist by that score.
The sign bits decide only who is re-scored, never the order.

The mirror is refreshed incrementally: chunk ids only grow (AUTOINCREMENT), so new rows
are those above the last id seen, and rows deleted since are dropped when results are
joined back to live chunks. One index may serve several connections to the same file (a
server's pool of readers): the change token is per connection (`data_version` and
`total_changes` count that connection's view only), so each connection's last token is
kept apart, weakly, and a connection whose token has not moved since its last refresh has
nothing new to load.

A `masked` index is the view gated callers search: a chunk that has a masked entry is
represented by that entry's code instead of its plain one. A chunk's entries never change
after it is written, so the same incremental refresh holds.
"""

from __future__ import annotations

import contextlib
import threading
import weakref

import numpy as np

from privault.store import index_reads, vector_codes
from privault.store.connection import Connection

_RELOAD_STALE_SHARE = 0.2  # reload whole when this share of the cache is deleted rows
# The shortlist re-scored from the codes: this many times the rows asked for, at least
# RESCORE_MIN (`benchmarks.perf --keep` reports recall@10 against an exact float32 scan).
RESCORE_FACTOR = 4
RESCORE_MIN = 1000


class ChangeTokens:
    """The change token each connection had at its last refresh of one mirror (weakly)."""

    def __init__(self) -> None:
        self._tokens: weakref.WeakKeyDictionary[Connection, tuple[int, int]] = (
            weakref.WeakKeyDictionary()
        )

    def unchanged(self, conn: Connection, token: tuple[int, int]) -> bool:
        """Whether `conn` saw this same token at its last refresh."""
        try:
            return self._tokens.get(conn) == token
        except TypeError:  # a driver connection without weak references: always look
            return False

    def remember(self, conn: Connection, token: tuple[int, int]) -> None:
        """Note the token `conn` has refreshed up to."""
        with contextlib.suppress(TypeError):
            self._tokens[conn] = token


class VectorIndex:
    """Cosine search over all chunk embeddings of one vault file (see the module docstring)."""

    def __init__(self, dim: int, view: str = "plain"):
        if view not in ("plain", "masked"):
            raise ValueError(f"unknown index view {view!r}")
        self.dim = dim
        self.view = view
        self._words = (dim + 63) // 64  # 64-bit words of sign bits a row
        self._ids = np.zeros(0, dtype=np.int64)
        # Sign bits word by word: row i's bits are _bits[:, i]. Each word's column is one
        # contiguous array, so the scan is six passes of xor and popcount over memory in
        # order (seven times faster than row by row at a million rows).
        self._bits = np.zeros((self._words, 0), dtype=np.uint64)
        self._created = np.zeros(0, dtype=np.int64)  # each row's document created_at (ms)
        self._max_id = 0
        self._checked = False  # codes of chunks written before they existed: made once
        self._tokens = ChangeTokens()  # per connection: (data_version, total_changes)
        self._lock = threading.Lock()
        self._last: tuple[bytes, np.ndarray, np.ndarray] | None = None  # query, bits, distances

    def __len__(self) -> int:
        return len(self._ids)

    @property
    def resident_bytes(self) -> int:
        """Bytes the mirror holds in memory (ids, dates and sign bits)."""
        return int(self._ids.nbytes + self._bits.nbytes + self._created.nbytes)

    def refresh(self, conn: Connection) -> None:
        """Load rows added since the last refresh; reload whole if many were deleted.

        Cheap when nothing changed: `PRAGMA data_version` moves when another connection
        commits and `total_changes` when this one writes, so an unchanged file costs two
        counters, not a query. Rows are streamed from the codes table in id order, a batch
        at a time, and only their sign bits are kept.
        """
        with self._lock:
            if not self._checked:
                if not vector_codes.known_complete(conn):
                    if vector_codes.missing(conn):
                        vector_codes.backfill(conn)
                    vector_codes.mark_complete(conn)
                self._checked = True
            token = index_reads.change_token(conn)
            if self._tokens.unchanged(conn, token):
                return
            live = index_reads.live_chunk_count(conn)
            if len(self._ids) - live > max(64, _RELOAD_STALE_SHARE * len(self._ids)):
                self._ids = np.zeros(0, dtype=np.int64)
                self._bits = np.zeros((self._words, 0), dtype=np.uint64)
                self._created = np.zeros(0, dtype=np.int64)
                self._max_id = 0
            ids, bits, dates = [self._ids], [self._bits], [self._created]
            for new_ids, values, new_dates in vector_codes.rows_after(
                conn, self._max_id, self.view, self.dim
            ):
                ids.append(new_ids)
                bits.append(np.ascontiguousarray(self._signs(values >= 0).T))
                dates.append(new_dates)
            self._tokens.remember(conn, token)
            if len(ids) == 1:
                return
            self._ids = np.concatenate(ids)
            self._bits = np.concatenate(bits, axis=1)
            self._created = np.concatenate(dates)
            self._max_id = int(self._ids[-1]) if len(self._ids) else self._max_id

    def _shortlist(self, distances: np.ndarray, size: int) -> np.ndarray:
        """Positions of about the `size` smallest distances: every row up to the distance
        where `size` is reached (a histogram of distances finds it in one pass, where a
        partial sort of a million rows costs ten times more), cut to `size` only when
        ties at that distance make it much larger."""
        if size >= len(distances):
            return np.arange(len(distances))
        counts = np.cumsum(np.bincount(distances, minlength=self.dim + 1))
        cut = int(np.searchsorted(counts, size))
        chosen = np.flatnonzero(distances <= cut)
        if len(chosen) > 2 * size:
            chosen = chosen[np.argpartition(distances[chosen], size)[:size]]
        return chosen

    def _signs(self, positive: np.ndarray) -> np.ndarray:
        """Rows of booleans packed into 64-bit words (zero-padded to whole words)."""
        packed = np.packbits(positive.reshape(-1, self.dim), axis=1)
        padded = np.zeros((len(packed), self._words * 8), dtype=np.uint8)
        padded[:, : packed.shape[1]] = packed
        return padded.view(np.uint64)

    def search(
        self,
        query: np.ndarray,
        k: int,
        period: tuple[int, int] | None = None,
        *,
        conn: Connection,
    ) -> list[tuple[int, float]]:
        """The `k` nearest chunk ids by cosine similarity, best first; with a `period`
        ([start, end) epoch ms), only chunks of documents created inside it. `conn` reads
        the shortlist's codes (any connection to this file).

        The distances of the last query are kept, so asking again for the same query with
        a period costs a mask, not a second scan.
        """
        with self._lock:
            ids, bits, created, last = self._ids, self._bits, self._created, self._last
        if not len(ids) or k <= 0:
            return []
        vector = query.astype(np.float32)
        key = vector.tobytes()
        if last is not None and last[0] == key and last[1] is bits:  # refresh makes new ones
            distances = last[2]
        else:
            words = self._signs(vector >= 0)[0]
            distances = np.bitwise_count(bits[0] ^ words[0]).astype(np.uint16)
            for word in range(1, self._words):
                distances += np.bitwise_count(bits[word] ^ words[word])
            self._last = (key, bits, distances)
        rows = np.arange(len(ids))
        if period is not None:
            rows = np.flatnonzero((created >= period[0]) & (created < period[1]))
        rows = rows[self._shortlist(distances[rows], max(k * RESCORE_FACTOR, RESCORE_MIN))]
        found, vectors = vector_codes.vectors_of(conn, ids[rows].tolist(), self.view, self.dim)
        if not len(found):
            return []
        scores = vectors @ vector
        # Cosine of unit vectors; the codes' own length differs from 1 by rounding only.
        scores /= np.maximum(np.linalg.norm(vectors, axis=1), 1e-12)
        top = np.argsort(-scores, kind="stable")[:k]
        return [(int(found[i]), float(scores[i])) for i in top]
