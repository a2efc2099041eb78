"""Stored spans of titles and headings (`label_spans`), keyed by document and label text.

A label is scanned with the opening of its document as context (see `vault.privacy`); its
spans are kept as JSON by label value, with the detector version that found them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from privault.spans import Span
from privault.store.connection import Connection, in_batches, write


def dump_spans(spans: Sequence[Span]) -> str:
    """Spans as stored JSON."""
    return json.dumps([[s.start, s.end, s.kind, s.score, s.source] for s in spans])


def load_spans(data: str) -> list[Span]:
    """Spans from stored JSON."""
    return [
        Span(int(a), int(b), str(k), float(sc), str(src)) for a, b, k, sc, src in json.loads(data)
    ]


def replace(
    conn: Connection, doc_id: str, labels: Mapping[str, Sequence[Span]], detector_version: str
) -> None:
    """Replace a document's label spans (inside the caller's write transaction)."""
    conn.execute("DELETE FROM label_spans WHERE doc_id = ?", (doc_id,))
    conn.executemany(
        "INSERT INTO label_spans (doc_id, label, spans, detector_version) VALUES (?,?,?,?)",
        [(doc_id, label, dump_spans(spans), detector_version) for label, spans in labels.items()],
    )


def get(conn: Connection, doc_id: str, label: str) -> list[Span] | None:
    """A label's stored spans; None if it was never scanned."""
    found = conn.execute(
        "SELECT spans FROM label_spans WHERE doc_id = ? AND label = ?", (doc_id, label)
    ).fetchone()
    return load_spans(found[0]) if found else None


def of_documents(conn: Connection, doc_ids: Sequence[str]) -> dict[str, dict[str, list[Span]]]:
    """Every stored label's spans of these documents: doc id -> label -> spans (a document
    without stored labels maps to an empty dict)."""
    found: dict[str, dict[str, list[Span]]] = {doc_id: {} for doc_id in doc_ids}
    for batch, marks in in_batches(doc_ids):
        for doc_id, label, spans in conn.execute(
            f"SELECT doc_id, label, spans FROM label_spans WHERE doc_id IN ({marks})", batch
        ):
            found[doc_id][label] = load_spans(spans)
    return found


def stale(
    conn: Connection,
    detector_version: str,
    limit: int,
    *,
    agent_version: str | None = None,
    after: tuple[str, str] = ("", ""),
) -> list[tuple[str, str, str, str, str, str]]:
    """(doc id, label, author, document body, its first section's text, the version it was
    scanned by) of labels scanned by another detector version than their author's (the
    owner's text `detector_version`, an agent's `agent_version`), in key order from after
    the (doc id, label) `after` (a pass resumes where its last batch ended, see
    `pii.sections_to_scan`)."""
    return [
        (str(doc_id), str(label), str(author), str(body), str(opening or ""), str(version))
        for doc_id, label, author, body, opening, version in conn.execute(
            "SELECT l.doc_id, l.label, d.author, d.body, (SELECT s.text FROM sections s"
            " WHERE s.doc_id = l.doc_id ORDER BY s.position LIMIT 1), l.detector_version"
            " FROM label_spans l"
            " JOIN documents d ON d.id = l.doc_id"
            " WHERE l.detector_version != CASE WHEN d.author = '' THEN ? ELSE ? END"
            " AND (l.doc_id, l.label) > (?, ?) ORDER BY l.doc_id, l.label LIMIT ?",
            (detector_version, agent_version or detector_version, *after, limit),
        ).fetchall()
    ]


def update(
    conn: Connection, found: Sequence[tuple[str, str, Sequence[Span]]], detector_version: str
) -> None:
    """Store fresh spans for (doc id, label, spans) rows in one transaction.

    A label is only updated while it is still stale: a document rewritten since the label
    was read stored spans of its own, with the current version, and those stay.
    """
    with write(conn):
        conn.executemany(
            "UPDATE label_spans SET spans = ?, detector_version = ?"
            " WHERE doc_id = ? AND label = ? AND detector_version != ?",
            [
                (dump_spans(spans), detector_version, doc, label, detector_version)
                for doc, label, spans in found
            ],
        )


def mark_current(conn: Connection, kept: Sequence[tuple[str, str, str, str]]) -> None:
    """Mark labels' stored spans as the current version's without changing them — (doc id,
    label, the version its spans are from, the current version) each — while still from
    that version (see `Detector.rereads`)."""
    with write(conn):
        conn.executemany(
            "UPDATE label_spans SET detector_version = ?"
            " WHERE doc_id = ? AND label = ? AND detector_version = ?",
            [(new, doc, label, old) for doc, label, old, new in kept],
        )
