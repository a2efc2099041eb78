"""Watches and reminders: each watch with its recent runs (page versions and the diff of
each change), and the reminders that are due, each with an Ack button."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from privault.interfaces.web.common import OWNER, Web, action, page, url, web_of
from privault.watches.model import Reminder, Watch, WatchRun

MAX_WATCHES = 100
RUNS_PER_WATCH = 10


@dataclass
class WatchRow:
    """One watch and its most recent runs, newest first."""

    watch: Watch
    runs: tuple[WatchRun, ...]

    @property
    def versions(self) -> list[WatchRun]:
        """Runs that filed a new page version (they carry a diff or new documents)."""
        return [run for run in self.runs if run.status == "changed" or run.diff]


@dataclass
class WatchesPage:
    """What the watches template shows."""

    watches: list[WatchRow]
    more: int
    due: tuple[Reminder, ...]
    acked: list[Reminder]


def _gather(web: Web, show_cancelled: bool) -> WatchesPage:
    watches = web.vault.watches
    listed = watches.list(caller=OWNER, include_cancelled=show_cancelled).watches
    rows = [
        WatchRow(item, watches.show(item.id, caller=OWNER, runs=RUNS_PER_WATCH).runs)
        for item in listed[-MAX_WATCHES:][::-1]  # newest first
    ]
    due = watches.reminders(caller=OWNER).reminders
    every = watches.reminders(caller=OWNER, include_acked=True).reminders
    acked = [item for item in every if not item.due][:20]
    return WatchesPage(rows, max(0, len(listed) - MAX_WATCHES), due, acked)


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
