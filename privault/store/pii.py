"""Repository for stored PII spans, scan state and owner overrides (see m002_pii).

Write path: `save_spans` replaces a section's spans and records the detector version in one
transaction. Read path: `load_spans` fetches spans for many sections at once. Re-scan:
`mark_for_rescan` forgets scan state; `sections_to_scan` lists sections whose stored spans
are missing or come from another detector version.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from privault.errors import InputError, NotFound
from privault.spans import Override, Span, normalise_kind
from privault.store import tallies
from privault.store.connection import Connection, in_batches, rows, write
from privault.timeutil import now_ms

Field = Literal["text", "heading"]


@dataclass(frozen=True)
class SectionSpans:
    """Stored spans of one section, split by the field they point into."""

    text: tuple[Span, ...] = ()
    heading: tuple[Span, ...] = ()


def save_spans(
    conn: Connection,
    section_id: int,
    spans: Iterable[Span],
    detector_version: str,
    *,
    heading_spans: Iterable[Span] = (),
) -> None:
    """Replace the stored spans of a section and mark it scanned by `detector_version`."""
    data = [("text", s) for s in spans] + [("heading", s) for s in heading_spans]
    with write(conn):
        conn.execute("DELETE FROM pii_spans WHERE section_id = ?", (section_id,))
        conn.executemany(
            "INSERT INTO pii_spans (section_id, field, start, end, kind, score, source,"
            " detector_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (section_id, field, s.start, s.end, s.kind, s.score, s.source, detector_version)
                for field, s in data
            ],
        )
        conn.execute(
            "INSERT INTO pii_scans (section_id, detector_version, scanned_at) VALUES (?, ?, ?)"
            " ON CONFLICT (section_id) DO UPDATE SET detector_version = excluded.detector_version,"
            " scanned_at = excluded.scanned_at",
            (section_id, detector_version, now_ms()),
        )


def load_spans(conn: Connection, section_ids: Sequence[int]) -> dict[int, SectionSpans]:
    """Stored spans for each of `section_ids` (sections without spans map to empty)."""
    found: dict[int, dict[str, list[Span]]] = {
        sid: {"text": [], "heading": []} for sid in section_ids
    }
    for chunk, marks in in_batches(section_ids):
        for row in rows(
            conn,
            "SELECT section_id, field, start, end, kind, score, source FROM pii_spans"
            f" WHERE section_id IN ({marks}) ORDER BY section_id, field, start",
            chunk,
        ):
            span = Span(row["start"], row["end"], row["kind"], row["score"], row["source"])
            found[row["section_id"]][row["field"]].append(span)
    return {
        sid: SectionSpans(tuple(parts["text"]), tuple(parts["heading"]))
        for sid, parts in found.items()
    }


def is_scanned(conn: Connection, section_id: int, detector_version: str) -> bool:
    """True when the section's stored spans come from `detector_version`."""
    row = conn.execute(
        "SELECT 1 FROM pii_scans WHERE section_id = ? AND detector_version = ?",
        (section_id, detector_version),
    ).fetchone()
    return row is not None


def sections_to_scan(
    conn: Connection,
    detector_version: str,
    limit: int = 100,
    *,
    agent_version: str | None = None,
    after: int = 0,
) -> list[tuple[int, str, str, str | None]]:
    """(section id, text, author, the version it was scanned by or None) of sections never
    scanned or scanned by another version, in id order from above `after` (a pass resumes
    where its last batch ended: starting from the first section each time would step over
    every section already done).

    The owner's text is judged against `detector_version`, text an agent wrote against
    `agent_version` (its detector knows no known entities; default: the same version).
    Sections waiting in the index queue are left to the indexer.
    """
    return [
        (row["id"], row["text"], row["author"], row["detector_version"])
        for row in rows(
            conn,
            f"SELECT s.id, s.text, d.author, p.detector_version {_STALE_SECTIONS}"
            " AND s.id > ? ORDER BY s.id LIMIT ?",
            (detector_version, agent_version or detector_version, after, limit),
        )
    ]


