"""Adding, listing, pausing, cancelling and running watches; reminders due until acked."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_watches_support import FakeFiler

from privault.errors import InputError, NotFound
from privault.store import jobs
from privault.store.connection import Connection
from privault.timeutil import parse_time
from privault.watches.fetcher import Fetcher
from privault.watches.manage import (
    add_watch,
    cancel_watch,
    get_watch,
    list_watches,
    pause_watch,
    resume_watch,
    watch_runs,
)
from privault.watches.poll import poll, run_now
from privault.watches.reminders import ack_reminder, list_reminders

T0 = parse_time("2026-03-01T08:00:00Z")
HOUR, DAY = 3_600_000, 86_400_000


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    with Fetcher() as f:
        yield f


@pytest.mark.parametrize(
    ("kind", "target", "kwargs", "message"),
    [
        ("url", "http://127.0.0.1/", {"every": "1d"}, "--allow-private"),
        ("url", "http://2130706433/", {"every": "1d"}, "loopback"),
        ("url", "ftp://example.com/", {"every": "1d"}, "http"),
        ("url", "https://example.com/", {}, "schedule"),
        ("url", "https://example.com/", {"every": "soon"}, "interval"),
        ("search", "  ", {"every": "1d"}, "target"),
        ("folder", "/no/such/folder", {"every": "1h"}, "does not exist"),
        ("mail", "x", {"every": "1h"}, "unknown watch kind"),
        ("remind", "x", {"every": "1h", "max_catchup": 0}, "max_catchup"),
    ],
)
def test_bad_watches_are_refused_at_add(
    conn: Connection, kind: str, target: str, kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(InputError, match=message):
        add_watch(conn, kind, target, now_ms=T0, **kwargs)  # type: ignore[arg-type]


def test_first_runs_are_planned_sensibly(conn: Connection, tmp_path: Path) -> None:
    url = add_watch(conn, "url", "https://example.com/", every="1d", now_ms=T0)
    weekly = add_watch(conn, "remind", "review budget", every="1w", now_ms=T0)
    once = add_watch(conn, "remind", "dentist", at_ms=T0 + DAY, now_ms=T0)
    cron = add_watch(conn, "folder", str(tmp_path), every="0 9 * * *", now_ms=T0)
    assert url.next_run_at == T0
    assert weekly.next_run_at == T0 + 7 * DAY
    assert once.next_run_at == T0 + DAY and once.schedule == ""
    assert cron.next_run_at == T0 + HOUR and cron.target == str(tmp_path.resolve())
    assert [w.id for w in list_watches(conn)] == [url.id, weekly.id, once.id, cron.id]
    data = json.loads(json.dumps(weekly.to_dict()))
    assert data["next_run_at"] == "2026-03-08T08:00:00Z" and data["kind"] == "remind"


def test_reminder_is_due_until_acknowledged(conn: Connection, fetcher: Fetcher) -> None:
    watch = add_watch(conn, "remind", "renew passport", at_ms=T0 + HOUR, now_ms=T0)
    filer = FakeFiler()
    assert poll(conn, filer, fetcher, now_ms=T0).ran == 0
    assert list_reminders(conn) == []
    report = poll(conn, filer, fetcher, now_ms=T0 + HOUR)
    assert [run.status for run in report.runs] == ["filed"]
    [note] = filer.notes
    assert note["tags"] == ["reminder"] and note["kind"] == "reminder"
    assert note["text"] == "renew passport"
    [due] = list_reminders(conn)
    assert due.due and due.doc_id == note["id"] and due.due_at == T0 + HOUR
    assert get_watch(conn, watch.id).status == "finished"  # a one-off does not repeat
    assert poll(conn, filer, fetcher, now_ms=T0 + DAY).ran == 0

    acked = ack_reminder(conn, due.id, now_ms=T0 + 2 * HOUR)
    assert not acked.due and acked.to_dict()["acked_at"] == "2026-03-01T10:00:00Z"
    assert list_reminders(conn) == []
    assert ack_reminder(conn, due.id, now_ms=T0 + 3 * HOUR).acked_at == T0 + 2 * HOUR
    assert [r.id for r in list_reminders(conn, "all")] == [due.id]
    with pytest.raises(NotFound):
        ack_reminder(conn, "rnothere")


def test_pause_resume_keeps_the_phase_and_skips_paused_runs(
    conn: Connection, fetcher: Fetcher
) -> None:
    watch = add_watch(conn, "remind", "stand up", every="1h", now_ms=T0)
    pause_watch(conn, watch.id, now_ms=T0)
    filer = FakeFiler()
    assert poll(conn, filer, fetcher, now_ms=T0 + 5 * HOUR).ran == 0
    resumed = resume_watch(conn, watch.id, now_ms=T0 + 5 * HOUR + 1_000)
    assert resumed.status == "active"
    assert resumed.next_run_at == T0 + 6 * HOUR  # on the old grid, in the future
    assert resumed.skipped == 5
    with pytest.raises(InputError):
        resume_watch(conn, watch.id)


def test_cancel_cancels_queued_jobs_and_keeps_history(conn: Connection, fetcher: Fetcher) -> None:
    watch = add_watch(conn, "remind", "x", every="1h", now_ms=T0)
    poll(conn, FakeFiler(), fetcher, now_ms=T0 + HOUR)
    jobs.enqueue(conn, watch.id, T0 + 99 * HOUR, now_ms=T0, max_attempts=3)
    cancelled = cancel_watch(conn, watch.id, now_ms=T0 + 2 * HOUR)
    assert cancelled.status == "cancelled" and cancelled.next_run_at is None
    assert [j.status for j in jobs.list_jobs(conn, watch_id=watch.id)] == ["cancelled", "done"]
    assert list_watches(conn) == [] and len(list_watches(conn, include_cancelled=True)) == 1
    assert len(watch_runs(conn, watch.id)) == 1
    assert poll(conn, FakeFiler(), fetcher, now_ms=T0 + 10 * HOUR).ran == 0
    with pytest.raises(InputError):
        run_now(conn, FakeFiler(), fetcher, watch.id)
    with pytest.raises(NotFound):
        get_watch(conn, "wnothere")


def test_run_now_runs_outside_the_schedule(conn: Connection, fetcher: Fetcher) -> None:
    watch = add_watch(conn, "remind", "now please", every="1w", now_ms=T0)
    filer = FakeFiler()
    run = run_now(conn, filer, fetcher, watch.id, now_ms=T0 + 1)
    assert run is not None and run.status == "filed" and len(filer.notes) == 1
    assert get_watch(conn, watch.id).next_run_at == T0 + 7 * 86_400_000  # schedule untouched
    [shown] = watch_runs(conn, watch.id)
    assert shown.to_dict()["status"] == "filed"
