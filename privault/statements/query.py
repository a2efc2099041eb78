"""Reading statements: get, query, history, entities, stats, known entity names.

Two moments shape every read. `known_at` rewinds the vault: only what it had recorded by
then, as it then stood. `valid_at` asks what held in the world at that moment, according
to that knowledge. Defaults: both are now; `known_at` alone also sets `valid_at` (what the
vault believed held at the time); `valid_at` alone is judged by what the vault knows now.
`include_closed` (the CLI's `--all`) drops the "holds" test and lists every version
recorded by `known_at`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from privault import timeutil
from privault.errors import InputError, NotFound
from privault.jsonform import JsonForm
from privault.statements.model import ORDERS, Embed, EntityCount, Statement, entity_key
from privault.statements.ranking import composite, fuse, keyword_ranks, vector_ranks
from privault.statements.view import load
from privault.store import statement_reads
from privault.store.connection import Connection
from privault.store.statement_reads import Visible


@dataclass(frozen=True)
class StatementStats(JsonForm):
    """Counts over every statement version, judged now.

    `open`: not closed (includes ones whose window starts later); `closed`: revised,
    or past `valid_to`; `superseded`/`revised`: closed by those operations; `disputed`: open
    statements in an unsettled dispute.
    """

    total: int
    open: int
    closed: int
    superseded: int
    revised: int
    disputed: int


def get(
    conn: Connection, statement_id: str, *, known_at: int | None = None, now_ms: int | None = None
) -> Statement:
    """One statement as seen at `known_at` (default now); NotFound if not recorded by then."""
    known = _now(now_ms) if known_at is None else known_at
    found = load(conn, [statement_id], known)
    if not found or found[0].recorded_at > known:
        raise NotFound(f"no statement {statement_id}")
    return found[0]


def query(
    conn: Connection,
    *,
    text: str | None = None,
    entities: Iterable[str] = (),
    source: str | None = None,
    valid_at: int | None = None,
    known_at: int | None = None,
    include_closed: bool = False,
    disputed: bool = False,
    order: str | None = None,
    limit: int | None = 20,
    embed: Embed | None = None,
    now_ms: int | None = None,
    hidden: Sequence[str] = (),
) -> list[Statement]:
    """Statements matching every filter given, best first.

    `entities` must all be named (case-insensitive); `text` matches words (FTS5) and, with
    `embed`, vector similarity. `order` is relevance | recency | salience | composite
    (default relevance with text, else recency; recency is when last heard — recorded or
    confirmed). `limit=None` returns everything. Relevance and composite set `score`.
    """
    now = _now(now_ms)
    known = now if known_at is None else known_at
    if include_closed and valid_at is not None:
        raise InputError("valid_at asks what held then; it cannot be combined with --all")
    valid = known if valid_at is None else valid_at
    chosen = order or ("relevance" if text else "recency")
    if chosen not in ORDERS:
        raise InputError(f"unknown order {chosen!r}: use one of {', '.join(ORDERS)}")
    if limit is not None and limit < 1:
        raise InputError(f"limit must be at least 1, got {limit}")

    seen = Visible(known, valid, include_closed, tuple(hidden))
    candidates = statement_reads.candidates(
        conn,
        seen,
        entity_keys=[entity_key(e) for e in entities],
        source=source,
        disputed=disputed,
    )

    relevance: dict[int, float] = {}
    if text:
        by_rowid = {item["seq"]: item for item in candidates}
        keyword = {seq: r for seq, r in keyword_ranks(conn, text).items() if seq in by_rowid}
        vector = vector_ranks(conn, embed, text, by_rowid, limit or 20) if embed is not None else {}
        relevance = fuse(_reranked(keyword), vector)
        candidates = [item for item in candidates if item["seq"] in relevance]

    best = max(relevance.values(), default=1.0)
    scores: dict[int, float | None] = {}
    for item in candidates:
        seq = item["seq"]
        if chosen == "relevance" and text:
            scores[seq] = relevance[seq]
        elif chosen == "composite":
            rel = relevance[seq] / best if text else None
            scores[seq] = composite(
                rel, item["heard_at"], known, item["salience"], item["confidence"]
            )
    candidates.sort(key=lambda item: _sort_key(item, chosen, scores), reverse=True)
    top = candidates if limit is None else candidates[:limit]
    found = load(conn, [item["id"] for item in top], known)
    by_id = {item["id"]: scores.get(item["seq"]) for item in top}
    # Loaded unscored: only a score to set makes a copy (every statement, for a gated search).
    return [s if by_id[s.id] is None else dataclasses.replace(s, score=by_id[s.id]) for s in found]


def history(
    conn: Connection, statement_id: str, *, known_at: int | None = None, now_ms: int | None = None
) -> list[Statement]:
    """Every version in the chain of `statement_id` (any member), oldest first."""
    known = _now(now_ms) if known_at is None else known_at
    members = statement_reads.chain_ids(conn, statement_id, known)
    if members is None:
        raise NotFound(f"no statement {statement_id}")
    return load(conn, members, known)


def entities(
    conn: Connection,
    *,
    include_closed: bool = False,
    valid_at: int | None = None,
    known_at: int | None = None,
    min_count: int = 1,
    now_ms: int | None = None,
    hidden: Sequence[str] = (),
    by_author: bool = False,
) -> list[EntityCount]:
    """Entities named by the statements visible under the same rules as `query`, by count.

    Statements on `hidden` shelves do not count. `by_author` counts each author's mentions
    apart (an agent's guess must not add to the count of the owner's entity)."""
    known = _now(now_ms) if known_at is None else known_at
    if include_closed and valid_at is not None:
        raise InputError("valid_at asks what held then; it cannot be combined with --all")
    seen = Visible(known, known if valid_at is None else valid_at, include_closed, tuple(hidden))
    found = statement_reads.entity_counts(conn, seen, min_count=min_count, by_author=by_author)
    return [
        EntityCount(
            name=item["name"],
            key=item["key"],
            count=item["n"],
            author=item["author"] if by_author else "",
            shelves=tuple(sorted(set(item["shelves"].split(",")))),
        )
        for item in found
    ]


def stats(conn: Connection, *, now_ms: int | None = None) -> StatementStats:
    """Counts of statements: open, closed, superseded, revised, disputed."""
    found = statement_reads.counts(conn, _now(now_ms))
    return StatementStats(
        total=found["total"],
        open=found["total"] - found["closed"],
        closed=found["closed"],
        superseded=found["superseded"],
        revised=found["revised"],
        disputed=found["disputed"],
    )


def known_entity_names(conn: Connection) -> dict[str, str]:
    """Entity names the owner's statements gave (first spelling per entity) → their kind.

    Closed statements count too: a name the vault once knew is still a name to protect.
    Statements an agent wrote do not: an agent must not decide what others see masked.
    """
    found = statement_reads.owner_entity_names(conn)
    names: dict[str, tuple[str, str]] = {}
    for item in found:
        names.setdefault(item["key"], (item["name"], item["kind"]))
    return dict(names.values())


def _now(now_ms: int | None) -> int:
    return timeutil.now_ms() if now_ms is None else now_ms


def _reranked(ranking: dict[int, int]) -> dict[int, int]:
    """Ranks renumbered 1..n after filtering, so fusion sees positions among candidates."""
    ordered = sorted(ranking, key=ranking.__getitem__)
    return {rowid: position for position, rowid in enumerate(ordered, start=1)}


def _sort_key(item: dict[str, Any], order: str, scores: dict[int, float | None]) -> tuple:
    if order == "salience":
        return (item["salience"], item["heard_at"], item["seq"])
    score = scores.get(item["seq"])
    if score is not None:
        return (score, item["heard_at"], item["seq"])
    return (item["heard_at"], item["seq"])
