"""The index queue (m011): work a write left for the background indexer, and its leases.

A deferred write stores a document's text, sections and keyword rows, and in the same
transaction one row here per section (PII scan, embedding, masked entries still to come)
plus one for the document's labels (`section_id` NULL). A worker claims rows inside one
`BEGIN IMMEDIATE` with a lease (a random token and an expiry), does the work outside the
lock, and completes them in the transaction that stores the result: a row is deleted only
together with what it stood for, so a crash at any point leaves either the row or the
work, never neither. A worker that dies leaves its lease to expire; the rows are claimed
again. Completion and failure are fenced by the token, so a worker whose lease ran out
cannot complete rows another worker holds.

While a row exists its section (or its document's labels) is withheld from every gated
caller: `pending_sections` and `labels_pending` answer that for the gate.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from privault.store.connection import IN_BATCH, Connection, first_column_in, write

MAX_ATTEMPTS = 5  # recorded failures before a row is dead
MAX_CLAIMS = 25  # leases without completion (workers killed on it) before it is dead
BACKOFF_MS = 30_000  # first retry after a failure; doubles with each attempt


@dataclass(frozen=True)
class Claimed:
    """Rows one worker leased: labels of some documents and some sections."""

    token: str
    label_docs: tuple[str, ...]  # documents whose labels this claim scans
    sections: tuple[int, ...]  # section row ids
    row_ids: tuple[int, ...]

    @property
    def empty(self) -> bool:
        """Whether nothing was claimed."""
        return not self.row_ids


@dataclass(frozen=True)
class Backlog:
    """What the queue holds: sections and documents still to index, and dead rows."""

    sections: int
    documents: int
    dead: int
    oldest_queued_at: int | None


def enqueue(conn: Connection, doc_id: str, section_ids: Sequence[int], now: int) -> None:
    """Queue a document's labels and sections (inside the caller's write transaction).

    A document already queued keeps one label row (its labels are scanned afresh when it
    is claimed); sections replaced by this write took their rows with them.
    """
    conn.execute(
        "INSERT INTO index_queue (doc_id, section_id, available_at, queued_at)"
        " SELECT ?, NULL, ?, ? WHERE NOT EXISTS"
        " (SELECT 1 FROM index_queue WHERE doc_id = ? AND section_id IS NULL)",
        (doc_id, now, now, doc_id),
    )
    # A worker scanning the old labels must not complete the row: its lease ends here.
    conn.execute(
        "UPDATE index_queue SET status = 'queued', attempts = 0, claims = 0, available_at = ?,"
        " lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL"
        " WHERE doc_id = ? AND section_id IS NULL",
        (now, doc_id),
    )
    conn.executemany(
        "INSERT INTO index_queue (doc_id, section_id, available_at, queued_at) VALUES (?,?,?,?)",
        [(doc_id, section_id, now, now) for section_id in section_ids],
    )


def drop_document(conn: Connection, doc_id: str) -> None:
    """Forget what is queued for a document (a write that scanned it whole replaces it)."""
    conn.execute("DELETE FROM index_queue WHERE doc_id = ?", (doc_id,))


def claim(
    conn: Connection,
    *,
    now: int,
    lease_ms: int,
    limit: int,
    max_chars: int = 1 << 62,
    lease_ms_per_char: float = 0.0,
    lease_max_ms: int | None = None,
    owner: str = "",
) -> Claimed:
    """Lease up to `limit` rows holding up to about `max_chars` of section text (at least
    one row), oldest first, in one transaction, for `lease_ms` and `lease_ms_per_char`
    for each character of their text (a long section alone may take many minutes), at
    most `lease_max_ms`.

    A row that failed before is claimed alone: a text the indexer cannot read then fails
    by itself, and the rows that failed beside it once are indexed, not killed with it.

    A section is only claimed once its document's labels are done or claimed with it:
    the masked entries of a section's windows need its breadcrumb's spans.
    """
    token = secrets.token_hex(8)
    with write(conn):
        conn.execute(
            "UPDATE index_queue SET status = 'dead', last_error = coalesce(last_error,"
            " 'the indexer stopped while working on it, too often')"
            " WHERE status = 'queued' AND claims >= ? AND lease_expires_at <= ?",
            (MAX_CLAIMS, now),
        )
        candidates = conn.execute(
            "SELECT q.id, q.doc_id, q.section_id, coalesce(length(s.text), 0), q.attempts"
            " FROM index_queue q"
            " LEFT JOIN sections s ON s.id = q.section_id WHERE q.status = 'queued'"
            " AND q.available_at <= ?"
            " AND (q.lease_expires_at IS NULL OR q.lease_expires_at <= ?) ORDER BY q.id LIMIT ?",
            (now, now, limit * 2),
        ).fetchall()
        docs = sorted({doc_id for _, doc_id, _, _, _ in candidates})
        marks = ",".join("?" * len(docs))
        waiting = {
            doc_id
            for (doc_id,) in conn.execute(
                f"SELECT doc_id FROM index_queue WHERE section_id IS NULL AND doc_id IN ({marks})",
                docs,
            )
        }
        labels: list[str] = []
        chosen: list[tuple[int, int | None]] = []
        chars = 0
        for row_id, doc_id, section_id, size, attempts in candidates:
            if len(chosen) >= limit or (chosen and (chars + size > max_chars or attempts)):
                break
            if section_id is None:
                labels.append(doc_id)
            elif doc_id in waiting and doc_id not in labels:
                continue
            chosen.append((row_id, section_id))
            chars += size
            if attempts:  # failed before, maybe for a neighbour's fault: alone this time
                break
        lease = lease_ms + round(chars * lease_ms_per_char)
        expires = now + (lease if lease_max_ms is None else min(lease, lease_max_ms))
        conn.executemany(
            "UPDATE index_queue SET lease_token = ?, lease_owner = ?, lease_expires_at = ?,"
            " claims = claims + 1 WHERE id = ?",
            [(token, owner, expires, row_id) for row_id, _ in chosen],
        )
    return Claimed(
        token,
        tuple(labels),
        tuple(section_id for _, section_id in chosen if section_id is not None),
        tuple(row_id for row_id, _ in chosen),
    )


def lease_owners(conn: Connection, now: int) -> list[str]:
    """Owners of leases that have not run out (to see whether their workers still live)."""
    return [
        str(owner)
        for (owner,) in conn.execute(
            "SELECT DISTINCT lease_owner FROM index_queue WHERE lease_expires_at > ?"
            " AND lease_owner IS NOT NULL AND lease_owner != ''",
            (now,),
        )
    ]


def expire_leases(conn: Connection, owners: Sequence[str], now: int) -> None:
    """End the leases of these owners now (their workers are gone)."""
    if not owners:
        return
    marks = ",".join("?" * len(owners))
    with write(conn):
        conn.execute(
            f"UPDATE index_queue SET lease_expires_at = ? WHERE lease_owner IN ({marks})"
            " AND lease_expires_at > ?",
            (now, *owners, now),
        )


def holds(conn: Connection, claimed: Claimed) -> set[int]:
    """Row ids of the claim still leased to it (inside the completing transaction)."""
    marks = ",".join("?" * len(claimed.row_ids))
    return {
        int(row_id)
        for (row_id,) in conn.execute(
            f"SELECT id FROM index_queue WHERE lease_token = ? AND id IN ({marks})",
            (claimed.token, *claimed.row_ids),
        )
    }


def held_section(conn: Connection, claimed: Claimed, section_id: int) -> bool:
    """Whether the claim still holds this section's row (inside the completing write)."""
    return (
        conn.execute(
            "SELECT 1 FROM index_queue WHERE section_id = ? AND lease_token = ?",
            (section_id, claimed.token),
        ).fetchone()
        is not None
    )


