"""One pass of the scheduler: enqueue what is due, run jobs, record what happened.

`poll()` is what `privault watch poll` (cron) and the `privault serve` clock both call. It
is safe to run from several processes at once: enqueueing is idempotent per planned run
and every job is leased before it runs (see `jobs.py`). A watch that fails — an error
result or an unexpected exception — is recorded on its run and its job is retried or
dead-lettered; the loop goes on with the next job.

Results are recorded in one transaction with the job's completion, and only while the
worker still holds the lease, so a run is recorded exactly once even if a slow worker is
overtaken. What the `Filer` stored before a worker died is not undone: actions are written
to be repeatable (page versions compare hashes, reminders are keyed by planned time,
search results by URL).
"""

from __future__ import annotations

import json
import os
import random
import secrets
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from privault.errors import InputError
from privault.jsonform import JsonForm
from privault.store import jobs
from privault.store import watches as store
from privault.store.connection import Connection, write
from privault.timeutil import now_ms as system_clock
from privault.watches.actions import (
    ActionContext,
    ActionResult,
    Filer,
    SearchBackend,
    remind_action,
)
from privault.watches.fetcher import Fetcher
from privault.watches.folder import folder_action
from privault.watches.manage import get_watch
from privault.watches.model import Watch, WatchRun
from privault.watches.schedule import Schedule, plan_due
from privault.watches.web import search_action, url_action

Action = Callable[[Watch, dict[str, Any], int, ActionContext], ActionResult]
ACTIONS: dict[str, Action] = {
    "url": url_action,
    "search": search_action,
    "remind": remind_action,
    "folder": folder_action,
}


@dataclass(frozen=True)
class PollReport(JsonForm):
    """What one poll did. `runs` holds every recorded run, errors included."""

    enqueued: int = 0
    skipped: int = 0  # planned runs not caught up (beyond each watch's max_catchup)
    ran: int = 0
    failed: int = 0
    retrying: int = 0
    dead: int = 0
    lost_leases: int = 0
    elapsed_ms: int = 0
    runs: tuple[WatchRun, ...] = field(default=())


def default_worker() -> str:
    """A worker name that tells the owner which process held a lease."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(2)}"


def enqueue_due(conn: Connection, *, now_ms: int, policy: jobs.RetryPolicy) -> tuple[int, int]:
    """Turn every due planned run into a job; return (jobs enqueued, runs skipped).

    Each watch is planned on its own: one whose schedule cannot be read (stored by another
    version, or synced from another device) is planned no more, with the reason as its last
    error (not counted as a run: nothing ran), and the others are enqueued as usual."""
    enqueued = skipped = 0
    with write(conn):
        for due in store.due_watches(conn, now_ms):
            watch_id = due["id"]
            try:
                schedule = Schedule.stored(due["schedule"])
                plan = plan_due(schedule, due["next_run_at"], now_ms, due["max_catchup"])
            except (InputError, ValueError) as exc:
                reason = f"its schedule cannot be read, so it is not planned: {exc}"
                store.unplan(conn, watch_id, now_ms, reason)  # not a run: nothing ran
                continue
            for planned in plan.run_at:
                if (
                    jobs.enqueue(
                        conn, watch_id, planned, now_ms=now_ms, max_attempts=policy.max_attempts
                    )
                    is not None
                ):
                    enqueued += 1
            skipped += plan.skipped
            store.advance(conn, watch_id, plan.next_run, plan.skipped, now_ms)
    return enqueued, skipped


def _record(
    conn: Connection,
    job: jobs.Job,
    result: ActionResult,
    started: int,
    finished: int,
    policy: jobs.RetryPolicy,
    rng: random.Random,
) -> tuple[WatchRun | None, str]:
    """Store a run and settle its job in one transaction; ('lost', None) if overtaken."""
    with write(conn):
        if not jobs.holds_lease(conn, job):
            return None, "lost"
        run_row = store.insert_run(
            conn,
            {
                "watch_id": job.watch_id,
                "job_id": job.id,
                "planned_at": job.planned_at,
                "started_at": started,
                "finished_at": finished,
                "attempt": job.attempts,
                "status": result.status,
                "summary": result.summary,
                "error": result.error,
                "doc_ids": json.dumps(list(result.doc_ids)),
                "diff": result.diff,
            },
        )
        if result.commit is not None:
            result.commit(conn)
        failed = result.status == "error"
        store.record_outcome(
            conn,
            job.watch_id,
            finished=finished,
            status=result.status,
            error=result.error,
            failed=failed,
            state=None if result.state is None else json.dumps(result.state),
        )
        if failed:
            outcome = jobs.fail(
                conn,
                job,
                result.error or result.summary,
                now_ms=finished,
                retryable=result.retryable,
                policy=policy,
                rng=rng,
            )
        else:
            outcome = "done" if jobs.complete(conn, job, now_ms=finished) else None
    assert outcome is not None  # the lease was checked above
    return WatchRun.from_row(run_row), outcome


def run_job(
    conn: Connection,
    job: jobs.Job,
    context: ActionContext,
    *,
    clock: Callable[[], int],
    policy: jobs.RetryPolicy,
    rng: random.Random,
) -> tuple[WatchRun | None, str]:
    """Run one claimed job; return its recorded run (None if none) and the job's outcome."""
    watch = get_watch(conn, job.watch_id)
    if watch.status == "cancelled":
        jobs.complete(conn, job, now_ms=clock(), status="cancelled")
        return None, "cancelled"
    stored = store.state_of(conn, watch.id)
    state = json.loads(stored) if stored else {}
    started = clock()
    try:
        result = ACTIONS[watch.kind](watch, state, job.planned_at, context)
    except Exception as exc:  # one broken watch must not stop the others; record and retry
        result = ActionResult.failed(f"{type(exc).__name__}: {exc}", retryable=True)
    return _record(conn, job, result, started, clock(), policy, rng)


