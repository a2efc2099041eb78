"""Reads of the search index: keyword (FTS5) rankings, chunk visibility, vectors.

Two views of the index: `plain` (the owner's: `chunks_fts` and `chunks_vec`) and `masked`
(a gated caller's: `gated_fts`, which holds only text gated callers may see, and for each
chunk whose text holds PII a vector in `masked_chunks` built from its masked text, used
in place of the plain one). See `store.sections`.
`Filters` is what a caller may see, as a WHERE fragment over `documents d`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from privault.filters import Filters as PublicFilters
from privault.store import keyword_pruning, tallies
from privault.store.connection import Connection, OperationalError
from privault.store.narrowing import conditions

_KEYWORD_TABLES = {"plain": "chunks_fts", "masked": "gated_fts"}


def _keyword_table(view: str) -> str:
    try:
        return _KEYWORD_TABLES[view]
    except KeyError:
        raise ValueError(f"unknown index view {view!r}") from None


@dataclass(frozen=True)
class Filters:
    """What a search may return: visible shelves plus the caller's own narrowing."""

    shelves: tuple[str, ...] | None = None  # None: every shelf
    hidden: tuple[str, ...] = ()  # shelves the caller may not see at all
    kind: str | None = None
    tag: str | None = None
    since: int | None = None  # created_at >= since (ms)
    until: int | None = None  # created_at < until (ms)
    masked_kinds: tuple[str, ...] | None = None  # a gated caller's (`narrowing.conditions`)
    tag_denied: bool = False  # the tag holds a denied value (`narrowing.conditions`)

    def within(self, start: int, end: int) -> Filters | None:
        """These filters narrowed to documents created in [start, end), or None if that
        leaves no time at all."""
        since = start if self.since is None else max(self.since, start)
        until = end if self.until is None else min(self.until, end)
        return replace(self, since=since, until=until) if since < until else None

    @property
    def span(self) -> tuple[int, int]:
        """[since, until) of filters that have both (see `within`)."""
        if self.since is None or self.until is None:
            raise ValueError("these filters are not a period")
        return self.since, self.until

    def sql(self) -> tuple[str, list[object]]:
        """A WHERE fragment over `d` (documents) with its parameters."""
        chosen = PublicFilters(None, self.kind, self.tag, self.since, self.until)
        where, params = conditions(
            chosen, self.shelves, self.hidden, "d.", self.masked_kinds, self.tag_denied
        )
        return " AND ".join(["d.current = 1", *where]), params


def keyword_ranked(
    conn: Connection,
    phrases: Sequence[str],
    limit: int,
    view: str,
    rowids: tuple[int, int] | None = None,
    *,
    prune: bool = True,
) -> list[tuple[int, float]]:
    """(chunk id, bm25 score, higher is better) of the best `limit` chunks matching any of
    `phrases` (FTS5 phrases, quoted) in one view of the whole index, unfiltered; with
    `rowids` (first, end), only among chunk ids in [first, end). bm25 takes its statistics
    from the whole table either way, so rankings of disjoint ranges merge into the ranking
    of their union. A large index ranks the rows holding its rarer phrases, or two of them,
    first, and every match only when that cannot prove the ranking whole (`prune`, see
    `keyword_pruning`)."""
    pruned = keyword_pruned(conn, phrases, limit, view, rowids) if prune else None
    if pruned is not None:
        return pruned
    table = _keyword_table(view)
    inside, bounds = ("AND rowid >= ? AND rowid < ? ", rowids) if rowids else ("", ())
    found = conn.execute(
        f"SELECT rowid, bm25({table}) AS score FROM {table} WHERE {table} MATCH ? {inside}"
        "ORDER BY score LIMIT ?",
        (" OR ".join(phrases), *bounds, limit),
    ).fetchall()
    return [(int(rowid), -float(score)) for rowid, score in found]


def keyword_rows(conn: Connection, view: str) -> int:
    """How many windows one view's keyword index holds (`tallies.keyword_rows`)."""
    return tallies.keyword_rows(conn, _keyword_table(view))


