"""Reminders that came due: listed until the owner acknowledges them."""

from __future__ import annotations

from collections.abc import Sequence

from privault.errors import NotFound
from privault.store import watches as store
from privault.store.connection import Connection, write
from privault.timeutil import now_ms as clock
from privault.watches.model import Reminder


def list_reminders(
    conn: Connection,
    listing: str = "due",
    *,
    now_ms: int | None = None,
    hidden: Sequence[str] = (),
    after: tuple[int, str] | None = None,
    limit: int | None = None,
) -> list[Reminder]:
    """The reminders of one list: `due` (the longest due first), `snoozed` (the soonest
    back first), `acked` (the latest acknowledged first) or `all` (the newest due first);
    none on `hidden` shelves, from just past `after` (see `cursor`), at most `limit`."""
    now = clock() if now_ms is None else now_ms
    found = store.reminder_rows(conn, listing, now=now, hidden=hidden, after=after, limit=limit)
    return [Reminder.from_row(item) for item in found]


def count_reminders(
    conn: Connection,
    listing: str,
    *,
    now_ms: int | None = None,
    hidden: Sequence[str] = (),
    after: tuple[int, str] | None = None,
) -> int:
    """How many reminders `list_reminders` would give with no limit."""
    now = clock() if now_ms is None else now_ms
    return store.count_reminders(conn, listing, now=now, hidden=hidden, after=after)


def cursor(reminder: Reminder, listing: str) -> tuple[int, str]:
    """Where `reminder` stands in `listing`: its time that list is ordered by, and its id;
    pass it as `after` to list the ones past it."""
    _condition, stamp, _way = store.LISTINGS[listing]
    value = getattr(reminder, stamp)
    assert isinstance(value, int), f"{reminder.id} is not in the {listing} list"
    return value, reminder.id


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
