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
from privault.statements.model import ORDERS, Embed, EntityCount, Statement, entity_key
from privault.statements.ranking import composite, fuse, keyword_ranks, vector_ranks
from privault.statements.view import DISPUTED_AT, load, visibility
from privault.store.connection import Connection, row, rows


@dataclass(frozen=True)
class StatementStats:
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

    def to_dict(self) -> dict[str, int]:
        """A JSON-friendly dict."""
        return dataclasses.asdict(self)


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

    clauses = [visibility(include_closed), _not_hidden(hidden)]
    params: dict[str, Any] = {"known": known, "valid": valid, **_hidden_params(hidden)}
    for number, name in enumerate(dict.fromkeys(entity_key(e) for e in entities)):
        clauses.append(
            f"EXISTS (SELECT 1 FROM statement_entities e WHERE e.statement_id = s.id"
            f" AND e.key = :entity{number})"
        )
        params[f"entity{number}"] = name
    if source is not None:
        clauses.append("s.source = :source")
        params["source"] = source
    if disputed:
        clauses.append(DISPUTED_AT)
    candidates = rows(
        conn,
        "SELECT s.seq, s.id, s.salience, s.confidence, max(s.recorded_at, coalesce(("
        " SELECT max(a.attested_at) FROM statement_attestations a"
        " WHERE a.statement_id = s.id AND a.recorded_at <= :known), 0)) AS heard_at"
        f" FROM statements s WHERE {' AND '.join(clauses)}",
        params,
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
    return [dataclasses.replace(s, score=by_id[s.id]) for s in found]


def history(
    conn: Connection, statement_id: str, *, known_at: int | None = None, now_ms: int | None = None
) -> list[Statement]:
    """Every version in the chain of `statement_id` (any member), oldest first."""
    known = _now(now_ms) if known_at is None else known_at
    start = row(conn, "SELECT chain_id FROM statements WHERE id = ?", (statement_id,))
    if start is None:
        raise NotFound(f"no statement {statement_id}")
    members = rows(
        conn,
        # recorded_at first: a version imported from another device may have a lower seq.
        "SELECT id FROM statements WHERE chain_id = ? AND recorded_at <= ?"
        " ORDER BY recorded_at, seq",
        (start["chain_id"], known),
    )
    return load(conn, [item["id"] for item in members], known)


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
    params = {
        "known": known,
        "valid": known if valid_at is None else valid_at,
        "min": min_count,
        **_hidden_params(hidden),
    }
    found = rows(
        conn,
        "SELECT e.key, s.author, count(*) AS n, (SELECT e2.name FROM statement_entities e2"
        "  JOIN statements s2 ON s2.id = e2.statement_id WHERE e2.key = e.key"
        f"  {'AND s2.author = s.author' if by_author else ''} ORDER BY s2.seq LIMIT 1) AS name"
        " FROM statement_entities e JOIN statements s ON s.id = e.statement_id"
        f" WHERE {visibility(include_closed)} AND {_not_hidden(hidden)}"
        f" GROUP BY e.key{', s.author' if by_author else ''} HAVING n >= :min"
        " ORDER BY n DESC, e.key, s.author",
        params,
    )
    return [
        EntityCount(
            name=item["name"],
            key=item["key"],
            count=item["n"],
            author=item["author"] if by_author else "",
        )
        for item in found
    ]


def stats(conn: Connection, *, now_ms: int | None = None) -> StatementStats:
    """Counts of statements: open, closed, superseded, revised, disputed."""
    closed = "(s.invalidated_at IS NOT NULL OR (s.valid_to IS NOT NULL AND s.valid_to <= :now))"
    found = row(
        conn,
        f"SELECT count(*) AS total, coalesce(sum({closed}), 0) AS closed,"
        " coalesce(sum(s.superseded_by IS NOT NULL), 0) AS superseded,"
        " coalesce(sum(s.invalidated_at IS NOT NULL), 0) AS revised,"
        f" coalesce(sum(NOT {closed} AND {DISPUTED_AT.replace(':known', ':now')}), 0)"
        " AS disputed FROM statements s",
        {"now": _now(now_ms)},
    )
    assert found is not None  # an aggregate always returns one row
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
    found = rows(
        conn,
        "SELECT e.key, e.name, e.kind FROM statement_entities e JOIN statements s"
        " ON s.id = e.statement_id WHERE s.author = '' ORDER BY s.seq, e.position",
    )
    names: dict[str, tuple[str, str]] = {}
    for item in found:
        names.setdefault(item["key"], (item["name"], item["kind"]))
    return dict(names.values())


def _not_hidden(hidden: Sequence[str]) -> str:
    if not hidden:
        return "1 = 1"
    return f"s.shelf NOT IN ({', '.join(f':hidden{i}' for i in range(len(hidden)))})"


def _hidden_params(hidden: Sequence[str]) -> dict[str, str]:
    return {f"hidden{i}": shelf for i, shelf in enumerate(hidden)}


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
