"""Documents through the facade: write notes, files and pages; search, pack, read, list.

Each operation takes the `Caller` it acts for. Every read makes one `Reading` for its
response: the caller's policy is resolved and the query cut once, and every text returned
(sections, titles, breadcrumbs, the statements added to search and context) passes its
gates. Visibility (restricted shelves) comes from the context; a hidden document or node
is the same `NotFound` as a missing one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from privault.caller import Caller
from privault.errors import AccessDenied, InputError, NotFound, utf8_text
from privault.filters import EVERYTHING, Filters
from privault.privacy.gate import assembled
from privault.store import documents, imported, sections
from privault.store.connection import write
from privault.timeutil import now_ms
from privault.vault import finding, ingest, writing
from privault.vault.bounds import (
    CONTEXT_BUDGETS,
    DEFAULT_CONTEXT_BUDGET,
    DEFAULT_LIST_LIMIT,
    DEFAULT_SEARCH_LIMIT,
    LIST_LIMITS,
    MAX_QUERY_CHARS,
    SEARCH_LIMITS,
)
from privault.vault.context import VaultContext
from privault.vault.finding import Finder
from privault.vault.ingest import Draft
from privault.vault.restored_shelves import add_files
from privault.vault.results import (
    Added,
    AddReport,
    ContextPack,
    DocumentList,
    DocumentTree,
    SearchResponse,
    SectionView,
)
from privault.vault.statement_results import statements_block
from privault.vault.statements import VaultStatements

BACKGROUND_CHARS = 50_000  # a file longer than this is indexed in the background by default


def _deferred(draft: Draft, background: bool | None) -> bool:
    """Whether a file's scan and embedding are left to the indexer (see `VaultDocuments.add`)."""
    return len(draft.text) > BACKGROUND_CHARS if background is None else background


