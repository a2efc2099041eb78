"""What every capability facade of one open vault shares, and nothing more.

`Vault` builds one `VaultContext` and hands it to each facade (documents, statements,
watches, pii, ask, shelves, agents) instead of itself: a facade reaches the file, the
settings, the privacy runtime, the embedder and shelf visibility through it, and never
another facade through the `Vault`. The context is frozen; only the heavy engines inside
`Engines` are loaded lazily, on first use.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from privault import modelstore
from privault.caller import Caller
from privault.errors import AccessDenied, NotFound
from privault.retrieval.embedder import Embedder
from privault.retrieval.strong import DEFAULT_STRONG_MODEL, GemmaEmbedder, StrongEmbedder
from privault.retrieval.strong_vectors import StrongIndex
from privault.retrieval.vectors import VectorIndex
from privault.store import shelves
from privault.store.connection import Connection
from privault.store.index_reads import Filters
from privault.vault.embedding import default_embedder
from privault.vault.ingest import DEFAULT_MAX_NOTE_BYTES
from privault.vault.privacy import PrivacyRuntime


@dataclass(frozen=True)
class VaultSettings:
    """What the composition root decides for a vault: paths, limits, privacy config."""

    models_dir: Path
    max_note_bytes: int = DEFAULT_MAX_NOTE_BYTES
    max_file_bytes: int = 20 * 1024 * 1024
    policies_dir: Path | None = None  # None: the shipped policies/ folder
    privacy: dict[str, Any] = field(default_factory=dict)  # caller/shelf → policy config
    chat_model: str | None = None  # the local answerer (None: the default)
    remote_chat: dict[str, Any] | None = None  # {url, model, api_key}: non-private asks only
    strong_model: str | None = DEFAULT_STRONG_MODEL  # None: no strong leg even if installed


class Engines:
    """The embedders (given, or loaded and hash-checked on first use) and vector mirrors.

    The strong embedder is the one given; else, when the fast embedder was not given
    either, the strong model if it is installed (an altered install is refused on load);
    else none, and `context` and `ask` rank as they did before it existed.
    """

    def __init__(
        self,
        models_dir: Path,
        embedder: Embedder | None = None,
        *,
        strong: StrongEmbedder | None = None,
        strong_model: str | None = DEFAULT_STRONG_MODEL,
    ) -> None:
        self._models_dir = models_dir
        self._embedder = embedder
        self._vectors: dict[str, VectorIndex] = {}
        self._strong = strong
        self._strong_model = strong_model if strong is None and embedder is None else None
        self._strong_vectors: dict[str, StrongIndex] = {}
        self._strong_lock = threading.Lock()

    @property
    def strong(self) -> StrongEmbedder | None:
        """The strong embedder, loaded on first use; None when there is none."""
        with self._strong_lock:
            if self._strong is None and self._strong_model is not None:
                if modelstore.is_installed(self._models_dir, self._strong_model):
                    self._strong = GemmaEmbedder(self._models_dir, self._strong_model)
                else:
                    self._strong_model = None  # not installed: decided once per process
            return self._strong

    @property
    def strong_model_name(self) -> str | None:
        """The strong model's name, without loading it (None: there is none)."""
        if self._strong is not None:
            return self._strong.name
        if self._strong_model and modelstore.is_installed(self._models_dir, self._strong_model):
            return self._strong_model
        return None

    def strong_vectors_for(self, view: str) -> StrongIndex | None:
        """The in-memory strong index of one view (None without a strong embedder)."""
        engine = self.strong
        if engine is None:
            return None
        if view not in self._strong_vectors:
            self._strong_vectors[view] = StrongIndex(engine.dim, view)
        return self._strong_vectors[view]

    @property
    def embedder(self) -> Embedder:
        """The embedder, loaded on first use (see `vault.embedding`)."""
        if self._embedder is None:
            self._embedder = default_embedder(self._models_dir)
        return self._embedder

    @property
    def vectors(self) -> VectorIndex:
        """The in-memory vector index of the plain view, built on first search."""
        return self.vectors_for("plain")

    def vectors_for(self, view: str) -> VectorIndex:
        """The in-memory vector index of one view (`plain`, or `masked` for gated callers)."""
        if view not in self._vectors:
            self._vectors[view] = VectorIndex(self.embedder.dim, view)
        return self._vectors[view]


@dataclass(frozen=True)
class VaultContext:
    """The open file, its settings, privacy runtime, engines, and who may see which shelf."""

    conn: Connection
    path: Path
    settings: VaultSettings
    privacy: PrivacyRuntime
    engines: Engines

    @property
    def embedder(self) -> Embedder:
        """The vault's embedder."""
        return self.engines.embedder

    def hidden_shelves(self, caller: Caller) -> tuple[str, ...]:
        """Restricted shelves this caller may not see (none for the owner)."""
        if caller.is_owner:
            return ()
        return tuple(sorted(set(shelves.restricted_names(self.conn)) - caller.shelves))

    def check_write(self, caller: Caller, shelf: str) -> None:
        """Refuse a read-only caller, and a shelf the caller cannot see (as if absent)."""
        if caller.read_only:
            raise AccessDenied(f"agent {caller.name} is read-only")
        if shelf in self.hidden_shelves(caller):
            raise NotFound(f"no shelf {shelf!r}")

    def filters(
        self,
        caller: Caller,
        *,
        shelf: str | None = None,
        kind: str | None = None,
        tag: str | None = None,
        since: int | None = None,
        until: int | None = None,
    ) -> Filters:
        """Search filters for `caller` (its hidden shelves always excluded)."""
        return Filters(
            shelves=(shelf,) if shelf else None,
            hidden=self.hidden_shelves(caller),
            kind=kind,
            tag=tag,
            since=since,
            until=until,
        )
