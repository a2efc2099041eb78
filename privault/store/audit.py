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
from privault.jsonform import JsonForm, shown
from privault.store.connection import Connection, rows, write
from privault.timeutil import now_ms

MAX_REASON_CHARS = 500  # a reason is one line for the owner, not a dump of the input
MAX_IDS = 200
OUTCOMES = {"ok": "ok = 1", "refused": "ok = 0 AND refused = 1", "error": "ok = 0 AND refused = 0"}


@dataclass(frozen=True)
class AuditEntry(JsonForm):
    """What one call did, as the owner will read it."""

    agent: str
    tool: str
    ok: bool
    ids: tuple[str, ...] = ()
    policy: str | None = None
    held_back: dict[str, int] = field(default_factory=dict)
    refused: bool = False
    reason: str | None = None
    at: int | None = field(default=None, metadata=shown(iso=True))  # None: now
    id: int | None = None
    arguments: dict[str, Any] = field(default_factory=dict)  # what the call asked (clipped)


MAX_ARGUMENT_CHARS = 300  # per value: enough to read what was asked, not a copy of a document
SECRET_KEYS = ("token", "secret", "password", "key")


def clipped_arguments(arguments: dict[str, Any]) -> dict[str, Any]:
    """A call's arguments as the log keeps them: strings clipped, secrets left out, nested
    values as their JSON text (clipped too)."""
    kept: dict[str, Any] = {}
    for name, value in list(arguments.items())[:20]:
        key = str(name)[:60]
        if any(word in key.lower() for word in SECRET_KEYS):
            kept[key] = "(not kept)"
        elif value is None or isinstance(value, bool | int | float):
            kept[key] = value
        else:
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            kept[key] = (
                text if len(text) <= MAX_ARGUMENT_CHARS else text[: MAX_ARGUMENT_CHARS - 1] + "…"
            )
    return kept


def record(conn: Connection, entry: AuditEntry) -> int:
    """Insert one row (joining the caller's transaction if there is one); return its id."""
    reason = entry.reason
    if reason is not None and len(reason) > MAX_REASON_CHARS:
        reason = reason[: MAX_REASON_CHARS - 1] + "…"
    with write(conn):
        cursor = conn.execute(
            "INSERT INTO audit (at, agent, tool, ids, policy, held_back, refused, reason, ok,"
            " args) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                json.dumps(clipped_arguments(entry.arguments), ensure_ascii=False),
            ),
        )
    return int(cursor.lastrowid or 0)


@dataclass(frozen=True)
class AuditFilter:
    """Which rows a listing takes: one agent, a time window (`until` exclusive), tools, an
    outcome (`ok`, `refused`, `error`)."""

    agent: str | None = None
    since: int | None = None
    tools: Sequence[str] | None = None
    outcome: str | None = None
    until: int | None = None

    def where(self) -> tuple[list[str], list[Any]]:
        """SQL conditions and their parameters."""
        where: list[str] = []
        params: list[Any] = []
        if self.agent is not None:
            where.append("agent = ?")
            params.append(self.agent)
        if self.since is not None:
            where.append("at >= ?")
            params.append(self.since)
        if self.until is not None:
            where.append("at < ?")
            params.append(self.until)
        if self.tools:
            where.append(f"tool IN ({','.join('?' * len(self.tools))})")
            params.extend(self.tools)
        if self.outcome is not None:
            if self.outcome not in OUTCOMES:
                raise InputError(
                    f"outcome must be one of {', '.join(OUTCOMES)}, not {self.outcome!r}"
                )
            where.append(OUTCOMES[self.outcome])
        return where or ["1 = 1"], params


def entries(
    conn: Connection,
    *,
    agent: str | None = None,
    since: int | None = None,
    tools: Sequence[str] | None = None,
    outcome: str | None = None,
    limit: int = 200,
    until: int | None = None,
    before: tuple[int, int] | None = None,
) -> list[AuditEntry]:
    """Rows newest first, optionally for one agent, in a time window, for some tools, with
    one outcome (`ok`, `refused`, `error`). `before` is the (at, id) of the last row of the
    previous page (keyset paging)."""
    where, params = AuditFilter(agent, since, tools, outcome, until).where()
    if before is not None:
        where.append("(at < ? OR (at = ? AND id < ?))")
        params.extend((before[0], before[0], before[1]))
    sql = f"SELECT * FROM audit WHERE {' AND '.join(where)} ORDER BY at DESC, id DESC LIMIT ?"
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
            arguments=json.loads(data["args"]),
        )
        for data in rows(conn, sql, [*params, limit])
    ]


def count_entries(conn: Connection, chosen: AuditFilter) -> int:
    """How many rows a listing with these filters holds in all."""
    where, params = chosen.where()
    (count,) = conn.execute(
        f"SELECT count(*) FROM audit WHERE {' AND '.join(where)}", params
    ).fetchone()
    return int(count)


def last_calls(conn: Connection) -> dict[str, tuple[int, int, int]]:
    """Agent -> (time of its last call, calls, calls refused or failed)."""
    found = rows(
        conn,
        "SELECT agent, max(at) AS last, count(*) AS calls, sum(ok = 0) AS failed"
        " FROM audit GROUP BY agent",
    )
    return {data["agent"]: (data["last"], data["calls"], data["failed"]) for data in found}
