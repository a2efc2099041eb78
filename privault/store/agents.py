"""Agents and shelf access lists: who may call the vault, with which token, seeing what.

A token is shown once when it is issued and only its sha256 is stored; `by_token` hashes
what a client presents and compares in constant time, so neither the table nor the timing
of a failed lookup tells anything about valid tokens.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, field
from typing import Any

from privault.errors import Conflict, InputError, NotFound
from privault.jsonform import JsonForm, shown
from privault.store.connection import Connection, rows, write
from privault.timeutil import now_ms

TOKEN_PREFIX = "pv_"  # lets secret scanners and people recognise a privault token
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}\Z")


@dataclass(frozen=True)
class Agent(JsonForm):
    """A registered agent (never its token)."""

    name: str
    read_only: bool
    created_at: int = field(metadata=shown(iso=True))
    revoked_at: int | None = field(metadata=shown(iso=True, then={"active": "active"}))
    shelves: tuple[str, ...]  # shelves whose access list names this agent
    policy: str | None = None  # chosen in the vault by the owner; None: the configuration's
    # While set, every call is refused.
    paused_at: int | None = field(default=None, metadata=shown(iso=True, then={"paused": "paused"}))

    @property
    def active(self) -> bool:
        """True until the agent is revoked."""
        return self.revoked_at is None

    @property
    def paused(self) -> bool:
        """True while the owner has paused the agent (its token still exists)."""
        return self.paused_at is not None


def check_name(name: str) -> str:
    """An agent name as stored, or an InputError naming the rule."""
    if not _NAME.match(name):
        raise InputError(
            f"bad agent name {name!r}: use 1–64 lowercase letters, digits, '.', '_' or '-'"
        )
    if name == "owner":
        raise InputError("'owner' is the vault's owner, not an agent name")
    return name


def hash_token(token: str) -> str:
    """The stored form of a token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def issue(conn: Connection, name: str, *, read_only: bool = False) -> str:
    """Register an agent and return its token (the only time it is ever visible).

    Joins the caller's write transaction if one is open (so shelves can be attached in it).
    """
    check_name(name)
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with write(conn):
        if conn.execute("SELECT 1 FROM agents WHERE name = ?", (name,)).fetchone():
            raise Conflict(f"agent {name!r} already exists (revoke it, or choose another name)")
        conn.execute(
            "INSERT INTO agents (name, token_hash, read_only, created_at) VALUES (?, ?, ?, ?)",
            (name, hash_token(token), int(read_only), now_ms()),
        )
    return token


def revoke(conn: Connection, name: str) -> bool:
    """Revoke an agent's token; False if it was already revoked."""
    with write(conn):
        found = conn.execute("SELECT revoked_at FROM agents WHERE name = ?", (name,)).fetchone()
        if found is None:
            raise NotFound(f"no agent {name!r}")
        if found[0] is not None:
            return False
        conn.execute("UPDATE agents SET revoked_at = ? WHERE name = ?", (now_ms(), name))
    return True


def _changeable(conn: Connection, name: str) -> None:
    found = conn.execute("SELECT revoked_at FROM agents WHERE name = ?", (name,)).fetchone()
    if found is None:
        raise NotFound(f"no agent {name!r} (see `privault agents list`)")
    if found[0] is not None:
        raise Conflict(f"agent {name!r} is revoked: register a new one instead")


def set_policy(conn: Connection, name: str, policy: str | None) -> None:
    """Read the agent under `policy` from its next call (None: the configuration's)."""
    with write(conn):
        _changeable(conn, name)
        conn.execute("UPDATE agents SET policy = ? WHERE name = ?", (policy, name))


def set_read_only(conn: Connection, name: str, read_only: bool) -> bool:
    """Make the agent read-only or writable; False if it already was."""
    with write(conn):
        _changeable(conn, name)
        cursor = conn.execute(
            "UPDATE agents SET read_only = ? WHERE name = ? AND read_only != ?",
            (int(read_only), name, int(read_only)),
        )
    return cursor.rowcount > 0


def set_paused(conn: Connection, name: str, paused: bool) -> bool:
    """Pause the agent (its calls are refused) or resume it; False if it already was."""
    with write(conn):
        _changeable(conn, name)
        if paused:
            sql = "UPDATE agents SET paused_at = ? WHERE name = ? AND paused_at IS NULL"
            cursor = conn.execute(sql, (now_ms(), name))
        else:
            sql = "UPDATE agents SET paused_at = NULL WHERE name = ? AND paused_at IS NOT NULL"
            cursor = conn.execute(sql, (name,))
    return cursor.rowcount > 0


def _agent(conn: Connection, data: dict[str, Any]) -> Agent:
    return Agent(
        name=data["name"],
        read_only=bool(data["read_only"]),
        created_at=data["created_at"],
        revoked_at=data["revoked_at"],
        shelves=shelves_of(conn, data["name"]),
        policy=data.get("policy"),
        paused_at=data.get("paused_at"),
    )


def get(conn: Connection, name: str) -> Agent | None:
    """The agent called `name` (revoked or not), or None."""
    found = rows(conn, "SELECT * FROM agents WHERE name = ?", (name,))
    return _agent(conn, found[0]) if found else None


def list_agents(conn: Connection) -> list[Agent]:
    """Every agent, by name."""
    return [_agent(conn, data) for data in rows(conn, "SELECT * FROM agents ORDER BY name")]


def by_token(conn: Connection, token: str) -> Agent | None:
    """The active agent holding `token`, or None (unknown and revoked look the same)."""
    wanted = hash_token(token)
    found = rows(
        conn, "SELECT * FROM agents WHERE token_hash = ? AND revoked_at IS NULL", (wanted,)
    )
    # The lookup is by index; the constant-time compare guards the final decision anyway.
    if not found or not hmac.compare_digest(found[0]["token_hash"], wanted):
        return None
    return _agent(conn, found[0])


def revoked_holder(conn: Connection, token: str) -> str | None:
    """The name of the revoked agent whose token this was, or None (for the audit of a
    refused request; never for deciding access)."""
    wanted = hash_token(token)
    found = conn.execute(
        "SELECT name, token_hash FROM agents WHERE token_hash = ? AND revoked_at IS NOT NULL",
        (wanted,),
    ).fetchone()
    if found is None or not hmac.compare_digest(found[1], wanted):
        return None
    return str(found[0])


def shelves_of(conn: Connection, agent: str) -> tuple[str, ...]:
    """Shelves whose access list names `agent`."""
    return tuple(
        shelf
        for (shelf,) in conn.execute(
            "SELECT shelf FROM shelf_agents WHERE agent = ? ORDER BY shelf", (agent,)
        )
    )


def attached_agents(conn: Connection, shelf: str) -> tuple[str, ...]:
    """Agents on a shelf's access list."""
    return tuple(
        agent
        for (agent,) in conn.execute(
            "SELECT agent FROM shelf_agents WHERE shelf = ? ORDER BY agent", (shelf,)
        )
    )


def attach(conn: Connection, shelf: str, agent: str) -> None:
    """Put an agent on a shelf's access list (inside the caller's write)."""
    if get(conn, agent) is None:
        raise NotFound(f"no agent {agent!r} (register it with `privault agents add`)")
    conn.execute("INSERT OR IGNORE INTO shelf_agents (shelf, agent) VALUES (?, ?)", (shelf, agent))


def detach(conn: Connection, shelf: str, agent: str) -> bool:
    """Take an agent off a shelf's access list; False if it was not on it."""
    cursor = conn.execute("DELETE FROM shelf_agents WHERE shelf = ? AND agent = ?", (shelf, agent))
    return cursor.rowcount > 0
