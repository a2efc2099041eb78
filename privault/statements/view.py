"""Reading statements as the vault saw them at a moment (`known_at`).

Everything that can change after a statement is recorded — the end of its window, its
successor, its attestations, its disputes — carries the vault time it was learned. A view
at `known_at` keeps only what had been learned by then, so a past view is never coloured
by later knowledge; `store.statement_reads` reads the rows that way.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

from privault.statements.model import Statement
from privault.store.connection import Connection, in_batches
from privault.store.statement_reads import Loaded, load_rows


def load(conn: Connection, ids: Sequence[str], known_at: int) -> list[Statement]:
    """The statements with these ids as seen at `known_at`, in the order of `ids`."""
    found: dict[str, Statement] = {}
    for part, _ in in_batches(ids):
        loaded = load_rows(conn, part, known_at)
        found.update((r["id"], _view(r, loaded, known_at)) for r in loaded.base)
    return [found[i] for i in ids if i in found]


def _view(r: dict[str, Any], loaded: Loaded, known: int) -> Statement:
    entities = loaded.entities.get(r["id"], [])
    closure = loaded.closure.get(r["id"])
    attested = loaded.attested.get(r["id"])
    known_successors = loaded.known_successors
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
        metadata=MappingProxyType(_metadata(r["metadata"])),
        confirmed_count=attested["n"] if attested else 0,
        last_confirmed_at=attested["last"] if attested else None,
        disputed_with=tuple(dict.fromkeys(loaded.disputed.get(r["id"], []))),
        as_of=known,
        shelf=r["shelf"],
        author=r["author"],
        entity_kinds=tuple(kind for _, kind in entities),
    )


def _metadata(stored: str) -> dict[str, Any]:
    """A statement's metadata; empty when what is stored is not a JSON object. Every write
    stores an object and a synced row must hold one, but a vault that merged such a row
    before that check must still answer: one row must not break every read."""
    try:
        value = json.loads(stored)
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}
