"""Importing other apps' exports (`vault.import_from`): the owner's act, never an agent's.

The parsing is `privault.imports` (one module per app, streaming plain items); this facade
writes what they yield through the same path as `privault add`: each page a document
stored keyword-searchable at once with its PII scan and embedding queued for the indexer
(`writing.store_drafts(background=True)`), so gated callers see none of it until it is
scanned; each mem0 memory a statement, scanned before it is written (`VaultStatements`).

Idempotence is by a source key per item (`store.imported`): an item whose digest has not
changed is skipped before any sectioning; a changed one updates its document (or
supersedes its statement); nothing is written twice. Items imported before from the same
source that it no longer has are reported, and deleted only with `prune`. A `Bad` item is
reported and skipped, and the rest goes on; a path that is not that kind of export is
refused (`NotThisKind`) before anything is written.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from privault import imports
from privault.caller import Caller
from privault.errors import AccessDenied, Conflict, InputError, NotFound
from privault.imports import Bad, Item, Memory, Page, Unchanged
from privault.imports.sources import UNREADABLE_MEMBER
from privault.store import documents, imported
from privault.store.connection import Connection, write
from privault.store.imported import ImportedItem
from privault.timeutil import now_ms
from privault.vault import ingest, writing
from privault.vault.import_results import GoneItem, ImportCounts, ImportReport, source_of
from privault.vault.ingest import Draft

if TYPE_CHECKING:  # memories need the statements facade; documents need no privacy code
    from privault.vault.statements import VaultStatements

BATCH = 200  # pages per transaction
# Kinds whose export is all of the owner's account; the others have scopes (an Obsidian
# vault, a mailbox file, a mem0 user) and what is gone is judged within the scopes read.
ONE_SOURCE_KINDS = ("chatgpt", "claude", "notion")
Progress = Callable[[ImportCounts], None]


class VaultImporting:
    """Imports into one open vault file.

    `Vault` hands in its statements facade; `Capture` (no model, no policy loaded) none,
    and then imports documents only: memories are statements, scanned as they are written.
    """

    def __init__(
        self,
        conn: Connection,
        *,
        max_file_bytes: int,
        check_write: Callable[[Caller, str], None],
        statements: VaultStatements | None,
    ) -> None:
        self._conn = conn
        self.max_file_bytes = max_file_bytes
        self._check_write = check_write
        self._statements = statements

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
        """Import the export at `path` (`kind` None: detected when only one kind fits).

        Every item lands on `shelf` (an item imported before stays where it is) with
        `tags` added to its own. With `dry_run` nothing is written: the report says what
        would be added, updated and skipped. With `prune`, items deleted at the source are
        deleted here too (documents forgotten, statements closed)."""
        if not caller.is_owner:
            raise AccessDenied("importing is the owner's; agents write through remember")
        source = Path(path).expanduser()
        kind = kind or imports.detect(source)
        read = imports.reader(kind)
        shelf = ingest.check_shelf(shelf)
        extra = ingest.check_tags(list(tags))
        self._check_write(caller, shelf)
        run = _Run(self, kind, shelf, extra, dry_run, caller)
        try:
            self._read_all(read(source, run.known), run, progress)
        except UNREADABLE_MEMBER as exc:
            # A damaged archive or an unreadable file, where the export is that one file
            # (a conversations.json that breaks off): what was read before it is stored.
            raise InputError(f"cannot read {source.name}: {exc}") from None
        gone = run.gone()
        pruned = 0 if dry_run or not prune else self._prune(kind, gone, caller)
        return ImportReport(
            kind=kind,
            path=str(source),
            dry_run=dry_run,
            counts=run.counts.by_label,
            failed=tuple(run.counts.failed),
            gone=tuple(gone),
            pruned=pruned,
            deletions_unknown=run.deletions_unknown(),
        )

    def _read_all(self, items: Iterator[Item], run: _Run, progress: Progress | None) -> None:
        """Hand each item to the run: pages in batches, memories one by one. If reading
        stops on an error (a file that breaks off, or a bug in a reader), the pages read
        before it are stored, then the error goes on: each batch is a transaction of its
        own, so this is the batch the next page would have closed, no less whole."""
        pages: list[Page] = []
        while True:
            try:
                item = next(items, None)
            except Exception:
                run.pages(pages)
                raise
            if item is None:
                break
            if isinstance(item, Unchanged):
                run.unchanged(item)
            elif isinstance(item, Page):
                pages.append(item)
                if len(pages) >= BATCH:
                    run.pages(pages)
                    pages = []
            elif isinstance(item, Memory):
                run.pages(pages)
                pages = []
                run.memory(item)
            else:
                run.bad(item)
            if progress:
                progress(run.counts)
        run.pages(pages)
        if progress:
            progress(run.counts)

    def _prune(self, kind: str, gone: Iterable[GoneItem], caller: Caller) -> int:
        pruned = 0
        for item in gone:
            if item.doc_id:
                with write(self._conn):
                    documents.delete(self._conn, item.doc_id, now_ms())
                    imported.forget(self._conn, kind, item.key)
                pruned += 1
            elif item.statement_id and self._statements is not None:
                # A statement closed here already has nothing left to prune.
                with contextlib.suppress(Conflict, InputError, NotFound):
                    self._statements.invalidate(
                        item.statement_id, caller=caller, reason="deleted at the source"
                    )
                with write(self._conn):
                    imported.forget(self._conn, kind, item.key)
                pruned += 1
        return pruned


class _Run:
    """The state of one import: counts, the keys seen, the scopes they came from."""

    def __init__(
        self,
        facade: VaultImporting,
        kind: str,
        shelf: str,
        tags: tuple[str, ...],
        dry_run: bool,
        caller: Caller,
    ) -> None:
        self.facade = facade
        self.conn = facade._conn
        self.kind = kind
        self.shelf = shelf
        self.tags = tags
        self.dry_run = dry_run
        self.caller = caller
        self.counts = ImportCounts()
        self.seen: set[str] = set()
        self.scopes: set[str] = set()
        self.unidentified = 0  # bad items of no known key: any item imported before
        self.identities: dict[str, str] = {}  # what each key read holds (`own_key`)

    # ---- documents -------------------------------------------------------------------

    def pages(self, batch: Sequence[Page]) -> None:
        """Write a batch of pages: skip the unchanged, store the rest in one transaction."""
        if not batch:
            return
        stored = imported.get_many(self.conn, self.kind, [p.key for p in batch])
        batch = [self.own_key(page, stored) for page in batch]
        moved = [page.key for page in batch if page.key not in stored]
        stored.update(imported.get_many(self.conn, self.kind, moved))
        todo: list[tuple[Page, Draft, str]] = []
        for page in batch:
            self.scopes.add(page.scope)
            if page.key in self.seen:
                self.counts.count(page.label, "skipped")  # the same item twice in one export
                continue
            self.seen.add(page.key)
            before = stored.get(page.key)
            digest = self.stamp(page.digest)
            if before is not None and before.item_hash == digest and before.doc_id:
                self.counts.count(page.label, "skipped")
                continue
            try:
                draft = self.draft(page, before)  # checked in a dry run too: what would fail
            except (InputError, NotFound, OSError) as exc:
                self.counts.failed.append((_where(page), str(exc)))
                continue
            if self.dry_run:
                self.counts.count(page.label, "updated" if before and before.doc_id else "added")
                continue
            todo.append((page, draft, digest))
        if not todo:
            return
        adopted = self.adopt([(page, draft) for page, draft, _ in todo if page.key not in stored])
        added = writing.store_drafts(
            self.conn, None, None, [d for _, d, _ in todo], background=True
        )
        now = now_ms()
        with write(self.conn):
            for (page, draft, digest), result in zip(todo, added, strict=True):
                status = result.status
                if status == "unchanged":  # the same text, date and metadata: tags or links
                    held = documents.get(self.conn, result.doc_id)
                    retagged = held is not None and set(held.tags) != set(draft.tags)
                    if held is not None:
                        writing.retag(self.conn, held, draft.tags, now)
                    # Not known to imports but stored already (by an import stopped before it
                    # recorded its items, or by another running beside it): nothing added.
                    status = "updated" if page.key in stored or retagged else "skipped"
                if page.key in adopted:
                    status = "updated"
                self.counts.count(page.label, status)
                identity = {"identity": page.identity} if page.identity else {}
                imported.record(
                    self.conn,
                    ImportedItem(
                        self.kind,
                        page.key,
                        page.scope,
                        draft.shelf,
                        digest,
                        result.doc_id,
                        detail=identity,
                    ),
                    now,
                )
                targets = ((link.label, source_of(self.kind, link.key)) for link in page.links)
                imported.replace_links(self.conn, result.doc_id, targets)

    def own_key(self, page: Page, stored: dict[str, ImportedItem]) -> Page:
        """`page`, under a key of its own when its key holds another item (`Page.identity`:
        a mail that copied a Message-ID): kept beside that item, not written over it."""
        if page.identity is None:
            return page
        before = stored.get(page.key)
        held = self.identities.get(page.key) or (before.detail.get("identity") if before else None)
        if held is None or held == page.identity:
            self.identities[page.key] = page.identity
            return page
        return dataclasses.replace(page, key=f"{page.key}#{page.identity[:16]}")

    def adopt(self, new: Sequence[tuple[Page, Draft]]) -> set[str]:
        """Documents `privault add` stored from the same files (the vault folder added
        before it was imported) become these items: updated, not copied. Their keys."""
        adopted = set()
        with write(self.conn):
            for page, draft in new:
                if page.origin is None:
                    continue
                found = documents.find_current(self.conn, shelf=draft.shelf, source=page.origin)
                if found is not None and draft.source is not None:
                    imported.adopt(self.conn, found.id, draft.source)
                    adopted.add(page.key)
        return adopted

    def draft(self, page: Page, before: ImportedItem | None) -> Draft:
        """A page as the draft `add` would write (on the shelf it already lives on)."""
        shelf = before.shelf if before is not None else self.shelf
        tags = ingest.check_tags([*page.tags, *self.tags])
        # An item without a date of its own is dated by its last change when first
        # imported and keeps that date after (None: the stored one stays): a stand-in that
        # followed every edit would date the note by its latest edit and index it again.
        created = page.created_at
        if created is None and (before is None or not before.doc_id):
            created = page.updated_at
        metadata = {**page.metadata, "imported_from": self.kind}
        if page.file is not None:
            drafted = writing.file_draft(Path(page.file), shelf, tags, self.facade.max_file_bytes)
            if drafted is None:
                raise InputError("not a document (a statement table)")
            return dataclasses.replace(
                drafted,
                shelf=shelf,
                source=source_of(self.kind, page.key),
                created_at=created,
                metadata=metadata,
            )
        return Draft(
            kind="note",
            title=ingest.stored_title(page.title) or "Untitled",
            text=ingest.check_text(page.text, page.label, self.facade.max_file_bytes),
            shelf=shelf,
            tags=tags,
            source=source_of(self.kind, page.key),
            created_at=created,
            metadata=metadata,
        )

    # ---- statements ------------------------------------------------------------------

    def memory(self, memory: Memory) -> None:
        """A memory as a statement chain: its history replayed at the source's times."""
        self.scopes.add(memory.scope)
        if memory.key in self.seen:
            self.counts.count(memory.label, "skipped")
            return
        self.seen.add(memory.key)
        before = imported.get_many(self.conn, self.kind, [memory.key]).get(memory.key)
        digest = memory.digest  # `--tag` goes into the statements it writes, not a change
        if before is not None and before.item_hash == digest and before.statement_id:
            self.counts.count(memory.label, "skipped")
            return
        if self.dry_run:
            self.counts.count(memory.label, "updated" if before else "added")
            return
        statements = self.facade._statements
        if statements is None:
            raise InputError("memories become statements: import them through the whole vault")
        from privault.vault.import_memories import MemoryWriter

        try:
            applied = MemoryWriter(
                statements,
                memory,
                before,
                caller=self.caller,
                kind=self.kind,
                shelf=self.shelf,
                tags=self.tags,
            ).write()
        except (InputError, Conflict, NotFound) as exc:
            self.counts.failed.append((f"{memory.label} {memory.key}", str(exc)))
            return
        with write(self.conn):
            imported.record(self.conn, dataclasses.replace(applied, item_hash=digest), now_ms())
        self.counts.count(memory.label, "updated" if before else "added")

    # ---- the rest --------------------------------------------------------------------

    def stamp(self, digest: str) -> str:
        """What is stored to decide 'unchanged' next time: the item's digest, and the tags
        this import adds (importing with another `--tag` is a change)."""
        if not self.tags:
            return digest
        return hashlib.sha256(f"{digest}\x00{','.join(self.tags)}".encode()).hexdigest()

    def known(self, key: str, digest: str) -> bool:
        """Whether the vault holds the item `key` exactly as the source has it now."""
        return imported.held_hash(self.conn, self.kind, key) == self.stamp(digest)

    def unchanged(self, item: Unchanged) -> None:
        """An item skipped unparsed: held as it is."""
        self.scopes.add(item.scope)
        self.seen.add(item.key)
        self.counts.count(item.label, "skipped")

    def bad(self, item: Bad) -> None:
        """A bad item: reported; an item the source still has (its key known) is not gone."""
        if item.key is not None:
            self.seen.add(item.key)
        else:
            self.unidentified += 1
        self.counts.failed.append((item.where, item.reason))

    def deletions_unknown(self) -> str | None:
        """Why this run cannot tell what the source deleted, if it cannot: an item it
        could not identify (an unreadable element, a file that breaks off and leaves the
        rest unread) may be any item imported before."""
        if not self.unidentified:
            return None
        return (
            f"{self.unidentified} item(s) could not be identified, so what the source"
            " deleted is not known; nothing is reported or pruned as deleted"
        )

    def gone(self) -> list[GoneItem]:
        """Items imported before from the scopes this run read that it did not find;
        none when some items could not be identified (`deletions_unknown`)."""
        if self.unidentified:
            return []
        scopes = set(self.scopes)
        if self.kind in ONE_SOURCE_KINDS:
            scopes.add("")  # one export per owner: even an empty one says what is gone
        return [
            GoneItem(row.source_key, row.doc_id, row.statement_id)
            for row in imported.in_scopes(self.conn, self.kind, scopes)
            if row.source_key not in self.seen
        ]


def kind_of(path: str | Path) -> str | None:
    """The kind of export at `path` when exactly one fits, None when none does (then it is
    not an export: `add` adds it as a file); `NotThisKind` when several fit."""
    source = Path(path).expanduser()
    if not source.exists() or not imports.fitting(source):
        return None
    return imports.detect(source)  # the one kind, or NotThisKind naming the several


KINDS = imports.KINDS


def _where(page: Page) -> str:
    return f"{page.label} {page.title!r} ({page.key})"