def keyword_pruned(
    conn: Connection,
    phrases: Sequence[str],
    limit: int,
    view: str,
    rowids: tuple[int, int] | None = None,
) -> list[tuple[int, float]] | None:
    """As `keyword_ranked`, where `keyword_pruning` can prove its ranking whole; else None."""
    return keyword_pruning.ranked(conn, _keyword_table(view), phrases, limit, rowids)


def keyword_joined(
    conn: Connection, expression: str, filters: Filters, limit: int, view: str
) -> list[tuple[int, float]]:
    """As `keyword_ranked`, with the filters inside the ranking query."""
    table = _keyword_table(view)
    where, params = filters.sql()
    found = conn.execute(
        f"SELECT f.rowid, bm25({table}) AS score FROM {table} f "
        "JOIN chunks c ON c.id = f.rowid JOIN sections s ON s.id = c.section_id "
        f"JOIN documents d ON d.id = s.doc_id WHERE {table} MATCH ? AND {where} "
        "ORDER BY score LIMIT ?",
        (expression, *params, limit),
    ).fetchall()
    return [(int(rowid), -float(score)) for rowid, score in found]


def visible_chunks(conn: Connection, chunk_ids: Sequence[int], filters: Filters) -> dict[int, int]:
    """Of these chunk ids, those alive and passing the filters, mapped to their section id.

    CROSS JOIN keeps the candidates the outer loop: left to choose, SQLite starts from the
    `documents_listing` index (`current = 1`) and walks every current document's sections
    and chunks, which costs in proportion to the vault instead of the few hundred ids.
    """
    return {
        chunk_id: section_id
        for chunk_id, (section_id, _) in dated_chunks(conn, chunk_ids, filters).items()
    }


def dated_chunks(
    conn: Connection, chunk_ids: Sequence[int], filters: Filters
) -> dict[int, tuple[int, int]]:
    """As `visible_chunks`, each mapped to its section id and its document's created_at
    (ms): one lookup serves a dated search's period as well (see `search.hybrid`)."""
    if not chunk_ids:
        return {}
    where, params = filters.sql()
    marks = ",".join("?" * len(chunk_ids))
    found = conn.execute(
        "SELECT c.id, c.section_id, d.created_at FROM chunks c "
        "CROSS JOIN sections s ON s.id = c.section_id "
        f"CROSS JOIN documents d ON d.id = s.doc_id WHERE c.id IN ({marks}) AND {where}",
        (*chunk_ids, *params),
    ).fetchall()
    return {int(chunk_id): (int(section), int(created)) for chunk_id, section, created in found}


def chunk_spans(conn: Connection, chunk_ids: Sequence[int]) -> dict[int, tuple[int, int]]:
    """Character spans (within their section's text) of these chunks."""
    if not chunk_ids:
        return {}
    marks = ",".join("?" * len(chunk_ids))
    return {
        int(chunk_id): (int(start), int(end))
        for chunk_id, start, end in conn.execute(
            f"SELECT id, start, end FROM chunks WHERE id IN ({marks})", list(chunk_ids)
        )
    }


def change_token(conn: Connection) -> tuple[int, int]:
    """Moves whenever the file changes: another connection's commit moves `data_version`,
    this connection's writes move `total_changes`. Two counters, no query."""
    (version,) = conn.execute("PRAGMA data_version").fetchone()
    return int(version), int(conn.total_changes)


def live_chunk_count(conn: Connection) -> int:
    """How many chunks the index holds now."""
    (live,) = conn.execute("SELECT count(*) FROM chunks").fetchone()
    return int(live)


def live_chunk_ids(conn: Connection) -> np.ndarray:
    """Every chunk id, ascending (a covering scan of an index: far smaller than the table)."""
    ids = np.fromiter((row[0] for row in conn.execute("SELECT id FROM chunks")), np.int64)
    ids.sort()
    return ids


Vectors = tuple[np.ndarray, np.ndarray]  # chunk ids (int64) and their rows (float32, n x dim)


def as_vectors(pairs: Sequence[tuple[int, bytes]], dim: int) -> Vectors:
    """(ids, float32 vectors n x dim) of (id, float32 blob) rows."""
    ids = np.fromiter((rowid for rowid, _ in pairs), dtype=np.int64, count=len(pairs))
    blob = b"".join(embedding for _, embedding in pairs)
    return ids, np.frombuffer(blob, dtype=np.float32).reshape(len(pairs), dim)


