"""A large index's keyword ranking without scoring every match (MaxScore, exact).

FTS5's bm25 costs about 0.7 µs a matching row, most of it reading the row's length, so a
query whose words are held by a tenth of a million chunks costs ~80 ms whatever the limit.
Yet bm25 gives a phrase at most (k1 + 1) × its idf, however often a row holds it, so a row
can be shown not to belong in the ranking without scoring it. Two ways to rank fewer rows
are tried in turn, each proving its ranking whole or declining:

* rarer phrases first: rows holding one of the query's rarer phrases are ranked, each by
  its whole bm25 (the common phrases included); a row holding common phrases alone scores
  under the sum of their bounds, so a ranking whose last score reaches that sum is whole;
* two phrases or more: rows holding at least two of the query's phrases are ranked; a row
  holding one scores under the largest bound, so a ranking whose last score reaches it is
  whole. This is what a query of several equally common words needs: its best rows hold
  several of them.

When neither proves its ranking, the caller ranks every match as before. Either way the
ranking is FTS5's own, to float rounding (the same terms, added in another order).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence

from privault.store import tallies
from privault.store.connection import Connection

# FTS5's bm25 constants (fts5_aux.c): a phrase scores idf × f(k1 + 1) / (f + k1 × (1 − b +
# b × length / average)) in a row where it occurs f times, which is under idf × (k1 + 1).
K1 = 1.2
FLOOR_IDF = 1e-6  # FTS5's idf for a phrase in half the rows or more
# Below this many rows a ranking of every match is cheap: counting the phrases' rows first
# would cost more than it saves.
MIN_ROWS = 50_000
# Candidates are worth searching apart only when the phrases kept hold at most this share
# of the matches (by their rows): each pruned ranking also counts every phrase's rows.
MAX_KEPT_SHARE = 0.5
MAX_COUNTED = 4096  # phrases whose counts are kept per file and table
_COUNTS: dict[tuple[str, str], tuple[bytes, dict[str, int]]] = {}  # see `counts`
_COUNTS_GUARD = threading.Lock()


def idf(rows: int, hits: int) -> float:
    """FTS5's idf of a phrase held by `hits` of `rows` rows."""
    value = math.log((rows - hits + 0.5) / (hits + 0.5))
    return value if value > 0 else FLOOR_IDF


def ranked(
    conn: Connection,
    table: str,
    phrases: Sequence[str],
    limit: int,
    rowids: tuple[int, int] | None = None,
) -> list[tuple[int, float]] | None:
    """(row id, bm25 score, higher is better) of the best `limit` rows matching any of
    `phrases` (FTS5 phrases, quoted) in `table`, among row ids in [first, end) with
    `rowids`; None where pruning would not pay or cannot prove its ranking whole."""
    if len(phrases) < 2 or limit < 1:
        return None
    rows = tallies.keyword_rows(conn, table)
    if rows < MIN_ROWS:
        return None
    counted = counts(conn, table, phrases)
    hits = {phrase: count for phrase, count in counted.items() if count}  # the rest add 0
    if len(hits) < 2:
        return None
    bounds = {phrase: (K1 + 1) * idf(rows, count) for phrase, count in hits.items()}
    common, kept = split(rows, hits)
    if common and sum(hits[p] for p in kept) <= MAX_KEPT_SHARE * sum(hits.values()):
        found = _rarer_first(conn, table, kept, common, limit, rowids)
        if _whole(found, limit, sum(bounds[phrase] for phrase in common)):
            return found
    found = _two_or_more(conn, table, sorted(hits, key=hits.__getitem__), bounds, limit, rowids)
    return found if _whole(found, limit, max(bounds.values())) else None


def split(rows: int, hits: dict[str, int]) -> tuple[list[str], list[str]]:
    """(common, kept): the commonest phrases whose bounds together stay under the rarest
    phrase's idf — what a row holding that phrase once, at the average length, scores — and
    the rest. A ranking of rows holding a kept phrase is whole when its last score reaches
    the common phrases' bounds; the rarest phrase's idf is the guess that it will."""
    order = sorted(hits, key=lambda phrase: -hits[phrase])
    target = idf(rows, hits[order[-1]])
    common: list[str] = []
    bound = 0.0
    for phrase in order[:-1]:
        bound += (K1 + 1) * idf(rows, hits[phrase])
        if bound >= target:
            break
        common.append(phrase)
    return common, [phrase for phrase in order if phrase not in common]


def _whole(found: list[tuple[int, float]], limit: int, bound: float) -> bool:
    """Whether a ranking of candidates is the ranking of every match: it is full, and no
    row left out (each scoring under `bound`) could rank above its last."""
    return len(found) == limit and found[-1][1] >= bound


