"""Watches, their runs, the durable job table and reminders. Times are UTC epoch ms."""

STEPS = [
    """CREATE TABLE watches (
        id            TEXT PRIMARY KEY,
        kind          TEXT NOT NULL CHECK (kind IN ('url', 'search', 'remind', 'folder')),
        target        TEXT NOT NULL,              -- URL, query, reminder text or folder path
        schedule      TEXT NOT NULL DEFAULT '',   -- interval, cron, or '' for a one-off
        shelf         TEXT NOT NULL DEFAULT 'default',
        status        TEXT NOT NULL DEFAULT 'active'
                      CHECK (status IN ('active', 'paused', 'cancelled', 'finished')),
        allow_private INTEGER NOT NULL DEFAULT 0,
        max_catchup   INTEGER NOT NULL DEFAULT 1 CHECK (max_catchup >= 1),
        options       TEXT NOT NULL DEFAULT '{}', -- kind-specific settings (JSON)
        state         TEXT NOT NULL DEFAULT '{}', -- kind-specific memory between runs (JSON)
        next_run_at   INTEGER,                    -- planned time of the next run; NULL: none
        last_run_at   INTEGER,
        last_status   TEXT,
        last_error    TEXT,
        runs          INTEGER NOT NULL DEFAULT 0,
        failures      INTEGER NOT NULL DEFAULT 0,
        skipped       INTEGER NOT NULL DEFAULT 0, -- planned runs missed beyond max_catchup
        created_at    INTEGER NOT NULL,
        updated_at    INTEGER NOT NULL
    )""",
    "CREATE INDEX watches_due ON watches (next_run_at) WHERE status = 'active'",
    """CREATE TABLE jobs (
        id               INTEGER PRIMARY KEY,
        watch_id         TEXT NOT NULL REFERENCES watches(id) ON DELETE CASCADE,
        idempotency_key  TEXT NOT NULL UNIQUE,    -- watch id + planned time: one job per run
        planned_at       INTEGER NOT NULL,
        status           TEXT NOT NULL DEFAULT 'queued'
                         CHECK (status IN ('queued', 'running', 'done', 'dead', 'cancelled')),
        attempts         INTEGER NOT NULL DEFAULT 0,
        max_attempts     INTEGER NOT NULL,
        available_at     INTEGER NOT NULL,        -- not claimable before (backoff)
        lease_owner      TEXT,
        lease_token      TEXT,                    -- fences completion to the current holder
        lease_expires_at INTEGER,
        last_error       TEXT,
        created_at       INTEGER NOT NULL,
        finished_at      INTEGER
    )""",
    "CREATE INDEX jobs_claimable ON jobs (status, available_at)",
    "CREATE INDEX jobs_watch ON jobs (watch_id, planned_at)",
    """CREATE TABLE watch_runs (
        id          INTEGER PRIMARY KEY,
        watch_id    TEXT NOT NULL REFERENCES watches(id) ON DELETE CASCADE,
        job_id      INTEGER REFERENCES jobs(id) ON DELETE SET NULL,
        planned_at  INTEGER NOT NULL,
        started_at  INTEGER NOT NULL,
        finished_at INTEGER NOT NULL,
        attempt     INTEGER NOT NULL,
        status      TEXT NOT NULL,                -- changed, unchanged, filed, error, skipped
        summary     TEXT NOT NULL DEFAULT '',
        error       TEXT,
        doc_ids     TEXT NOT NULL DEFAULT '[]',   -- documents filed by this run (JSON)
        diff        TEXT                          -- url watches: unified diff when changed
    )""",
    "CREATE INDEX watch_runs_watch ON watch_runs (watch_id, id)",
    """CREATE TABLE reminders (
        id         TEXT PRIMARY KEY,
        watch_id   TEXT NOT NULL REFERENCES watches(id) ON DELETE CASCADE,
        planned_at INTEGER NOT NULL,
        doc_id     TEXT NOT NULL,                 -- the note filed for it (kind 'reminder')
        text       TEXT NOT NULL,
        shelf      TEXT NOT NULL,
        due_at     INTEGER NOT NULL,
        acked_at   INTEGER,                       -- NULL: still due
        UNIQUE (watch_id, planned_at)
    )""",
    "CREATE INDEX reminders_due ON reminders (due_at) WHERE acked_at IS NULL",
]