# Sections whose spans are missing or from another detector version than their author's.
_STALE_SECTIONS = (
    "FROM sections s JOIN documents d ON d.id = s.doc_id"
    " LEFT JOIN pii_scans p ON p.section_id = s.id"
    " WHERE (p.section_id IS NULL"
    " OR p.detector_version != CASE WHEN d.author = '' THEN ? ELSE ? END)"
    " AND NOT EXISTS (SELECT 1 FROM index_queue q WHERE q.section_id = s.id)"
)


def save_spans_if_current(
    conn: Connection, found: Sequence[tuple[int, str, Sequence[Span], str]]
) -> list[int]:
    """`save_spans` for sections scanned outside the write lock — (section id, the text
    scanned, its spans, detector version) each — in one transaction, for those that still
    hold exactly the text scanned; returns their ids.

    Section ids are never reused (m011), and the text is compared too, so spans found in
    one text are never stored as another's: a section deleted or rewritten meanwhile keeps
    what its own write stored.
    """
    saved = []
    with write(conn):
        for section_id, text, spans, version in found:
            row = conn.execute("SELECT text FROM sections WHERE id = ?", (section_id,)).fetchone()
            if row is not None and row[0] == text:
                save_spans(conn, section_id, spans, version)
                saved.append(section_id)
    return saved


def mark_current(conn: Connection, kept: Sequence[tuple[int, str, str, str]]) -> list[int]:
    """Mark sections' stored spans as the current version's without changing them — (section
    id, the text judged, the version its spans are from, the current version) each — where
    the section still holds that text and those spans; returns their ids (see
    `Detector.rereads`)."""
    marked = []
    with write(conn):
        for section_id, text, old, new in kept:
            cursor = conn.execute(
                "UPDATE pii_scans SET detector_version = ? WHERE section_id = ?"
                " AND detector_version = ? AND (SELECT text FROM sections WHERE id = ?) = ?",
                (new, section_id, old, section_id, text),
            )
            if cursor.rowcount:
                conn.execute(
                    "UPDATE pii_spans SET detector_version = ? WHERE section_id = ?",
                    (new, section_id),
                )
                marked.append(section_id)
    return marked


def mark_for_rescan(conn: Connection, doc_id: str | None = None) -> int:
    """Forget scan state (of one document, or all); return how many sections are marked."""
    with write(conn):
        if doc_id is None:
            cursor = conn.execute("DELETE FROM pii_scans")
        else:
            cursor = conn.execute(
                "DELETE FROM pii_scans WHERE section_id IN"
                " (SELECT id FROM sections WHERE doc_id = ?)",
                (doc_id,),
            )
    return int(cursor.rowcount)


def add_override(
    conn: Connection,
    doc_id: str,
    value: str,
    action: Literal["mark", "unmark"],
    kind: str = "PERSON",
    node_id: str | None = None,
) -> Override:
    """Record an owner override (replacing an equal one); return it."""
    if not value.strip():
        raise InputError("an override needs a value: give the text to mark or unmark")
    if action not in ("mark", "unmark"):
        raise InputError(f"unknown override action {action!r}: use mark or unmark")
    created = now_ms()
    with write(conn):
        conn.execute(
            "DELETE FROM pii_overrides WHERE doc_id = ? AND coalesce(node_id, '') = ?"
            " AND lower(value) = lower(?)",
            (doc_id, node_id or "", value.strip()),
        )
        cursor = conn.execute(
            "INSERT INTO pii_overrides (doc_id, node_id, kind, value, action, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (doc_id, node_id, normalise_kind(kind), value.strip(), action, created),
        )
    return Override(
        int(cursor.lastrowid or 0), doc_id, node_id, normalise_kind(kind), value.strip(), action
    )


def list_overrides(conn: Connection, doc_ids: Sequence[str] | None = None) -> list[Override]:
    """Overrides of the given documents (all when None), oldest first."""
    sql = "SELECT id, doc_id, node_id, kind, value, action FROM pii_overrides"
    params: list[str] = []
    if doc_ids is not None:
        if not doc_ids:
            return []
        sql += f" WHERE doc_id IN ({','.join('?' * len(doc_ids))})"
        params = list(doc_ids)
    return [Override(**row) for row in rows(conn, sql + " ORDER BY id", params)]


