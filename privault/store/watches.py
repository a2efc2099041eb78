"""The watch, watch-run and reminder repository: rows in, rows out.

`privault.watches` builds its models from these rows and decides what a change means;
every function that changes a row expects to run inside the caller's write transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from privault.store.connection import Connection, in_batches, row, rows

_WATCH_COLUMNS = (
    "id",
    "kind",
    "target",
    "schedule",
    "shelf",
    "allow_private",
    "max_catchup",
    "options",
    "next_run_at",
    "created_at",
    "updated_at",
    "author",
)
_RUN_COLUMNS = (
    "watch_id",
    "job_id",
    "planned_at",
    "started_at",
    "finished_at",
    "attempt",
    "status",
    "summary",
    "error",
    "doc_ids",
    "diff",
)
_REMINDER_COLUMNS = ("id", "watch_id", "planned_at", "doc_id", "text", "shelf", "due_at")


def _insert(
    conn: Connection, table: str, columns: tuple[str, ...], values: Mapping[str, Any]
) -> int:
    if set(values) != set(columns):
        raise ValueError(f"{table} row needs exactly {', '.join(columns)}")
    marks = ", ".join("?" * len(columns))
    cursor = conn.execute(
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})",
        [values[name] for name in columns],
    )
    return int(cursor.lastrowid or 0)


# -- watches ---------------------------------------------------------------------------


def watch_exists(conn: Connection, watch_id: str) -> bool:
    """True when a watch has this id (cancelled ones included)."""
    return row(conn, "SELECT 1 AS yes FROM watches WHERE id = ?", (watch_id,)) is not None


def insert_watch(conn: Connection, values: Mapping[str, Any]) -> None:
    """Add a watch row (`values` names every column a new watch sets)."""
    _insert(conn, "watches", _WATCH_COLUMNS, values)


def watch_row(conn: Connection, watch_id: str) -> dict[str, Any] | None:
    """The watch's row, or None."""
    return row(conn, "SELECT * FROM watches WHERE id = ?", (watch_id,))


def watch_rows(conn: Connection, *, include_cancelled: bool) -> list[dict[str, Any]]:
    """Every watch row, oldest first."""
    where = "" if include_cancelled else " WHERE status != 'cancelled'"
    return rows(conn, f"SELECT * FROM watches{where} ORDER BY created_at, rowid")


def set_status(conn: Connection, watch_id: str, status: str, now: int, **extra: Any) -> None:
    """Set a watch's status (and any other columns given), stamped `now`."""
    columns = "".join(f", {name} = ?" for name in extra)
    conn.execute(
        f"UPDATE watches SET status = ?, updated_at = ?{columns} WHERE id = ?",
        (status, now, *extra.values(), watch_id),
    )


def due_watches(conn: Connection, now: int) -> list[dict[str, Any]]:
    """id, schedule, next_run_at, max_catchup of every active watch due by `now`."""
    return rows(
        conn,
        "SELECT id, schedule, next_run_at, max_catchup FROM watches"
        " WHERE status = 'active' AND next_run_at <= ?",
        (now,),
    )


def advance(conn: Connection, watch_id: str, next_run: int | None, skipped: int, now: int) -> None:
    """Move a watch to its next planned run; no next run finishes it."""
    conn.execute(
        "UPDATE watches SET next_run_at = ?, skipped = skipped + ?, updated_at = ?,"
        " status = CASE WHEN ? IS NULL THEN 'finished' ELSE status END WHERE id = ?",
        (next_run, skipped, now, next_run, watch_id),
    )


def unplan(conn: Connection, watch_id: str, now: int, error: str) -> None:
    """Plan no more runs of a watch, saying why in its last status and error, leaving its
    status (a synced field) as it is. Nothing ran: its run and failure counts and its last
    run time stay as they were."""
    conn.execute(
        "UPDATE watches SET next_run_at = NULL, last_status = 'error', last_error = ?,"
        " updated_at = ? WHERE id = ?",
        (error, now, watch_id),
    )


def record_outcome(
    conn: Connection,
    watch_id: str,
    *,
    finished: int,
    status: str,
    error: str | None,
    failed: bool,
    state: str | None,
) -> None:
    """Count a finished run on its watch; `state` (JSON) replaces the stored state if given."""
    conn.execute(
        "UPDATE watches SET last_run_at = ?, last_status = ?, last_error = ?,"
        " runs = runs + 1, failures = failures + ?, state = coalesce(?, state),"
        " updated_at = ? WHERE id = ?",
        (finished, status, error, int(failed), state, finished, watch_id),
    )


def state_of(conn: Connection, watch_id: str) -> str | None:
    """The watch's stored state (JSON), or None when there is no such watch."""
    found = row(conn, "SELECT state FROM watches WHERE id = ?", (watch_id,))
    return found["state"] if found else None


def shelves_of_watches(conn: Connection) -> dict[str, str]:
    """Each watch id's shelf."""
    return {item["id"]: item["shelf"] for item in rows(conn, "SELECT id, shelf FROM watches")}


def watch_author(conn: Connection, watch_id: str) -> str:
    """Who added a watch: '' for the owner (or no such watch), else the agent's name."""
    found = row(conn, "SELECT author FROM watches WHERE id = ?", (watch_id,))
    return str(found["author"]) if found else ""


# -- runs ------------------------------------------------------------------------------


def insert_run(conn: Connection, values: Mapping[str, Any]) -> dict[str, Any]:
    """Add a watch-run row and return it as stored."""
    run_id = _insert(conn, "watch_runs", _RUN_COLUMNS, values)
    stored = row(conn, "SELECT * FROM watch_runs WHERE id = ?", (run_id,))
    assert stored is not None  # written just above, in the same transaction
    return stored