def counts(conn: Connection, table: str, phrases: Sequence[str]) -> dict[str, int]:
    """How many rows of `table` hold each phrase. Counting a phrase walks its rows (3–4 ms
    for 100,000), so counts are kept per file and table while the index is as it was when
    they were made: its structure record (FTS5 writes a new one for every change it
    commits) and its averages record, read again each time. Inside a transaction, where
    the index may hold what is not committed yet, they are counted afresh."""
    opened = getattr(conn, "opened", None)
    if opened is None or conn.in_transaction:
        return {phrase: _hits(conn, table, phrase) for phrase in phrases}
    stamp = b"".join(
        bytes(block)
        for (block,) in conn.execute(
            f"SELECT block FROM {table}_data WHERE id IN (1, 10) ORDER BY id"
        )
    )
    key = (str(opened[0]), table)
    with _COUNTS_GUARD:
        held = _COUNTS.get(key)
        if held is None or held[0] != stamp or len(held[1]) > MAX_COUNTED:
            held = _COUNTS[key] = (stamp, {})
        found = {phrase: held[1].get(phrase) for phrase in phrases}
    fresh = {phrase: _hits(conn, table, phrase) for phrase, n in found.items() if n is None}
    if fresh:
        with _COUNTS_GUARD:
            held[1].update(fresh)
    return {phrase: fresh[phrase] if n is None else n for phrase, n in found.items()}


def _hits(conn: Connection, table: str, phrase: str) -> int:
    (count,) = conn.execute(
        f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (phrase,)
    ).fetchone()
    return int(count)


def _rarer_first(
    conn: Connection,
    table: str,
    kept: Sequence[str],
    common: Sequence[str],
    limit: int,
    rowids: tuple[int, int] | None,
) -> list[tuple[int, float]]:
    """The best `limit` rows holding a kept phrase, by their whole bm25: a row that also
    holds a common phrase is scored by the second expression (kept and common phrases,
    its whole score), one that does not by the first (kept phrases only, its whole score),
    so a row's whole score is the better of its two."""
    any_kept = " OR ".join(kept)
    return _best(
        conn,
        table,
        [any_kept, f"({any_kept}) AND ({' OR '.join(common)})"],
        limit,
        rowids,
    )


def _two_or_more(
    conn: Connection,
    table: str,
    order: Sequence[str],
    bounds: dict[str, float],
    limit: int,
    rowids: tuple[int, int] | None,
) -> list[tuple[int, float]]:
    """The best `limit` rows holding two of the phrases or more, by their whole bm25: one
    expression per phrase, for the rows whose first phrase (in `order`, rarest first) it
    is, each holding every phrase such a row can hold (a phrase NOT-ed cannot add to a
    score), so each row is scored once. Such a row holds no phrase before its own, so it
    scores under the bounds of its phrase and those after: once the ranking's last score
    reaches that, neither this expression's rows nor any later one's can enter it."""
    found: list[tuple[int, float]] = []
    for i, phrase in enumerate(order[:-1]):
        if len(found) == limit and found[-1][1] >= sum(bounds[p] for p in order[i:]):
            break
        expression = f"{phrase} AND ({' OR '.join(order[i + 1 :])})"
        if i:
            expression += f" NOT ({' OR '.join(order[:i])})"
        more = _best(conn, table, [expression], limit, rowids)
        found = sorted(found + more, key=lambda pair: -pair[1])[:limit]
    return found


def _best(
    conn: Connection,
    table: str,
    expressions: Sequence[str],
    limit: int,
    rowids: tuple[int, int] | None,
) -> list[tuple[int, float]]:
    """The best `limit` rows matched by any of `expressions`, each by its best score. A
    row may match every expression, so the best `limit` × that many matches hold the best
    `limit` rows, each first at its best. (Grouping them in SQL would have SQLite write
    every match down first: bm25 is only defined in its own query.)"""
    inside, bounds = ("AND rowid >= ? AND rowid < ?", rowids) if rowids else ("", ())
    each = f"SELECT rowid, bm25({table}) AS score FROM {table} WHERE {table} MATCH ? {inside}"
    params = [value for expression in expressions for value in (expression, *bounds)]
    found = conn.execute(
        f"{' UNION ALL '.join([each] * len(expressions))} ORDER BY score LIMIT ?",
        (*params, limit * len(expressions)),
    ).fetchall()
    best: dict[int, float] = {}
    for rowid, score in found:
        best.setdefault(int(rowid), -float(score))
    return list(best.items())[:limit]
