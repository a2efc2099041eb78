"""Creating and changing watches: add, list, show, cancel, pause, resume.

Inputs are checked here, once, so a watch that is stored can run: the schedule parses, a
URL is http(s) with a host that is not refused by the SSRF rules (names are checked again
at every connect), a folder exists. Nothing is deleted: a cancelled watch keeps its runs.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from privault.errors import InputError, NotFound
from privault.store import jobs
from privault.store import watches as store
from privault.store.connection import Connection, write
from privault.timeutil import check_range
from privault.timeutil import now_ms as clock
from privault.watches.fetcher import check_url
from privault.watches.model import WATCH_KINDS, Watch, WatchRun
from privault.watches.schedule import Schedule, plan_due


def checked_target(kind: str, target: str, allow_private: bool) -> str:
    """A watch's target as stored, or an InputError: the checks every watch target passes
    (a URL's scheme and host under the SSRF rules, a folder that exists)."""
    value = target.strip()
    if not value:
        raise InputError(f"a {kind} watch needs a target")
    if kind == "url":
        refused = check_url(value, allow_private=allow_private)
        if refused is not None:
            hint = (
                " (add --allow-private to watch it anyway)" if refused.reason == "blocked" else ""
            )
            raise InputError(f"cannot watch {value}: {refused.detail}{hint}")
    if kind == "folder":
        path = Path(value).expanduser().resolve()
        if not path.is_dir():
            raise InputError(f"folder {path} does not exist")
        value = str(path)
    return value


def add_watch(
    conn: Connection,
    kind: str,
    target: str,
    *,
    every: str | None = None,
    at_ms: int | None = None,
    shelf: str = "default",
    allow_private: bool = False,
    max_catchup: int = 1,
    options: dict[str, Any] | None = None,
    now_ms: int | None = None,
    author: str = "",
) -> Watch:
    """Store a new watch and plan its first run.

    `every` is an interval (`1h30m`) or a cron expression; `at_ms` a first (or only) run
    time. Without `at_ms`, url/search/folder watches first run at the next poll, and an
    interval reminder one interval from now (a reminder `--every 1w` is not due today).
    """
    if kind not in WATCH_KINDS:
        raise InputError(f"unknown watch kind {kind!r}: use one of {', '.join(WATCH_KINDS)}")
    if every is None and at_ms is None:
        raise InputError("give a schedule (--every INTERVAL|CRON) or a time (--at ISO)")
    if max_catchup < 1:
        raise InputError("max_catchup must be at least 1")
    now = clock() if now_ms is None else now_ms
    schedule = Schedule.parse(every)
    value = checked_target(kind, target, allow_private)
    if at_ms is not None:
        first = at_ms
    elif kind == "remind" and schedule.interval_ms is not None:
        first = now + schedule.interval_ms
    else:
        first = schedule.first_at_or_after(now)
    check_range(first, "the first run")  # `now` late in year 9999 plus an interval
    with write(conn):
        watch_id = "w" + secrets.token_hex(4)
        while store.watch_exists(conn, watch_id):
            watch_id = "w" + secrets.token_hex(4)
        store.insert_watch(
            conn,
            {
                "id": watch_id,
                "kind": kind,
                "target": value,
                "schedule": schedule.text,
                "shelf": shelf,
                "allow_private": int(allow_private),
                "max_catchup": max_catchup,
                "options": json.dumps(options or {}),
                "next_run_at": first,
                "created_at": now,
                "updated_at": now,
                "author": author,
            },
        )
    return get_watch(conn, watch_id)


def get_watch(conn: Connection, watch_id: str) -> Watch:
    """One watch; `NotFound` if there is no such id."""
    found = store.watch_row(conn, watch_id)
    if found is None:
        raise NotFound(f"no watch {watch_id!r}; `privault watch list` shows the ids")
    return Watch.from_row(found)


def list_watches(conn: Connection, *, include_cancelled: bool = False) -> list[Watch]:
    """Watches, oldest first; cancelled ones only when asked for."""
    found = store.watch_rows(conn, include_cancelled=include_cancelled)
    return [Watch.from_row(item) for item in found]


def watch_runs(conn: Connection, watch_id: str, *, limit: int = 20) -> list[WatchRun]:
    """The most recent runs of a watch (errors included), newest first."""
    get_watch(conn, watch_id)
    return [WatchRun.from_row(item) for item in store.run_rows(conn, watch_id, limit)]


def recent_runs(
    conn: Connection, watch_ids: Sequence[str], *, limit: int = 20
) -> dict[str, list[WatchRun]]:
    """The most recent runs of each of these watches, newest first, by watch id."""
    found = store.recent_run_rows(conn, watch_ids, limit)
    return {key: [WatchRun.from_row(item) for item in runs] for key, runs in found.items()}


def cancel_watch(conn: Connection, watch_id: str, *, now_ms: int | None = None) -> Watch:
    """Stop a watch for good; queued jobs are cancelled, history is kept."""
    now = clock() if now_ms is None else now_ms
    with write(conn):
        get_watch(conn, watch_id)
        store.set_status(conn, watch_id, "cancelled", now, next_run_at=None)
        jobs.cancel_queued(conn, watch_id, now)
    return get_watch(conn, watch_id)


def pause_watch(conn: Connection, watch_id: str, *, now_ms: int | None = None) -> Watch:
    """Stop planning runs until resumed (jobs already queued still run)."""
    now = clock() if now_ms is None else now_ms
    with write(conn):
        watch = get_watch(conn, watch_id)
        if watch.status != "active":
            raise InputError(f"watch {watch_id} is {watch.status}, not active")
        store.set_status(conn, watch_id, "paused", now)
    return get_watch(conn, watch_id)


def resume_watch(conn: Connection, watch_id: str, *, now_ms: int | None = None) -> Watch:
    """Start planning again from the next planned time after now.

    Runs that fell due while paused are not caught up (pausing meant "not now"); they are
    counted as skipped. The schedule keeps its phase: the next time is advanced from the
    old planned time, not restarted from now.
    """
    now = clock() if now_ms is None else now_ms
    with write(conn):
        watch = get_watch(conn, watch_id)
        if watch.status != "paused":
            raise InputError(f"watch {watch_id} is {watch.status}, not paused")
        schedule = Schedule.stored(watch.schedule)
        next_run, skipped = watch.next_run_at, watch.skipped
        if next_run is not None and next_run <= now and schedule.repeats:
            plan = plan_due(schedule, next_run, now, 1)
            skipped += plan.skipped + len(plan.run_at)
            next_run = plan.next_run
        store.set_status(conn, watch_id, "active", now, next_run_at=next_run, skipped=skipped)
    return get_watch(conn, watch_id)
