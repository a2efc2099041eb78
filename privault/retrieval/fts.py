"""The keyword leg of search: FTS5 with bm25, filtered in the same SQL statement.

Two views, two FTS tables: `plain` (the text as stored: the owner, and callers whose
policy masks nothing) and `masked` (what gated callers see: a chunk holding a masked value
through its masked text, every other scanned chunk through its plain text). The masked
view's table holds nothing else, so a gated search's work and bm25's statistics depend
only on text the caller may see (no timing or ordering presence oracle).
"""

from __future__ import annotations

import re

from privault.retrieval import periods
from privault.store import index_reads
from privault.store.connection import Connection
from privault.store.index_reads import Filters

_TERM = re.compile(r"\w+", re.UNICODE)
# Words so common that OR-ing them in only slows bm25 down and adds noise.
_STOP = frozenset(
    (
        "a an and are as at be but by did do does for from had has have he her his how i if "
        "in is it its me my of on or our she so that the their them they this to was we were "
        "what when where which who whom why will with you your "
        "s t d m ll re ve"  # what is left of "Anna's", "don't", "we'll" split at the apostrophe
    ).split()
)


OVERFETCH = 2  # rows ranked before filtering, per row wanted
# From this many chunk ids up, `hybrid` ranks the keywords as two ranges of chunk ids, the
# first beside its vector leg, the rest after it (`split`). Each statement pays FTS5's seek
# into every segment's doclists: two ranges cost 5% more CPU than one at 963k chunks and
# 12% more at 116k, where the keyword leg is not the longer one anyway.
SPLIT_MIN_CHUNKS = 250_000
# The share of chunk ids ranked beside the vector leg: the calling thread comes to the
# rest only after that leg (~14 ms at 963k, against a keyword leg of 35–85 ms there).
BESIDE_SHARE = 0.6
_ALL = (-(2**63), 2**63 - 1)


def match_phrases(query: str) -> list[str]:
    """The query's words as FTS5 phrases, each quoted (no syntax leaks in), to be OR-ed; a
    date it writes with a year is one phrase ("january 2018", "13 october 2023").

    A date's words alone match notes of every other year, and "may" every note that uses
    the verb: as one phrase they match the notes that write that date, while search's
    period legs rank the notes dated then (`periods`). At a million chunks "january" and
    "2018" OR-ed in cost the keyword leg more than the rest of the query.

    A query of stopwords only ("to be or not to be") is one phrase: OR-ing its words would
    match nearly every chunk and rank them by noise.
    """
    pieces: list[str] = []
    done = 0
    for start, end in periods.written_dates(query):
        pieces.extend(_TERM.findall(query[done:start]))
        pieces.append(" ".join(_TERM.findall(query[start:end])))
        done = end
    pieces.extend(_TERM.findall(query[done:]))
    kept = list(dict.fromkeys(piece.lower() for piece in pieces if piece.lower() not in _STOP))
    if kept:
        return [f'"{piece}"' for piece in kept]
    words = [word.lower() for word in _TERM.findall(query)]
    return [f'"{" ".join(words)}"'] if words else []


def match_expression(query: str) -> str | None:
    """An FTS5 MATCH expression: the query's phrases (`match_phrases`), OR-ed."""
    return " OR ".join(match_phrases(query)) or None


def ranked(
    conn: Connection,
    query: str,
    limit: int,
    view: str = "plain",
    rowids: tuple[int, int] | None = None,
    *,
    prune: bool = True,
) -> list[tuple[int, float]]:
    """The best `limit` chunk ids by bm25 over the whole index (or the chunk ids in
    `rowids`' [first, end), see `split`), unfiltered, best first; a large index's without
    scoring every match where that is proved to give the same ranking (`prune`, see
    `pruned`).

    Ranking the FTS index alone and filtering its best rows afterwards is 4–5× cheaper on
    a common word at 100k chunks than joining every match to chunks, sections and
    documents before the sort. Callers must filter (see `search`, `visible_chunks`).
    """
    phrases = match_phrases(query)
    if not phrases:
        return []
    return index_reads.keyword_ranked(conn, phrases, limit, view, rowids, prune=prune)


def pruned(
    conn: Connection, query: str, limit: int, view: str = "plain"
) -> list[tuple[int, float]] | None:
    """`ranked` over the whole index where it can be had without scoring every match
    (`store.keyword_pruning`: rows holding the query's rarer words, or two of them); None
    where it cannot. It is not made in ranges: a range's last ranked row scores less, so
    its proof fails more often, and each range would count every word's rows again."""
    phrases = match_phrases(query)
    if not phrases:
        return []
    return index_reads.keyword_pruned(conn, phrases, limit, view)


def split(low: int, high: int) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """Two ranges of chunk ids that together hold every chunk, the first BESIDE_SHARE of
    the ids from `low` to `high` (those known so far), for ranking the keywords of a large
    index on two threads; None below SPLIT_MIN_CHUNKS ids. bm25's statistics are the
    whole table's in either range, so `merged` rankings are the one ranking of the whole
    index."""
    if high - low < SPLIT_MIN_CHUNKS:
        return None
    middle = low + int((high - low) * BESIDE_SHARE)
    return (_ALL[0], middle), (middle, _ALL[1])


def merged(
    first: list[tuple[int, float]], second: list[tuple[int, float]], limit: int
) -> list[tuple[int, float]]:
    """The best `limit` of two rankings of disjoint chunk ids, best first."""
    return sorted(first + second, key=lambda pair: -pair[1])[:limit]


def search(
    conn: Connection, query: str, filters: Filters, limit: int, view: str = "plain"
) -> list[tuple[int, float]]:
    """Chunk ids matching the query's words under `filters`, best bm25 first.

    The index is ranked alone (`ranked`, OVERFETCH× the rows wanted) and the filters are
    applied to those rows; only when the filters reject too many of them does the joined
    query run.
    """
    fetch = limit * OVERFETCH
    best = ranked(conn, query, fetch, view)
    visible = index_reads.visible_chunks(conn, [chunk_id for chunk_id, _ in best], filters)
    kept = [(chunk_id, score) for chunk_id, score in best if chunk_id in visible]
    if len(best) < fetch or len(kept) >= limit:
        return kept[:limit]
    return joined(conn, query, filters, limit, view)


def joined(
    conn: Connection, query: str, filters: Filters, limit: int, view: str = "plain"
) -> list[tuple[int, float]]:
    """The keyword leg with the filters inside the ranking query (when they reject a lot)."""
    expression = match_expression(query)
    if expression is None:
        return []
    return index_reads.keyword_joined(conn, expression, filters, limit, view)
