"""Reminders that came due: listed until the owner acknowledges them."""

from __future__ import annotations

from collections.abc import Sequence

from privault.errors import NotFound
from privault.store import watches as store
from privault.store.connection import Connection, write
from privault.timeutil import now_ms as clock
from privault.watches.model import Reminder


def list_reminders(
    conn: Connection, *, include_acked: bool = False, limit: int = 100
) -> list[Reminder]:
    """Due reminders, oldest first (acknowledged ones too when asked for, newest first)."""
    found = store.reminder_rows(conn, include_acked=include_acked, limit=limit, now=clock())
    return [Reminder.from_row(item) for item in found]


def list_acknowledged(
    conn: Connection, *, limit: int, after: tuple[int, str] | None, hidden: Sequence[str]
) -> list[Reminder]:
    """Acknowledged reminders not on `hidden` shelves, the latest acknowledged first, from
    just past `after` (an acked_at and id)."""
    found = store.acked_reminder_rows(conn, limit=limit, after=after, hidden=hidden)
    return [Reminder.from_row(item) for item in found]


def count_acknowledged(conn: Connection, hidden: Sequence[str]) -> int:
    """How many reminders not on `hidden` shelves are acknowledged."""
    return store.count_acked_reminders(conn, hidden)


def ack_reminder(conn: Connection, reminder_id: str, *, now_ms: int | None = None) -> Reminder:
    """Acknowledge a reminder so it is no longer due. Acknowledging twice changes nothing."""
    now = clock() if now_ms is None else now_ms
    with write(conn):
        if store.reminder_row(conn, reminder_id) is None:
            raise NotFound(f"no reminder {reminder_id!r}; `privault reminders` lists them")
        store.ack(conn, reminder_id, now)
        updated = store.reminder_row(conn, reminder_id)
    assert updated is not None
    return Reminder.from_row(updated)


def snooze_reminder(conn: Connection, reminder_id: str, until: int) -> Reminder:
    """Keep a due reminder off the due list until `until` (ms UTC); snoozing again moves
    that time, and an acknowledged reminder stays acknowledged."""
    with write(conn):
        if store.reminder_row(conn, reminder_id) is None:
            raise NotFound(f"no reminder {reminder_id!r}; `privault reminders` lists them")
        store.snooze(conn, reminder_id, until)
        updated = store.reminder_row(conn, reminder_id)
    assert updated is not None
    return Reminder.from_row(updated)