def run_rows(conn: Connection, watch_id: str, limit: int) -> list[dict[str, Any]]:
    """The watch's most recent runs, newest first."""
    return rows(
        conn,
        "SELECT * FROM watch_runs WHERE watch_id = ? ORDER BY id DESC LIMIT ?",
        (watch_id, limit),
    )


def recent_run_rows(
    conn: Connection, watch_ids: Sequence[str], limit: int
) -> dict[str, list[dict[str, Any]]]:
    """The `limit` most recent runs of each of these watches, newest first, by watch id
    (one query per 500 watches, not one per watch)."""
    found: dict[str, list[dict[str, Any]]] = {watch_id: [] for watch_id in watch_ids}
    ids = list(found)
    for chunk, marks in in_batches(ids):
        for item in rows(
            conn,
            "SELECT * FROM (SELECT *, ROW_NUMBER() OVER "
            "(PARTITION BY watch_id ORDER BY id DESC) AS recent "
            f"FROM watch_runs WHERE watch_id IN ({marks})) WHERE recent <= ? "
            "ORDER BY watch_id, id DESC",
            (*chunk, limit),
        ):
            found[item["watch_id"]].append(item)
    return found


# -- reminders -------------------------------------------------------------------------


def insert_reminder(conn: Connection, values: Mapping[str, Any]) -> None:
    """List a reminder as due."""
    _insert(conn, "reminders", _REMINDER_COLUMNS, values)


def reminder_row(conn: Connection, reminder_id: str) -> dict[str, Any] | None:
    """The reminder's row, or None."""
    return row(conn, "SELECT * FROM reminders WHERE id = ?", (reminder_id,))


def reminder_for_run(conn: Connection, watch_id: str, planned_at: int) -> dict[str, Any] | None:
    """The reminder a watch filed for one planned time, if it did."""
    return row(
        conn,
        "SELECT id, doc_id FROM reminders WHERE watch_id = ? AND planned_at = ?",
        (watch_id, planned_at),
    )


# Each list of reminders: which rows, the time it is ordered by (then the id), and which
# way. Every list pages by that (time, id) pair, as the documents list pages by its
# cursor: a page is as quick to read deep in the list as at its top, and a reminder that
# changes state meanwhile moves none of the others to another page.
LISTINGS = {
    # due: not acknowledged and not snoozed past now, the longest due first
    "due": ("acked_at IS NULL AND (snoozed_until IS NULL OR snoozed_until <= ?)", "due_at", 1),
    # snoozed: off the due list for now, the soonest back first
    "snoozed": ("acked_at IS NULL AND snoozed_until > ?", "snoozed_until", 1),
    "acked": ("acked_at IS NOT NULL", "acked_at", -1),  # the latest acknowledged first
    "all": ("1", "due_at", -1),  # the newest due first
}


def _listing_where(
    listing: str, *, now: int, hidden: Sequence[str], after: tuple[int, str] | None
) -> tuple[str, list[Any], str]:
    """The WHERE clause and its parameters for the rows of `listing` on shelves not
    `hidden` past `after`, and the ORDER BY that lists them."""
    condition, stamp, way = LISTINGS[listing]
    where = condition
    params: list[Any] = [now] if "?" in condition else []
    if hidden:
        where += f" AND shelf NOT IN ({','.join('?' * len(hidden))})"
        params += hidden
    if after is not None:
        where += f" AND ({stamp}, id) {'>' if way > 0 else '<'} (?, ?)"
        params += after
    direction = "" if way > 0 else " DESC"
    return where, params, f"{stamp}{direction}, id{direction}"


def reminder_rows(
    conn: Connection,
    listing: str,
    *,
    now: int,
    hidden: Sequence[str],
    after: tuple[int, str] | None = None,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """The reminders of `listing` (see `LISTINGS`) on shelves not `hidden`, from just past
    `after` (its time and id), at most `limit` of them."""
    where, params, order = _listing_where(listing, now=now, hidden=hidden, after=after)
    sql = f"SELECT * FROM reminders WHERE {where} ORDER BY {order}"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return rows(conn, sql, params)


def count_reminders(
    conn: Connection,
    listing: str,
    *,
    now: int,
    hidden: Sequence[str],
    after: tuple[int, str] | None = None,
) -> int:
    """How many reminders `reminder_rows` would list with no limit: the same rows, the
    same shelves left out."""
    where, params, _order = _listing_where(listing, now=now, hidden=hidden, after=after)
    (count,) = conn.execute(f"SELECT count(*) FROM reminders WHERE {where}", params).fetchone()
    return int(count)


def snooze(conn: Connection, reminder_id: str, until: int) -> None:
    """Keep an unacknowledged reminder off the due list until `until`."""
    conn.execute(
        "UPDATE reminders SET snoozed_until = ? WHERE id = ? AND acked_at IS NULL",
        (until, reminder_id),
    )


def ack(conn: Connection, reminder_id: str, now: int) -> None:
    """Stamp a reminder acknowledged (a second ack keeps the first stamp)."""
    conn.execute(
        "UPDATE reminders SET acked_at = ? WHERE id = ? AND acked_at IS NULL", (now, reminder_id)
    )


def reminder_shelf(conn: Connection, reminder_id: str) -> str | None:
    """The shelf of a reminder, or None when there is no such reminder."""
    found = row(conn, "SELECT shelf FROM reminders WHERE id = ?", (reminder_id,))
    return found["shelf"] if found else None


def run_times(conn: Connection) -> tuple[int | None, int | None]:
    """(when the last watch run finished, when the next active watch is due), or None."""
    (last,) = conn.execute("SELECT max(finished_at) FROM watch_runs").fetchone()
    (due,) = conn.execute("SELECT min(next_run_at) FROM watches WHERE status = 'active'").fetchone()
    return last, due
