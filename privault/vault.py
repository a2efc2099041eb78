"""The Vault facade: one object, every operation, each taking the `Caller` it acts for.

Interfaces (CLI, MCP server, scheduler) resolve who is asking and call these methods; the
facade decides visibility (shelves), applies the privacy gate to everything it returns,
and never takes a policy from its caller. Documents live here; statements, watches and
ask hang off the same object and share its connection, gate and embedder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from privault import ingest, writing
from privault.ask.pipeline import AskReply
from privault.caller import Caller
from privault.errors import AccessDenied, InputError, NotFound
from privault.finding import Finder
from privault.ingest import Draft
from privault.reading import Reading
from privault.results import (
    Added,
    AddReport,
    ContextPack,
    DocumentTree,
    Privacy,
    SearchResponse,
    SectionView,
)
from privault.retrieval.embedder import Embedder, FastEmbedder
from privault.retrieval.fts import Filters
from privault.retrieval.vectors import VectorIndex
from privault.statement_results import statements_block
from privault.store import documents, sections
from privault.store.connection import Connection, connect, row, write
from privault.store.migrations import migrate
from privault.timeutil import now_ms
from privault.vault_ask import VaultAsk, remote_chat
from privault.vault_pii import VaultPII
from privault.vault_privacy import PrivacyRuntime
from privault.vault_statements import VaultStatements, statement_known_entities
from privault.vault_watches import VaultWatches
from privault.writing import expand_paths


@dataclass(frozen=True)
class VaultSettings:
    """What the composition root decides for a vault: paths, limits, privacy config."""

    models_dir: Path
    max_note_bytes: int = ingest.DEFAULT_MAX_NOTE_BYTES
    max_file_bytes: int = 20 * 1024 * 1024
    policies_dir: Path | None = None  # None: the shipped policies/ folder
    privacy: dict[str, Any] = field(default_factory=dict)  # caller/shelf → policy config
    chat_model: str | None = None  # the local answerer (None: the default)
    remote_chat: dict[str, Any] | None = None  # {url, model, api_key}: non-private asks only


class Vault:
    """A privault vault file and every operation on it."""

    def __init__(
        self,
        conn: Connection,
        path: Path,
        settings: VaultSettings,
        *,
        embedder: Embedder | None = None,
        privacy: PrivacyRuntime | None = None,
    ) -> None:
        self.conn = conn
        self.path = path
        self.settings = settings
        self._embedder = embedder
        self.privacy = privacy or PrivacyRuntime(
            conn,
            settings.policies_dir,
            settings.privacy,
            statement_entities=statement_known_entities,
        )
        self.statements = VaultStatements(self)
        self.watches = VaultWatches(self)
        self.pii = VaultPII(self)
        self.asking = VaultAsk(
            self, chat_model=settings.chat_model, remote=remote_chat(settings.remote_chat)
        )
        self._vectors: VectorIndex | None = None

    # ---- lifecycle -------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        models_dir: str | Path,
        key: str | None = None,
        embedder: Embedder | None = None,
        privacy: PrivacyRuntime | None = None,
        **settings: Any,
    ) -> Vault:
        """Open (creating if needed) and migrate the vault file at `path`."""
        file = Path(path).expanduser()
        conn = connect(file, key=key)
        try:
            migrate(conn)
        except BaseException:
            conn.close()
            raise
        vault_settings = VaultSettings(models_dir=Path(models_dir).expanduser(), **settings)
        return cls(conn, file, vault_settings, embedder=embedder, privacy=privacy)

    def close(self) -> None:
        """Close the file (and the watch fetcher's connections)."""
        self.watches.close()
        self.asking.close()
        self.conn.close()

    def __enter__(self) -> Vault:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def embedder(self) -> Embedder:
        """The embedder, loaded (and hash-checked) on first use."""
        if self._embedder is None:
            self._embedder = FastEmbedder(self.settings.models_dir)
        return self._embedder

    @property
    def vectors(self) -> VectorIndex:
        """The in-memory vector index, built on first search."""
        if self._vectors is None:
            self._vectors = VectorIndex(self.embedder.dim)
        return self._vectors

    # ---- access ----------------------------------------------------------------------

    def hidden_shelves(self, caller: Caller) -> tuple[str, ...]:
        """Restricted shelves this caller may not see (none for the owner)."""
        if caller.is_owner:
            return ()
        restricted = [
            name for (name,) in self.conn.execute("SELECT name FROM shelves WHERE restricted = 1")
        ]
        return tuple(sorted(set(restricted) - caller.shelves))

    def _check_write(self, caller: Caller, shelf: str) -> None:
        if caller.read_only:
            raise AccessDenied(f"agent {caller.name} is read-only")
        if shelf in self.hidden_shelves(caller):
            raise NotFound(f"no shelf {shelf!r}")

    def _reading(self, caller: Caller) -> Reading:
        return self.privacy.reading(caller)

    # ---- writing ---------------------------------------------------------------------

    def note(
        self,
        text: str,
        *,
        caller: Caller,
        title: str | None = None,
        tags: Sequence[str] = (),
        shelf: str = "default",
        created_at: int | None = None,
        kind: str = "note",
        metadata: dict[str, object] | None = None,
    ) -> Added:
        """Store a note. The same text on the same shelf again is a no-op (`unchanged`)."""
        return self.note_many(
            [
                {
                    "text": text,
                    "title": title,
                    "tags": tags,
                    "shelf": shelf,
                    "created_at": created_at,
                    "kind": kind,
                    "metadata": metadata or {},
                }
            ],
            caller=caller,
        )[0]

    def note_many(self, notes: Iterable[dict[str, Any]], *, caller: Caller) -> list[Added]:
        """Store many notes with one embedding batch and one transaction (bulk import)."""
        drafts = [writing.note_draft(item, self.settings.max_note_bytes) for item in notes]
        for draft in drafts:
            self._check_write(caller, draft.shelf)
        return self._store(drafts)

    def _store(self, drafts: Sequence[Draft], *, versioned: bool = False) -> list[Added]:
        return writing.store_drafts(
            self.conn, self.embedder, self.privacy, drafts, versioned=versioned
        )

    def add(
        self,
        paths: Sequence[str | Path],
        *,
        caller: Caller,
        shelf: str = "default",
        tags: Sequence[str] = (),
        progress: Callable[[str], None] | None = None,
        batch: int = 16,
    ) -> AddReport:
        """Add files and folders (recursively). Each file is added, updated, unchanged or
        failed with a reason; one bad file never stops the others."""
        shelf = ingest.check_shelf(shelf)
        self._check_write(caller, shelf)
        tag_list = ingest.check_tags(tags)
        files, failed = expand_paths(paths)
        added: list[Added] = []
        for start in range(0, len(files), batch):
            drafts = []
            for file in files[start : start + batch]:
                try:
                    drafts.append(
                        writing.file_draft(file, shelf, tag_list, self.settings.max_file_bytes)
                    )
                except InputError as exc:
                    failed.append((str(file), str(exc)))
                if progress:
                    progress(str(file))
            added.extend(self._store(drafts) if drafts else [])
        return AddReport(tuple(added), tuple(failed))

    def file_page(
        self,
        *,
        url: str,
        title: str,
        text: str,
        shelf: str = "default",
        caller: Caller,
        metadata: dict[str, object] | None = None,
    ) -> Added:
        """Store a web page; a changed page becomes a new version, the old stays readable."""
        shelf = ingest.check_shelf(shelf)
        self._check_write(caller, shelf)
        draft = writing.page_draft(
            url, title, text, shelf, metadata or {}, self.settings.max_file_bytes
        )
        return self._store([draft], versioned=True)[0]

    def reindex(
        self, *, caller: Caller, progress: Callable[[int, int], None] | None = None
    ) -> tuple[int, int]:
        """Re-cut and re-embed every current section (after a chunking change); owner only.
        Returns (sections, chunks) written."""
        if not caller.is_owner:
            raise AccessDenied("only the owner can re-index the vault")
        return writing.reindex(self.conn, self.embedder, progress=progress)

    def forget(self, doc_id: str, *, caller: Caller) -> bool:
        """Delete a document (all its versions' index rows go; a tombstone stays)."""
        doc = self._visible_document(doc_id, caller)
        self._check_write(caller, doc.shelf)
        with write(self.conn):
            return documents.delete(self.conn, doc.id, now_ms())

    # ---- reading ---------------------------------------------------------------------

    def _visible_document(self, doc_id: str, caller: Caller) -> documents.Document:
        doc = documents.get(self.conn, doc_id)
        if doc is None or doc.shelf in self.hidden_shelves(caller):
            raise NotFound(f"no document {doc_id!r}")
        return doc

    def _filters(
        self,
        caller: Caller,
        shelf: str | None,
        kind: str | None,
        tag: str | None,
        since: int | None,
        until: int | None,
    ) -> Filters:
        return Filters(
            shelves=(shelf,) if shelf else None,
            hidden=self.hidden_shelves(caller),
            kind=kind,
            tag=tag,
            since=since,
            until=until,
        )

    def _query(self, reading: Reading, caller: Caller, query: str) -> str:
        """The query as matching may use it: PII cut out for gated callers."""
        base = self.privacy.base_policy(caller)
        return reading.gate_for(base).query(query, self.privacy.detector).text

    @property
    def finder(self) -> Finder:
        """Search over this vault's indexes."""
        return Finder(self.conn, self.vectors, self.embedder)

    def search(
        self,
        query: str,
        *,
        caller: Caller,
        limit: int = 10,
        shelf: str | None = None,
        kind: str | None = None,
        tag: str | None = None,
        since: int | None = None,
        until: int | None = None,
        include_superseded: bool = False,
    ) -> SearchResponse:
        """Hybrid search; whole sections (or excerpts of long ones), gated for the caller,
        plus statements that hold now (superseded ones too on request, labelled NOT current).
        """
        if not 1 <= limit <= 100:
            raise InputError("limit must be between 1 and 100")
        reading = self._reading(caller)
        matched = self._query(reading, caller, query)
        filters = self._filters(caller, shelf, kind, tag, since, until)
        results = self.finder.search(reading, matched, filters, limit)
        facts = self.statements.for_context(
            matched, caller=caller, reading=reading, include_superseded=include_superseded
        )
        privacy = reading.privacy(self.privacy.base_policy(caller))
        return SearchResponse(query, tuple(results), privacy, tuple(facts))

    def context(
        self,
        query: str,
        *,
        caller: Caller,
        budget: int = 1000,
        shelf: str | None = None,
        kind: str | None = None,
        tag: str | None = None,
        since: int | None = None,
        until: int | None = None,
        include_superseded: bool = False,
    ) -> ContextPack:
        """The best sections for a query packed into `budget` tokens, gated for the caller.

        Tokens are counted with the embedder's tokenizer on the text as returned.
        """
        if not 50 <= budget <= 100_000:
            raise InputError("budget must be between 50 and 100000 tokens")
        reading = self._reading(caller)
        matched = self._query(reading, caller, query)
        filters = self._filters(caller, shelf, kind, tag, since, until)
        # Statements that hold now come first, in at most half the budget.
        facts = self.statements.for_context(
            matched, caller=caller, reading=reading, include_superseded=include_superseded
        )
        count = self.embedder.count_tokens
        while facts and count(statements_block(facts)) > budget // 2:
            facts.pop()
        block = statements_block(facts)
        reserved = count(block) + 2 if block else 0
        packed, out, _ = self.finder.context(reading, matched, filters, budget - reserved)
        text = f"{block}\n\n{packed.text}" if block and packed.text else block or packed.text
        privacy = reading.privacy(self.privacy.base_policy(caller))
        return ContextPack(
            query,
            text,
            tuple(out),
            packed.used_tokens + reserved,
            budget,
            packed.dropped,
            privacy,
            tuple(facts),
        )

    def ask(
        self,
        question: str,
        *,
        caller: Caller,
        budget: int = 1000,
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

    def search_filters(self, caller: Caller) -> Filters:
        """The filters every read by `caller` starts from (hidden shelves excluded)."""
        return self._filters(caller, None, None, None, None, None)

    def read(self, node_id: str, *, caller: Caller) -> SectionView:
        """One section by node id, gated. A hidden or missing node is the same NotFound."""
        section = sections.section_by_node(self.conn, node_id)
        if section is None or section.shelf in self.hidden_shelves(caller):
            raise NotFound(f"no section {node_id!r}")
        reading = self._reading(caller)
        view = self.finder.read(reading, section)
        return replace(view, privacy=reading.privacy(self.privacy.base_policy(caller)))

    def tree(self, doc_id: str, *, caller: Caller) -> DocumentTree:
        """A document's heading tree, headings gated."""
        doc = self._visible_document(doc_id, caller)
        return self.finder.tree(self._reading(caller), doc)

    def docs(
        self,
        *,
        caller: Caller,
        shelf: str | None = None,
        kind: str | None = None,
        tag: str | None = None,
        limit: int = 100,
    ) -> tuple[list[dict[str, Any]], Privacy]:
        """Documents newest first, titles gated (agents get no file paths)."""
        hidden = self.hidden_shelves(caller)
        reading = self._reading(caller)
        found = (
            []
            if shelf in hidden
            else documents.list_documents(
                self.conn,
                shelves=[shelf] if shelf else None,
                kind=kind,
                tag=tag,
                limit=limit,
                hidden=hidden,
            )
        )
        listed = [self.finder.listing(reading, doc, with_source=caller.is_owner) for doc in found]
        return listed, reading.privacy(self.privacy.base_policy(caller))

    def status(self) -> dict[str, Any]:
        """Counts, file size, schema and index health (owner view)."""
        size = sum(p.stat().st_size for p in (self.path, Path(f"{self.path}-wal")) if p.exists())
        schema = row(self.conn, "SELECT max(version) AS v FROM schema_migrations") or {}
        return {
            "path": str(self.path),
            "bytes": size,
            "schema": schema.get("v"),
            **documents.health(self.conn),
            "privacy": self.privacy.status(),
        }