def delete_override(conn: Connection, override_id: int) -> None:
    """Remove one override; `NotFound` if there is none with that id."""
    with write(conn):
        cursor = conn.execute("DELETE FROM pii_overrides WHERE id = ?", (override_id,))
    if cursor.rowcount == 0:
        raise NotFound(f"no PII override with id {override_id}")


def marked_values(conn: Connection) -> dict[str, str]:
    """Owner-marked values (value -> kind): known entities for the detector."""
    return {
        row["value"]: row["kind"]
        for row in rows(conn, "SELECT value, kind FROM pii_overrides WHERE action = 'mark'")
    }


def sections_to_rescan_count(
    conn: Connection, detector_version: str, agent_version: str | None = None
) -> int:
    """How many sections were never scanned, or scanned by another detector version than
    their author's (see `sections_to_scan`).

    Counted without reading the sections: all sections, less the queued ones, less those
    whose scan is current — the scans per version kept in `tallies` (migration
    `status_tallies`), corrected over the few sections that are queued or were written by
    agents."""
    agent_version = agent_version or detector_version
    total = tallies.row_count(conn, "sections")
    (queued,) = conn.execute(
        "SELECT count(*) FROM index_queue q CROSS JOIN sections s ON s.id = q.section_id"
    ).fetchone()
    current = tallies.scans(conn, detector_version)
    (queued_current,) = conn.execute(
        "SELECT count(*) FROM index_queue q CROSS JOIN pii_scans p ON p.section_id = q.section_id"
        " WHERE p.detector_version = ?",
        (detector_version,),
    ).fetchone()
    # Agents' text is current at the agent version, not at the owner's.
    authored = (
        "SELECT count(*) FROM documents d CROSS JOIN sections s ON s.doc_id = d.id"
        " CROSS JOIN pii_scans p ON p.section_id = s.id WHERE d.author != ''"
        " AND p.detector_version = ?"
        " AND NOT EXISTS (SELECT 1 FROM index_queue q WHERE q.section_id = s.id)"
    )
    (authored_owner,) = conn.execute(authored, (detector_version,)).fetchone()
    (authored_agent,) = conn.execute(authored, (agent_version,)).fetchone()
    up_to_date = current - queued_current - authored_owner + authored_agent
    return int(total - queued - up_to_date)


def sections_to_rescan_count_by_reading(
    conn: Connection, detector_version: str, agent_version: str | None = None
) -> int:
    """`sections_to_rescan_count` by reading every section: what the counters must equal
    (`privault check`, tests)."""
    (pending,) = conn.execute(
        f"SELECT count(*) {_STALE_SECTIONS}", (detector_version, agent_version or detector_version)
    ).fetchone()
    return int(pending)


def known_generation(conn: Connection) -> int:
    """A counter that moves whenever the vault's known entities change (any process)."""
    found = conn.execute("SELECT value FROM meta WHERE key = 'known_generation'").fetchone()
    return int(found[0]) if found else 0


def bump_known_generation(conn: Connection) -> int:
    """Move the counter (inside the caller's write, if any): every process re-reads the
    known entities on its next request."""
    with write(conn):
        conn.execute(
            "INSERT INTO meta (key, value) VALUES ('known_generation', '1') ON CONFLICT (key) "
            "DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)"
        )
    return known_generation(conn)


def sections_mentioning(conn: Connection, values: Iterable[str]) -> list[int]:
    """Ids of current sections whose text or labels may hold one of `values` (owner text).

    A cheap over-approximation through the plain keyword index (each value's words, as a
    phrase), for re-masking just the windows a new known entity touches.
    """
    found: set[int] = set()
    for value in values:
        words = [w for w in "".join(c if c.isalnum() else " " for c in value).split() if w]
        if not words:
            continue
        phrase = '"' + " ".join(words) + '"'
        found.update(
            int(section_id)
            for (section_id,) in conn.execute(
                "SELECT DISTINCT c.section_id FROM chunks_fts f JOIN chunks c ON c.id = f.rowid "
                "JOIN sections s ON s.id = c.section_id JOIN documents d ON d.id = s.doc_id "
                "WHERE chunks_fts MATCH ? AND d.author = ''",
                (phrase,),
            )
        )
    return sorted(found)
