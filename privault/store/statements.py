"""The statement repository: row-level pieces of statement changes, always called inside
an open write transaction.

`open_row` is the guard every change goes through: it reads the row under the lock and
refuses, with `Conflict`, one that another writer has already closed.
"""

from __future__ import annotations

import secrets
from typing import Any

from privault import timeutil
from privault.errors import Conflict, InputError, NotFound
from privault.store.connection import Connection, row, rows


def open_row(conn: Connection, statement_id: str, now: int, verb: str) -> dict[str, Any]:
    """The statement's row, read under the write lock; Conflict unless it is still open."""
    found = row(conn, "SELECT * FROM statements WHERE id = ?", (statement_id,))
    if found is None:
        raise NotFound(f"no statement {statement_id}")
    if found["recorded_at"] > now:
        raise InputError(f"cannot {verb} {statement_id} before it was recorded")
    if found["invalidated_at"] is not None:
        raise Conflict(
            f"cannot {verb} {statement_id}: it was revised into {found['revised_by']}; use that one"
        )
    if found["superseded_by"] is not None:
        raise Conflict(
            f"cannot {verb} {statement_id}: it is already superseded by {found['superseded_by']}"
        )
    if found["valid_to"] is not None and found["valid_to"] <= now:
        raise Conflict(
            f"cannot {verb} {statement_id}: it closed at {timeutil.to_iso(found['valid_to'])}"
            f" ({_own_words(found['invalidation_reason'])})"
        )
    return found


def insert(
    conn: Connection,
    fields: dict[str, Any],
    names: list[tuple[str, str, str]],
    valid_to: int | None,
    closure_reason: str | None,
    now: int,
    vector: bytes | None,
) -> str:
    """Insert one statement with its entities, window end and vector; returns its id."""
    new_id = fresh_id(conn)
    values = {"id": new_id, "chain_id": new_id, **fields, "recorded_at": now, "valid_to": valid_to}
    columns = ", ".join(values)
    cursor = conn.execute(
        f"INSERT INTO statements ({columns}) VALUES ({', '.join('?' * len(values))})",
        list(values.values()),
    )
    conn.executemany(
        "INSERT INTO statement_entities (statement_id, key, name, position, kind)"
        " VALUES (?, ?, ?, ?, ?)",
        [(new_id, key, name, position, kind) for position, (key, name, kind) in enumerate(names)],
    )
    if valid_to is not None:
        conn.execute(
            "INSERT INTO statement_closures (statement_id, valid_to, recorded_at, reason)"
            " VALUES (?, ?, ?, ?)",
            (new_id, valid_to, now, closure_reason),
        )
    if vector is not None:
        conn.execute(
            "INSERT INTO statements_vec (rowid, embedding) VALUES (?, ?)",
            (cursor.lastrowid, vector),
        )
    return new_id


def fresh_id(conn: Connection) -> str:
    """A new statement id, `s_` + 10 hex digits, not yet in the file."""
    while True:  # 40 random bits: a clash is rare, but cheap to rule out under the lock
        candidate = "s_" + secrets.token_hex(5)
        if row(conn, "SELECT 1 AS yes FROM statements WHERE id = ?", (candidate,)) is None:
            return candidate


def close(conn: Connection, statement_id: str, end: int, reason: str, now: int) -> None:
    """Set the end of the world window, and log when the vault learned it."""
    conn.execute(
        "UPDATE statements SET valid_to = ?, invalidation_reason = ? WHERE id = ?",
        (end, reason, statement_id),
    )
    conn.execute(
        "INSERT INTO statement_closures (statement_id, valid_to, recorded_at, reason)"
        " VALUES (?, ?, ?, ?)",
        (statement_id, end, now, reason),
    )


def closure_reason(conn: Connection, statement_id: str) -> str | None:
    """Why the window has its current end (None when open or bounded from the start)."""
    last = row(
        conn,
        "SELECT reason FROM statement_closures WHERE statement_id = ?"
        " ORDER BY recorded_at DESC, id DESC LIMIT 1",
        (statement_id,),
    )
    return last["reason"] if last else None