def vectors_of(conn: Connection, chunk_ids: Sequence[int], dim: int) -> Vectors:
    """The vectors of these chunks, one point lookup each.

    On a `vec0` table `rowid = ?` is a point lookup, while `rowid > ?` scans every vector
    (about 25 ms at 100k rows): a handful of new chunks is cheaper looked up one by one."""
    pairs = [
        found
        for chunk_id in chunk_ids
        for found in conn.execute(
            "SELECT rowid, embedding FROM chunks_vec WHERE rowid = ?", (chunk_id,)
        )
    ]
    return as_vectors(pairs, dim)


def vectors_after(conn: Connection, after_id: int, dim: int) -> Vectors:
    """The vectors of every chunk with an id above `after_id`, in id order.

    Through `vec0` this costs about 15 µs a row (0.15 s for 10k chunks, on the path of
    every `privault search` process, which loads the vectors afresh); read straight from
    the table's own storage it is a few milliseconds (`_stored_vectors_after`)."""
    stored = _stored_vectors_after(conn, after_id, dim)
    if stored is not None:
        return stored
    pairs = conn.execute(
        "SELECT rowid, embedding FROM chunks_vec WHERE rowid > ? ORDER BY rowid", (after_id,)
    ).fetchall()
    return as_vectors(pairs, dim)


# The storage layout of `vec0` tables made by this release of sqlite-vec (pinned in
# pyproject): `<t>_chunks` holds, per block of slots, a validity bitmap (bit i of byte
# i // 8, lowest bit first) and the slots' rowids (int64, little-endian); `<t>_vector_
# chunks00` holds the block's vectors back to back. Another version is read through vec0.
_VEC0_LAYOUTS = {"v0.1.9"}


def _stored_vectors_after(conn: Connection, after_id: int, dim: int) -> Vectors | None:
    """`vectors_after` read from `chunks_vec`'s blocks, or None if the layout is not one
    this code knows or what it finds disagrees with the table's own row count."""
    try:
        (made,) = conn.execute(
            "SELECT value FROM chunks_vec_info WHERE key = 'CREATE_VERSION'"
        ).fetchone() or (None,)
        if made not in _VEC0_LAYOUTS or sys.byteorder != "little":  # the blobs are little-endian
            return None
        blocks = conn.execute(
            "SELECT c.size, c.validity, c.rowids, v.vectors FROM chunks_vec_chunks c "
            "JOIN chunks_vec_vector_chunks00 v ON v.rowid = c.chunk_id ORDER BY c.chunk_id"
        ).fetchall()
        (rows_counted,) = conn.execute("SELECT count(*) FROM chunks_vec_rowids").fetchone()
    except OperationalError:  # tables of another layout
        return None
    all_ids, all_rows, live = [], [], 0
    for size, validity, rowids, vectors in blocks:
        if len(rowids) != 8 * size or len(validity) * 8 < size or len(vectors) != 4 * dim * size:
            return None
        bits = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")
        valid = bits[:size].astype(bool)
        ids = np.frombuffer(rowids, dtype=np.int64)
        live += int(valid.sum())
        keep = valid & (ids > after_id)
        rows = np.frombuffer(vectors, dtype=np.float32).reshape(size, dim)
        all_ids.append(ids if keep.all() else ids[keep])
        all_rows.append(rows if keep.all() else rows[keep])
    if live != rows_counted:
        return None
    if not all_ids:
        return np.zeros(0, dtype=np.int64), np.zeros((0, dim), dtype=np.float32)
    ids, matrix = np.concatenate(all_ids), np.concatenate(all_rows)
    if len(ids) > 1 and not bool(np.all(ids[1:] > ids[:-1])):  # slots reused after deletes
        order = np.argsort(ids, kind="stable")
        ids, matrix = ids[order], matrix[order]
    return ids, matrix


def masked_vectors_from(conn: Connection, lowest: int) -> dict[int, bytes]:
    """Chunk id -> the vector of its masked text, for masked chunks with id >= `lowest`."""
    return dict(
        conn.execute(
            "SELECT chunk_id, embedding FROM masked_chunks WHERE chunk_id >= ?", (lowest,)
        ).fetchall()
    )
