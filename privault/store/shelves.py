"""Shelf rows: policy, private flag, restriction, and which shelves documents name.

A document names its shelf; a shelf only needs a row once it has a policy, a private flag
or an access list (the list itself is `shelf_agents`, kept in `store.agents`).
"""

from __future__ import annotations

from typing import Any

from privault.errors import Conflict
from privault.store.connection import Connection, rows


def shelf_rows(conn: Connection) -> list[dict[str, Any]]:
    """Every shelf row."""
    return rows(conn, "SELECT * FROM shelves")


def document_counts(conn: Connection) -> dict[str, int]:
    """Current documents per shelf named by any document.

    Counted as every version per shelf (read from the `documents_shelf` index alone) less
    the older versions (few, found through `documents_listing`): filtering on `current`
    while grouping by shelf reads every row instead, 20 times slower at 100,000 documents.
    """
    counts = dict(conn.execute("SELECT shelf, count(*) FROM documents GROUP BY shelf").fetchall())
    for shelf, older in conn.execute(
        "SELECT shelf, count(*) FROM documents WHERE current = 0 GROUP BY shelf"
    ):
        counts[shelf] -= older
    return {shelf: count for shelf, count in counts.items() if count > 0}


def named_shelves(conn: Connection) -> list[str]:
    """Every shelf name a document or a shelf row uses, sorted."""
    return [
        name
        for (name,) in conn.execute(
            "SELECT DISTINCT shelf FROM documents UNION SELECT name FROM shelves ORDER BY 1"
        )
    ]


def exists(conn: Connection, name: str) -> bool:
    """Whether the vault has a shelf of this name: a row, or a document on it."""
    found = conn.execute(
        "SELECT 1 FROM shelves WHERE name = ? UNION ALL SELECT 1 FROM documents WHERE shelf = ?"
        " LIMIT 1",
        (name, name),
    ).fetchone()
    return found is not None


def shelf_row(conn: Connection, name: str) -> dict[str, Any] | None:
    """One shelf's row (None: no row; the shelf is then public, with no policy)."""
    found = rows(conn, "SELECT * FROM shelves WHERE name = ?", (name,))
    return found[0] if found else None


def restricted_names(conn: Connection) -> list[str]:
    """Shelves restricted to their access list."""
    return [name for (name,) in conn.execute("SELECT name FROM shelves WHERE restricted = 1")]


def with_policy(conn: Connection) -> list[str]:
    """Shelves that carry a policy of their own."""
    return [name for (name,) in conn.execute("SELECT name FROM shelves WHERE policy IS NOT NULL")]


def policy_of(conn: Connection, shelf: str) -> str | None:
    """The policy a shelf names (None: no row, or no policy of its own)."""
    found = conn.execute("SELECT policy FROM shelves WHERE name = ?", (shelf,)).fetchone()
    return found[0] if found else None


def is_private(conn: Connection, shelf: str) -> bool:
    """Whether a shelf's text may only be read by a local model."""
    found = conn.execute("SELECT private FROM shelves WHERE name = ?", (shelf,)).fetchone()
    return bool(found and found[0])


def insert(
    conn: Connection, name: str, policy: str | None, restricted: bool, private: bool, now: int
) -> None:
    """Add a shelf row (inside the caller's write); Conflict if it exists."""
    if conn.execute("SELECT 1 FROM shelves WHERE name = ?", (name,)).fetchone():
        raise Conflict(f"shelf {name!r} already exists")
    conn.execute(
        "INSERT INTO shelves (name, policy, restricted, private, created_at) "
        "VALUES (?, ?, ?, ?, ?)",
        (name, policy, int(restricted), int(private), now),
    )


def ensure_row(conn: Connection, name: str, now: int) -> None:
    """A row for a shelf that so far only documents named (inside the caller's write)."""
    conn.execute("INSERT OR IGNORE INTO shelves (name, created_at) VALUES (?, ?)", (name, now))


def set_restricted(conn: Connection, name: str, restricted: bool) -> None:
    """Restrict a shelf to its access list, or open it to every agent."""
    conn.execute("UPDATE shelves SET restricted = ? WHERE name = ?", (int(restricted), name))


def set_policy(conn: Connection, name: str, policy: str | None) -> None:
    """The policy agents read a shelf under (None: each agent's own), inside the caller's
    write."""
    conn.execute("UPDATE shelves SET policy = ? WHERE name = ?", (policy, name))
