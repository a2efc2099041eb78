"""The vector leg of search: sign bits in memory, a shortlist re-scored from the file.

Embeddings live in the vault file: float32 in sqlite-vec's `vec0` table (durable, exact)
and, for search, an int8 code with a scale of its own per row plus that code's residual
(`store.vector_codes`, `store.vector_residuals`). An exact float32 scan of every vector
in memory was the memory-bandwidth floor at 100k sections (9 ms, 150 MB), but it grows
with the vault: 1.5 GB and ~90 ms at a million.

So the index keeps only each row's sign bits in memory (48 bytes a row for 384
dimensions, 32 times less than float32) and searches in four stages, each on fewer rows
and more exact than the one before:

1. the Hamming distance of every row's bits to the query's (xor and popcount over six
   words a row) keeps `SIGN_FACTOR` times the shortlist;
2. those rows are ranked by the query's own values summed under their bits' signs (an
   asymmetric estimate: only the stored side is reduced to signs; a table of 256 sums
   per byte makes it 48 lookups a row), which keeps the shortlist: about
   `RESCORE_FACTOR` times the rows asked for, at least `RESCORE_MIN`;
3. the shortlist's int8 codes are read back from the file (an ordinary table, a few
   microseconds a row) and scored by cosine (off by a few 1e-4); while a view's codes
   fit in `CODES_IN_MEMORY_BYTES` they are kept in memory beside the bits instead;
4. the best `EXACT_RESCORE` of them are scored again with code plus residual (off by a
   few 1e-6), so the order of the top rows is the float32 order: near-ties at rank ten
   are common at a million windows.

The bits are the signs of each vector minus the centre of the view's vectors (their
mean, taken from the first rows loaded): sentence embeddings share a large common
direction, and signs taken around it split the rows far more evenly (at 963k sections:
the exact ten best inside a 1,000-row Hamming shortlist 94% of the time raw, 96%
centred, 99% after stage 2). Scores are always those of the stored vectors themselves:
the centre decides only which rows are re-scored, never their order. It is taken again
(a whole reload) while the index is small and grows fourfold, so a vault that started
empty does not keep the centre of its first few notes.

The mirror is refreshed incrementally: chunk ids only grow (AUTOINCREMENT), so new rows
are those above the last id seen, and rows deleted since are dropped when the shortlist's
codes are read back (with codes in memory: by a mask of the live rows, taken again when
the count of deleted rows moves). One index may serve several connections to the same
file (a server's pool of readers): the change token is per connection (`data_version`
and `total_changes` count that connection's view only), so each connection's last token
is kept apart, weakly, and a connection whose token has not moved since its last refresh
has nothing new to load.

A `masked` index is the view gated callers search: a chunk that has a masked entry is
represented by that entry's code (and residual) instead of its plain one, and the centre
is that of the view's own rows. A chunk's entries never change after it is written, so
the same incremental refresh holds.
"""

from __future__ import annotations

import contextlib
import ctypes
import threading
import weakref

import numpy as np

from privault.store import index_reads, vector_codes, vector_residuals
from privault.store.connection import Connection

_RELOAD_STALE_SHARE = 0.2  # reload whole when this share of the cache is deleted rows
# The shortlist re-scored from the codes: this many times the rows asked for, at least
# RESCORE_MIN (`benchmarks.perf --recall` reports recall@10 against an exact float32 scan).
RESCORE_FACTOR = 4
RESCORE_MIN = 1000
SIGN_FACTOR = 4  # stage 1 keeps this many times the shortlist for stage 2
EXACT_RESCORE = 32  # the best rows by code scored again with their residuals (~10 µs a row)
# While a view's int8 codes take at most this many bytes (about 170,000 rows of 384
# dimensions), the mirror keeps them in memory too: stage 3 gathers its rows instead of
# reading them back from the file (4.2 of a 6.7 ms vector leg at 116k sections). Beyond,
# the codes are dropped and read from the file, so memory stays flat as the vault grows.
CODES_IN_MEMORY_BYTES = 64 * 2**20
CENTRE_ROWS = vector_codes.STREAM_ROWS  # a centre taken from this many rows is kept
CENTRE_REGROW = 4  # a centre from fewer is taken again when the rows grow this many times
# Each byte value's eight bits as signs (+1 set, -1 clear), first bit highest: the order
# in which `np.packbits` packs a row's dimensions.
_BYTE_SIGNS = (
    np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.float32) * 2 - 1
)


