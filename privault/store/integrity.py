"""Whole-vault consistency: what a process killed at the wrong moment could leave behind.

Every write is one transaction, so none of these should ever be found; this is how a
test or a benchmark that kills writers proves it. A document is whole when every section
of it has index windows, every window a keyword row, and every section either its spans,
vectors and gated keyword rows (scanned) or a row in the index queue (its windows withheld
from gated callers until then); and when its labels are scanned or queued too. The counts are rows
that break one of those rules (0 everywhere: nothing half-written).
"""

from __future__ import annotations

from privault.store.connection import Connection, in_batches

_QUEUED = "EXISTS (SELECT 1 FROM index_queue q WHERE q.section_id = {})"

CHECKS = {
    # A section of a current document with no window at all: unsearchable text.
    "sections_without_windows": (
        "SELECT count(*) FROM sections s JOIN documents d ON d.id = s.doc_id"
        " WHERE d.current = 1 AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.section_id = s.id)"
    ),
    "windows_without_keyword_row": (
        "SELECT count(*) FROM chunks c WHERE NOT EXISTS"
        " (SELECT 1 FROM chunks_fts f WHERE f.rowid = c.id)"
    ),
    # Gated callers' keyword rows: one for every scanned window, none for a queued one
    # (its text is not known to be safe to match yet).
    "scanned_windows_without_gated_row": (
        "SELECT count(*) FROM chunks c WHERE NOT "
        + _QUEUED.format("c.section_id")
        + " AND NOT EXISTS (SELECT 1 FROM gated_fts g WHERE g.rowid = c.id)"
    ),
    "queued_windows_with_gated_row": (
        "SELECT count(*) FROM chunks c WHERE "
        + _QUEUED.format("c.section_id")
        + " AND EXISTS (SELECT 1 FROM gated_fts g WHERE g.rowid = c.id)"
    ),
    "scanned_windows_without_vector": (
        "SELECT count(*) FROM chunks c WHERE NOT "
        + _QUEUED.format("c.section_id")
        + " AND NOT EXISTS (SELECT 1 FROM chunks_vec v WHERE v.rowid = c.id)"
    ),
    "queued_windows_not_withheld": (
        "SELECT count(*) FROM chunks c WHERE "
        + _QUEUED.format("c.section_id")
        + " AND NOT EXISTS (SELECT 1 FROM masked_chunks m WHERE m.chunk_id = c.id"
        " AND m.embedding = x'')"
    ),
    "sections_neither_scanned_nor_queued": (
        "SELECT count(*) FROM sections s WHERE NOT "
        + _QUEUED.format("s.id")
        + " AND NOT EXISTS (SELECT 1 FROM pii_scans p WHERE p.section_id = s.id)"
    ),
    "documents_with_labels_neither_scanned_nor_queued": (
        "SELECT count(*) FROM documents d WHERE NOT EXISTS"
        " (SELECT 1 FROM label_spans l WHERE l.doc_id = d.id) AND NOT EXISTS"
        " (SELECT 1 FROM index_queue q WHERE q.doc_id = d.id AND q.section_id IS NULL)"
    ),
    "keyword_rows_without_window": (
        "SELECT (SELECT count(*) FROM chunks_fts f WHERE NOT EXISTS"
        " (SELECT 1 FROM chunks c WHERE c.id = f.rowid))"
        " + (SELECT count(*) FROM gated_fts g WHERE NOT EXISTS"
        " (SELECT 1 FROM chunks c WHERE c.id = g.rowid))"
    ),
    "masked_entries_without_window": (
        "SELECT count(*) FROM masked_chunks m WHERE NOT EXISTS"
        " (SELECT 1 FROM chunks c WHERE c.id = m.chunk_id)"
    ),
    "queue_rows_without_document": (
        "SELECT count(*) FROM index_queue q WHERE NOT EXISTS"
        " (SELECT 1 FROM documents d WHERE d.id = q.doc_id)"
    ),
    # The counters `status` reads (migration `status_tallies`) against a full count:
    # detector versions whose scan count differs, and the masked vectors' difference.
    "scan_counters_off": (
        "SELECT (SELECT count(*) FROM ("
        "SELECT detector_version, count(*) FROM pii_scans GROUP BY detector_version EXCEPT "
        "SELECT substr(name, 7), n FROM tallies WHERE name LIKE 'scans:%' AND n != 0)) "
        "+ (SELECT count(*) FROM ("
        "SELECT substr(name, 7), n FROM tallies WHERE name LIKE 'scans:%' AND n != 0 EXCEPT "
        "SELECT detector_version, count(*) FROM pii_scans GROUP BY detector_version))"
    ),
    "row_counters_off": (
        "SELECT abs((SELECT n FROM tallies WHERE name = 'rows:documents')"
        " - (SELECT count(*) FROM documents))"
        " + abs((SELECT n FROM tallies WHERE name = 'rows:sections')"
        " - (SELECT count(*) FROM sections))"
        " + abs((SELECT n FROM tallies WHERE name = 'rows:chunks') - (SELECT count(*) FROM chunks))"
        " + abs((SELECT n FROM tallies WHERE name = 'rows:strong_chunks')"
        " - (SELECT count(*) FROM strong_chunks))"
    ),
    "masked_vector_counter_off": (
        "SELECT abs((SELECT n FROM tallies WHERE name = 'masked_vectors')"
        " - (SELECT count(*) FROM masked_chunks WHERE length(embedding) > 0))"
    ),
}


def integrity_check(conn: Connection) -> str:
    """SQLite's own check of the file: 'ok', or the first things it found, on one line."""
    rows = [str(row[0]) for row in conn.execute("PRAGMA integrity_check").fetchall()]
    if rows == ["ok"]:
        return "ok"
    found = [line for row in rows for line in row.splitlines() if not line.startswith("***")]
    return "; ".join(found[:10])


def half_written(conn: Connection) -> dict[str, int]:
    """Rows breaking each rule of a whole document (see the module docstring)."""
    return {name: int(conn.execute(sql).fetchone()[0]) for name, sql in CHECKS.items()}


def missing_documents(conn: Connection, doc_ids: list[str]) -> list[str]:
    """Which of these document ids the vault does not hold."""
    held: set[str] = set()
    for batch, marks in in_batches(doc_ids):
        held.update(
            str(doc_id)
            for (doc_id,) in conn.execute(f"SELECT id FROM documents WHERE id IN ({marks})", batch)
        )
    return [doc_id for doc_id in doc_ids if doc_id not in held]


def missing_reminders(conn: Connection, filed: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Which (watch id, planned time) reminders are not listed (filed runs acknowledged)."""
    return [
        (watch_id, planned)
        for watch_id, planned in filed
        if conn.execute(
            "SELECT 1 FROM reminders WHERE watch_id = ? AND planned_at = ?", (watch_id, planned)
        ).fetchone()
        is None
    ]
