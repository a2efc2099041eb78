"""Reads and writes of the strong model's vectors (tables of migration m012).

The background pass asks for chunks that have no `strong_chunks` row yet, with the texts
their plain and masked entries are indexed by, and writes each chunk's row together with
any vector it names that the vault does not hold yet. Search loads the vectors of one
view: `plain`, or `masked`, where a chunk with a masked entry is represented by the
vector of its masked text and never by its plain one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from privault.store import documents, strong_codes, tallies
from privault.store.connection import Connection, first_column_in, in_batches, write
from privault.timeutil import now_ms


@dataclass(frozen=True)
class PendingChunk:
    """A chunk without strong vectors: its indexed text, its masked entry's (or None), and
    when its document was written (epoch ms)."""

    chunk_id: int
    text: str
    masked_text: str | None
    written: int


MODEL_KEY = "strong_model"
# What the pass covers first: what agents read or asked about lately (their calls name the
# sections they were given), then what the owner wrote before what was imported or
# fetched, and within each, the newest first (what is asked about most is what is
# recent). At a million windows the pass takes days, so the order is the plan.
ORDER = (
    "what agents read in the last 30 days first; then notes and reminders before files "
    "and pages; newest first"
)
READ_DAYS = 30
DAY_MS = 86_400_000
READ_CALLS = 2000  # newest audited calls looked at
READ_DOCUMENTS = 500  # documents taken from them at most
_FILED = "('file', 'page')"


@dataclass(frozen=True)
class Scope:
    """The windows a pass is steered to (`privault index --strong --shelf X --since D`)."""

    shelf: str | None = None
    since: int | None = None  # documents created at or after (epoch ms)

    def sql(self) -> tuple[str, list[object]]:
        """A WHERE fragment over `d` (documents) and its parameters."""
        where: list[str] = ["d.current = 1"]
        params: list[object] = []
        if self.shelf is not None:
            where.append("d.shelf = ?")
            params.append(self.shelf)
        if self.since is not None:
            where.append("d.created_at >= ?")
            params.append(self.since)
        return " AND ".join(where), params


def built_by(conn: Connection) -> str | None:
    """The strong model whose vectors the tables hold (None: none recorded yet)."""
    found = conn.execute("SELECT value FROM meta WHERE key = ?", (MODEL_KEY,)).fetchone()
    return str(found[0]) if found else None


def claim(conn: Connection, model: str) -> None:
    """Make the tables hold `model`'s vectors: another model's are deleted (vectors of
    two models are not comparable), and the model is recorded."""
    with write(conn):
        if built_by(conn) not in (None, model):
            conn.execute("DELETE FROM strong_chunks")
            conn.execute("DELETE FROM strong_vectors")
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (MODEL_KEY, model))


def pending(
    conn: Connection, limit: int, scope: Scope = Scope(), *, now: int | None = None
) -> list[PendingChunk]:
    """Up to `limit` chunks of current documents in `scope` that have no strong vectors, in
    the pass's order (`ORDER`).

    A section still waiting for the background indexer (`index_queue`) is left for later:
    its windows have no masked entries yet and are re-cut under new ids when it is indexed.
    Each group is walked newest first through the listing index and stops at `limit`, so a
    round costs what it takes, not a sort of every window of the vault (nor, steered to a
    shelf, a sort of the shelf: SQLite would otherwise start from the shelf index).
    """
    where, params = scope.sql()
    chosen: dict[int, int] = {}
    read = recently_read(conn, (now if now is not None else now_ms()) - READ_DAYS * DAY_MS)
    groups: list[tuple[str, list[object]]] = []
    for batch in (read[i : i + 400] for i in range(0, len(read), 400)):
        groups.append((f"d.id IN ({','.join('?' * len(batch))})", list(batch)))
    groups += [(f"d.kind NOT IN {_FILED}", []), (f"d.kind IN {_FILED}", [])]
    for condition, extra in groups:
        if len(chosen) >= limit:
            break
        found = conn.execute(
            "SELECT c.id, d.created_at FROM documents d INDEXED BY documents_listing "
            "CROSS JOIN sections s ON s.doc_id = d.id CROSS JOIN chunks c ON c.section_id = s.id "
            f"WHERE {where} AND {condition} "
            "AND NOT EXISTS (SELECT 1 FROM strong_chunks k WHERE k.chunk_id = c.id) "
            "AND NOT EXISTS (SELECT 1 FROM index_queue q WHERE q.section_id = c.section_id) "
            "ORDER BY d.created_at DESC, c.id LIMIT ?",
            (*params, *extra, limit),
        ).fetchall()
        for cid, written in found:
            if len(chosen) < limit:
                chosen.setdefault(int(cid), int(written))
    if not chosen:
        return []
    texts: dict[int, str] = {}
    masked: dict[int, str] = {}
    for batch, marks in in_batches(list(chosen)):
        for rowid, text in conn.execute(
            f"SELECT rowid, text FROM chunks_fts WHERE rowid IN ({marks})", batch
        ):
            texts[int(rowid)] = str(text)
        for rowid, text in conn.execute(
            f"SELECT g.rowid, g.text FROM gated_fts g WHERE g.rowid IN ({marks})"
            " AND EXISTS (SELECT 1 FROM masked_chunks m WHERE m.chunk_id = g.rowid)",
            batch,
        ):
            masked[int(rowid)] = str(text)
    return [
        PendingChunk(cid, texts[cid], masked.get(cid), written)
        for cid, written in chosen.items()
        if cid in texts
    ]


def recently_read(conn: Connection, since: int) -> list[str]:
    """Current documents that agents' calls since `since` (epoch ms) named — a document or
    one of its sections — the most recently named first."""
    named: dict[str, None] = {}
    for (ids,) in conn.execute(
        "SELECT ids FROM audit WHERE at >= ? AND ok = 1 AND ids != '[]' ORDER BY at DESC LIMIT ?",
        (since, READ_CALLS),
    ):
        try:
            values = json.loads(ids)
        except ValueError:
            continue
        for value in values if isinstance(values, list) else ():
            if isinstance(value, str):
                named.setdefault(value, None)
    found: dict[str, None] = {}
    for value in named:
        row = conn.execute(
            "SELECT id FROM documents WHERE id = ? AND current = 1 UNION ALL "
            "SELECT d.id FROM sections s CROSS JOIN documents d ON d.id = s.doc_id "
            "WHERE s.node_id = ? AND d.current = 1 LIMIT 1",
            (value, value),
        ).fetchone()
        if row is not None:
            found.setdefault(str(row[0]), None)
            if len(found) >= READ_DOCUMENTS:
                break
    return list(found)


def known_digests(conn: Connection, digests: Sequence[bytes]) -> set[bytes]:
    """Which of these digests already have a vector."""
    sql = "SELECT digest FROM strong_vectors WHERE digest IN ({marks})"
    return {bytes(digest) for digest in first_column_in(conn, sql, digests)}


def store(
    conn: Connection,
    vectors: dict[bytes, bytes],
    rows: Sequence[tuple[int, bytes, bytes | None]],
) -> int:
    """Write new vectors and the (chunk id, plain digest, masked digest) rows, with their
    int8 codes (`strong_codes`), in one transaction; chunks deleted in the meantime are
    skipped. Returns rows written."""
    with write(conn):
        conn.executemany(
            "INSERT OR IGNORE INTO strong_vectors (digest, embedding) VALUES (?, ?)",
            list(vectors.items()),
        )
        before = conn.total_changes
        conn.executemany(
            "INSERT OR IGNORE INTO strong_chunks (chunk_id, plain, masked) "
            "SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?)",
            [(cid, plain, masked, cid) for cid, plain, masked in rows],
        )
        written = conn.total_changes - before
        strong_codes.save(conn, rows, vectors)
        return written


def drop_orphans(conn: Connection) -> int:
    """Delete vectors no chunk names any more (their windows were deleted or re-cut)."""
    with write(conn):
        cursor = conn.execute(
            "DELETE FROM strong_vectors WHERE digest NOT IN (SELECT plain FROM strong_chunks) "
            "AND digest NOT IN (SELECT masked FROM strong_chunks WHERE masked IS NOT NULL)"
        )
        return int(cursor.rowcount or 0)


def coverage(conn: Connection, scope: Scope = Scope()) -> tuple[int, int]:
    """(chunks of current documents in `scope` with strong vectors, chunks of current
    documents in `scope`)."""
    if scope == Scope():
        # The whole vault: counts less the few chunks of older versions (`current = 0`).
        old = documents.old_version_chunks(conn)
        (old_done,) = conn.execute(
            "SELECT count(*) FROM documents d CROSS JOIN sections s ON s.doc_id = d.id"
            " CROSS JOIN chunks c ON c.section_id = s.id"
            " CROSS JOIN strong_chunks k ON k.chunk_id = c.id WHERE d.current = 0"
        ).fetchone()
        done_all = tallies.row_count(conn, "strong_chunks")
        chunks = tallies.row_count(conn, "chunks")
        return int(done_all - old_done), int(chunks - old)
    where, params = scope.sql()
    done, total = conn.execute(
        "SELECT count(k.chunk_id), count(*) FROM chunks c "
        "JOIN sections s ON s.id = c.section_id JOIN documents d ON d.id = s.doc_id "
        f"LEFT JOIN strong_chunks k ON k.chunk_id = c.id WHERE {where}",
        params,
    ).fetchone()
    return int(done), int(total)


def state(conn: Connection) -> tuple[int, int]:
    """(row count, highest chunk id) of `strong_chunks`: what an in-memory copy compares."""
    count, highest = conn.execute(
        "SELECT count(*), coalesce(max(chunk_id), 0) FROM strong_chunks"
    ).fetchone()
    return int(count), int(highest)


def count_above(conn: Connection, after_id: int) -> int:
    """How many `strong_chunks` rows have a chunk id above `after_id`."""
    (count,) = conn.execute(
        "SELECT count(*) FROM strong_chunks WHERE chunk_id > ?", (after_id,)
    ).fetchone()
    return int(count)


_VIEW_ROWS = {
    "plain": "SELECT k.chunk_id, v.embedding FROM strong_chunks k "
    "JOIN strong_vectors v ON v.digest = k.plain WHERE {where}",
    "masked": "SELECT k.chunk_id, v.embedding FROM strong_chunks k "
    "LEFT JOIN masked_chunks m ON m.chunk_id = k.chunk_id "
    "JOIN strong_vectors v ON v.digest = CASE WHEN m.chunk_id IS NULL "
    "THEN k.plain ELSE k.masked END WHERE {where}",
}
STREAM_ROWS = 4096  # vectors read per batch by `batches_after` (12 MB at 768 dimensions)


def _view_rows(view: str, where: str) -> str:
    """The rows of one view (chunk id, vector): in the masked view a chunk with a masked
    entry gets its masked vector, or is left out."""
    try:
        return _VIEW_ROWS[view].format(where=where)
    except KeyError:
        raise ValueError(f"unknown index view {view!r}") from None


def vectors_after(conn: Connection, after_id: int, view: str) -> list[tuple[int, bytes]]:
    """(chunk id, vector) of chunks above `after_id` in one view, in id order."""
    return [row for batch in batches_after(conn, after_id, view) for row in batch]


def batches_after(conn: Connection, after_id: int, view: str) -> Iterator[list[tuple[int, bytes]]]:
    """`vectors_after`, STREAM_ROWS at a time (a whole view is 3 KB a window)."""
    cursor = conn.execute(_view_rows(view, "k.chunk_id > ? ORDER BY k.chunk_id"), (after_id,))
    while batch := cursor.fetchmany(STREAM_ROWS):
        yield [(int(cid), bytes(blob)) for cid, blob in batch]


def vectors_of(conn: Connection, chunk_ids: Sequence[int], view: str) -> list[tuple[int, bytes]]:
    """(chunk id, vector) of those of these chunks that have one in the view."""
    found: list[tuple[int, bytes]] = []
    for batch, marks in in_batches(list(chunk_ids)):
        rows = conn.execute(_view_rows(view, f"k.chunk_id IN ({marks})"), batch)
        found += [(int(cid), bytes(blob)) for cid, blob in rows]
    return found
