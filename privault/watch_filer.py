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

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privault import ingest, writing
from privault.caller import Caller
from privault.store import documents
from privault.store.connection import row, write
from privault.timeutil import now_ms, to_iso

if TYPE_CHECKING:
    from privault.vault import Vault
    from privault.watches.actions import Filed

REMOVED_TAG = "removed"


def _filed(doc_id: str, changed: bool) -> Filed:
    from privault.watches.actions import Filed  # pulls in httpx: only when a watch runs

    return Filed(doc_id, changed)


class WatchFiler:
    """The `privault.watches.actions.Filer` of one vault (see the module docstring)."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self._owner = Caller.owner()

    def file_page(self, *, url: str, title: str, text: str, shelf: str, watch_id: str) -> Filed:
        """The newest version of the page at `url`, stored only if its content changed."""
        added = self.vault.file_page(
            url=url,
            title=title,
            text=text,
            shelf=shelf,
            caller=self._owner,
            metadata={"watch_id": watch_id},
        )
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
    ) -> str:
        """A note (a reminder); the same `source` and text again is the same note."""
        item: dict[str, Any] = {
            "text": text,
            "title": title,
            "tags": tags,
            "shelf": shelf,
            "kind": kind,
            "source": source,
        }
        [added] = self.vault.note_many([item], caller=self._owner)
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
        known = row(
            self.vault.conn,
            "SELECT 1 AS known FROM documents WHERE source = ? AND shelf = ? LIMIT 1",
            (url, shelf),
        )
        if known is not None:
            return None
        parts = [part.strip() for part in (snippet, text or "") if part and part.strip()]
        added = self.vault.file_page(
            url=url,
            title=title,
            text="\n\n".join(parts) or title or url,
            shelf=shelf,
            caller=self._owner,
            metadata={"watch_id": watch_id, "search_result": True},
        )
        return added.doc_id

    def index_file(self, path: Path, *, shelf: str) -> Filed:
        """Index a file or its new content (same document id); InputError if unreadable.

        The tags the owner gave the file's document are kept: a re-index replaces text,
        not the owner's filing.
        """
        conn = self.vault.conn
        shelf = ingest.check_shelf(shelf)
        existing = documents.find_current(conn, shelf=shelf, source=str(path))
        tags = existing.tags if existing else ()
        draft = writing.file_draft(path, shelf, tags, self.vault.settings.max_file_bytes)
        [added] = writing.store_drafts(conn, self.vault.embedder, self.vault.privacy, [draft])
        return _filed(added.doc_id, added.status != "unchanged")

    def mark_removed(self, path: Path, *, shelf: str) -> bool:
        """Mark the document indexed from `path` as removed; False if there is none."""
        conn = self.vault.conn
        with write(conn):
            doc = documents.find_current(conn, shelf=shelf, source=str(path))
            if doc is None:
                return False
            now = now_ms()
            documents.retire(conn, doc.id)
            documents.set_tags(conn, doc.id, (*doc.tags, REMOVED_TAG))
            metadata = {**doc.metadata, "removed_at": to_iso(now)}
            conn.execute(
                "UPDATE documents SET metadata = ?, updated_at = ? WHERE id = ?",
                (json.dumps(metadata), now, doc.id),
            )
        return True
