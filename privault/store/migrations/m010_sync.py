"""Sync bookkeeping: which rows changed, the clock and origin of each, and what came from where.

Triggers on the synced tables note every change in `sync_dirty` (kind, stable id, when), so
no write path has to know about sync. Before an export or an import, the dirty rows are read
back, hashed, and those whose content really changed get a new hybrid logical clock and the
next local sequence number in `sync_rows` (`privault.sync` does that). `sync_rows` keeps
only the clock, origin device and a content hash per row, never a second copy of the text.

Rows that arrive before what they refer to (a version whose predecessor is in a bundle not
yet imported) wait in `sync_pending` and are retried on every import. `sync_files` lists the
change files of other devices already imported from a sync folder.

Stable ids: documents, statements, watches and shelves have their own; child rows that only
have an integer rowid are named by what makes them unique (char(31) separates the parts).
"""

_NOW = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"


def _mark(kind: str, key: str) -> str:
    return (
        f"INSERT INTO sync_dirty (kind, id, at) VALUES ('{kind}', {key}, {_NOW})"
        " ON CONFLICT (kind, id) DO UPDATE SET at = excluded.at;"
    )


def _triggers(table: str, kind: str, key: str, events: tuple[str, ...]) -> list[str]:
    """One AFTER trigger per event; `key` is written with `row.` for NEW or OLD."""
    made = []
    for event in events:
        verb = event.split()[0]
        which = "old" if verb == "DELETE" else "new"
        name = f"sync_{table}_{verb.lower()}"
        made.append(
            f"CREATE TRIGGER {name} AFTER {event} ON {table} BEGIN "
            f"{_mark(kind, key.replace('row.', which + '.'))} END"
        )
    return made


_SEP = " || char(31) || "
_ALL = ("INSERT", "UPDATE", "DELETE")

STEPS = [
    """CREATE TABLE sync_rows (
        kind   TEXT NOT NULL,
        id     TEXT NOT NULL,
        hlc    TEXT NOT NULL,              -- hybrid logical clock of the row's last change
        origin TEXT NOT NULL,              -- device that made that change
        hash   TEXT NOT NULL,              -- sha256 of the row's canonical form ('' = gone)
        seq    INTEGER NOT NULL,           -- local change number: what `--since` counts
        PRIMARY KEY (kind, id)
    ) WITHOUT ROWID""",
    "CREATE INDEX sync_rows_seq ON sync_rows (seq)",
    """CREATE TABLE sync_dirty (
        kind TEXT NOT NULL,
        id   TEXT NOT NULL,
        at   INTEGER NOT NULL,             -- ms UTC of the change: the clock's physical time
        PRIMARY KEY (kind, id)
    ) WITHOUT ROWID""",
    """CREATE TABLE sync_pending (
        kind    TEXT NOT NULL,
        id      TEXT NOT NULL,
        hlc     TEXT NOT NULL,
        origin  TEXT NOT NULL,
        payload TEXT NOT NULL,             -- JSON; 'null' for a removed row
        PRIMARY KEY (kind, id)
    ) WITHOUT ROWID""",
    """CREATE TABLE sync_files (
        peer        TEXT NOT NULL,         -- device id (the folder's name)
        name        TEXT NOT NULL,
        imported_at INTEGER NOT NULL,
        PRIMARY KEY (peer, name)
    ) WITHOUT ROWID""",
    *_triggers("documents", "document", "row.id", _ALL),
    *_triggers("document_tags", "document", "row.doc_id", ("INSERT", "DELETE")),
    *_triggers("tombstones", "tombstone", "row.id", ("INSERT", "UPDATE")),
    *_triggers(
        "statements",
        "statement",
        "row.id",
        (
            "INSERT",
            "UPDATE OF valid_to, invalidated_at, invalidation_reason, superseded_by, revised_by",
        ),
    ),
    *_triggers(
        "statement_closures",
        "closure",
        _SEP.join(["row.statement_id", "row.recorded_at", "row.valid_to"]),
        ("INSERT",),
    ),
    *_triggers(
        "statement_attestations",
        "attestation",
        _SEP.join(
            ["row.statement_id", "row.recorded_at", "row.attested_at", "coalesce(row.source, '')"]
        ),
        ("INSERT",),
    ),
    *_triggers(
        "statement_disputes",
        "dispute",
        _SEP.join(["row.a_id", "row.b_id", "row.recorded_at"]),
        ("INSERT", "UPDATE"),
    ),
    *_triggers("shelves", "shelf", "row.name", _ALL),
    *_triggers(
        "watches",
        "watch",
        "row.id",
        (
            "INSERT",
            "UPDATE OF kind, target, schedule, shelf, status, allow_private, max_catchup, options",
            "DELETE",
        ),
    ),
    *_triggers(
        "pii_overrides",
        "pii_override",
        _SEP.join(["row.doc_id", "coalesce(row.node_id, '')", "lower(row.value)"]),
        ("INSERT", "DELETE"),
    ),
    # Rows written before this migration are changes no device has seen yet.
    f"INSERT INTO sync_dirty SELECT 'document', id, {_NOW} FROM documents",
    f"INSERT INTO sync_dirty SELECT 'tombstone', id, {_NOW} FROM tombstones"
    " WHERE kind = 'document'",
    f"INSERT INTO sync_dirty SELECT 'statement', id, {_NOW} FROM statements",
    "INSERT OR IGNORE INTO sync_dirty SELECT 'closure', "
    + _SEP.join(["statement_id", "recorded_at", "valid_to"])
    + f", {_NOW} FROM statement_closures",
    "INSERT OR IGNORE INTO sync_dirty SELECT 'attestation', "
    + _SEP.join(["statement_id", "recorded_at", "attested_at", "coalesce(source, '')"])
    + f", {_NOW} FROM statement_attestations",
    "INSERT OR IGNORE INTO sync_dirty SELECT 'dispute', "
    + _SEP.join(["a_id", "b_id", "recorded_at"])
    + f", {_NOW} FROM statement_disputes",
    f"INSERT INTO sync_dirty SELECT 'shelf', name, {_NOW} FROM shelves",
    f"INSERT INTO sync_dirty SELECT 'watch', id, {_NOW} FROM watches",
    "INSERT OR IGNORE INTO sync_dirty SELECT 'pii_override', "
    + _SEP.join(["doc_id", "coalesce(node_id, '')", "lower(value)"])
    + f", {_NOW} FROM pii_overrides",
]
