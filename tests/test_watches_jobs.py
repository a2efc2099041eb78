"""The durable job table: idempotent enqueue, leases, fencing, backoff, dead letter."""

from __future__ import annotations

import random
import threading
from pathlib import Path

from test_watches_support import FakeFiler

from privault.store import jobs
from privault.store.connection import Connection, connect, rows
from privault.watches.fetcher import Fetcher
from privault.watches.manage import add_watch
from privault.watches.poll import poll

T0 = 1_780_000_000_000
POLICY = jobs.RetryPolicy(
    max_attempts=3, base_backoff_ms=1_000, max_backoff_ms=10_000, lease_ms=5_000
)


def _watch(conn: Connection) -> str:
    return add_watch(conn, "remind", "water the plants", at_ms=T0, now_ms=T0).id


def test_same_scheduled_run_is_enqueued_once(conn: Connection) -> None:
    watch_id = _watch(conn)
    first = jobs.enqueue(conn, watch_id, T0, now_ms=T0, max_attempts=3)
    again = jobs.enqueue(conn, watch_id, T0, now_ms=T0 + 5, max_attempts=3)
    other = jobs.enqueue(conn, watch_id, T0 + 60_000, now_ms=T0, max_attempts=3)
    assert first is not None and again is None and other is not None
    assert len(jobs.list_jobs(conn)) == 2


def test_a_leased_job_is_not_handed_out_twice(conn: Connection) -> None:
    watch_id = _watch(conn)
    jobs.enqueue(conn, watch_id, T0, now_ms=T0, max_attempts=3)
    [held] = jobs.claim(conn, worker="a", now_ms=T0, lease_ms=5_000)
    assert jobs.claim(conn, worker="b", now_ms=T0 + 4_999, lease_ms=5_000) == []
    [redelivered] = jobs.claim(conn, worker="b", now_ms=T0 + 5_000, lease_ms=5_000)
    assert redelivered.id == held.id and redelivered.attempts == 2
    # The first worker was overtaken: it can no longer complete or fail the job.
    assert not jobs.complete(conn, held, now_ms=T0 + 6_000)
    assert (
        jobs.fail(
            conn,
            held,
            "late",
            now_ms=T0 + 6_000,
            retryable=True,
            policy=POLICY,
            rng=random.Random(1),
        )
        is None
    )
    assert jobs.complete(conn, redelivered, now_ms=T0 + 6_000)
    assert jobs.list_jobs(conn)[0].status == "done"


def test_failures_back_off_then_dead_letter(conn: Connection) -> None:
    watch_id = _watch(conn)
    jobs.enqueue(conn, watch_id, T0, now_ms=T0, max_attempts=3)
    now, rng = T0, random.Random(7)
    outcomes, delays = [], []
    for _ in range(3):
        [job] = jobs.claim(conn, worker="w", now_ms=now, lease_ms=5_000)
        outcomes.append(
            jobs.fail(conn, job, "HTTP 500", now_ms=now, retryable=True, policy=POLICY, rng=rng)
        )
        after = jobs.list_jobs(conn)[0]
        if after.status == "queued":
            delays.append(after.available_at - now)
            assert jobs.claim(conn, worker="w", now_ms=after.available_at - 1, lease_ms=1) == []
            now = after.available_at
    assert outcomes == ["queued", "queued", "dead"]
    assert 500 <= delays[0] <= 1_000 and 1_000 <= delays[1] <= 2_000  # 2^n with jitter
    [dead] = jobs.list_jobs(conn, status="dead")
    assert dead.last_error == "HTTP 500" and dead.attempts == 3


def test_not_retryable_goes_straight_to_dead_letter(conn: Connection) -> None:
    watch_id = _watch(conn)
    jobs.enqueue(conn, watch_id, T0, now_ms=T0, max_attempts=3)
    [job] = jobs.claim(conn, worker="w", now_ms=T0, lease_ms=5_000)
    assert (
        jobs.fail(
            conn, job, "blocked", now_ms=T0, retryable=False, policy=POLICY, rng=random.Random()
        )
        == "dead"
    )


def test_a_job_whose_worker_keeps_dying_is_dead_lettered(conn: Connection) -> None:
    watch_id = _watch(conn)
    jobs.enqueue(conn, watch_id, T0, now_ms=T0, max_attempts=2)
    jobs.claim(conn, worker="a", now_ms=T0, lease_ms=1_000)
    jobs.claim(conn, worker="b", now_ms=T0 + 1_000, lease_ms=1_000)
    assert jobs.claim(conn, worker="c", now_ms=T0 + 2_000, lease_ms=1_000) == []
    [dead] = jobs.list_jobs(conn, status="dead")
    assert dead.last_error == "worker lost its lease"


def test_backoff_is_capped() -> None:
    rng = random.Random(3)
    for attempt in range(1, 30):
        assert jobs.backoff_ms(attempt, POLICY, rng) <= POLICY.max_backoff_ms


def test_concurrent_pollers_run_each_job_once(conn: Connection, tmp_path: Path) -> None:
    for index in range(60):
        add_watch(conn, "remind", f"r{index}", at_ms=T0, now_ms=T0)
    filers = [FakeFiler(), FakeFiler(), FakeFiler()]

    def worker(filer: FakeFiler) -> None:
        own = connect(tmp_path / "store.db")
        try:
            with Fetcher() as fetcher:
                poll(own, filer, fetcher, now_ms=T0, batch=4)
        finally:
            own.close()

    threads = [threading.Thread(target=worker, args=(filer,)) for filer in filers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    texts = sorted(note["text"] for filer in filers for note in filer.notes)
    assert texts == sorted(f"r{index}" for index in range(60))  # each once, none lost
    assert rows(conn, "SELECT count(*) AS n FROM watch_runs")[0]["n"] == 60
    assert {job.status for job in jobs.list_jobs(conn)} == {"done"}
