"""Watches and reminders: each watch with its recent runs (page versions and the diff of
each change), and the reminders that are due, each with an Ack button (those past one
listing counted). Every snoozed one is listed, asked for as such. Acknowledged ones are
counted and paged, the latest first, as the documents list is (by a cursor)."""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import Response

from privault.errors import InputError
from privault.interfaces.web.common import OWNER, Web, action, page, url, web_of, whole_number
from privault.interfaces.web.documents import cursor
from privault.vault.watch_results import GatedReminder, GatedRun, GatedWatch

MAX_WATCHES = 100
RUNS_PER_WATCH = 10
ACKED_PAGE = 20


@dataclass
class WatchRow:
    """One watch and its most recent runs, newest first."""

    watch: GatedWatch
    runs: tuple[GatedRun, ...]

    @property
    def versions(self) -> list[GatedRun]:
        """Runs that filed a new page version (they carry a diff or new documents)."""
        return [run for run in self.runs if run.status == "changed" or run.diff]


@dataclass
class WatchesPage:
    """What the watches template shows."""

    watches: list[WatchRow]
    more: int
    due: list[GatedReminder]  # the longest due first, as many as one listing shows
    due_more: int  # due after those, shown here as those are acknowledged or snoozed
    acked: list[GatedReminder]  # one page of them, the latest acknowledged first
    acked_total: int
    acked_start: int  # 1-based position of the first one shown
    acked_next: str | None  # the next page's address
    snoozed: list[GatedReminder]  # not acknowledged, off the due list for now
    authors: dict[str, str] = field(default_factory=dict)  # watch id -> the agent that set it


@dataclass
class AckedPaging:
    """Where the page of acknowledged reminders starts, from the address."""

    after: tuple[int, str] | None
    start: int
    cancelled: bool  # the watches list shows cancelled ones too (kept when paging)


def _gather(web: Web, paging: AckedPaging) -> WatchesPage:
    watches = web.vault.watches
    recent = watches.recent(
        caller=OWNER, limit=MAX_WATCHES, runs=RUNS_PER_WATCH, include_cancelled=paging.cancelled
    )
    rows = [WatchRow(item.watch, item.runs) for item in recent.watches]
    due = watches.reminders(caller=OWNER)  # the longest due first; the rest counted
    snoozed = list(watches.snoozed(caller=OWNER).reminders)  # every one, the soonest back first
    acked = watches.acknowledged(caller=OWNER, limit=ACKED_PAGE, after=paging.after)
    shown = list(acked.reminders)
    following = None
    if acked.next is not None:  # the list's own cursor: `acked_at.id` of the last shown
        following = url(
            "/watches",
            cancelled="1" if paging.cancelled else None,
            acked_after=acked.next,
            acked_start=str(paging.start + len(shown)),
        )
    # Who set each reminder's watch: an agent's "pay invoice to …" is not the owner's.
    listed_all = watches.list(caller=OWNER, include_cancelled=True).watches
    authors = {watch.id: watch.author for watch in listed_all if watch.author}
    return WatchesPage(
        rows,
        recent.total - len(rows),
        list(due.reminders),
        due.more,
        shown,
        watches.count_acknowledged(caller=OWNER),
        paging.start,
        following,
        snoozed,
        authors,
    )


async def watches_page(request: Request) -> Response:
    """GET /watches — watches with versions and diffs; due reminders; a page of the
    acknowledged ones (`acked_after`, `acked_start`: which)."""
    web = web_of(request)
    params = request.query_params
    after = cursor(params.get("acked_after", ""))
    paging = AckedPaging(
        after,
        (whole_number(params.get("acked_start", "")) or 1) if after else 1,
        params.get("cancelled") == "1",
    )
    found = await web.run(lambda: _gather(web, paging))
    return page(request, "watches.html", "watches", view=found, cancelled=paging.cancelled)


@action
async def ack(request: Request, form: dict[str, str]) -> str:
    """POST /reminders/{reminder_id}/ack — the reminder is no longer due."""
    web = web_of(request)
    reminder_id = request.path_params["reminder_id"]
    await web.run(lambda: web.vault.watches.ack(reminder_id, caller=OWNER))
    return url("/watches", done="acked")


SNOOZES = {"1h": "an hour", "1d": "a day", "1w": "a week"}


@action
async def snooze(request: Request, form: dict[str, str]) -> str:
    """POST /reminders/{reminder_id}/snooze — off the due list for an hour, a day or a week."""
    web = web_of(request)
    reminder_id, interval = request.path_params["reminder_id"], form.get("for", "")
    if interval not in SNOOZES:
        raise InputError(f"snooze for one of {', '.join(SNOOZES)}")
    await web.run(lambda: web.vault.watches.snooze(reminder_id, caller=OWNER, interval=interval))
    return url("/watches", done="snoozed")