class VaultDocuments:
    """Notes, files and pages of one open vault, for callers."""

    def __init__(self, context: VaultContext, statements: VaultStatements) -> None:
        self._context = context
        self._conn = context.conn
        self._statements = statements  # statements that hold now join search and context

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
        background: bool = False,
    ) -> Added:
        """Store a note. The same text on the same shelf again is a no-op (`unchanged`).

        With `background`, the note is stored keyword-searchable for the owner at once and
        its PII scan and embedding are left to `vault.indexing`; gated callers see none of
        it until then.
        """
        item = {
            "text": text,
            "title": title,
            "tags": tags,
            "shelf": shelf,
            "created_at": created_at,
            "kind": kind,
            "metadata": metadata or {},
        }
        return self.note_many([item], caller=caller, background=background)[0]

    def note_many(
        self, notes: Iterable[dict[str, Any]], *, caller: Caller, background: bool = False
    ) -> list[Added]:
        """Store many notes with one embedding batch and one transaction (bulk import);
        `background` as for `note`."""
        limit = self._context.settings.max_note_bytes
        author = "" if caller.is_owner else caller.name  # whose text it is: see `privacy`
        drafts = [writing.note_draft({**item, "author": author}, limit) for item in notes]
        for draft in drafts:
            self._context.check_write(caller, draft.shelf)
        return self._store(drafts, background=background)

    def _store(
        self, drafts: Sequence[Draft], *, versioned: bool = False, background: bool = False
    ) -> list[Added]:
        context = self._context
        if background:
            return writing.store_drafts(context.conn, None, None, drafts, background=True)
        return writing.store_drafts(
            context.conn, context.embedder, context.privacy, drafts, versioned=versioned
        )

    def add(
        self,
        paths: Sequence[str | Path],
        *,
        caller: Caller,
        shelf: str | None = None,
        tags: Sequence[str] = (),
        progress: Callable[[str], None] | None = None,
        batch: int = 16,
        background: bool | None = None,
    ) -> AddReport:
        """Add files and folders (recursively). Each file is added, updated, unchanged or
        failed with a reason; one bad file never stops the others. Without `shelf`, a
        Markdown file's front matter may name one; otherwise it is `default`. A shelf so
        named that the vault does not have is created first, with the access settings a
        Markdown export carried for it, else the owner's alone (`vault.restored_shelves`).

        `background`: True leaves every file's PII scan and embedding to `vault.indexing`
        (see `note`); None (the default) only files longer than `BACKGROUND_CHARS`, which
        return once their text is keyword-searchable; False none.
        """
        shelf = ingest.check_shelf(shelf) if shelf is not None else None
        self._context.check_write(caller, shelf or "default")

        def store(drafts: list[Draft]) -> list[Added]:
            now = [d for d in drafts if not _deferred(d, background)]
            later = [d for d in drafts if _deferred(d, background)]
            stored = self._store(now) if now else []
            return stored + (self._store(later, background=True) if later else [])

        return add_files(
            self._conn,
            paths,
            shelf=shelf,
            tags=ingest.check_tags(tags),
            max_bytes=self._context.settings.max_file_bytes,
            check=lambda on: self._context.check_write(caller, on),
            store=store,
            progress=progress,
            batch=batch,
        )

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
        self._context.check_write(caller, shelf)
        limit = self._context.settings.max_file_bytes
        draft = writing.page_draft(url, title, text, shelf, metadata or {}, limit)
        return self._store([draft], versioned=True)[0]

    def reindex(
        self, *, caller: Caller, progress: Callable[[int, int], None] | None = None
    ) -> tuple[int, int]:
        """Re-cut and re-embed every current section (after a chunking change); owner only.
        Returns (sections, chunks) written."""
        if not caller.is_owner:
            raise AccessDenied("only the owner can re-index the vault")
        done = writing.reindex(self._conn, self._context.embedder, progress=progress)
        # Masked entries for gated callers, from every section's spans as they are now.
        privacy = self._context.privacy
        privacy.remask(sections.current_section_ids(self._conn), self._context.embedder)
        privacy.record_masked_index()
        return done

    def forget(self, doc_id: str, *, caller: Caller) -> bool:
        """Delete a document (all its versions' index rows go; a tombstone stays)."""
        doc = self._visible_document(doc_id, caller)
        self._context.check_write(caller, doc.shelf)
        with write(self._conn):
            return documents.delete(self._conn, doc.id, now_ms())

    # ---- reading ---------------------------------------------------------------------

    def _visible_document(self, doc_id: str, caller: Caller) -> documents.Document:
        doc = documents.get(self._conn, doc_id)
        if doc is None or doc.shelf in self._context.hidden_shelves(caller):
            raise NotFound(f"no document {doc_id!r}")
        return doc

    def search(
        self,
        query: str,
        *,
        caller: Caller,
        limit: int = DEFAULT_SEARCH_LIMIT,
        filters: Filters = EVERYTHING,
        include_superseded: bool = False,
    ) -> SearchResponse:
        """Hybrid search; whole sections (or excerpts of long ones), gated for the caller,
        plus statements that hold now (superseded ones too on request, labelled NOT current).
        """
        low, high = SEARCH_LIMITS
        if not low <= limit <= high:
            raise InputError(f"limit must be between {low} and {high}")
        checked_query(query)
        reading = self._context.privacy.reading(caller)
        scope = self._context.filters(caller, filters)
        finder = Finder.of(self._context, reading, owner=caller.is_owner)
        results = finder.search(reading, query, scope, limit)
        if not caller.is_owner:  # who wrote what is the owner's to know
            results = [replace(hit, author="") for hit in results]
        facts = self._statements.for_context(
            reading, query, include_superseded, hidden=scope.hidden
        )
        return SearchResponse(
            query, tuple(results), reading.privacy(), tuple(facts), finder.unsearchable
        )

    def context(
        self,
        query: str,
        *,
        caller: Caller,
        budget: int = DEFAULT_CONTEXT_BUDGET,
        filters: Filters = EVERYTHING,
        include_superseded: bool = False,
        fill: bool = False,
    ) -> ContextPack:
        """The relevant sections for a query packed into at most `budget` tokens, gated for
        the caller.

        The pack stops early where the remaining candidates are clearly weaker than the
        best (`retrieval.relevance`); `fill` packs them too, until the budget is spent.
        Tokens are counted with the embedder's tokenizer on the text as returned.
        """
        low, high = CONTEXT_BUDGETS
        if not low <= budget <= high:
            raise InputError(f"budget must be between {low} and {high} tokens")
        checked_query(query)
        reading = self._context.privacy.reading(caller)
        scope = self._context.filters(caller, filters)
        # Statements that hold now come first, in at most half the budget.
        count = self._context.embedder.count_tokens
        facts = self._statements.for_context(
            reading,
            query,
            include_superseded,
            hidden=scope.hidden,
            fits=lambda found: count(statements_block(found)) <= budget // 2,
        )
        while facts and count(statements_block(facts)) > budget // 2:
            facts.pop()
        block = statements_block(facts)
        reserved = count(block) + 2 if block else 0
        finder = Finder.of(self._context, reading, owner=caller.is_owner)
        packed, out, _ = finder.context(
            reading, query, scope, budget - reserved, stop_early=not fill, follow=True
        )
        text = (
            assembled(block, "\n\n", packed.text) if block and packed.text else block or packed.text
        )
        return ContextPack(
            query,
            text,
            tuple(out),
            packed.used_tokens + reserved,
            budget,
            packed.dropped,
            reading.privacy(),
            tuple(facts),
            finder.unsearchable,
        )

    def read(self, node_id: str, *, caller: Caller) -> SectionView:
        """One section by node id, gated. A hidden or missing node is the same NotFound."""
        section = sections.section_by_node(self._conn, node_id)
        if section is None or section.shelf in self._context.hidden_shelves(caller):
            raise NotFound(f"no section {node_id!r}")
        reading = self._context.privacy.reading(caller)
        view = finding.read_section(self._conn, reading, section)
        links = self._links(section) if caller.is_owner else ()
        author = section.author if caller.is_owner else ""  # who wrote what: the owner's
        return replace(view, privacy=reading.privacy(), links=links, author=author)

    def _links(self, section: sections.SectionRow) -> tuple[str, ...]:
        """Where an imported section links to: each link whose text the section holds (the
        first section shows all of the document's), as the target's first node id."""
        found = imported.resolved_links(self._conn, section.doc_id)
        first = section.position == min(
            (s.position for s in sections.sections_of(self._conn, section.doc_id)), default=0
        )
        return tuple(
            dict.fromkeys(
                link.node_id
                for link in found
                if link.doc_id != section.doc_id and (first or link.label in section.text)
            )
        )

    def read_document(
        self, doc_id: str, *, caller: Caller, limit: int | None = None
    ) -> tuple[SectionView, ...]:
        """A document's sections in order (the first `limit`), each as `read` gives it, in
        one reply: one set of gates and one batch of reads for them all. A hidden or
        missing document is the same NotFound."""
        doc = self._visible_document(doc_id, caller)
        rows = sections.sections_of(self._conn, doc.id)
        children: dict[str, list[str]] = {}
        for row in rows:
            if row.parent_node is not None:
                children.setdefault(row.parent_node, []).append(row.node_id)
        rows = rows[:limit]
        reading = self._context.privacy.reading(caller)
        reading.prefetch(rows)
        views = [
            finding.read_section(self._conn, reading, row, tuple(children.get(row.node_id, ())))
            for row in rows
        ]
        privacy = reading.privacy()
        return tuple(
            replace(view, privacy=privacy, author=row.author if caller.is_owner else "")
            for view, row in zip(views, rows, strict=True)
        )

    def tree(self, doc_id: str, *, caller: Caller) -> DocumentTree:
        """A document's heading tree, headings gated."""
        doc = self._visible_document(doc_id, caller)
        return finding.tree(self._conn, self._context.privacy.reading(caller), doc)

    def docs(
        self,
        *,
        caller: Caller,
        filters: Filters = EVERYTHING,
        limit: int = DEFAULT_LIST_LIMIT,
        title: str | None = None,
        after: tuple[int, str] | None = None,
    ) -> DocumentList:
        """Documents newest first, titles gated (agents get no file paths). `after` is the
        (created_at, doc id) of the last one of the previous page; `title` (words in the
        title as stored) and the `since`/`until` window (epoch ms) narrow the list."""
        if limit < LIST_LIMITS[0]:
            # Below one, SQL would list nothing (0) or everything (a negative LIMIT).
            raise InputError(f"limit must be at least {LIST_LIMITS[0]}, got {limit}")
        hidden = self._context.hidden_shelves(caller)
        reading = self._context.privacy.reading(caller)
        found = (
            []
            if filters.shelf in hidden
            else documents.list_documents(
                self._conn,
                shelves=[filters.shelf] if filters.shelf else None,
                kind=filters.kind,
                tag=filters.tag,
                limit=limit,
                hidden=hidden,
                title=_owner_title(caller, title),
                since=filters.since,
                until=filters.until,
                after=after,
                masked_kinds=self._context.masked_kinds(caller),
                tag_denied=self._context.tag_denied(caller, filters.tag),
            )
        )
        reading.prefetch_documents(doc.id for doc in found)
        listed = tuple(finding.listing(reading, doc, with_source=caller.is_owner) for doc in found)
        return DocumentList(listed, reading.privacy())

    def count(
        self,
        *,
        caller: Caller,
        filters: Filters = EVERYTHING,
        title: str | None = None,
    ) -> int:
        """How many documents `docs` with these filters lists in all (the "M" of "N of M")."""
        hidden = self._context.hidden_shelves(caller)
        if filters.shelf in hidden:
            return 0
        chosen = documents.DocumentFilter(
            [filters.shelf] if filters.shelf else None,
            filters.kind,
            filters.tag,
            _owner_title(caller, title),
            filters.since,
            filters.until,
            hidden=hidden,
            masked_kinds=self._context.masked_kinds(caller),
            tag_denied=self._context.tag_denied(caller, filters.tag),
        )
        return documents.count_documents(self._conn, chosen)


def checked_query(query: str) -> str:
    """A search or context query within MAX_QUERY_CHARS that UTF-8 can write, or an
    `InputError` naming what is wrong (the bound every interface publishes)."""
    if len(query) > MAX_QUERY_CHARS:
        raise InputError(f"the query is over {MAX_QUERY_CHARS} characters")
    return utf8_text(query, "the query")


def _owner_title(caller: Caller, title: str | None) -> str | None:
    """A title filter matches titles as stored, so it is the owner's alone: for a gated
    caller it would tell whether a masked name is in some title."""
    if title and not caller.is_owner:
        raise AccessDenied("filtering by title words is for the owner")
    return title or None
