"""The durable job table: at-least-once delivery, never two holders at once.

A due watch run becomes one job row whose `idempotency_key` (watch id + planned time) is
unique, so enqueueing the same run twice is a no-op. A worker *claims* jobs inside one
`BEGIN IMMEDIATE` transaction, which gives it a lease (owner, random token, expiry) and
counts an attempt. A worker that dies leaves its lease to expire; the job is then claimable
again (redelivered). Completion and failure are fenced by the lease token: a worker whose
lease ran out and was taken over cannot complete or fail the job afterwards, so a run is
recorded once. Failures are retried after an exponential backoff with jitter; after
`max_attempts` the job is dead-lettered (status `dead`) and stays visible.

Leases must outlast the longest job (the fetcher's total time limit bounds url/search
jobs); the default of ten minutes is far beyond the default 30 s fetch limit.
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass
from typing import Any

from privault.store.connection import Connection, rows, write


@dataclass(frozen=True)
class RetryPolicy:
    """How jobs are leased and retried."""

    max_attempts: int = 5
    base_backoff_ms: int = 60_000
    max_backoff_ms: int = 6 * 3_600_000
    lease_ms: int = 10 * 60_000


@dataclass(frozen=True)
class Job:
    """A claimed (or listed) job."""

    id: int
    watch_id: str
    planned_at: int
    status: str
    attempts: int
    max_attempts: int
    available_at: int
    lease_owner: str | None
    lease_token: str | None
    lease_expires_at: int | None
    last_error: str | None

    @classmethod
    def from_row(cls, data: dict[str, Any]) -> Job:
        """Build from a `jobs` row."""
        return cls(**{name: data[name] for name in cls.__dataclass_fields__})


def run_key(watch_id: str, planned_at: int) -> str:
    """The idempotency key of one scheduled run."""
    return f"{watch_id}@{planned_at}"


def enqueue(
    conn: Connection,
    watch_id: str,
    planned_at: int,
    *,
    now_ms: int,
    max_attempts: int,
    key: str | None = None,
) -> int | None:
    """Add a job for one run; None when a job with the same key already exists."""
    with write(conn):
        cursor = conn.execute(
            "INSERT OR IGNORE INTO jobs (watch_id, idempotency_key, planned_at, max_attempts,"
            " available_at, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (
                watch_id,
                key or run_key(watch_id, planned_at),
                planned_at,
                max_attempts,
                now_ms,
                now_ms,
            ),
        )
        return cursor.lastrowid if cursor.rowcount else None


def claim(
    conn: Connection,
    *,
    worker: str,
    now_ms: int,
    lease_ms: int,
    limit: int = 1,
    job_id: int | None = None,
) -> list[Job]:
    """Lease up to `limit` claimable jobs (queued and available, or with an expired lease).

    A job whose lease expired after its last allowed attempt is dead-lettered here instead
    of being handed out again.
    """
    only = " AND id = ?" if job_id is not None else ""
    extra: tuple[Any, ...] = (job_id,) if job_id is not None else ()
    with write(conn):
        conn.execute(
            "UPDATE jobs SET status = 'dead', finished_at = ?, lease_owner = NULL,"
            " lease_token = NULL, last_error = coalesce(last_error, 'worker lost its lease')"
            " WHERE status = 'running' AND lease_expires_at <= ? AND attempts >= max_attempts",
            (now_ms, now_ms),
        )
        found = rows(
            conn,
            "SELECT id FROM jobs WHERE ((status = 'queued' AND available_at <= ?)"
            " OR (status = 'running' AND lease_expires_at <= ?))"
            + only
            + " ORDER BY available_at, id LIMIT ?",
            (now_ms, now_ms, *extra, limit),
        )
        claimed = []
        for item in found:
            token = secrets.token_hex(8)
            conn.execute(
                "UPDATE jobs SET status = 'running', attempts = attempts + 1, lease_owner = ?,"
                " lease_token = ?, lease_expires_at = ? WHERE id = ?",
                (worker, token, now_ms + lease_ms, item["id"]),
            )
            claimed.append(get_job(conn, item["id"]))
    return claimed


def cancel_queued(conn: Connection, watch_id: str, now: int) -> None:
    """Cancel the watch's jobs that have not started."""
    conn.execute(
        "UPDATE jobs SET status = 'cancelled', finished_at = ?"
        " WHERE watch_id = ? AND status = 'queued'",
        (now, watch_id),
    )


