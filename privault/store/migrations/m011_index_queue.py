"""Background indexing, and section ids that are never handed out twice.

* `sections` gets AUTOINCREMENT. Without it SQLite reuses the largest id after that row is
  deleted, so work that names a section by id (a PII scan running beside a writer, a queued
  index job) could land on a different text written in between. The table is rebuilt the
  way SQLite documents (copy, drop, rename, with foreign keys off around the swap);
  `sqlite_sequence` starts at the largest id in use.
* `index_queue`: what a write left for the background indexer. One row per section whose
  PII scan, embedding and masked index entries are still to come, and one row per document
  (`section_id` NULL) whose labels — title, headings, tags — are still to be scanned. Until
  its row is gone, a section is withheld from every gated caller, and its index windows
  have an empty masked entry (no gated caller can match them). A row is leased by the
  worker that claims it (`lease_token`, `lease_owner`, `lease_expires_at`); a worker that
  dies leaves the lease to expire — or to the next worker on the same host, which sees
  that the owner's process is gone — and the row is claimed again. `attempts` counts
  recorded failures: after too many the row is `dead` (still withheld, listed by
  `status`) until `privault index` tries it again.
"""

FOREIGN_KEYS_OFF = True

STEPS = [
    """CREATE TABLE sections_rebuilt (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        node_id     TEXT NOT NULL UNIQUE,
        doc_id      TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        parent_node TEXT,
        position    INTEGER NOT NULL,
        depth       INTEGER NOT NULL,
        heading     TEXT NOT NULL,
        breadcrumb  TEXT NOT NULL,
        text        TEXT NOT NULL,
        start       INTEGER NOT NULL,
        end         INTEGER NOT NULL
    )""",
    "INSERT INTO sections_rebuilt (id, node_id, doc_id, parent_node, position, depth, heading,"
    " breadcrumb, text, start, end) SELECT id, node_id, doc_id, parent_node, position, depth,"
    " heading, breadcrumb, text, start, end FROM sections",
    "DROP TABLE sections",
    "ALTER TABLE sections_rebuilt RENAME TO sections",
    "CREATE INDEX sections_doc ON sections (doc_id, position)",
    "DELETE FROM sqlite_sequence WHERE name = 'sections'",
    "INSERT INTO sqlite_sequence (name, seq) SELECT 'sections', coalesce(max(id), 0) FROM sections",
    """CREATE TABLE index_queue (
        id               INTEGER PRIMARY KEY,
        doc_id           TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        section_id       INTEGER UNIQUE REFERENCES sections(id) ON DELETE CASCADE,
        status           TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'dead')),
        attempts         INTEGER NOT NULL DEFAULT 0,  -- failures recorded
        claims           INTEGER NOT NULL DEFAULT 0,  -- times leased (a killed worker's too)
        available_at     INTEGER NOT NULL,            -- not claimable before (backoff)
        lease_token      TEXT,
        lease_owner      TEXT,                        -- host:pid of the worker holding it
        lease_expires_at INTEGER,
        last_error       TEXT,
        queued_at        INTEGER NOT NULL
    )""",
    "CREATE UNIQUE INDEX index_queue_labels ON index_queue (doc_id) WHERE section_id IS NULL",
    "CREATE INDEX index_queue_doc ON index_queue (doc_id)",
    "CREATE INDEX index_queue_claimable ON index_queue (status, available_at)",
]
