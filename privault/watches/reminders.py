"""Reminders that came due: listed until the owner acknowledges them."""

from __future__ import annotations

from privault.errors import NotFound
from privault.store.connection import Connection, row, rows, write
from privault.timeutil import now_ms as clock
from privault.watches.model import Reminder


def list_reminders(
    conn: Connection, *, include_acked: bool = False, limit: int = 100
) -> list[Reminder]:
    """Due reminders, oldest first (acknowledged ones too when asked for, newest first)."""
    if include_acked:
        sql = "SELECT * FROM reminders ORDER BY due_at DESC, id LIMIT ?"
    else:
        sql = "SELECT * FROM reminders WHERE acked_at IS NULL ORDER BY due_at, id LIMIT ?"
    return [Reminder.from_row(item) for item in rows(conn, sql, (limit,))]


def ack_reminder(conn: Connection, reminder_id: str, *, now_ms: int | None = None) -> Reminder:
    """Acknowledge a reminder so it is no longer due. Acknowledging twice changes nothing."""
    now = clock() if now_ms is None else now_ms
    with write(conn):
        found = row(conn, "SELECT * FROM reminders WHERE id = ?", (reminder_id,))
        if found is None:
            raise NotFound(f"no reminder {reminder_id!r}; `privault reminders` lists them")
        conn.execute(
            "UPDATE reminders SET acked_at = ? WHERE id = ? AND acked_at IS NULL",
            (now, reminder_id),
        )
        updated = row(conn, "SELECT * FROM reminders WHERE id = ?", (reminder_id,))
    assert updated is not None
    return Reminder.from_row(updated)
