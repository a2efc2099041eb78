"""The Vault: one object, every operation, each taking the `Caller` it acts for.

Interfaces (CLI, MCP server, scheduler) resolve who is asking and call the vault; it
decides visibility (shelves), applies the privacy gate to everything it returns, and never
takes a policy from its caller. `Vault` only opens the file and builds one `VaultContext`
that every capability facade shares: `documents` (whose verbs are the vault's own:
`vault.note`, `vault.search`, …), `statements`, `watches`, `pii`, `asking`, `shelves`,
`agents`, `audit` and `indexing` (the background work of deferred writes). No facade holds
the `Vault`.

`sibling()` opens another handle on the same file: its own connection and facades, the
same settings and the same `Engines` (embedders, vector mirrors, detectors, chat model). A
server serves concurrent calls with one handle per thread at a time, so the facades and
their caches stay single-threaded and only the shared engines need to be thread-safe.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privault.caller import Caller
from privault.models.cores import one_blas_thread
from privault.models.health import board_for, board_path, read_board
from privault.retrieval.embedder import Embedder
from privault.retrieval.strong import StrongEmbedder
from privault.retrieval.vectors import VectorIndex
from privault.store import documents, integrity
from privault.store.connection import Connection, DatabaseError, connect
from privault.store.migrations import migrate
from privault.vault.agents import VaultAgents, VaultAudit
from privault.vault.bounds import DEFAULT_ASK_BUDGET
from privault.vault.context import Engines, VaultContext, VaultSettings
from privault.vault.detection import DetectorFactory
from privault.vault.documents import VaultDocuments
from privault.vault.indexing import VaultIndexing
from privault.vault.pii import VaultPII
from privault.vault.privacy import Detector, PrivacyRuntime
from privault.vault.shelves import VaultShelves
from privault.vault.statements import VaultStatements
from privault.vault.status import FileCheck, IndexHealth, VaultStatus
from privault.vault.strong import VaultStrong

if TYPE_CHECKING:  # asking, sync and watches load what a search never needs: on first use
    from privault.ask.pipeline import AskReply
    from privault.vault.ask import VaultAsk
    from privault.vault.import_results import ImportReport
    from privault.vault.importing import Progress, VaultImporting
    from privault.vault.sync import VaultSync
    from privault.vault.watches import VaultWatches


def create(path: Path, *, key: str | None = None) -> int:
    """Create (or check and migrate) the vault file at `path`; return its schema version."""
    conn = connect(path, key=key)
    try:
        return migrate(conn)
    finally:
        conn.close()


class Vault:
    """A privault vault file and every operation on it."""

    def __init__(
        self,
        conn: Connection,
        path: Path,
        settings: VaultSettings,
        *,
        embedder: Embedder | None = None,
        detector_factory: DetectorFactory = Detector,
        strong_embedder: StrongEmbedder | None = None,
        engines: Engines | None = None,
        key: str | None = None,
    ) -> None:
        if engines is None:
            engines = Engines(
                settings.models_dir,
                embedder,
                detector_factory,
                strong=strong_embedder,
                strong_model=settings.strong_model,
                board=board_for(path),
            )
        privacy = PrivacyRuntime(
            conn,
            settings.policies_dir,
            settings.privacy,
            models_dir=settings.models_dir,
            detector_factory=engines.detector,
        )
        self._key = key  # to open siblings; never stored anywhere
        # What every capability facade shares (see `privault.vault.context`).
        self.shared = VaultContext(conn, path, settings, privacy, engines)
        self.statements = VaultStatements(self.shared)
        self.documents = VaultDocuments(self.shared, self.statements)
        self._watches: VaultWatches | None = None  # built on first use (a search needs none)
        self.pii = VaultPII(self.shared, self.statements)
        self.shelves = VaultShelves(self.shared)
        self.agents = VaultAgents(self.shared)
        self.audit = VaultAudit(self.shared)
        self._sync: VaultSync | None = None  # built on first use (bundle crypto loads slowly)
        self.indexing = VaultIndexing(self.shared)  # what deferred writes left to finish
        self.strong = VaultStrong(self.shared)  # the strong model's background pass
        self._asking: VaultAsk | None = None
        self._importing: VaultImporting | None = None  # built on first use (parsers load)
        # The document operations are the vault's own verbs.
        self.note = self.documents.note
        self.note_many = self.documents.note_many
        self.add = self.documents.add
        self.file_page = self.documents.file_page
        self.reindex = self.documents.reindex
        self.forget = self.documents.forget
        self.search = self.documents.search
        self.context = self.documents.context
        self.read = self.documents.read
        self.tree = self.documents.tree
        self.docs = self.documents.docs

    # ---- lifecycle -------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        models_dir: str | Path,
        key: str | None = None,
        embedder: Embedder | None = None,
        detector_factory: DetectorFactory = Detector,
        strong_embedder: StrongEmbedder | None = None,
        **settings: Any,
    ) -> Vault:
        """Open (creating if needed) and migrate the vault file at `path`.

        `embedder`, `detector_factory` and `strong_embedder` replace the real engines
        (tests, benchmarks); a vault given an `embedder` but no `strong_embedder` has no
        strong leg.
        """
        one_blas_thread()
        file = Path(path).expanduser()
        conn = connect(file, key=key)
        try:
            migrate(conn)
        except BaseException:
            conn.close()
            raise
        vault_settings = VaultSettings(models_dir=Path(models_dir).expanduser(), **settings)
        return cls(
            conn,
            file,
            vault_settings,
            embedder=embedder,
            detector_factory=detector_factory,
            strong_embedder=strong_embedder,
            key=key,
        )

    def sibling(self) -> Vault:
        """Another handle on this file (its own connection) sharing this one's settings and
        engines; the caller closes it. For serving calls in parallel (see the docstring)."""
        other = Vault(
            connect(self.path, key=self._key),
            self.path,
            self.settings,
            engines=self.shared.engines,
            key=self._key,
        )
        if self._watches is not None:
            other.watches.search_backend = self._watches.search_backend
        return other

    @property
    def asking(self) -> VaultAsk:
        """Questions answered by the local model (built on first use)."""
        if self._asking is None:
            from privault.vault.ask import VaultAsk, remote_chat

            settings = self.shared.settings
            self._asking = VaultAsk(
                self.shared,
                chat_model=settings.chat_model,
                remote=remote_chat(settings.remote_chat),
            )
        return self._asking

    @asking.setter
    def asking(self, facade: VaultAsk) -> None:
        """Answer with another ask facade (tests and benchmarks choose the chat model)."""
        self._asking = facade

    @property
    def sync(self) -> VaultSync:
        """Export, import and sync of bundles (built on first use)."""
        if self._sync is None:
            from privault.vault.sync import VaultSync

            self._sync = VaultSync(self.shared, self.statements)
        return self._sync

    @property
    def importing(self) -> VaultImporting:
        """Imports of other apps' exports (built on first use)."""
        if self._importing is None:
            from privault.vault.importing import VaultImporting

            self._importing = VaultImporting(
                self.conn,
                max_file_bytes=self.settings.max_file_bytes,
                check_write=self.shared.check_write,
                statements=self.statements,
            )
        return self._importing

    def import_from(
        self,
        kind: str | None,
        path: str | Path,
        *,
        caller: Caller,
        shelf: str = "default",
        tags: Sequence[str] = (),
        dry_run: bool = False,
        prune: bool = False,
        progress: Progress | None = None,
    ) -> ImportReport:
        """Import an export of another app (chatgpt, claude, obsidian, notion, mbox, mem0;
        `kind` None: detected); owner only. See `privault.vault.importing`."""
        return self.importing.import_from(
            kind,
            path,
            caller=caller,
            shelf=shelf,
            tags=tags,
            dry_run=dry_run,
            prune=prune,
            progress=progress,
        )

    @property
    def watches(self) -> VaultWatches:
        """Watches, their runs and reminders (built on first use)."""
        if self._watches is None:
            from privault.vault.watches import VaultWatches

            self._watches = VaultWatches(self.shared)
        return self._watches

    def close(self) -> None:
        """Close the file (and the watch fetcher's connections)."""
        if self._watches is not None:
            self._watches.close()
        if self._asking is not None:
            self._asking.close()
        self.conn.close()

    def __enter__(self) -> Vault:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def conn(self) -> Connection:
        """The open file (for the layers below interfaces: benchmarks, tests)."""
        return self.shared.conn

    @property
    def path(self) -> Path:
        """The vault file."""
        return self.shared.path

    @property
    def settings(self) -> VaultSettings:
        """The settings the vault was opened with."""
        return self.shared.settings

    @property
    def privacy(self) -> PrivacyRuntime:
        """Policies, the detector and stored spans."""
        return self.shared.privacy

    @property
    def embedder(self) -> Embedder:
        """The embedder, loaded (and hash-checked) on first use."""
        return self.shared.embedder

    @property
    def vectors(self) -> VectorIndex:
        """The in-memory vector index, built on first search."""
        return self.shared.engines.vectors

    def hidden_shelves(self, caller: Caller) -> tuple[str, ...]:
        """Restricted shelves this caller may not see (none for the owner)."""
        return self.shared.hidden_shelves(caller)

    # ---- operations that span capabilities -------------------------------------------

    def ask(
        self,
        question: str,
        *,
        caller: Caller,
        budget: int = DEFAULT_ASK_BUDGET,
        instruction: str | None = None,
        followup: str | None = None,
    ) -> AskReply:
        """Answer from the vault with the local model; nothing the policy stops is released.

        With `followup` (the token of an earlier reply to the same question) and an
        `instruction`, the local model re-runs once over the same sections.
        """
        return self.asking.ask(
            question, caller=caller, budget=budget, instruction=instruction, followup=followup
        )

    def load_chat_model(self, threads: int | None = None) -> str:
        """Start the local answerer's worker now and wait for its model to load (so the
        first ask is not slow), computing with `threads` CPU threads (default: the
        engine's); return its name."""
        chat = self.asking.load(threads)
        start = getattr(chat, "start", None)
        if start is not None:
            start()
        return chat.name

    def check(self) -> FileCheck:
        """Read every page of the file (SQLite's integrity check) and check that every
        document is whole: its sections indexed or queued (`store.integrity`). Reads the
        whole file: minutes for a vault of gigabytes."""
        try:
            found = integrity.integrity_check(self.conn)
            broken = {k: n for k, n in integrity.half_written(self.conn).items() if n}
        except DatabaseError as exc:  # a page too damaged for the check to go on
            found, broken = str(exc), {}
        return FileCheck(file=found, half_written=broken, healthy=found == "ok" and not broken)

    def status(self) -> VaultStatus:
        """Counts, file size, schema and index health (owner view)."""
        path = self.path
        size = sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())
        health = documents.health(self.conn)
        return VaultStatus(
            path=str(path),
            bytes=size,
            schema=documents.schema_version(self.conn),
            documents=health["documents"],
            sections=health["sections"],
            chunks=health["chunks"],
            index=IndexHealth(**health["index"]),
            privacy=self.privacy.status(),
            indexing=self.indexing.status(),
            strong=self.strong.coverage(),
            workers=tuple(read_board(board_path(path))),
        )
