"""Reading statements as the vault saw them at a moment (`known_at`).

Everything that can change after a statement is recorded — the end of its window, its
successor, its attestations, its disputes — carries the vault time it was learned. A view
at `known_at` keeps only what had been learned by then, so a past view is never coloured
by later knowledge. The SQL fragments here are shared by `query`, `entities` and `stats`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

from privault.statements.model import Statement
from privault.store.connection import Connection, rows

# The end of a statement's world window as known at :known (NULL = open-ended then).
VALID_TO_AT = (
    "(SELECT c.valid_to FROM statement_closures c"
    " WHERE c.statement_id = s.id AND c.recorded_at <= :known"
    " ORDER BY c.recorded_at DESC, c.id DESC LIMIT 1)"
)
# Recorded by :known and not yet replaced by a revision then.
BELIEVED_AT = "s.recorded_at <= :known AND (s.invalidated_at IS NULL OR s.invalidated_at > :known)"
# True in the world at :valid, as known at :known.
HOLDS_AT = f"s.valid_from <= :valid AND ({VALID_TO_AT} IS NULL OR {VALID_TO_AT} > :valid)"
# An unsettled dispute at :known.
DISPUTED_AT = (
    "EXISTS (SELECT 1 FROM statement_disputes d WHERE (d.a_id = s.id OR d.b_id = s.id)"
    " AND d.recorded_at <= :known AND (d.settled_at IS NULL OR d.settled_at > :known))"
)

_BATCH = 500  # ids per IN (...) list, well under SQLite's variable limit


def visibility(include_closed: bool) -> str:
    """The WHERE fragment for statements visible at :known (and holding at :valid)."""
    if include_closed:
        return "s.recorded_at <= :known"
    return f"{BELIEVED_AT} AND {HOLDS_AT}"


def load(conn: Connection, ids: Sequence[str], known_at: int) -> list[Statement]:
    """The statements with these ids as seen at `known_at`, in the order of `ids`."""
    found: dict[str, Statement] = {}
    for start in range(0, len(ids), _BATCH):
        found.update(_load_batch(conn, list(ids[start : start + _BATCH]), known_at))
    return [found[i] for i in ids if i in found]


def _marks(ids: Sequence[str]) -> str:
    return ",".join("?" * len(ids))


def _load_batch(conn: Connection, ids: list[str], known: int) -> dict[str, Statement]:
    marks = _marks(ids)
    base = rows(conn, f"SELECT * FROM statements WHERE id IN ({marks})", ids)
    entities: dict[str, list[tuple[str, str]]] = {}
    for entity in rows(
        conn,
        f"SELECT statement_id, name, kind FROM statement_entities WHERE statement_id IN"
        f" ({marks}) ORDER BY statement_id, position",
        ids,
    ):
        entities.setdefault(entity["statement_id"], []).append((entity["name"], entity["kind"]))
    closure: dict[str, dict[str, Any]] = {}
    for item in rows(
        conn,
        f"SELECT statement_id, valid_to, reason FROM statement_closures"
        f" WHERE statement_id IN ({marks}) AND recorded_at <= ? ORDER BY recorded_at, id",
        [*ids, known],
    ):
        closure[item["statement_id"]] = item  # the last one learned by `known` wins
    attested = {
        item["statement_id"]: item
        for item in rows(
            conn,
            f"SELECT statement_id, count(*) AS n, max(attested_at) AS last"
            f" FROM statement_attestations WHERE statement_id IN ({marks}) AND recorded_at <= ?"
            " GROUP BY statement_id",
            [*ids, known],
        )
    }
    disputed: dict[str, list[str]] = {}
    for item in rows(
        conn,
        f"SELECT a_id, b_id FROM statement_disputes WHERE (a_id IN ({marks}) OR b_id IN"
        f" ({marks})) AND recorded_at <= ? AND (settled_at IS NULL OR settled_at > ?)"
        " ORDER BY id",
        [*ids, *ids, known, known],
    ):
        disputed.setdefault(item["a_id"], []).append(item["b_id"])
        disputed.setdefault(item["b_id"], []).append(item["a_id"])
    successors = [r[k] for r in base for k in ("superseded_by", "revised_by") if r[k]]
    known_successors: set[str] = set()
    if successors:
        sql = f"SELECT id FROM statements WHERE id IN ({_marks(successors)}) AND recorded_at <= ?"
        known_successors = {item["id"] for item in rows(conn, sql, [*successors, known])}
    return {
        r["id"]: _view(
            r,
            entities.get(r["id"], []),
            closure.get(r["id"]),
            attested.get(r["id"]),
            disputed.get(r["id"], []),
            known_successors,
            known,
        )
        for r in base
    }


def _view(
    r: dict[str, Any],
    entities: list[tuple[str, str]],
    closure: dict[str, Any] | None,
    attested: dict[str, Any] | None,
    disputed: list[str],
    known_successors: set[str],
    known: int,
) -> Statement:
    stamp = r["invalidated_at"]
    invalidated_at = stamp if stamp is not None and stamp <= known else None
    reason = closure["reason"] if closure else None
    if invalidated_at is not None:
        reason = r["invalidation_reason"]
    return Statement(
        id=r["id"],
        chain_id=r["chain_id"],
        content=r["content"],
        entities=tuple(name for name, _ in entities),
        source=r["source"],
        salience=r["salience"],
        confidence=r["confidence"],
        occurred_at=r["occurred_at"],
        valid_from=r["valid_from"],
        valid_to=closure["valid_to"] if closure else None,
        recorded_at=r["recorded_at"],
        invalidated_at=invalidated_at,
        invalidation_reason=reason,
        supersedes=r["supersedes"],
        superseded_by=r["superseded_by"] if r["superseded_by"] in known_successors else None,
        revises=r["revises"],
        revised_by=r["revised_by"] if r["revised_by"] in known_successors else None,
        metadata=MappingProxyType(json.loads(r["metadata"])),
        confirmed_count=attested["n"] if attested else 0,
        last_confirmed_at=attested["last"] if attested else None,
        disputed_with=tuple(dict.fromkeys(disputed)),
        as_of=known,
        shelf=r["shelf"],
        author=r["author"],
        entity_kinds=tuple(kind for _, kind in entities),
    )
