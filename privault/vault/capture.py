"""Capture without waiting: the owner's notes and files stored with no model loaded.

`Capture` opens the vault file and writes deferred (`writing.store_drafts(background=True)`):
a note's text is stored and keyword-searchable for the owner in one transaction, and its
PII scan and embedding are queued in the same transaction for `vault.indexing`. Until the
indexer has run, gated callers see nothing of it (`vault.reading`). It imports no
detector, embedder, policy code or numpy, so `privault note` costs a fraction of a second;
everything else goes through `Vault`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from privault.caller import Caller
from privault.errors import AccessDenied
from privault.store import index_queue
from privault.store.connection import Connection, connect
from privault.store.migrations import migrate
from privault.timeutil import now_ms
from privault.vault import ingest, writing
from privault.vault.added import Added, AddReport
from privault.vault.restored_shelves import add_files

if TYPE_CHECKING:
    from privault.vault.import_results import ImportReport
    from privault.vault.importing import Progress

DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024


class Capture:
    """The owner's deferred writes to one vault file."""

    def __init__(
        self,
        conn: Connection,
        *,
        max_note_bytes: int = ingest.DEFAULT_MAX_NOTE_BYTES,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    ) -> None:
        self.conn = conn
        self._max_note_bytes = max_note_bytes
        self._max_file_bytes = max_file_bytes

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        key: str | None = None,
        max_note_bytes: int = ingest.DEFAULT_MAX_NOTE_BYTES,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    ) -> Capture:
        """Open (creating if needed) and migrate the vault file at `path`."""
        conn = connect(Path(path).expanduser(), key=key)
        try:
            migrate(conn)
        except BaseException:
            conn.close()
            raise
        return cls(conn, max_note_bytes=max_note_bytes, max_file_bytes=max_file_bytes)

    def close(self) -> None:
        """Close the file."""
        self.conn.close()

    def __enter__(self) -> Capture:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def note(
        self,
        text: str,
        *,
        caller: Caller,
        title: str | None = None,
        tags: Sequence[str] = (),
        shelf: str = "default",
    ) -> Added:
        """Store a note for the owner; the same text on the same shelf again is a no-op."""
        _owner_only(caller)
        item = {"text": text, "title": title, "tags": tags, "shelf": shelf}
        draft = writing.note_draft(item, self._max_note_bytes)
        return writing.store_drafts(self.conn, None, None, [draft], background=True)[0]

    def add(
        self,
        paths: Sequence[str | Path],
        *,
        caller: Caller,
        shelf: str | None = None,
        tags: Sequence[str] = (),
        progress: Callable[[str], None] | None = None,
    ) -> AddReport:
        """Add files and folders for the owner, as `Vault.add` does, all of them deferred."""
        _owner_only(caller)
        return add_files(
            self.conn,
            paths,
            shelf=ingest.check_shelf(shelf) if shelf is not None else None,
            tags=ingest.check_tags(tags),
            max_bytes=self._max_file_bytes,
            check=lambda _shelf: None,  # the owner may write on every shelf
            store=lambda drafts: writing.store_drafts(
                self.conn, None, None, drafts, background=True
            ),
            progress=progress,
        )

    def import_from(
        self,
        kind: str,
        path: str | Path,
        *,
        caller: Caller,
        shelf: str = "default",
        tags: Sequence[str] = (),
        dry_run: bool = False,
        prune: bool = False,
        progress: Progress | None = None,
    ) -> ImportReport:
        """Import another app's export of documents for the owner, as `Vault.import_from`
        does, with no model loaded (everything is indexed later). Memories (mem0) become
        statements, scanned as they are written: those go through `Vault`."""
        from privault.vault.importing import VaultImporting

        importing = VaultImporting(
            self.conn,
            max_file_bytes=self._max_file_bytes,
            check_write=lambda who, _shelf: _owner_only(who),
            statements=None,
        )
        return importing.import_from(
            kind,
            path,
            caller=caller,
            shelf=shelf,
            tags=tags,
            dry_run=dry_run,
            prune=prune,
            progress=progress,
        )

    def has_work(self) -> bool:
        """Whether the index queue holds work an indexer could take now."""
        return index_queue.has_claimable(self.conn, now_ms())


def _owner_only(caller: Caller) -> None:
    if not caller.is_owner:
        raise AccessDenied("capture without indexing is the owner's; agents write through Vault")
