"""Statements: bi-temporal facts, their entities, attestations, disputes and closures.

Two time axes, all INTEGER epoch ms UTC. World time: `valid_from` / `valid_to` (half-open,
`valid_to` exclusive). Vault time: `recorded_at` / `invalidated_at`. Rows are never deleted
or rewritten in content; a change of belief is a new row or a closing stamp. Because
`valid_to` can be set after a row was recorded (supersede, invalidate), every value it ever
took is logged in `statement_closures` with the vault time it was learned, so a `known_at`
query can see the window as the vault saw it then.
"""

STEPS = [
    """CREATE TABLE statements (
        seq                 INTEGER PRIMARY KEY,         -- rowid of the FTS and vec rows
        id                  TEXT NOT NULL UNIQUE,        -- 's_' + 10 hex
        chain_id            TEXT NOT NULL,               -- id of the first version of the chain
        content             TEXT NOT NULL CHECK (length(trim(content)) > 0),
        source              TEXT,
        salience            REAL NOT NULL DEFAULT 0.5 CHECK (salience BETWEEN 0 AND 1),
        confidence          REAL NOT NULL DEFAULT 1 CHECK (confidence BETWEEN 0 AND 1),
        occurred_at         INTEGER,
        valid_from          INTEGER NOT NULL,
        valid_to            INTEGER,                     -- latest value; history in closures
        recorded_at         INTEGER NOT NULL,
        invalidated_at      INTEGER,                     -- set once, by revise
        invalidation_reason TEXT,
        supersedes          TEXT REFERENCES statements(id),
        superseded_by       TEXT REFERENCES statements(id),
        revises             TEXT REFERENCES statements(id),
        revised_by          TEXT REFERENCES statements(id),
        metadata            TEXT NOT NULL DEFAULT '{}',
        CHECK (valid_to IS NULL OR valid_to >= valid_from),
        CHECK (invalidated_at IS NULL OR invalidated_at >= recorded_at)
    )""",
    "CREATE INDEX statements_chain ON statements (chain_id, seq)",
    "CREATE INDEX statements_recorded ON statements (recorded_at)",
    "CREATE INDEX statements_source ON statements (source) WHERE source IS NOT NULL",
    """CREATE TABLE statement_entities (
        statement_id TEXT NOT NULL REFERENCES statements(id) ON DELETE CASCADE,
        key          TEXT NOT NULL,      -- normalised: NFKC, single spaces, casefolded
        name         TEXT NOT NULL,      -- as given (whitespace normalised), for display
        position     INTEGER NOT NULL,   -- order given by the writer
        PRIMARY KEY (statement_id, key)
    ) WITHOUT ROWID""",
    "CREATE INDEX statement_entities_key ON statement_entities (key)",
    """CREATE TABLE statement_closures (
        id           INTEGER PRIMARY KEY,
        statement_id TEXT NOT NULL REFERENCES statements(id) ON DELETE CASCADE,
        valid_to     INTEGER NOT NULL,
        recorded_at  INTEGER NOT NULL,   -- when the vault learned this end of the window
        reason       TEXT
    )""",
    "CREATE INDEX statement_closures_statement ON statement_closures (statement_id, recorded_at)",
    """CREATE TABLE statement_attestations (
        id           INTEGER PRIMARY KEY,
        statement_id TEXT NOT NULL REFERENCES statements(id) ON DELETE CASCADE,
        attested_at  INTEGER NOT NULL,   -- when it was heard again
        recorded_at  INTEGER NOT NULL,   -- when the vault wrote it down
        source       TEXT
    )""",
    "CREATE INDEX statement_attestations_statement ON statement_attestations (statement_id)",
    """CREATE TABLE statement_disputes (
        id             INTEGER PRIMARY KEY,
        a_id           TEXT NOT NULL REFERENCES statements(id) ON DELETE CASCADE,
        b_id           TEXT NOT NULL REFERENCES statements(id) ON DELETE CASCADE,
        reason         TEXT,
        recorded_at    INTEGER NOT NULL,
        settled_at     INTEGER,
        settled_reason TEXT,
        CHECK (a_id < b_id)
    )""",
    "CREATE INDEX statement_disputes_a ON statement_disputes (a_id)",
    "CREATE INDEX statement_disputes_b ON statement_disputes (b_id)",
    # External-content FTS: the text lives once, in `statements`; content never changes after
    # insert (a revision is a new row), so insert and delete triggers keep the index exact.
    """CREATE VIRTUAL TABLE statements_fts USING fts5(
        content, content = 'statements', content_rowid = 'seq', tokenize = 'porter unicode61'
    )""",
    """CREATE TRIGGER statements_fts_insert AFTER INSERT ON statements BEGIN
        INSERT INTO statements_fts (rowid, content) VALUES (new.seq, new.content);
    END""",
    "CREATE VIRTUAL TABLE statements_vec USING vec0(embedding float[384] distance_metric=cosine)",
    """CREATE TRIGGER statements_fts_delete AFTER DELETE ON statements BEGIN
        INSERT INTO statements_fts (statements_fts, rowid, content)
            VALUES ('delete', old.seq, old.content);
        DELETE FROM statements_vec WHERE rowid = old.seq;
    END""",
]
