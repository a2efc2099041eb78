"""Stored PII spans of statements (`statement_spans`, `statement_scans`).

The content's spans are rows; the short texts around a statement (source, entity names,
metadata, a reason given to invalidate) are kept as JSON by value, with the detector
version that scanned them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from privault.spans import Span
from privault.store.connection import Connection, in_batches, rows, write
from privault.timeutil import now_ms


@dataclass(frozen=True)
class StatementScan:
    """Spans of one statement: in its content, and in each of its short texts."""

    content: tuple[Span, ...]
    texts: Mapping[str, tuple[Span, ...]]
    detector_version: str


def save_scan(conn: Connection, statement_id: str, found: StatementScan) -> None:
    """Replace a statement's stored spans and mark it scanned (one transaction)."""
    with write(conn):
        conn.execute("DELETE FROM statement_spans WHERE statement_id = ?", (statement_id,))
        conn.executemany(
            "INSERT INTO statement_spans (statement_id, start, end, kind, score, source,"
            " detector_version) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (statement_id, s.start, s.end, s.kind, s.score, s.source, found.detector_version)
                for s in found.content
            ],
        )
        conn.execute(
            "INSERT INTO statement_scans (statement_id, detector_version, scanned_at, texts)"
            " VALUES (?, ?, ?, ?) ON CONFLICT (statement_id) DO UPDATE SET"
            " detector_version = excluded.detector_version, scanned_at = excluded.scanned_at,"
            " texts = excluded.texts",
            (statement_id, found.detector_version, now_ms(), _dump(found.texts)),
        )


def add_texts(conn: Connection, statement_id: str, texts: Mapping[str, Sequence[Span]]) -> None:
    """Add spans of new short texts (a reason given later) to a scanned statement."""
    with write(conn):
        found = conn.execute(
            "SELECT texts FROM statement_scans WHERE statement_id = ?", (statement_id,)
        ).fetchone()
        if found is None:
            return  # never scanned: reads detect live, and a rescan covers everything
        merged = {**_load(found[0]), **{text: tuple(spans) for text, spans in texts.items()}}
        conn.execute(
            "UPDATE statement_scans SET texts = ? WHERE statement_id = ?",
            (_dump(merged), statement_id),
        )


def load_scans(conn: Connection, ids: Sequence[str]) -> dict[str, StatementScan]:
    """Stored scans of the statements that have one."""
    result: dict[str, StatementScan] = {}
    for part, marks in in_batches(ids):
        spans: dict[str, list[Span]] = {}
        for item in rows(
            conn,
            f"SELECT statement_id, start, end, kind, score, source FROM statement_spans"
            f" WHERE statement_id IN ({marks}) ORDER BY statement_id, start",
            part,
        ):
            spans.setdefault(item["statement_id"], []).append(
                Span(item["start"], item["end"], item["kind"], item["score"], item["source"])
            )
        for item in rows(
            conn,
            f"SELECT statement_id, detector_version, texts FROM statement_scans"
            f" WHERE statement_id IN ({marks})",
            part,
        ):
            sid = item["statement_id"]
            result[sid] = StatementScan(
                tuple(spans.get(sid, ())), _load(item["texts"]), item["detector_version"]
            )
    return result


def stale_statements(conn: Connection, detector_version: str, limit: int) -> list[str]:
    """Ids of statements never scanned, or scanned by another detector version."""
    found = rows(
        conn,
        "SELECT s.id FROM statements s LEFT JOIN statement_scans c ON c.statement_id = s.id"
        " WHERE c.statement_id IS NULL OR c.detector_version != ? ORDER BY s.seq LIMIT ?",
        (detector_version, limit),
    )
    return [item["id"] for item in found]


def _dump(texts: Mapping[str, Sequence[Span]]) -> str:
    return json.dumps(
        {
            text: [[s.start, s.end, s.kind, s.score, s.source] for s in spans]
            for text, spans in texts.items()
        },
        ensure_ascii=False,
        sort_keys=True,
    )


def _load(data: str) -> dict[str, tuple[Span, ...]]:
    return {
        text: tuple(Span(int(a), int(b), str(k), float(sc), str(src)) for a, b, k, sc, src in spans)
        for text, spans in json.loads(data).items()
    }
