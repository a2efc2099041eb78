"""PII spans of statements, found when a statement is written, and each statement's scan state.

`statement_spans` points into `statements.content` (which never changes after insert, so
offsets stay valid). The short texts around it — source, entity names, metadata keys and
values, an invalidation reason — are scanned too and kept in `statement_scans.texts`, a
JSON object of text -> spans (keyed by the text itself, like `label_spans`, because they
have no stable position). A statement without a `statement_scans` row was never scanned
(written before this migration, or the process stopped between the two writes): reads then
detect live rather than show it, and `rescan` fills the row in.
"""

STEPS = [
    """CREATE TABLE statement_spans (
        id               INTEGER PRIMARY KEY,
        statement_id     TEXT NOT NULL REFERENCES statements(id) ON DELETE CASCADE,
        start            INTEGER NOT NULL,
        end              INTEGER NOT NULL CHECK (end > start),
        kind             TEXT NOT NULL,
        score            REAL NOT NULL,
        source           TEXT NOT NULL,
        detector_version TEXT NOT NULL
    )""",
    "CREATE INDEX statement_spans_statement ON statement_spans (statement_id, start)",
    """CREATE TABLE statement_scans (
        statement_id     TEXT PRIMARY KEY REFERENCES statements(id) ON DELETE CASCADE,
        detector_version TEXT NOT NULL,
        scanned_at       INTEGER NOT NULL,
        texts            TEXT NOT NULL DEFAULT '{}'  -- JSON: short text -> [[start, end, kind,
                                                     --   score, source], ...]
    ) WITHOUT ROWID""",
    "CREATE INDEX statement_scans_version ON statement_scans (detector_version)",
]
