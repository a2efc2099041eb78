"""Stored spans, scan state and owner overrides in a real vault file."""

from __future__ import annotations

from pathlib import Path

from privault.privacy import FakeDetector, Gate, PolicySet, apply_overrides
from privault.store import pii
from privault.store.connection import Connection, connect

STANDARD = PolicySet.load().resolve("standard")


def _doc(conn: Connection, doc_id: str, text: str, node: str = "n1") -> int:
    conn.execute(
        "INSERT OR IGNORE INTO documents (id, kind, title, content_hash, body, created_at,"
        " updated_at) VALUES (?, 'note', 't', 'h', ?, 0, 0)",
        (doc_id, text),
    )
    cursor = conn.execute(
        "INSERT INTO sections (node_id, doc_id, position, depth, heading, breadcrumb, text,"
        " start, end) VALUES (?, ?, 0, 0, 'Mail ada@example.org', '[]', ?, 0, ?)",
        (node, doc_id, text, len(text)),
    )
    return int(cursor.lastrowid or 0)


def test_spans_survive_a_restart(conn: Connection, tmp_path: Path) -> None:
    detector = FakeDetector()
    text = "Write to ada@example.org or call +44 20 7946 0958."
    sid = _doc(conn, "d1", text)
    pii.save_spans(
        conn,
        sid,
        detector.detect(text),
        detector.version,
        heading_spans=detector.detect("Mail ada@example.org"),
    )
    conn.close()
    again = connect(tmp_path / "store.db")
    stored = pii.load_spans(again, [sid, 999])
    assert stored[999].text == ()
    gate = Gate(STANDARD)
    assert gate.apply(text, stored[sid].text).text == (
        "Write to <EMAIL_ADDRESS_1> or call <PHONE_NUMBER_1>."
    )
    assert gate.apply("Mail ada@example.org", stored[sid].heading).text == "Mail <EMAIL_ADDRESS_1>"
    assert pii.is_scanned(again, sid, detector.version)
    again.close()


def test_rescan_marks(conn: Connection) -> None:
    detector = FakeDetector()
    sid = _doc(conn, "d1", "nothing here")
    assert [row[0] for row in pii.sections_to_scan(conn, detector.version)] == [sid]
    pii.save_spans(conn, sid, [], detector.version)
    assert pii.sections_to_scan(conn, detector.version) == []
    assert [row[0] for row in pii.sections_to_scan(conn, "other-version")] == [sid]
    assert pii.mark_for_rescan(conn, "d1") == 1
    assert [row[0] for row in pii.sections_to_scan(conn, detector.version)] == [sid]


def test_an_override_survives_reingest(conn: Connection) -> None:
    text = "Lunch with Grandma Olive."
    sid = _doc(conn, "d1", text)
    pii.save_spans(conn, sid, [], "v1")
    pii.add_override(conn, "d1", "Grandma Olive", "mark", kind="PERSON")
    # re-ingest: the document's sections are replaced, the override stays
    conn.execute("DELETE FROM sections WHERE doc_id = 'd1'")
    new_sid = _doc(conn, "d1", text, node="n2")
    assert pii.load_spans(conn, [new_sid])[new_sid].text == ()
    overrides = pii.list_overrides(conn, ["d1"])
    spans = apply_overrides(text, [], overrides, doc_id="d1", node_id="n2")
    assert Gate(STANDARD).apply(text, spans).text == "Lunch with <PERSON_1>."
    assert pii.marked_values(conn) == {"Grandma Olive": "PERSON"}


def test_override_crud(conn: Connection) -> None:
    pii.add_override(conn, "d1", "Olive", "mark")
    second = pii.add_override(conn, "d1", "olive", "unmark")  # replaces the mark
    assert [o.action for o in pii.list_overrides(conn)] == ["unmark"]
    pii.delete_override(conn, second.id)
    assert pii.list_overrides(conn) == []
