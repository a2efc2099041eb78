"""Watches and reminders: each watch with its recent runs (page versions and the diff of
each change), and the reminders that are due, each with an Ack button."""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import Response

from privault.errors import InputError
from privault.interfaces.web.common import OWNER, Web, action, page, url, web_of
from privault.vault.watch_results import GatedReminder, GatedRun, GatedWatch

MAX_WATCHES = 100
RUNS_PER_WATCH = 10


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
    due: list[GatedReminder]
    acked: list[GatedReminder]
    snoozed: list[GatedReminder]  # not acknowledged, off the due list for now
    authors: dict[str, str] = field(default_factory=dict)  # watch id -> the agent that set it


def _gather(web: Web, show_cancelled: bool) -> WatchesPage:
    watches = web.vault.watches
    recent = watches.recent(
        caller=OWNER, limit=MAX_WATCHES, runs=RUNS_PER_WATCH, include_cancelled=show_cancelled
    )
    rows = [WatchRow(item.watch, item.runs) for item in recent.watches]
    every = watches.reminders(caller=OWNER, include_acked=True).reminders  # newest first
    due = list(watches.reminders(caller=OWNER).reminders)  # oldest first, not snoozed
    listed = {item.id for item in due}
    snoozed = [item for item in every if item.due and item.id not in listed]
    acked = [item for item in every if not item.due][:20]
    # Who set each reminder's watch: an agent's "pay invoice to …" is not the owner's.
    listed_all = watches.list(caller=OWNER, include_cancelled=True).watches
    authors = {watch.id: watch.author for watch in listed_all if watch.author}
    return WatchesPage(rows, recent.total - len(rows), due, acked, snoozed, authors)


async def watches_page(request: Request) -> Response:
    """GET /watches — watches with versions and diffs; due reminders."""
    web = web_of(request)
    show_cancelled = request.query_params.get("cancelled") == "1"
    found = await web.run(lambda: _gather(web, show_cancelled))
    return page(request, "watches.html", "watches", view=found, cancelled=show_cancelled)


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
