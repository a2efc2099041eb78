"""The strong leg of `context` and `ask`: an in-memory matrix of strong vectors, one view.

Like `VectorIndex`, it mirrors the vault's rows in memory and does one exact matrix-vector
product per query. Rows arrive in chunk-id order as the background pass covers windows,
so a refresh usually loads only rows above the highest id seen; when the row count says
rows were also deleted or arrived out of order, the view is reloaded whole.

In the `masked` view a chunk that has a masked entry is represented by the strong vector of
its masked text, and is absent until that vector exists: gated callers are never ranked by
the plain text of a window whose values they may not see.

One mirror serves every handle on the file in a process (a server's pool), so each
connection's change token is kept apart (`ChangeTokens`).
"""

from __future__ import annotations

import threading

import numpy as np

from privault.retrieval.vectors import ChangeTokens
from privault.store import index_reads, strong_index
from privault.store.connection import Connection


class StrongIndex:
    """Exact cosine search over the strong vectors of one view of one vault file."""

    def __init__(self, dim: int, view: str = "plain") -> None:
        if view not in ("plain", "masked"):
            raise ValueError(f"unknown index view {view!r}")
        self.dim = dim
        self.view = view
        self._ids = np.zeros(0, dtype=np.int64)
        self._matrix = np.zeros((0, dim), dtype=np.float32)
        self._rows_seen = (0, 0)  # (row count, highest chunk id) of strong_chunks loaded
        self._tokens = ChangeTokens()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._ids)

    def refresh(self, conn: Connection) -> None:
        """Load rows added since the last refresh (all of them if others were deleted)."""
        with self._lock:
            token = index_reads.change_token(conn)
            if self._tokens.unchanged(conn, token):
                return
            count, highest = strong_index.state(conn)
            seen_count, seen_highest = self._rows_seen
            after = seen_highest
            if seen_count + strong_index.count_above(conn, seen_highest) != count:
                after = 0  # rows were deleted, or added below the highest id: start over
            fetched = strong_index.vectors_after(conn, after, self.view)
            if after == 0:
                self._ids = np.zeros(0, dtype=np.int64)
                self._matrix = np.zeros((0, self.dim), dtype=np.float32)
            if fetched:
                ids = np.fromiter((cid for cid, _ in fetched), dtype=np.int64, count=len(fetched))
                blob = b"".join(vector for _, vector in fetched)
                vectors = np.frombuffer(blob, dtype=np.float32).reshape(len(fetched), self.dim)
                self._ids = np.concatenate([self._ids, ids])
                self._matrix = np.concatenate([self._matrix, vectors])
            self._rows_seen = (count, highest)
            self._tokens.remember(conn, token)

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The `k` nearest chunk ids by cosine similarity, best first."""
        with self._lock:
            ids, matrix = self._ids, self._matrix
        if not len(ids) or k <= 0:
            return []
        scores = matrix @ query.astype(np.float32)
        top = np.argpartition(-scores, k)[:k] if k < len(ids) else np.arange(len(ids))
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(ids[i]), float(scores[i])) for i in top]

    def scores(self, query: np.ndarray, chunk_ids: list[int]) -> dict[int, float]:
        """Cosine similarity of the query to each of these chunks that has a vector."""
        with self._lock:
            ids, matrix = self._ids, self._matrix
        if not len(ids) or not chunk_ids:
            return {}
        wanted = np.asarray(chunk_ids, dtype=np.int64)
        rows = np.searchsorted(ids, wanted)  # ids are kept in ascending order
        rows = np.minimum(rows, len(ids) - 1)
        found = ids[rows] == wanted
        values = matrix[rows[found]] @ query.astype(np.float32)
        return {int(cid): float(v) for cid, v in zip(wanted[found], values, strict=True)}
