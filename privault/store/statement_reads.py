"""Reading statement rows as the vault knew them at a moment (`:known`).

Everything that can change after a statement is recorded — the end of its window, its
successor, its attestations, its disputes — carries the vault time it was learned. Every
query here keeps only what had been learned by `:known`, so a past view is never coloured
by later knowledge. Rows come back as dicts; `privault.statements` builds its values.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from privault.store.connection import Connection, in_batches, row, rows

# The end of a statement's world window as known at :known (NULL = open-ended then).
_VALID_TO_AT = (
    "(SELECT c.valid_to FROM statement_closures c"
    " WHERE c.statement_id = s.id AND c.recorded_at <= :known"
    " ORDER BY c.recorded_at DESC, c.id DESC LIMIT 1)"
)
# Recorded by :known and not yet replaced by a revision then.
_BELIEVED_AT = "s.recorded_at <= :known AND (s.invalidated_at IS NULL OR s.invalidated_at > :known)"
# True in the world at :valid, as known at :known.
_HOLDS_AT = f"s.valid_from <= :valid AND ({_VALID_TO_AT} IS NULL OR {_VALID_TO_AT} > :valid)"
# An unsettled dispute at :known.
_DISPUTED_AT = (
    "EXISTS (SELECT 1 FROM statement_disputes d WHERE (d.a_id = s.id OR d.b_id = s.id)"
    " AND d.recorded_at <= :known AND (d.settled_at IS NULL OR d.settled_at > :known))"
)


@dataclass(frozen=True)
class Visible:
    """Which statements a read sees: recorded by `known` and, unless `include_closed`,
    believed then and holding in the world at `valid`; none on a `hidden` shelf."""

    known: int
    valid: int
    include_closed: bool = False
    hidden: Sequence[str] = ()

    def where(self) -> str:
        """The WHERE fragment over `statements s`."""
        held = "s.recorded_at <= :known"
        if not self.include_closed:
            held = f"{_BELIEVED_AT} AND {_HOLDS_AT}"
        if not self.hidden:
            return held
        marks = ", ".join(f":hidden{i}" for i in range(len(self.hidden)))
        return f"{held} AND s.shelf NOT IN ({marks})"

    def params(self) -> dict[str, Any]:
        """The named parameters `where()` uses."""
        hidden = {f"hidden{i}": shelf for i, shelf in enumerate(self.hidden)}
        return {"known": self.known, "valid": self.valid, **hidden}


@dataclass(frozen=True)
class Loaded:
    """The rows that make up statements as seen at `known` (one batch of ids)."""

    base: list[dict[str, Any]]
    entities: dict[str, list[tuple[str, str]]]  # id -> (name, kind) in the order given
    closure: dict[str, dict[str, Any]]  # id -> its last closure learned by `known`
    attested: dict[str, dict[str, Any]]  # id -> {n, last}
    disputed: dict[str, list[str]]  # id -> ids it is in an open dispute with
    known_successors: set[str]  # successor ids already recorded by `known`


def load_rows(conn: Connection, ids: list[str], known: int) -> Loaded:
    """Everything needed to view the statements `ids` (at most `connection.IN_BATCH`) at `known`."""
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
    return Loaded(base, entities, closure, attested, disputed, known_successors)


def candidates(
    conn: Connection,
    seen: Visible,
    *,
    entity_keys: Iterable[str] = (),
    source: str | None = None,
    disputed: bool = False,
) -> list[dict[str, Any]]:
    """Visible statements naming every entity key (and from `source`, and in an open
    dispute when asked): seq, id, salience, confidence, heard_at (last recorded or confirmed)."""
    clauses = [seen.where()]
    params = seen.params()
    for number, key in enumerate(dict.fromkeys(entity_keys)):
        clauses.append(
            f"EXISTS (SELECT 1 FROM statement_entities e WHERE e.statement_id = s.id"
            f" AND e.key = :entity{number})"
        )
        params[f"entity{number}"] = key
    if source is not None:
        clauses.append("s.source = :source")
        params["source"] = source
    if disputed:
        clauses.append(_DISPUTED_AT)
    return rows(
        conn,
        "SELECT s.seq, s.id, s.salience, s.confidence, max(s.recorded_at, coalesce(("
        " SELECT max(a.attested_at) FROM statement_attestations a"
        " WHERE a.statement_id = s.id AND a.recorded_at <= :known), 0)) AS heard_at"
        f" FROM statements s WHERE {' AND '.join(clauses)}",
        params,
    )


def chain_ids(conn: Connection, statement_id: str, known: int) -> list[str] | None:
    """Ids of every version in the chain of `statement_id` recorded by `known`, oldest
    first; None if there is no such statement."""
    start = row(conn, "SELECT chain_id FROM statements WHERE id = ?", (statement_id,))
    if start is None:
        return None
    members = rows(
        conn,
        # recorded_at first: a version imported from another device may have a lower seq.
        "SELECT id FROM statements WHERE chain_id = ? AND recorded_at <= ?"
        " ORDER BY recorded_at, seq",
        (start["chain_id"], known),
    )
    return [item["id"] for item in members]


def entity_counts(
    conn: Connection, seen: Visible, *, min_count: int, by_author: bool
) -> list[dict[str, Any]]:
    """key, first name, author, n and shelves (comma-joined: no shelf name holds one) for
    each entity named by visible statements, by count."""
    return rows(
        conn,
        "SELECT e.key, s.author, count(*) AS n, group_concat(DISTINCT s.shelf) AS shelves,"
        " (SELECT e2.name FROM statement_entities e2"
        "  JOIN statements s2 ON s2.id = e2.statement_id WHERE e2.key = e.key"
        f"  {'AND s2.author = s.author' if by_author else ''} ORDER BY s2.seq LIMIT 1) AS name"
        " FROM statement_entities e JOIN statements s ON s.id = e.statement_id"
        f" WHERE {seen.where()}"
        f" GROUP BY e.key{', s.author' if by_author else ''} HAVING n >= :min"
        " ORDER BY n DESC, e.key, s.author",
        {**seen.params(), "min": min_count},
    )


def counts(conn: Connection, now: int) -> dict[str, int]:
    """total, closed, superseded, revised and disputed (among open) statements, at `now`."""
    closed = "(s.invalidated_at IS NOT NULL OR (s.valid_to IS NOT NULL AND s.valid_to <= :now))"
    found = row(
        conn,
        f"SELECT count(*) AS total, coalesce(sum({closed}), 0) AS closed,"
        " coalesce(sum(s.superseded_by IS NOT NULL), 0) AS superseded,"
        " coalesce(sum(s.invalidated_at IS NOT NULL), 0) AS revised,"
        f" coalesce(sum(NOT {closed} AND {_DISPUTED_AT.replace(':known', ':now')}), 0)"
        " AS disputed FROM statements s",
        {"now": now},
    )
    assert found is not None  # an aggregate always returns one row
    return found


def owner_entity_names(conn: Connection) -> list[dict[str, Any]]:
    """key, name, kind of every entity the owner's statements name, oldest first."""
    return rows(
        conn,
        "SELECT e.key, e.name, e.kind FROM statement_entities e JOIN statements s"
        " ON s.id = e.statement_id WHERE s.author = '' ORDER BY s.seq, e.position",
    )


def keyword_rowids(conn: Connection, expression: str) -> list[int]:
    """Statement rowids matching an FTS5 expression, best (bm25) first."""
    found = rows(
        conn,
        "SELECT rowid FROM statements_fts WHERE statements_fts MATCH ?"
        " ORDER BY bm25(statements_fts)",
        (expression,),
    )
    return [item["rowid"] for item in found]


def vector_distances(
    conn: Connection, query: bytes, rowids: Sequence[int]
) -> list[tuple[float, int]]:
    """(cosine distance to `query`, rowid) for those of `rowids` that have a vector."""
    scored: list[tuple[float, int]] = []
    for part, marks in in_batches(rowids):
        for item in rows(
            conn,
            f"SELECT rowid, vec_distance_cosine(embedding, ?) AS distance FROM statements_vec"
            f" WHERE rowid IN ({marks})",
            [query, *part],
        ):
            scored.append((item["distance"], item["rowid"]))
    return scored


def has_vectors(conn: Connection) -> bool:
    """True when at least one statement has a vector."""
    return row(conn, "SELECT 1 AS yes FROM statements_vec LIMIT 1") is not None


def _marks(ids: Sequence[Any]) -> str:
    return ",".join("?" * len(ids))
