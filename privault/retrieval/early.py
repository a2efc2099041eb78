"""Read your own writes: the newest queued sections, embedded at query time for the owner.

A deferred write stores a note keyword-searchable at once and leaves its embedding to the
background indexer, so for a few seconds the owner would find it by its words but not by
what it means. The owner may read unscanned text anyway, so the owner's search, context
and ask embed the windows of the newest queued sections themselves and rank them in the
vector leg with the rest. It is bounded — the newest `SECTIONS` sections, at most `WINDOWS`
windows, a few ms each — so the backlog of a large import never makes a search slow; the
sections past the bound are counted, and the answer says how many recent sections are not
yet searchable by meaning.

Vectors computed here are kept for the indexer (`store.early_vectors`) when the file's
write lock is free at that moment, so the next search reads them instead of embedding
again and the indexer does not embed those windows a second time. Gated callers never get
here: text not yet scanned stays invisible to them (fail closed).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict

import numpy as np

from privault.errors import VaultError
from privault.retrieval.embedder import Embedder
from privault.store import early_vectors
from privault.store.connection import Connection, OperationalError, write_if_free

log = logging.getLogger(__name__)

SECTIONS = 8  # newest queued sections embedded by one search
WINDOWS = 24  # and at most this many of their windows (a long file's sections are many)
_REMEMBERED = 512  # windows' vectors kept in this process, for when they could not be stored


class _Remembered:
    """Vectors this process computed, by embedder and text (what a vector is a function of,
    whichever vault file it came from). A warm searcher or server searching while an
    import holds the write lock then embeds each window once, not on every search."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, embedder: str, text: str) -> np.ndarray | None:
        with self._lock:
            return self._vectors.get((embedder, text))

    def put(self, embedder: str, text: str, vector: np.ndarray) -> None:
        with self._lock:
            self._vectors[(embedder, text)] = vector
            while len(self._vectors) > self._size:
                self._vectors.popitem(last=False)


_remembered = _Remembered(_REMEMBERED)


class EarlyWindows:
    """The newest queued sections' windows for one search: read on the caller's thread,
    embedded on a worker thread (`vectors`, no connection touched), kept after (`keep`)."""

    def __init__(
        self, windows: list[early_vectors.Window], left_out: int, embedder: Embedder
    ) -> None:
        self.windows = windows
        self.left_out = left_out  # queued sections past the bound: not searchable by meaning
        self._embedder = embedder
        self._computed: list[int] = []  # positions embedded by this search (to keep)
        self._vectors: np.ndarray | None = None

    @classmethod
    def read(
        cls,
        conn: Connection,
        embedder: Embedder,
        sections: int = SECTIONS,
        windows: int = WINDOWS,
    ) -> EarlyWindows:
        """The windows of the newest queued sections, bounded by both limits."""
        newest, queued = early_vectors.newest_queued(conn, sections)
        found = early_vectors.windows(conn, newest, embedder.name) if newest else []
        chosen: list[early_vectors.Window] = []
        covered: set[int] = set()
        for section_id in newest:  # whole sections only, newest first, within the window cap
            own = [w for w in found if w.section_id == section_id]
            if len(chosen) + len(own) > windows:
                break
            chosen += own
            covered.add(section_id)
        return cls(chosen, queued - len(covered), embedder)

    @property
    def ids(self) -> np.ndarray:
        """Chunk ids of the windows, in order."""
        return np.fromiter((w.chunk_id for w in self.windows), np.int64, len(self.windows))

    @property
    def created(self) -> np.ndarray:
        """Each window's document date (ms), in order."""
        return np.fromiter((w.created_at for w in self.windows), np.int64, len(self.windows))

    def vectors(self) -> np.ndarray:
        """One unit vector per window: stored by an earlier search, or embedded now."""
        if self._vectors is not None:
            return self._vectors
        dim = self._embedder.dim
        matrix = np.zeros((len(self.windows), dim), dtype=np.float32)
        missing, unstored = [], []
        name = self._embedder.name
        for position, window in enumerate(self.windows):
            stored = window.embedding
            if stored is not None and len(stored) == dim * 4:
                matrix[position] = np.frombuffer(stored, dtype=np.float32)
                continue
            unstored.append(position)
            known = _remembered.get(name, window.text)
            if known is not None:
                matrix[position] = known
            else:
                missing.append(position)
        if missing:
            embedded = self._embedder.embed([self.windows[i].text for i in missing])
            matrix[missing] = embedded
            for position in missing:
                _remembered.put(name, self.windows[position].text, matrix[position].copy())
        self._computed = unstored  # embedded here or earlier in this process: not stored yet
        self._vectors = matrix
        return matrix

    def keep(self, conn: Connection) -> None:
        """Store what this search embedded, for the next search and the indexer, if no
        other writer holds the file now (else they are computed again; nothing waits)."""
        if not self._computed or self._vectors is None:
            return
        rows = [
            (self.windows[i].chunk_id, self._vectors[i].astype(np.float32).tobytes())
            for i in self._computed
        ]
        try:
            with write_if_free(conn) as free:
                if free:
                    early_vectors.save(conn, self._embedder.name, rows)
                    self._computed = []
        except (VaultError, OperationalError) as exc:  # a read-only file: the search went well
            log.info("query-time vectors not kept: %s", exc)
