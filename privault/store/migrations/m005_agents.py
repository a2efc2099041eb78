"""Agents (hashed tokens), each shelf's access list, and the audit log of every agent call.

Tokens are 32 random bytes, so a plain sha256 of the token is as strong as the token itself:
there is nothing for a salt or a slow hash to protect against. Only the hash is stored.
"""

STEPS = [
    """CREATE TABLE agents (
        name       TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL UNIQUE,           -- sha256 hex of the bearer token
        read_only  INTEGER NOT NULL DEFAULT 0,     -- 1: no write tools at all
        created_at INTEGER NOT NULL,               -- ms UTC
        revoked_at INTEGER                         -- ms UTC; NULL while the token is valid
    )""",
    # The agents a restricted shelf is open to. Rows outlive a `publish`, so restricting the
    # shelf again restores the same list instead of an empty one.
    """CREATE TABLE shelf_agents (
        shelf TEXT NOT NULL REFERENCES shelves(name) ON DELETE CASCADE,
        agent TEXT NOT NULL REFERENCES agents(name) ON DELETE CASCADE,
        PRIMARY KEY (shelf, agent)
    ) WITHOUT ROWID""",
    "CREATE INDEX shelf_agents_agent ON shelf_agents (agent)",
    """CREATE TABLE audit (
        id        INTEGER PRIMARY KEY,
        at        INTEGER NOT NULL,                -- ms UTC
        agent     TEXT NOT NULL,                   -- caller name (an agent, or 'owner')
        tool      TEXT NOT NULL,                   -- MCP tool or operation name
        ids       TEXT NOT NULL DEFAULT '[]',      -- JSON list of node/doc/statement ids touched
        policy    TEXT,                            -- policy the reply was gated by
        held_back TEXT NOT NULL DEFAULT '{}',      -- JSON {kind: count} withheld from the reply
        refused   INTEGER NOT NULL DEFAULT 0,      -- 1: denied (access, policy)
        reason    TEXT,                            -- why it failed or was refused
        ok        INTEGER NOT NULL                 -- 1: the call succeeded
    )""",
    "CREATE INDEX audit_agent_at ON audit (agent, at)",
    "CREATE INDEX audit_at ON audit (at)",
]
