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


KEYWORD_TABLES = ("chunks_fts", "gated_fts")


def keyword_rows(conn: Connection, table: str = "chunks_fts") -> int:
    """Rows of a keyword table (`chunks_fts`: plain, `gated_fts`: gated callers'), as FTS5
    itself keeps the number: the first varint of its "averages" record (row 1 of its
    `_data` table, the on-disk format FTS5 keeps stable), which bm25 reads too. Counted
    when that record is missing or unreadable."""
    if table not in KEYWORD_TABLES:
        raise ValueError(f"not a keyword table: {table!r}")
    found = conn.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()
    value = _varint(bytes(found[0])) if found is not None and found[0] is not None else None
    if value is None:
        (value,) = conn.execute(f"SELECT count(*) FROM {table}_docsize").fetchone()
    return int(value)


def _varint(data: bytes) -> int | None:
    """SQLite's big-endian varint at the start of `data` (None if cut short)."""
    value = 0
    for i, byte in enumerate(data[:9]):
        if i == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value
    return None