def get_job(conn: Connection, job_id: int) -> Job:
    """One job by id (raises LookupError if absent; a bug, since ids come from claims)."""
    found = rows(conn, "SELECT * FROM jobs WHERE id = ?", (job_id,))
    if not found:
        raise LookupError(f"no job {job_id}")
    return Job.from_row(found[0])


def holds_lease(conn: Connection, job: Job) -> bool:
    """True while `job`'s claim is still the current one (nobody took the job over)."""
    found = rows(
        conn,
        "SELECT 1 FROM jobs WHERE id = ? AND status = 'running' AND lease_token = ?",
        (job.id, job.lease_token),
    )
    return bool(found)


def complete(conn: Connection, job: Job, *, now_ms: int, status: str = "done") -> bool:
    """Mark a claimed job finished (`done` or `cancelled`); False if the lease was lost."""
    with write(conn):
        cursor = conn.execute(
            "UPDATE jobs SET status = ?, finished_at = ?, lease_owner = NULL, lease_token = NULL,"
            " lease_expires_at = NULL WHERE id = ? AND status = 'running' AND lease_token = ?",
            (status, now_ms, job.id, job.lease_token),
        )
        return cursor.rowcount == 1


def release(conn: Connection, claimed: list[Job]) -> None:
    """Hand claimed jobs back unrun: queued again, the attempt not counted."""
    with write(conn):
        for job in claimed:
            conn.execute(
                "UPDATE jobs SET status = 'queued', attempts = attempts - 1, lease_owner = NULL,"
                " lease_token = NULL, lease_expires_at = NULL"
                " WHERE id = ? AND status = 'running' AND lease_token = ?",
                (job.id, job.lease_token),
            )


def backoff_ms(attempt: int, policy: RetryPolicy, rng: random.Random) -> int:
    """Exponential backoff with jitter: base * 2^(attempt-1), capped, scaled by 0.5-1.0.

    The jitter spreads retries of watches that failed together (one outage) over time.
    """
    ceiling = min(policy.max_backoff_ms, policy.base_backoff_ms * 2 ** max(0, attempt - 1))
    return int(ceiling * (0.5 + rng.random() / 2))


def fail(
    conn: Connection,
    job: Job,
    error: str,
    *,
    now_ms: int,
    retryable: bool,
    policy: RetryPolicy,
    rng: random.Random,
) -> str | None:
    """Record a failed attempt: `queued` again after a backoff, or `dead`.

    Returns the new status, or None when the lease was lost (another worker owns the job).
    """
    dead = not retryable or job.attempts >= job.max_attempts
    with write(conn):
        if dead:
            cursor = conn.execute(
                "UPDATE jobs SET status = 'dead', last_error = ?, finished_at = ?,"
                " lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL"
                " WHERE id = ? AND status = 'running' AND lease_token = ?",
                (error, now_ms, job.id, job.lease_token),
            )
        else:
            cursor = conn.execute(
                "UPDATE jobs SET status = 'queued', last_error = ?, available_at = ?,"
                " lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL"
                " WHERE id = ? AND status = 'running' AND lease_token = ?",
                (error, now_ms + backoff_ms(job.attempts, policy, rng), job.id, job.lease_token),
            )
        if cursor.rowcount != 1:
            return None
    return "dead" if dead else "queued"


def list_jobs(
    conn: Connection, *, status: str | None = None, watch_id: str | None = None, limit: int = 100
) -> list[Job]:
    """Jobs, newest first, optionally by status (`dead` for the dead-letter list) or watch."""
    clauses, params = [], []
    if status is not None:
        clauses.append("status = ?")
        params.append(status)
    if watch_id is not None:
        clauses.append("watch_id = ?")
        params.append(watch_id)
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    found = rows(conn, f"SELECT * FROM jobs{where} ORDER BY id DESC LIMIT ?", (*params, limit))
    return [Job.from_row(item) for item in found]