def held_labels(conn: Connection, claimed: Claimed, doc_id: str) -> bool:
    """Whether the claim still holds this document's label row."""
    return (
        conn.execute(
            "SELECT 1 FROM index_queue WHERE doc_id = ? AND section_id IS NULL AND lease_token = ?",
            (doc_id, claimed.token),
        ).fetchone()
        is not None
    )


def finish_section(conn: Connection, claimed: Claimed, section_id: int) -> None:
    """Delete a section's row (inside the write that stored its work)."""
    conn.execute(
        "DELETE FROM index_queue WHERE section_id = ? AND lease_token = ?",
        (section_id, claimed.token),
    )


def finish_labels(conn: Connection, claimed: Claimed, doc_id: str) -> None:
    """Delete a document's label row (inside the write that stored its label spans)."""
    conn.execute(
        "DELETE FROM index_queue WHERE doc_id = ? AND section_id IS NULL AND lease_token = ?",
        (doc_id, claimed.token),
    )


def release(conn: Connection, claimed: Claimed) -> None:
    """Hand rows back unworked (the claim counted no attempt)."""
    if claimed.empty:
        return
    marks = ",".join("?" * len(claimed.row_ids))
    with write(conn):
        conn.execute(
            "UPDATE index_queue SET lease_token = NULL, lease_owner = NULL,"
            " lease_expires_at = NULL, claims = max(claims - 1, 0)"
            f" WHERE lease_token = ? AND id IN ({marks})",
            (claimed.token, *claimed.row_ids),
        )


