"""The keyword leg of search: FTS5 with bm25, filtered in the same SQL statement.

Two views of one index: `plain` (the text as stored: the owner, and callers whose policy
masks nothing) and `masked` (what gated callers see: a chunk holding a masked value is
matched through its masked entry at rowid `-chunk_id`, every other chunk through its plain
one). Both live in one FTS table, so bm25 weighs both views with the same statistics.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from privault.store.connection import Connection

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

_VIEWS = {
    "plain": "rowid > 0",
    "masked": "(rowid < 0 OR rowid NOT IN (SELECT chunk_id FROM masked_chunks))",
}


def _view(view: str, alias: str = "") -> str:
    where = _VIEWS[view]
    return where.replace("rowid", f"{alias}rowid") if alias else where


@dataclass(frozen=True)
class Filters:
    """What a search may return: visible shelves plus the caller's own narrowing."""

    shelves: tuple[str, ...] | None = None  # None: every shelf
    hidden: tuple[str, ...] = ()  # shelves the caller may not see at all
    kind: str | None = None
    tag: str | None = None
    since: int | None = None  # created_at >= since (ms)
    until: int | None = None  # created_at < until (ms)

    def within(self, start: int, end: int) -> Filters | None:
        """These filters narrowed to documents created in [start, end), or None if that
        leaves no time at all."""
        since = start if self.since is None else max(self.since, start)
        until = end if self.until is None else min(self.until, end)
        return replace(self, since=since, until=until) if since < until else None

    def sql(self) -> tuple[str, list[object]]:
        """A WHERE fragment over `d` (documents) with its parameters."""
        where: list[str] = ["d.current = 1"]
        params: list[object] = []
        if self.shelves is not None:
            where.append(
                f"d.shelf IN ({','.join('?' * len(self.shelves))})" if self.shelves else "0"
            )
            params.extend(self.shelves)
        if self.hidden:
            where.append(f"d.shelf NOT IN ({','.join('?' * len(self.hidden))})")
            params.extend(self.hidden)
        if self.kind:
            where.append("d.kind = ?")
            params.append(self.kind)
        if self.tag:
            where.append("d.id IN (SELECT doc_id FROM document_tags WHERE tag = ?)")
            params.append(self.tag)
        if self.since is not None:
            where.append("d.created_at >= ?")
            params.append(self.since)
        if self.until is not None:
            where.append("d.created_at < ?")
            params.append(self.until)
        return " AND ".join(where), params


def match_expression(query: str) -> str | None:
    """An FTS5 MATCH expression: the query's words, OR-ed, each quoted (no syntax leaks in).

    A query of stopwords only ("to be or not to be") is matched as a phrase: OR-ing its
    words would match nearly every chunk and rank them by noise.
    """
    words = [word.lower() for word in _TERM.findall(query)]
    kept = list(dict.fromkeys(word for word in words if word not in _STOP))
    if kept:
        return " OR ".join(f'"{word}"' for word in kept)
    return f'"{" ".join(words)}"' if words else None


def ranked(
    conn: Connection, query: str, limit: int, view: str = "plain"
) -> list[tuple[int, float]]:
    """The best `limit` chunk ids by bm25 over the whole index, unfiltered, best first.

    Ranking the FTS index alone and filtering its best rows afterwards is 4–5× cheaper on
    a common word at 100k chunks than joining every match to chunks, sections and
    documents before the sort. Callers must filter (see `search`, `visible_chunks`).
    """
    expression = match_expression(query)
    if expression is None:
        return []
    found = conn.execute(
        "SELECT rowid, bm25(chunks_fts) AS score FROM chunks_fts WHERE chunks_fts MATCH ? "
        f"AND {_view(view)} ORDER BY score LIMIT ?",
        (expression, limit),
    ).fetchall()
    return [(abs(int(rowid)), -float(score)) for rowid, score in found]


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
    visible = visible_chunks(conn, [chunk_id for chunk_id, _ in best], filters)
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
    where, params = filters.sql()
    found = conn.execute(
        "SELECT f.rowid, bm25(chunks_fts) AS score FROM chunks_fts f "
        "JOIN chunks c ON c.id = abs(f.rowid) JOIN sections s ON s.id = c.section_id "
        f"JOIN documents d ON d.id = s.doc_id WHERE chunks_fts MATCH ? AND {_view(view, 'f.')} "
        f"AND {where} ORDER BY score LIMIT ?",
        (expression, *params, limit),
    ).fetchall()
    return [(abs(int(rowid)), -float(score)) for rowid, score in found]


def visible_chunks(conn: Connection, chunk_ids: Sequence[int], filters: Filters) -> dict[int, int]:
    """Of these chunk ids, those alive and passing the filters, mapped to their section id."""
    if not chunk_ids:
        return {}
    where, params = filters.sql()
    marks = ",".join("?" * len(chunk_ids))
    found = conn.execute(
        "SELECT c.id, c.section_id FROM chunks c JOIN sections s ON s.id = c.section_id "
        f"JOIN documents d ON d.id = s.doc_id WHERE c.id IN ({marks}) AND {where}",
        (*chunk_ids, *params),
    ).fetchall()
    return {int(chunk_id): int(section_id) for chunk_id, section_id in found}
