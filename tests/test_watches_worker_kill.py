"""A worker SIGKILLed mid-job: the job is redelivered after its lease and completes once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from test_watches_support import FakeFiler

from privault.store import jobs
from privault.store.connection import Connection, row, rows
from privault.watches.fetcher import Fetcher
from privault.watches.manage import add_watch
from privault.watches.poll import poll

T0 = 1_780_000_000_000
LEASE_MS = 60_000
WORKER = """
import sys
sys.path[:0] = [{tests!r}, {root!r}]
from test_watches_support import SleepyFiler
from privault.store.connection import connect
from privault.watches.fetcher import Fetcher
from privault.store.jobs import RetryPolicy
from privault.watches.poll import poll
conn = connect({db!r})
poll(conn, SleepyFiler(), Fetcher(), now_ms={now}, worker="doomed",
     policy=RetryPolicy(lease_ms={lease}))
"""


def _wait_for(conn: Connection, sql: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if row(conn, sql):
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for: {sql}")


def test_killed_worker_job_is_redelivered_and_completes_once(
    conn: Connection, tmp_path: Path
) -> None:
    watch = add_watch(conn, "remind", "pay rent", at_ms=T0, now_ms=T0)
    tests_dir = Path(__file__).parent
    code = WORKER.format(
        tests=str(tests_dir),
        root=str(tests_dir.parent),
        db=str(tmp_path / "store.db"),
        now=T0,
        lease=LEASE_MS,
    )
    worker = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE)
    try:
        _wait_for(conn, "SELECT 1 FROM jobs WHERE status = 'running' AND lease_owner = 'doomed'")
        # While the lease holds, nobody else may run the job, even though it is stuck.
        filer = FakeFiler()
        with Fetcher() as fetcher:
            during = poll(conn, filer, fetcher, now_ms=T0 + LEASE_MS - 1)
        assert during.ran == 0 and filer.calls == []
        assert worker.poll() is None  # still asleep inside the job
        os.kill(worker.pid, signal.SIGKILL)
        assert worker.wait(timeout=10) == -signal.SIGKILL
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()

    with Fetcher() as fetcher:
        after = poll(conn, filer, fetcher, now_ms=T0 + LEASE_MS)
        assert after.ran == 1 and [run.status for run in after.runs] == ["filed"]
        later = poll(conn, filer, fetcher, now_ms=T0 + 10 * LEASE_MS)
        assert later.ran == 0

    [job] = jobs.list_jobs(conn, watch_id=watch.id)
    assert job.status == "done" and job.attempts == 2  # the killed attempt counted
    runs = rows(conn, "SELECT status, attempt FROM watch_runs WHERE watch_id = ?", (watch.id,))
    assert runs == [{"status": "filed", "attempt": 2}]  # recorded exactly once
    assert len(filer.notes) == 1
    assert len(rows(conn, "SELECT * FROM reminders")) == 1