def fail(conn: Connection, claimed: Claimed, error: str, *, now: int) -> None:
    """Record a failed attempt on every row of a claim: retried after a backoff, or dead
    after `MAX_ATTEMPTS`."""
    if claimed.empty:
        return
    marks = ",".join("?" * len(claimed.row_ids))
    with write(conn):
        conn.execute(
            "UPDATE index_queue SET attempts = attempts + 1, last_error = ?,"
            " lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL,"
            " available_at = ? + ? * (1 << min(attempts, 10)),"
            " status = CASE WHEN attempts + 1 >= ? THEN 'dead' ELSE status END"
            f" WHERE lease_token = ? AND id IN ({marks})",
            (error[:500], now, BACKOFF_MS, MAX_ATTEMPTS, claimed.token, *claimed.row_ids),
        )


def retry_failed(conn: Connection, now: int) -> int:
    """Give every row that failed, dead or waiting for its backoff, one more try now (the
    owner asked); the number of rows. Each is claimed alone (see `claim`), and one that
    fails again is dead again."""
    with write(conn):
        return conn.execute(
            "UPDATE index_queue SET status = 'queued', available_at = ?, claims = 0,"
            " attempts = CASE WHEN status = 'dead' THEN ? ELSE attempts END"
            " WHERE (status = 'dead' OR attempts > 0)"
            " AND (lease_expires_at IS NULL OR lease_expires_at <= ?)",
            (now, MAX_ATTEMPTS - 1, now),
        ).rowcount


def pending_sections(conn: Connection, section_ids: Sequence[int]) -> set[int]:
    """Which of these sections still wait for their PII scan (queued or dead)."""
    sql = "SELECT section_id FROM index_queue WHERE section_id IN ({marks})"
    return {int(section_id) for section_id in first_column_in(conn, sql, section_ids)}


def waiting(
    conn: Connection, doc_ids: Sequence[str], section_ids: Sequence[int]
) -> tuple[set[str], set[int]]:
    """(`labels_pending(doc_ids)`, `pending_sections(section_ids)`), in one query when the
    two lists fit one statement (a reply asks both at once)."""
    if not doc_ids or not section_ids or len(doc_ids) + len(section_ids) > IN_BATCH:
        return labels_pending(conn, doc_ids), pending_sections(conn, section_ids)
    docs, sections = ",".join("?" * len(doc_ids)), ",".join("?" * len(section_ids))
    labels: set[str] = set()
    pending: set[int] = set()
    for doc_id, section_id in conn.execute(
        "SELECT doc_id, section_id FROM index_queue WHERE"
        f" (section_id IS NULL AND doc_id IN ({docs})) OR section_id IN ({sections})",
        [*doc_ids, *section_ids],
    ):
        if section_id is None:
            labels.add(str(doc_id))
        else:
            pending.add(int(section_id))
    return labels, pending


def labels_pending(conn: Connection, doc_ids: Sequence[str]) -> set[str]:
    """Which of these documents' titles, headings and tags still wait for their PII scan."""
    sql = "SELECT DISTINCT doc_id FROM index_queue WHERE section_id IS NULL AND doc_id IN ({marks})"
    return {str(doc_id) for doc_id in first_column_in(conn, sql, doc_ids)}


def has_claimable(conn: Connection, now: int) -> bool:
    """Whether a worker would find something to claim now."""
    return (
        conn.execute(
            "SELECT 1 FROM index_queue WHERE status = 'queued' AND available_at <= ?"
            " AND (lease_expires_at IS NULL OR lease_expires_at <= ?) LIMIT 1",
            (now, now),
        ).fetchone()
        is not None
    )


def dead_errors(conn: Connection, limit: int = 5) -> list[str]:
    """The last errors of dead rows (distinct), for `status`."""
    return [
        str(error)
        for (error,) in conn.execute(
            "SELECT DISTINCT last_error FROM index_queue WHERE status = 'dead'"
            " AND last_error IS NOT NULL LIMIT ?",
            (limit,),
        )
    ]


def backlog(conn: Connection) -> Backlog:
    """Counts of what waits (for `status` and the progress of `privault index`)."""
    sections, documents, dead, oldest = conn.execute(
        "SELECT count(section_id), count(DISTINCT doc_id),"
        " sum(CASE WHEN status = 'dead' THEN 1 ELSE 0 END), min(queued_at) FROM index_queue"
    ).fetchone()
    return Backlog(int(sections), int(documents), int(dead or 0), oldest)
