"""The audit log: one row per agent call — who, when, which ids, which policy, what was held back.

Rows are only ever inserted. A call that writes records its row inside the same transaction
as the write, so the log can never show a write that did not happen or miss one that did.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from privault.errors import InputError
from privault.store.connection import Connection, rows, write
from privault.timeutil import now_ms, to_iso

MAX_REASON_CHARS = 500  # a reason is one line for the owner, not a dump of the input
MAX_IDS = 200
OUTCOMES = {"ok": "ok = 1", "refused": "ok = 0 AND refused = 1", "error": "ok = 0 AND refused = 0"}


@dataclass(frozen=True)
class AuditEntry:
    """What one call did, as the owner will read it."""

    agent: str
    tool: str
    ok: bool
    ids: tuple[str, ...] = ()
    policy: str | None = None
    held_back: dict[str, int] = field(default_factory=dict)
    refused: bool = False
    reason: str | None = None
    at: int | None = None  # None: now
    id: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "id": self.id,
            "at": to_iso(self.at),
            "agent": self.agent,
            "tool": self.tool,
            "ok": self.ok,
            "ids": list(self.ids),
            "policy": self.policy,
            "held_back": dict(self.held_back),
            "refused": self.refused,
            "reason": self.reason,
        }


def record(conn: Connection, entry: AuditEntry) -> int:
    """Insert one row (joining the caller's transaction if there is one); return its id."""
    reason = entry.reason
    if reason is not None and len(reason) > MAX_REASON_CHARS:
        reason = reason[: MAX_REASON_CHARS - 1] + "…"
    with write(conn):
        cursor = conn.execute(
            "INSERT INTO audit (at, agent, tool, ids, policy, held_back, refused, reason, ok) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                entry.at if entry.at is not None else now_ms(),
                entry.agent,
                entry.tool,
                json.dumps(list(entry.ids[:MAX_IDS])),
                entry.policy,
                json.dumps(dict(sorted(entry.held_back.items()))),
                int(entry.refused),
                reason,
                int(entry.ok),
            ),
        )
    return int(cursor.lastrowid or 0)


def entries(
    conn: Connection,
    *,
    agent: str | None = None,
    since: int | None = None,
    tools: Sequence[str] | None = None,
    outcome: str | None = None,
    limit: int = 200,
) -> list[AuditEntry]:
    """Rows newest first, optionally for one agent, from a time, for some tools, with one
    outcome (`ok`, `refused`, `error`)."""
    where: list[str] = []
    params: list[Any] = []
    if agent is not None:
        where.append("agent = ?")
        params.append(agent)
    if since is not None:
        where.append("at >= ?")
        params.append(since)
    if tools:
        where.append(f"tool IN ({','.join('?' * len(tools))})")
        params.extend(tools)
    if outcome is not None:
        if outcome not in OUTCOMES:
            raise InputError(f"outcome must be one of {', '.join(OUTCOMES)}, not {outcome!r}")
        where.append(OUTCOMES[outcome])
    sql = "SELECT * FROM audit"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY at DESC, id DESC LIMIT ?"
    return [
        AuditEntry(
            id=data["id"],
            at=data["at"],
            agent=data["agent"],
            tool=data["tool"],
            ok=bool(data["ok"]),
            ids=tuple(json.loads(data["ids"])),
            policy=data["policy"],
            held_back=json.loads(data["held_back"]),
            refused=bool(data["refused"]),
            reason=data["reason"],
        )
        for data in rows(conn, sql, [*params, limit])
    ]
