"""`Vault.status()`: counts, file size, schema, index health and the detector's state.

Frozen values whose fields are the JSON form `privault status --json` prints (keys stable).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from privault.jsonform import JsonForm, shown


@dataclass(frozen=True)
class IndexHealth(JsonForm):
    """Whether every searchable chunk has one keyword row and one vector row."""

    fts_rows: int
    vector_rows: int
    chunks_searchable: int
    healthy: bool
    stale_chunking: str | None  # set: the chunks were cut by an older chunking (reindex)
    masked_rows: int = 0  # masked second entries (what gated callers search)
    stale_masking: bool = False  # True: written before masked entries existed (reindex)
    pending_chunks: int = 0  # windows with keyword rows only, until the indexer finishes them
    gated_rows: int = 0  # keyword rows gated callers search (every window not queued)


LOADED = shown(when="loaded")


@dataclass(frozen=True)
class PrivacyStatus(JsonForm):
    """The detector version and the re-scan backlog, or why the detector cannot load
    (then shown alone)."""

    detector_version: str | None = field(default=None, metadata=LOADED)
    sections_to_rescan: int = field(default=0, metadata=LOADED)
    policies: tuple[str, ...] = field(default=(), metadata=LOADED)
    # status reports a broken policy rather than crash on it
    error: str | None = field(default=None, metadata=shown(when="error"))

    @property
    def loaded(self) -> bool:
        """Whether the detector and policies loaded (no error to report)."""
        return self.error is None


@dataclass(frozen=True)
class IndexingStatus(JsonForm):
    """Background indexing: what waits in the index queue (withheld from gated callers)."""

    sections: int = 0  # sections whose PII scan, embedding and masked entries are to come
    documents: int = 0  # documents with anything still queued (their labels too)
    dead: int = 0  # rows that failed too often; `privault index --retry` tries them again
    oldest_queued_at: int | None = None  # epoch ms of the oldest queued row
    errors: tuple[str, ...] = ()  # the last errors of dead rows, for the owner


@dataclass(frozen=True)
class VaultStatus(JsonForm):
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


@dataclass(frozen=True)
class FileCheck(JsonForm):
    """`Vault.check()`: every page of the file read, and every document whole."""

    file: str  # "ok", or what SQLite found wrong in the file
    half_written: dict[str, int]  # rules of a whole document broken, and by how many rows
    healthy: bool
