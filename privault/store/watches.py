"""Small lookups on the watch tables that the facade needs for visibility checks.

(The watch, run and reminder repositories themselves still live in `privault.watches`,
next to the models they build.)
"""

from __future__ import annotations

from privault.store.connection import Connection


def shelves_of_watches(conn: Connection) -> dict[str, str]:
    """Each watch id's shelf."""
    return dict(conn.execute("SELECT id, shelf FROM watches").fetchall())


def reminder_shelf(conn: Connection, reminder_id: str) -> str | None:
    """The shelf of a reminder, or None when there is no such reminder."""
    found = conn.execute("SELECT shelf FROM reminders WHERE id = ?", (reminder_id,)).fetchone()
    return found[0] if found else None


def watch_author(conn: Connection, watch_id: str) -> str:
    """Who added a watch: '' for the owner (or no such watch), else the agent's name."""
    found = conn.execute("SELECT author FROM watches WHERE id = ?", (watch_id,)).fetchone()
    return str(found[0]) if found else ""
