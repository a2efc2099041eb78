"""Counters kept by triggers in the same transaction as the rows they count.

Migrations `status_tallies` and `row_tallies` create them: rows of documents, sections,
windows and strong-covered windows; PII scans per detector version; masked entries that
hold a vector. `status` reads these instead of counting the vault.
"""

from __future__ import annotations

from privault.store.connection import Connection


def row_count(conn: Connection, table: str) -> int:
    """Rows of `documents`, `sections`, `chunks` or `strong_chunks`."""
    (count,) = conn.execute("SELECT n FROM tallies WHERE name = ?", (f"rows:{table}",)).fetchone()
    return int(count)


def scans(conn: Connection, detector_version: str) -> int:
    """Sections whose last PII scan was by `detector_version`."""
    found = conn.execute(
        "SELECT n FROM tallies WHERE name = ?", (f"scans:{detector_version}",)
    ).fetchone()
    return int(found[0]) if found else 0


def masked_vectors(conn: Connection) -> int:
    """Masked entries that hold a vector (not the empty one of a queued window)."""
    (count,) = conn.execute("SELECT n FROM tallies WHERE name = 'masked_vectors'").fetchone()
    return int(count)