# After loading this many rows, the C heap's free space goes back to the system: a load
# streams a small bytes object per row, and the heap keeps what they freed (at 963k
# sections the warm searcher held 393 MB after five searches; 363 MB with a trim after the
# load. A trim after the searches too would give 273 MB: numpy's temporaries of a search
# land in the heap once glibc has raised its mmap threshold, and are reused there).
TRIM_AFTER_ROWS = 65_536


def give_back_free_memory() -> None:
    """Return the C heap's free pages to the system (glibc's `malloc_trim`; elsewhere
    nothing)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def words_for(dim: int) -> int:
    """64-bit words of sign bits a row of `dim` dimensions takes."""
    return (dim + 63) // 64


def pack_signs(positive: np.ndarray, dim: int) -> np.ndarray:
    """Rows of booleans (n x dim) packed into 64-bit words, zero-padded: n x words."""
    packed = np.packbits(positive.reshape(-1, dim), axis=1)
    padded = np.zeros((len(packed), words_for(dim) * 8), dtype=np.uint8)
    padded[:, : packed.shape[1]] = packed
    return padded.view(np.uint64)


def hamming(bits: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Stage 1's distances: of every row of `bits` (words x n, word by word) to the
    query's words, as uint16."""
    distances = np.bitwise_count(bits[0] ^ query[0]).astype(np.uint16)
    for word in range(1, len(bits)):
        distances += np.bitwise_count(bits[word] ^ query[word])
    return distances


def shortlisted(
    bits: np.ndarray, distances: np.ndarray, rows: np.ndarray, centred: np.ndarray, size: int
) -> np.ndarray:
    """Stages 1 and 2: of `rows`, the `size` to re-score: SIGN_FACTOR times that many by
    Hamming distance, then the best by the asymmetric estimate (`sign_scores`)."""
    rows = rows[_nearest_distances(distances[rows], SIGN_FACTOR * size, len(centred))]
    if len(rows) > size:
        estimate = sign_scores(bits, rows, centred)
        rows = rows[np.argpartition(-estimate, size)[:size]]
    return rows


def _nearest_distances(distances: np.ndarray, size: int, dim: int) -> np.ndarray:
    """Positions of about the `size` smallest distances: every row up to the distance
    where `size` is reached (a histogram of distances finds it in one pass, where a
    partial sort of a million rows costs ten times more), cut to `size` only when ties at
    that distance make it much larger."""
    if size >= len(distances):
        return np.arange(len(distances))
    counts = np.cumsum(np.bincount(distances, minlength=dim + 1))
    cut = int(np.searchsorted(counts, size))
    chosen = np.flatnonzero(distances <= cut)
    if len(chosen) > 2 * size:
        chosen = chosen[np.argpartition(distances[chosen], size)[:size]]
    return chosen


def sign_scores(bits: np.ndarray, rows: np.ndarray, centred: np.ndarray) -> np.ndarray:
    """Stage 2: for each of `rows`, the centred query's values summed with the signs of
    the row's bits (the query's own values, not its signs), by a table per byte."""
    packed = np.ascontiguousarray(bits[:, rows].T).view(np.uint8)  # as `pack_signs` packed
    weights = np.zeros(len(bits) * 64, dtype=np.float32)
    weights[: len(centred)] = centred
    table = (_BYTE_SIGNS @ weights.reshape(-1, 8).T).T.ravel()  # byte j, value b: j*256+b
    offsets = np.arange(packed.shape[1], dtype=np.intp) * 256
    return np.asarray(table[packed + offsets].sum(axis=1))


