"""Stored spans of titles and headings (`label_spans`), keyed by document and label text.

A label is scanned with the opening of its document as context (see `vault.privacy`); its
spans are kept as JSON by label value, with the detector version that found them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from privault.spans import Span
from privault.store.connection import Connection, write


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


def stale(conn: Connection, detector_version: str, limit: int) -> list[tuple[str, str]]:
    """(doc id, label) of labels scanned by another detector version."""
    return [
        (doc_id, label)
        for doc_id, label in conn.execute(
            "SELECT doc_id, label FROM label_spans WHERE detector_version != ? LIMIT ?",
            (detector_version, limit),
        ).fetchall()
    ]


def update(
    conn: Connection, found: Sequence[tuple[str, str, Sequence[Span]]], detector_version: str
) -> None:
    """Store fresh spans for (doc id, label, spans) rows in one transaction."""
    with write(conn):
        conn.executemany(
            "UPDATE label_spans SET spans = ?, detector_version = ? WHERE doc_id = ? AND label = ?",
            [(dump_spans(spans), detector_version, doc, label) for doc, label, spans in found],
        )
