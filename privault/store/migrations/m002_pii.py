"""PII spans found at write time, the scan state of each section, and owner overrides.

Spans point into `sections.text` (field 'text') or `sections.heading` (field 'heading') and
go with their section (sections are replaced on re-ingest, so their spans are too). A
section's row in `pii_scans` says which detector version last scanned it; deleting it (or a
version that differs from the current detector's) marks the section for re-scan, so "no
spans" and "never scanned" are never confused. Overrides hang off the document id and the
value, not offsets, so they survive re-ingest.
"""

STEPS = [
    """CREATE TABLE pii_spans (
        id               INTEGER PRIMARY KEY,
        section_id       INTEGER NOT NULL REFERENCES sections(id) ON DELETE CASCADE,
        field            TEXT NOT NULL DEFAULT 'text' CHECK (field IN ('text', 'heading')),
        start            INTEGER NOT NULL,
        end              INTEGER NOT NULL CHECK (end > start),
        kind             TEXT NOT NULL,
        score            REAL NOT NULL,
        source           TEXT NOT NULL,
        detector_version TEXT NOT NULL
    )""",
    "CREATE INDEX pii_spans_section ON pii_spans (section_id, field, start)",
    """CREATE TABLE pii_scans (
        section_id       INTEGER PRIMARY KEY REFERENCES sections(id) ON DELETE CASCADE,
        detector_version TEXT NOT NULL,
        scanned_at       INTEGER NOT NULL
    )""",
    "CREATE INDEX pii_scans_version ON pii_scans (detector_version)",
    """CREATE TABLE pii_overrides (
        id         INTEGER PRIMARY KEY,
        doc_id     TEXT NOT NULL,                 -- no FK: overrides outlive re-ingest
        node_id    TEXT,                          -- NULL: the whole document
        kind       TEXT NOT NULL,
        value      TEXT NOT NULL,
        action     TEXT NOT NULL CHECK (action IN ('mark', 'unmark')),
        created_at INTEGER NOT NULL
    )""",
    "CREATE INDEX pii_overrides_doc ON pii_overrides (doc_id)",
    """CREATE UNIQUE INDEX pii_overrides_unique
        ON pii_overrides (doc_id, coalesce(node_id, ''), action, lower(value))""",
]