class HeldCodes:
    """A view's int8 codes and scales in memory, row by row, grown in place: a refresh
    after a write copies its new rows, not the tens of MB before them (a fresh array of
    that size is also page-faulted in whole: 190 ms at 116k rows the first time)."""

    def __init__(self, dim: int) -> None:
        self._values = np.zeros((0, dim), dtype=np.int8)
        self._scales = np.zeros(0, dtype=np.float32)
        self.rows = 0

    @property
    def nbytes(self) -> int:
        """Bytes held, spare room included."""
        return int(self._values.nbytes + self._scales.nbytes)

    def rows_so_far(self) -> tuple[np.ndarray, np.ndarray]:
        """(values, scales) of the rows held now; later appends do not show in them."""
        return self._values[: self.rows], self._scales[: self.rows]

    def extend(self, batches: list[tuple[np.ndarray, np.ndarray]], limit: int) -> None:
        """Append (values, scales) batches. A first load takes just its rows; later,
        room grows by a quarter at a time, at most to `limit` rows."""
        needed = self.rows + sum(len(scales) for _, scales in batches)
        if needed > len(self._scales):
            grown = len(self._scales) * 5 // 4 + 1024 if self.rows else needed
            room = min(max(needed, grown), max(limit, needed))
            values = np.empty((room, self._values.shape[1]), dtype=np.int8)
            scales = np.empty(room, dtype=np.float32)
            values[: self.rows], scales[: self.rows] = self.rows_so_far()
            self._values, self._scales = values, scales
        for new_values, new_scales in batches:
            end = self.rows + len(new_scales)
            self._values[self.rows : end], self._scales[self.rows : end] = new_values, new_scales
            self.rows = end


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
        self._ids = np.zeros(0, dtype=np.int64)
        # Sign bits word by word: row i's bits are _bits[:, i]. Each word's column is one
        # contiguous array, so the scan is six passes of xor and popcount over memory in
        # order (seven times faster than row by row at a million rows).
        self._bits = np.zeros((words_for(dim), 0), dtype=np.uint64)
        self._created = np.zeros(0, dtype=np.int64)  # each row's document created_at (ms)
        # Codes and scales row by row while they fit CODES_IN_MEMORY_BYTES, else None.
        self._codes: HeldCodes | None = HeldCodes(dim)
        # With codes in memory and rows deleted since the load: which rows are live.
        self._alive: np.ndarray | None = None
        self._centre = np.zeros(dim, dtype=np.float32)  # signs are taken around it
        self._centre_rows = 0  # how many rows the centre is the mean of
        self._max_id = 0
        self._checked = False  # codes of chunks written before they existed: made once
        self._tokens = ChangeTokens()  # per connection: (data_version, total_changes)
        self._lock = threading.Lock()
        self._last: tuple[bytes, np.ndarray, np.ndarray] | None = None  # query, bits, distances

    def __len__(self) -> int:
        return len(self._ids)

    @property
    def id_span(self) -> tuple[int, int]:
        """(lowest, highest) chunk id loaded so far; (0, 0) when empty."""
        ids = self._ids
        return (int(ids[0]), int(ids[-1])) if len(ids) else (0, 0)

    @property
    def resident_bytes(self) -> int:
        """Bytes the mirror holds in memory (ids, dates, sign bits, codes while they fit)."""
        codes = self._codes.nbytes if self._codes is not None else 0
        return int(self._ids.nbytes + self._bits.nbytes + self._created.nbytes + codes)

    def refresh(self, conn: Connection) -> None:
        """Load rows added since the last refresh; reload whole if many were deleted.

        Cheap when nothing changed: `PRAGMA data_version` moves when another connection
        commits and `total_changes` when this one writes, so an unchanged file costs two
        counters, not a query. Rows are streamed from the codes table in id order, a batch
        at a time, and only their sign bits are kept (around the centre: the mean of the
        first batch of a whole load).
        """
        with self._lock:
            if not self._checked:
                self._complete(conn)
                self._checked = True
            token = index_reads.change_token(conn)
            if self._tokens.unchanged(conn, token):
                return
            live = index_reads.live_chunk_count(conn)
            stale = len(self._ids) - live > max(64, _RELOAD_STALE_SHARE * len(self._ids))
            unsettled = self._centre_rows < CENTRE_ROWS and live >= CENTRE_REGROW * max(
                self._centre_rows, 1
            )
            if stale or unsettled or not len(self._ids):
                self._ids = np.zeros(0, dtype=np.int64)
                self._bits = np.zeros((words_for(self.dim), 0), dtype=np.uint64)
                self._created = np.zeros(0, dtype=np.int64)
                self._centre_rows = 0
                self._max_id = 0
                self._codes, self._alive = HeldCodes(self.dim), None
            ids, bits, dates = [self._ids], [self._bits], [self._created]
            codes: list[tuple[np.ndarray, np.ndarray]] | None = (
                [] if self._codes is not None else None
            )
            held = len(self._ids)
            limit = CODES_IN_MEMORY_BYTES // (self.dim + 4)
            for new_ids, values, scales, new_dates in vector_codes.rows_after(
                conn, self._max_id, self.view, self.dim
            ):
                held += len(new_ids)
                if codes is not None and held <= limit:
                    codes.append((values, scales))
                else:
                    codes = None
                rows = values.astype(np.float32) * scales[:, None]
                if not self._centre_rows:
                    self._centre = rows.mean(axis=0).astype(np.float32)
                    self._centre_rows = len(rows)
                ids.append(new_ids)
                bits.append(np.ascontiguousarray(pack_signs(rows >= self._centre, self.dim).T))
                dates.append(new_dates)
            self._tokens.remember(conn, token)
            if len(ids) > 1:
                self._ids = np.concatenate(ids)
                self._bits = np.concatenate(bits, axis=1)
                self._created = np.concatenate(dates)
                self._max_id = int(self._ids[-1]) if len(self._ids) else self._max_id
                if codes is None:
                    self._codes = None
                elif self._codes is not None:
                    self._codes.extend(codes, limit)
            self._mark_alive(conn, live)
            if sum(len(part) for part in ids[1:]) >= TRIM_AFTER_ROWS:
                give_back_free_memory()

    def _mark_alive(self, conn: Connection, live: int) -> None:
        """With codes in memory, which rows are live: None while none was deleted since
        the load; read again (every chunk id, from an index) only when the count of
        deleted rows moved, else the rows loaded since are added as live. Without codes
        in memory, rows are dropped where their codes are read back."""
        deleted = len(self._ids) - live
        if self._codes is None or deleted <= 0:
            self._alive = None
        elif self._alive is None or len(self._ids) - int(self._alive.sum()) != deleted:
            self._alive = np.isin(self._ids, index_reads.live_chunk_ids(conn))
        elif len(self._alive) < len(self._ids):
            grown = np.ones(len(self._ids) - len(self._alive), dtype=bool)
            self._alive = np.concatenate([self._alive, grown])

    def _complete(self, conn: Connection) -> None:
        """Codes for rows written before they existed (once per vault): a row without a
        code is not searched. Residuals are the background indexer's to fill
        (`vector_residuals.fill_some`); a row without one keeps its code's score."""
        if not vector_codes.known_complete(conn):
            if vector_codes.missing(conn):
                vector_codes.backfill(conn)
            vector_codes.mark_complete(conn)

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
            ids, bits, created = self._ids, self._bits, self._created
            centre, last = self._centre, self._last
            codes = self._codes.rows_so_far() if self._codes is not None else None
            keep = self._alive
        if not len(ids) or k <= 0:
            return []
        vector = query.astype(np.float32)
        centred = vector - centre
        key = vector.tobytes()
        if last is not None and last[0] == key and last[1] is bits:  # refresh makes new ones
            distances = last[2]
        else:
            distances = hamming(bits, pack_signs(centred >= 0, self.dim)[0])
            self._last = (key, bits, distances)
        if period is not None:
            inside = (created >= period[0]) & (created < period[1])
            keep = inside if keep is None else keep & inside
        rows = np.arange(len(ids)) if keep is None else np.flatnonzero(keep)
        size = max(k * RESCORE_FACTOR, RESCORE_MIN)
        rows = shortlisted(bits, distances, rows, centred, size)
        if codes is not None:
            found, vectors = ids[rows], codes[0][rows].astype(np.float32) * codes[1][rows, None]
        else:
            found, vectors = vector_codes.vectors_of(conn, ids[rows].tolist(), self.view, self.dim)
        if not len(found):
            return []
        scores = vectors @ vector
        # Cosine of unit vectors; the codes' own length differs from 1 by rounding only.
        scores /= np.maximum(np.linalg.norm(vectors, axis=1), 1e-12)
        self._rescore(conn, vector, found, scores)
        top = np.argsort(-scores, kind="stable")[:k]
        return [(int(found[i]), float(scores[i])) for i in top]

    def _rescore(
        self, conn: Connection, vector: np.ndarray, found: np.ndarray, scores: np.ndarray
    ) -> None:
        """Stage 4: the best `EXACT_RESCORE` of `scores` (by code) scored again, in place,
        with code plus residual (a row without a residual keeps its code's score)."""
        best = np.argsort(-scores, kind="stable")[:EXACT_RESCORE]
        position = dict(zip(found[best].tolist(), best.tolist(), strict=True))
        refined_ids, refined = vector_residuals.refined_of(
            conn, found[best].tolist(), self.view, self.dim
        )
        if not len(refined_ids):
            return
        exact = refined @ vector
        exact /= np.maximum(np.linalg.norm(refined, axis=1), 1e-12)
        scores[[position[int(chunk_id)] for chunk_id in refined_ids]] = exact