def poll(
    conn: Connection,
    filer: Filer,
    fetcher: Fetcher,
    *,
    now_ms: int | None = None,
    search: SearchBackend | None = None,
    worker: str | None = None,
    policy: jobs.RetryPolicy | None = None,
    max_jobs: int | None = None,
    batch: int = 32,
    rng: random.Random | None = None,
) -> PollReport:
    """Enqueue due watches and run claimable jobs until none is left (or `max_jobs`).

    `now_ms` fixes the clock for the whole poll (the CLI's `--now`, tests); otherwise the
    system clock is read as the poll goes on, so leases are measured in real time.
    Jobs are leased `batch` at a time; each must finish within half the lease
    (`RetryPolicy.lease_ms`), which the fetcher's total time limit guarantees for web jobs.
    """
    began = time.monotonic()
    clock: Callable[[], int] = (lambda: now_ms) if now_ms is not None else system_clock
    policy = policy or jobs.RetryPolicy()
    rng = rng or random.Random()
    worker = worker or default_worker()
    enqueued, skipped = enqueue_due(conn, now_ms=clock(), policy=policy)
    runs: list[WatchRun] = []
    counts = {"failed": 0, "queued": 0, "dead": 0, "lost": 0}
    ran = 0
    while max_jobs is None or ran < max_jobs:
        limit = batch if max_jobs is None else min(batch, max_jobs - ran)
        claimed = jobs.claim(
            conn, worker=worker, now_ms=clock(), lease_ms=policy.lease_ms, limit=limit
        )
        if not claimed:
            break
        for index, job in enumerate(claimed):
            # A batch is leased in one transaction (one fsync, not one per job). A job whose
            # lease is already half spent is handed back rather than started, so that no job
            # runs on into an expired lease where another worker could take it over.
            if clock() > (job.lease_expires_at or 0) - policy.lease_ms // 2:
                jobs.release(conn, claimed[index:])
                break
            context = ActionContext(conn, filer, fetcher, clock(), search)
            run, outcome = run_job(conn, job, context, clock=clock, policy=policy, rng=rng)
            ran += 1
            if run is not None:
                runs.append(run)
                counts["failed"] += run.status == "error"
            if outcome in counts:
                counts[outcome] += 1
    return PollReport(
        enqueued=enqueued,
        skipped=skipped,
        ran=ran,
        failed=counts["failed"],
        retrying=counts["queued"],
        dead=counts["dead"],
        lost_leases=counts["lost"],
        elapsed_ms=int((time.monotonic() - began) * 1000),
        runs=tuple(runs),
    )


def run_now(
    conn: Connection,
    filer: Filer,
    fetcher: Fetcher,
    watch_id: str,
    *,
    now_ms: int | None = None,
    search: SearchBackend | None = None,
    policy: jobs.RetryPolicy | None = None,
) -> WatchRun | None:
    """Run one watch immediately, outside its schedule (`privault watch run ID`).

    The run is an ordinary job (leased, recorded, retried on failure) with its own key, so
    it does not consume or shift the scheduled runs. None if another worker took it.
    """
    clock: Callable[[], int] = (lambda: now_ms) if now_ms is not None else system_clock
    policy = policy or jobs.RetryPolicy()
    watch = get_watch(conn, watch_id)
    if watch.status == "cancelled":
        raise InputError(f"watch {watch_id} is cancelled")
    now = clock()
    key = f"{watch_id}@manual:{now}:{secrets.token_hex(4)}"
    job_id = jobs.enqueue(
        conn, watch_id, now, now_ms=now, max_attempts=policy.max_attempts, key=key
    )
    assert job_id is not None  # the key is fresh
    claimed = jobs.claim(
        conn, worker=default_worker(), now_ms=now, lease_ms=policy.lease_ms, job_id=job_id
    )
    if not claimed:
        return None
    context = ActionContext(conn, filer, fetcher, now, search)
    run, _ = run_job(conn, claimed[0], context, clock=clock, policy=policy, rng=random.Random())
    return run
