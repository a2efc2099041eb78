"""`Vault.status()`: counts, file size, schema, index health and the detector's state.

Frozen values with the JSON form `privault status --json` prints (keys stable).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class IndexHealth:
    """Whether every searchable chunk has one keyword row and one vector row."""

    fts_rows: int
    vector_rows: int
    chunks_searchable: int
    healthy: bool
    stale_chunking: str | None  # set: the chunks were cut by an older chunking (reindex)
    masked_rows: int = 0  # masked second entries (what gated callers search)
    stale_masking: bool = False  # True: written before masked entries existed (reindex)
    pending_chunks: int = 0  # windows with keyword rows only, until the indexer finishes them

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "fts_rows": self.fts_rows,
            "vector_rows": self.vector_rows,
            "chunks_searchable": self.chunks_searchable,
            "healthy": self.healthy,
            "stale_chunking": self.stale_chunking,
            "masked_rows": self.masked_rows,
            "stale_masking": self.stale_masking,
            "pending_chunks": self.pending_chunks,
        }


@dataclass(frozen=True)
class PrivacyStatus:
    """The detector version and the re-scan backlog, or why the detector cannot load."""

    detector_version: str | None = None
    sections_to_rescan: int = 0
    policies: tuple[str, ...] = ()
    error: str | None = None  # status reports a broken policy rather than crash on it

    def to_dict(self) -> dict[str, Any]:
        """JSON form: the error alone, or the detector's state."""
        if self.error is not None:
            return {"error": self.error}
        return {
            "detector_version": self.detector_version,
            "sections_to_rescan": self.sections_to_rescan,
            "policies": list(self.policies),
        }


@dataclass(frozen=True)
class IndexingStatus:
    """Background indexing: what waits in the index queue (withheld from gated callers)."""

    sections: int = 0  # sections whose PII scan, embedding and masked entries are to come
    documents: int = 0  # documents with anything still queued (their labels too)
    dead: int = 0  # rows that failed too often; `privault index` tries them again
    oldest_queued_at: int | None = None  # epoch ms of the oldest queued row
    errors: tuple[str, ...] = ()  # the last errors of dead rows, for the owner

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "sections": self.sections,
            "documents": self.documents,
            "dead": self.dead,
            "oldest_queued_at": self.oldest_queued_at,
            "errors": list(self.errors),
        }


@dataclass(frozen=True)
class VaultStatus:
    """The owner's view of the vault file."""

    path: str
    bytes: int
    schema: int | None
    documents: int
    sections: int
    chunks: int
    index: IndexHealth
    privacy: PrivacyStatus
    indexing: IndexingStatus = IndexingStatus()
    strong: Any = None  # StrongCoverage: windows the strong model covers
    # The model workers of every live process on this file (`models.health`): name, role,
    # state (idle, starting, ready, restarting, failed), failures in a row, restarts, reason.
    workers: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "path": self.path,
            "bytes": self.bytes,
            "schema": self.schema,
            "documents": self.documents,
            "sections": self.sections,
            "chunks": self.chunks,
            "index": self.index.to_dict(),
            "privacy": self.privacy.to_dict(),
            "indexing": self.indexing.to_dict(),
            "strong": self.strong.to_dict() if self.strong is not None else None,
            "workers": [dict(worker) for worker in self.workers],
        }
