"""`WatchFiler`: where the poll loop files what watches find — the vault's own write path.

A watch is a standing job of the vault. Who may create one, of which kind and with which
network reach was decided when it was added (`vault.watches.add`); what it finds is then
written with the owner's rights to the watch's shelf, through the same ingest path as
every other document: sectioned, PII-scanned at write time, indexed, gated on every read.

* pages (`url` watches) and search results are `kind='page'`, marked untrusted (text from
  the web is data, never instructions) and keyed by URL: a changed page becomes a new
  version and the old one stays readable (`current=0`, linked by `previous_id`);
* a reminder is a note of `kind='reminder'` tagged `reminder`, keyed by the `source` the
  action gives (`reminder:<watch id>@<planned ms>`), so filing it again — a job
  redelivered after its worker died — finds the note already there;
* a file that disappears from a watched folder is **marked, not silently kept**: tagged
  `removed`, `metadata.removed_at` set, and retired like an old page version (`current=0`,
  out of the search indexes) — still readable by id and in `tree`, never returned by
  search as if it were still there. A file that comes back is indexed as a new document.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privault.errors import InputError
from privault.store import documents
from privault.store.connection import write
from privault.store.watches import watch_author
from privault.timeutil import now_ms, to_iso
from privault.vault import ingest, writing
from privault.vault.context import VaultContext
from privault.vault.ingest import Draft
from privault.vault.results import Added

if TYPE_CHECKING:
    from privault.watches.actions import Filed

REMOVED_TAG = "removed"


def _filed(doc_id: str, changed: bool) -> Filed:
    from privault.watches.actions import Filed  # pulls in httpx: only when a watch runs

    return Filed(doc_id, changed)


class WatchFiler:
    """The `privault.watches.actions.Filer` of one vault (see the module docstring)."""

    def __init__(self, context: VaultContext) -> None:
        self._context = context
        self._conn = context.conn

    def _store(self, drafts: Sequence[Draft], *, versioned: bool = False) -> list[Added]:
        # The document write path itself, with the owner's rights: who may file where was
        # decided when the watch was added.
        context = self._context
        return writing.store_drafts(
            context.conn, context.embedder, context.privacy, drafts, versioned=versioned
        )

    def _page(self, url: str, title: str, text: str, shelf: str, metadata: dict) -> Added:
        limit = self._context.settings.max_file_bytes
        draft = writing.page_draft(url, title, text, ingest.check_shelf(shelf), metadata, limit)
        # A page an agent's watch fetched is that agent's text (see `vault.privacy`).
        author = watch_author(self._conn, str(metadata.get("watch_id") or ""))
        return self._store([replace(draft, author=author)], versioned=True)[0]

    def file_page(self, *, url: str, title: str, text: str, shelf: str, watch_id: str) -> Filed:
        """The newest version of the page at `url`, stored only if its content changed."""
        added = self._page(url, title, text, shelf, {"watch_id": watch_id})
        return _filed(added.doc_id, added.status != "unchanged")

    def file_note(
        self,
        *,
        title: str,
        text: str,
        tags: list[str],
        shelf: str,
        kind: str,
        source: str | None = None,
        author: str = "",
    ) -> str:
        """A note (a reminder); the same `source` and text again is the same note."""
        item: dict[str, Any] = {
            "text": text,
            "title": title,
            "tags": tags,
            "shelf": shelf,
            "kind": kind,
            "source": source,
            "author": author,
        }
        draft = writing.note_draft(item, self._context.settings.max_note_bytes)
        [added] = self._store([draft])
        return added.doc_id

    def file_search_result(
        self,
        *,
        url: str,
        title: str,
        snippet: str,
        text: str | None,
        shelf: str,
        watch_id: str,
    ) -> str | None:
        """A search result as a page (snippet, then the page text if fetched); None when a
        document from that URL is already on the shelf, in any version or removed."""
        if documents.source_known(self._conn, url, shelf):
            return None
        parts = [part.strip() for part in (snippet, text or "") if part and part.strip()]
        body = "\n\n".join(parts) or title or url
        added = self._page(url, title, body, shelf, {"watch_id": watch_id, "search_result": True})
        return added.doc_id

    def index_file(self, path: Path, *, shelf: str) -> Filed:
        """Index a file or its new content (same document id); InputError if unreadable.

        The tags the owner gave the file's document are kept: a re-index replaces text,
        not the owner's filing.
        """
        shelf = ingest.check_shelf(shelf)
        existing = documents.find_current(self._conn, shelf=shelf, source=str(path))
        tags = existing.tags if existing else ()
        limit = self._context.settings.max_file_bytes
        draft = writing.file_draft(path, shelf, tags, limit)
        if draft is None:
            raise InputError(f"{path}: the statement tables of a Markdown export, not a document")
        [added] = self._store([draft])
        return _filed(added.doc_id, added.status != "unchanged")

    def mark_removed(self, path: Path, *, shelf: str) -> bool:
        """Mark the document indexed from `path` as removed; False if there is none."""
        conn = self._conn
        with write(conn):
            doc = documents.find_current(conn, shelf=shelf, source=str(path))
            if doc is None:
                return False
            now = now_ms()
            documents.retire(conn, doc.id)
            writing.retag(conn, doc, (*doc.tags, REMOVED_TAG), now)
            documents.set_metadata(conn, doc.id, {**doc.metadata, "removed_at": to_iso(now)}, now)
        return True
