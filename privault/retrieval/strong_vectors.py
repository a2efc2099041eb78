"""The strong leg of `context` and `ask`: the strong model's vectors, searched exactly in
memory while they are few, through sign bits and the file once they are many.

The strong model's vectors are 768 float32 values (3 KB a window): kept whole in memory
they would cost 300 MB at 100,000 windows and 3 GB at a million, in every process that
builds a context. Up to `EXACT_ROWS` rows (96 MB) the mirror keeps them and scans them
exactly. Beyond, it keeps only each row's sign bits around the view's centre (96 bytes a
row, as `VectorIndex` does) and ranks in three stages: Hamming distance over every row,
the asymmetric sign estimate over `SIGN_FACTOR` times the shortlist, then the
shortlist's own float32 vectors read back from the file and scored exactly. Once every
row has its int8 codes (`store.strong_codes`, m029) the shortlist is read as codes
instead, a tenth of the time at a million windows, and only its best `EXACT_RESCORE` as
vectors: the top of the ranking is still the stored vectors' cosine; the bits only choose
which rows are read.

The shortlist is `SHORTLIST_SHARE` of the rows (see its bounds below): on the real strong
vectors of 2,736 LoCoMo windows, recall@10 of the shortlist against the exact scan was
0.904 / 0.974 / 0.997 at 0.7% / 1.5% / 2.9% of the rows, and the sign stages rank by
share of the rows, not by their number. The price is time: a 3 KB vector is read back by
its digest at 20–50 µs (two page reads), so the shortlist of 2,446 at 122k windows costs
more than the exact scan it replaces; that is why the vectors stay in memory up to
EXACT_ROWS.

Rows arrive as the background pass covers windows, mostly in chunk-id order, so a refresh
usually loads only rows above the highest id seen; when the row count says rows were
also deleted or arrived out of order, the view is reloaded whole (streamed: a batch of
vectors at a time is in memory, not the view).

In the `masked` view a chunk that has a masked entry is represented by the strong vector of
its masked text, and is absent until that vector exists: gated callers are never ranked by
the plain text of a window whose values they may not see.

One mirror serves every handle on the file in a process (a server's pool), so each
connection's change token is kept apart (`ChangeTokens`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy as np

from privault.retrieval.vectors import (
    CENTRE_REGROW,
    CENTRE_ROWS,
    EXACT_RESCORE,
    RESCORE_FACTOR,
    RESCORE_MIN,
    TRIM_AFTER_ROWS,
    ChangeTokens,
    give_back_free_memory,
    hamming,
    pack_signs,
    shortlisted,
    words_for,
)
from privault.store import index_reads, strong_codes, strong_index
from privault.store.connection import Connection

EXACT_ROWS = 32_768  # up to this many rows the float32 vectors stay in memory (96 MB)
# Beyond, the rows read back and scored exactly: 2% of them, at least RESCORE_MIN (or four
# times the rows asked for), at most SHORTLIST_MAX unless asked for more (~60 ms of reads).
SHORTLIST_SHARE = 0.02
SHORTLIST_MAX = 4096


class StrongIndex:
    """Cosine search over the strong vectors of one view of one vault file."""

    def __init__(self, dim: int, view: str = "plain") -> None:
        if view not in ("plain", "masked"):
            raise ValueError(f"unknown index view {view!r}")
        self.dim = dim
        self.view = view
        self._ids = np.zeros(0, dtype=np.int64)  # ascending
        self._bits = np.zeros((words_for(dim), 0), dtype=np.uint64)  # word by word
        self._centre = np.zeros(dim, dtype=np.float32)
        self._centre_rows = 0
        self._matrix: np.ndarray | None = np.zeros((0, dim), dtype=np.float32)  # while small
        self._rows_seen = (0, 0)  # (row count, highest chunk id) of strong_chunks loaded
        self._tokens = ChangeTokens()
        self._lock = threading.Lock()
        self._codes_seen_complete = False

    def __len__(self) -> int:
        return len(self._ids)

    @property
    def resident_bytes(self) -> int:
        """Bytes the mirror holds in memory (ids, sign bits and the vectors while few)."""
        matrix = self._matrix.nbytes if self._matrix is not None else 0
        return int(self._ids.nbytes + self._bits.nbytes + matrix)

    def refresh(self, conn: Connection) -> None:
        """Load rows added since the last refresh (all of them if others were deleted or
        came below the highest id, or while the centre is young: see `VectorIndex`)."""
        with self._lock:
            token = index_reads.change_token(conn)
            if self._tokens.unchanged(conn, token):
                return
            count, highest = strong_index.state(conn)
            seen_count, seen_highest = self._rows_seen
            after = seen_highest
            unsettled = self._centre_rows < CENTRE_ROWS and count >= CENTRE_REGROW * max(
                self._centre_rows, 1
            )
            if unsettled or seen_count + strong_index.count_above(conn, seen_highest) != count:
                after = 0  # rows were deleted, or added below the highest id: start over
            if after == 0:
                self._ids = np.zeros(0, dtype=np.int64)
                self._bits = np.zeros((words_for(self.dim), 0), dtype=np.uint64)
                self._matrix = np.zeros((0, self.dim), dtype=np.float32)
                self._centre_rows = 0
            ids, bits = [self._ids], [self._bits]
            # Beyond EXACT_ROWS only the signs are kept: read from the codes when all are
            # there (a quarter of the bytes: 1M windows load in 2.7 s instead of ~40).
            coded = count > EXACT_ROWS and self._codes_complete(conn)
            kept = None if self._matrix is None or coded else [self._matrix]
            for new_ids, rows in self._rows_after(conn, after, coded):
                if not self._centre_rows:
                    self._centre = rows.mean(axis=0).astype(np.float32)
                    self._centre_rows = len(rows)
                ids.append(new_ids)
                bits.append(np.ascontiguousarray(pack_signs(rows >= self._centre, self.dim).T))
                small = sum(len(part) for part in ids) <= EXACT_ROWS
                kept = kept + [rows] if kept is not None and small else None
            self._ids = np.concatenate(ids)
            self._bits = np.concatenate(bits, axis=1)
            self._matrix = None if kept is None else np.concatenate(kept)
            if sum(len(part) for part in ids[1:]) >= TRIM_AFTER_ROWS:
                give_back_free_memory()
            self._rows_seen = (count, highest)
            self._tokens.remember(conn, token)

    def _rows_after(
        self, conn: Connection, after: int, coded: bool
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The view's rows above chunk id `after`, a batch at a time: decoded from their
        codes when `coded`, else their float32 vectors."""
        if coded:
            yield from strong_codes.batches_after(conn, after, self.view, self.dim)
            return
        for batch in strong_index.batches_after(conn, after, self.view):
            yield index_reads.as_vectors(batch, self.dim)

    def search(self, query: np.ndarray, k: int, *, conn: Connection) -> list[tuple[int, float]]:
        """The `k` nearest chunk ids by cosine similarity, best first; `conn` (any
        connection to this file) reads the shortlist's vectors."""
        with self._lock:
            ids, bits, centre, matrix = self._ids, self._bits, self._centre, self._matrix
        if not len(ids) or k <= 0:
            return []
        vector = query.astype(np.float32)
        if matrix is not None:
            scores = matrix @ vector
            top = np.argpartition(-scores, k)[:k] if k < len(ids) else np.arange(len(ids))
            top = top[np.argsort(-scores[top], kind="stable")]
            return [(int(ids[i]), float(scores[i])) for i in top]
        share = min(int(SHORTLIST_SHARE * len(ids)), SHORTLIST_MAX)
        size = max(k * RESCORE_FACTOR, RESCORE_MIN, share)
        centred = vector - centre
        distances = hamming(bits, pack_signs(centred >= 0, self.dim)[0])
        rows = shortlisted(bits, distances, np.arange(len(ids)), centred, size)
        if self._codes_complete(conn):
            found = self._by_codes(conn, vector, ids[rows].tolist())
        else:
            found = self._scored(conn, vector, ids[rows].tolist())
        return sorted(found.items(), key=lambda pair: (-pair[1], pair[0]))[:k]

    def _codes_complete(self, conn: Connection) -> bool:
        """Whether every strong row has its codes (once so, always: codes come with rows)."""
        if not self._codes_seen_complete:
            self._codes_seen_complete = strong_codes.known_complete(conn)
        return self._codes_seen_complete

    def _by_codes(
        self, conn: Connection, vector: np.ndarray, chunk_ids: list[int]
    ) -> dict[int, float]:
        """The shortlist scored by its int8 codes (`store.strong_codes`), its best
        EXACT_RESCORE scored again from their float32 vectors (and any row without codes
        from its vector: none should be, but a row is never lost for want of them)."""
        found, coded = strong_codes.vectors_of(conn, chunk_ids, self.view, self.dim)
        scores = coded @ vector
        scores /= np.maximum(np.linalg.norm(coded, axis=1), 1e-12)  # a code's length is ~1
        best = np.argsort(-scores, kind="stable")[:EXACT_RESCORE]
        ranked = dict(zip(found.tolist(), scores.tolist(), strict=True))
        again = found[best].tolist() + list(set(chunk_ids) - set(ranked))
        ranked.update(self._scored(conn, vector, again))
        return ranked

    def scores(
        self, query: np.ndarray, chunk_ids: list[int], *, conn: Connection
    ) -> dict[int, float]:
        """Cosine similarity of the query to each of these chunks that has a vector."""
        with self._lock:
            ids, matrix = self._ids, self._matrix
        if matrix is None:
            return self._scored(conn, query.astype(np.float32), chunk_ids)
        if not len(ids) or not chunk_ids:
            return {}
        wanted = np.asarray(chunk_ids, dtype=np.int64)
        rows = np.minimum(np.searchsorted(ids, wanted), len(ids) - 1)  # ids are ascending
        found = ids[rows] == wanted
        values = matrix[rows[found]] @ query.astype(np.float32)
        return {int(cid): float(v) for cid, v in zip(wanted[found], values, strict=True)}

    def _scored(
        self, conn: Connection, vector: np.ndarray, chunk_ids: list[int]
    ) -> dict[int, float]:
        if not chunk_ids:
            return {}
        found, rows = index_reads.as_vectors(
            strong_index.vectors_of(conn, chunk_ids, self.view), self.dim
        )
        values = rows @ vector
        return {int(cid): float(v) for cid, v in zip(found, values, strict=True)}
