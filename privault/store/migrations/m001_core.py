"""Documents, their section trees, the chunk indexes (FTS5 + sqlite-vec), shelves, tombstones."""

STEPS = [
    """CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    )""",
    """CREATE TABLE shelves (
        name       TEXT PRIMARY KEY,
        policy     TEXT,                          -- policy name for agents; NULL = caller default
        restricted INTEGER NOT NULL DEFAULT 0,    -- 1: only agents on the access list see it
        private    INTEGER NOT NULL DEFAULT 0,    -- 1: its text is private for ask
        created_at INTEGER NOT NULL
    )""",
    """CREATE TABLE documents (
        id           TEXT PRIMARY KEY,
        kind         TEXT NOT NULL CHECK (kind IN ('note', 'page', 'file', 'reminder')),
        title        TEXT NOT NULL,
        source       TEXT,                        -- URL or absolute path; NULL for notes
        shelf        TEXT NOT NULL DEFAULT 'default',
        content_hash TEXT NOT NULL,
        body         TEXT NOT NULL,               -- the text as stored (after extraction)
        created_at   INTEGER NOT NULL,            -- when the content was written (ms UTC)
        updated_at   INTEGER NOT NULL,
        untrusted    INTEGER NOT NULL DEFAULT 0,  -- 1: text from the web; data, never orders
        previous_id  TEXT REFERENCES documents(id),  -- the version this one replaced
        current      INTEGER NOT NULL DEFAULT 1,  -- 0: an older version of a changed page
        metadata     TEXT NOT NULL DEFAULT '{}'
    )""",
    "CREATE INDEX documents_shelf ON documents (shelf, kind, created_at)",
    "CREATE INDEX documents_source ON documents (source, shelf) WHERE source IS NOT NULL",
    "CREATE INDEX documents_hash ON documents (content_hash, shelf)",
    """CREATE TABLE document_tags (
        doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        tag    TEXT NOT NULL,
        PRIMARY KEY (doc_id, tag)
    ) WITHOUT ROWID""",
    "CREATE INDEX document_tags_tag ON document_tags (tag)",
    """CREATE TABLE sections (
        id          INTEGER PRIMARY KEY,
        node_id     TEXT NOT NULL UNIQUE,
        doc_id      TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        parent_node TEXT,
        position    INTEGER NOT NULL,             -- order within the document
        depth       INTEGER NOT NULL,
        heading     TEXT NOT NULL,
        breadcrumb  TEXT NOT NULL,                -- JSON list of headings from the root
        text        TEXT NOT NULL,
        start       INTEGER NOT NULL,             -- char offsets into documents.body
        end         INTEGER NOT NULL
    )""",
    "CREATE INDEX sections_doc ON sections (doc_id, position)",
    # AUTOINCREMENT: chunk ids never come back after a delete, so an in-memory vector
    # matrix keyed by chunk id can be refreshed by loading only ids above the last seen.
    """CREATE TABLE chunks (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        section_id INTEGER NOT NULL REFERENCES sections(id) ON DELETE CASCADE,
        position   INTEGER NOT NULL,
        start      INTEGER NOT NULL,              -- char offsets into sections.text
        end        INTEGER NOT NULL,
        tokens     INTEGER NOT NULL
    )""",
    "CREATE INDEX chunks_section ON chunks (section_id, position)",
    "CREATE VIRTUAL TABLE chunks_fts USING fts5(text, tokenize = 'porter unicode61')",
    "CREATE VIRTUAL TABLE chunks_vec USING vec0(embedding float[384] distance_metric=cosine)",
    # PII found in a document's title and headings, detected once at write time like section
    # text, so titles and breadcrumbs are gated from stored spans too.
    """CREATE TABLE label_spans (
        doc_id           TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        label            TEXT NOT NULL,
        spans            TEXT NOT NULL,             -- JSON [[start, end, kind, score, source]]
        detector_version TEXT NOT NULL,
        PRIMARY KEY (doc_id, label)
    ) WITHOUT ROWID""",
    """CREATE TABLE tombstones (
        kind       TEXT NOT NULL,
        id         TEXT NOT NULL,
        deleted_at INTEGER NOT NULL,
        PRIMARY KEY (kind, id)
    ) WITHOUT ROWID""",
]
