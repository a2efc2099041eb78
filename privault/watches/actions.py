"""What a watch does when it runs, and the contract through which it files what it finds.

Actions do not know how documents are stored or indexed: they hand text to a `Filer`,
which the `Vault` facade implements (sectioning, PII spans, FTS and vectors, versions).
Each action returns an `ActionResult` value — a failed fetch is a result with an error and
a `retryable` flag, not an exception — and may return new `state` for the watch (the
previous page text for diffs, the files seen in a folder, the result URLs already filed).

The kinds live in `web.py` (url, search), `folder.py` and here (`remind_action`); the
dispatch table is in `poll.py`.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from privault.store import watches as watch_store
from privault.store.connection import Connection
from privault.watches.fetcher import Fetcher
from privault.watches.model import Watch


@dataclass(frozen=True)
class Filed:
    """What the filer did with one item: the document it is now, and whether it changed."""

    doc_id: str
    changed: bool


class Filer(Protocol):
    """Where watch results go. Implemented by the `Vault` facade; a fake in tests.

    Every method writes through the vault's normal ingest path, so what a watch files is
    sectioned, PII-scanned, indexed, gated and audited like anything else. Web text is
    untrusted (the facade marks it so).
    """

    def file_page(self, *, url: str, title: str, text: str, shelf: str, watch_id: str) -> Filed:
        """Store `text` as the newest version of the page at `url` — only if its content hash
        differs from the current version (`changed=False` and the current id otherwise).
        Older versions stay readable."""
        ...

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
        """Store a note (a reminder is `kind='reminder'`, tag `reminder`); return its id.
        `author` is who added the watch ('' for the owner): the note is their text.

        `source` is an idempotency key (`reminder:<watch id>@<planned ms>`): a note filed
        again with the same source and text is the same note, so a job redelivered after
        a worker died between filing and recording does not file a second one."""
        ...

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
        """Store a search result as a page; None when that URL is already filed (skipped)."""
        ...

    def index_file(self, path: Path, *, shelf: str) -> Filed:
        """Index a file (md, txt, html, pdf) or its new content; raises `InputError` for a
        file it cannot read."""
        ...

    def mark_removed(self, path: Path, *, shelf: str) -> bool:
        """Mark the document indexed from `path` as removed; False if there was none."""
        ...


@dataclass(frozen=True)
class SearchBackend:
    """A SearXNG-compatible JSON endpoint, from vault configuration.

    `allow_private` is the owner's decision for the backend itself (a SearXNG on
    localhost): its own host and port may be private, but a redirect anywhere else is
    checked as usual. Result pages are fetched under the watch's own setting.
    """

    url: str
    allow_private: bool = False
    max_results: int = 10


@dataclass(frozen=True)
class ActionContext:
    """What an action may use."""

    conn: Connection
    filer: Filer
    fetcher: Fetcher
    now_ms: int
    search: SearchBackend | None = None


@dataclass(frozen=True)
class ActionResult:
    """The outcome of one run of one watch."""

    status: str  # changed | unchanged | filed | error
    summary: str
    doc_ids: tuple[str, ...] = ()
    diff: str | None = None
    error: str | None = None
    retryable: bool = False
    state: dict[str, Any] | None = field(default=None)  # replaces the watch's state if set
    # Writes that belong with the run record: applied in the same transaction, only if the
    # worker still holds the job's lease (so they land exactly once with the run).
    commit: Callable[[Connection], None] | None = field(default=None, compare=False)

    @classmethod
    def failed(cls, error: str, *, retryable: bool) -> ActionResult:
        """A run that did not do its work."""
        return cls("error", error, error=error, retryable=retryable)


def remind_action(
    watch: Watch, state: dict[str, Any], planned_at: int, context: ActionContext
) -> ActionResult:
    """File the reminder text as a note tagged `reminder` and list it as due.

    The reminder row is keyed by (watch, planned time) and written with the run record, so
    a redelivered job whose earlier attempt was recorded finds it and files no second note.
    Every run of one watch files under the same `source`, so a repeating reminder keeps
    one document (a worker that died after filing files it again and finds it there) and
    each due time is a row of its own in `reminders`.
    """
    existing = watch_store.reminder_for_run(context.conn, watch.id, planned_at)
    if existing is not None:
        return ActionResult("unchanged", "reminder already filed", (existing["doc_id"],))
    text = watch.target
    # The whole text is the title: it is gated whole and clipped only after gating.
    doc_id = context.filer.file_note(
        title=text,
        text=text,
        tags=["reminder"],
        shelf=watch.shelf,
        kind="reminder",
        source=f"reminder:{watch.id}",
        author=watch.author,
    )
    reminder = {
        "id": "r" + secrets.token_hex(4),
        "watch_id": watch.id,
        "planned_at": planned_at,
        "doc_id": doc_id,
        "text": text,
        "shelf": watch.shelf,
        "due_at": planned_at,
    }

    def list_as_due(conn: Connection) -> None:
        watch_store.insert_reminder(conn, reminder)

    return ActionResult("filed", "reminder due", (doc_id,), commit=list_as_due)