def entities_of(conn: Connection, statement_id: str) -> list[tuple[str, str, str]]:
    """(key, name, kind) triples of a statement, in the order given."""
    return [
        (item["key"], item["name"], item["kind"])
        for item in rows(
            conn,
            "SELECT key, name, kind FROM statement_entities WHERE statement_id = ?"
            " ORDER BY position",
            (statement_id,),
        )
    ]


def open_disputes(conn: Connection, statement_id: str) -> list[dict[str, Any]]:
    """Unsettled disputes the statement is part of."""
    return rows(
        conn,
        "SELECT * FROM statement_disputes WHERE (a_id = ? OR b_id = ?) AND settled_at IS NULL"
        " ORDER BY id",
        (statement_id, statement_id),
    )


def insert_dispute(conn: Connection, one: str, two: str, reason: str | None, now: int) -> None:
    """Record a dispute between two statements (stored in id order)."""
    first, second = sorted((one, two))
    conn.execute(
        "INSERT INTO statement_disputes (a_id, b_id, reason, recorded_at) VALUES (?, ?, ?, ?)",
        (first, second, reason, now),
    )


def settle_disputes(conn: Connection, statement_id: str, now: int, why: str) -> None:
    """Settle every open dispute of the statement; the rows stay, stamped."""
    conn.execute(
        "UPDATE statement_disputes SET settled_at = ?, settled_reason = ?"
        " WHERE (a_id = ? OR b_id = ?) AND settled_at IS NULL",
        (now, why, statement_id, statement_id),
    )


def mark_superseded(conn: Connection, statement_id: str, successor: str) -> None:
    """Point a statement at the one that superseded it."""
    conn.execute("UPDATE statements SET superseded_by = ? WHERE id = ?", (successor, statement_id))


def mark_revised(conn: Connection, statement_id: str, revision: str, now: int) -> None:
    """Replace a statement by its revision (from `now`, in vault time)."""
    conn.execute(
        "UPDATE statements SET invalidated_at = ?, invalidation_reason = 'revised',"
        " revised_by = ? WHERE id = ?",
        (now, revision, statement_id),
    )


def add_attestation(
    conn: Connection, statement_id: str, attested_at: int, now: int, source: str | None
) -> None:
    """Record that the statement was heard again at `attested_at` (learned `now`)."""
    conn.execute(
        "INSERT INTO statement_attestations (statement_id, attested_at, recorded_at, source)"
        " VALUES (?, ?, ?, ?)",
        (statement_id, attested_at, now, source),
    )


def copy_attestations(conn: Connection, source_id: str, target_id: str) -> None:
    """Give a revision every attestation of the statement it revises, as they were learned."""
    conn.execute(
        "INSERT INTO statement_attestations (statement_id, attested_at, recorded_at, source)"
        " SELECT ?, attested_at, recorded_at, source FROM statement_attestations"
        " WHERE statement_id = ? ORDER BY id",
        (target_id, source_id),
    )


def has_open_dispute(conn: Connection, one: str, two: str) -> bool:
    """True when the two statements are already in an unsettled dispute."""
    first, second = sorted((one, two))
    found = row(
        conn,
        "SELECT 1 AS yes FROM statement_disputes WHERE a_id = ? AND b_id = ?"
        " AND settled_at IS NULL",
        (first, second),
    )
    return found is not None


def without_vector(conn: Connection) -> list[dict[str, Any]]:
    """seq and content of every statement that has no vector yet, oldest first."""
    return rows(
        conn,
        "SELECT seq, content FROM statements"
        " WHERE seq NOT IN (SELECT rowid FROM statements_vec) ORDER BY seq",
    )


def save_vector(conn: Connection, seq: int, vector: bytes) -> None:
    """Store (or replace) the vector of the statement with rowid `seq`."""
    conn.execute(
        "INSERT OR REPLACE INTO statements_vec (rowid, embedding) VALUES (?, ?)", (seq, vector)
    )


def _own_words(reason: str | None) -> str:
    """Why a window closed, in words an error may carry: the vault's own reasons only.

    A reason the writer gave may name someone, and an error reaches any caller ungated."""
    return reason if reason in ("superseded", "revised", "invalidated") else "its window ended"
