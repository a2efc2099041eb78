"""The write path: section ids never reused, re-scans that cannot land on another text,
and (real detector) the batched, threaded write storing exactly what one-by-one detection
finds."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from privault.caller import Caller
from privault.privacy.detector import DetectorConfig, FakeDetector
from privault.retrieval.embedder import FakeEmbedder
from privault.spans import Span
from privault.store import migrations
from privault.store.connection import connect, write
from privault.vault import Vault, writing
from privault.vault.labels import clip_to, is_first_line, label_spans

OWNER = Caller.owner()
AGENT = Caller.agent("claude")
SYNTH = Path(__file__).parent.parent / "benchmarks" / "pii_synth_v1.json"


def _vault(path: Path, detector_factory: Any = FakeDetector, **kwargs: Any) -> Vault:
    return Vault.open(
        path,
        models_dir=kwargs.pop("models_dir", path.parent / "models"),
        embedder=FakeEmbedder(),
        detector_factory=detector_factory,
        **kwargs,
    )


def _insert_section(conn: Any, node: str) -> int:
    cursor = conn.execute(
        "INSERT INTO sections (node_id, doc_id, position, depth, heading, breadcrumb, text,"
        " start, end) VALUES (?, 'd1', 0, 0, 'h', '[]', 'x', 0, 1)",
        (node,),
    )
    return int(cursor.lastrowid)


def test_section_ids_are_never_handed_out_twice(tmp_path: Path) -> None:
    """Before m011 the largest id came back after its row was deleted; the migration keeps
    every row and id, and from then on an id is never reused."""
    conn = connect(tmp_path / "v.db")
    for migration in migrations.known_migrations():
        if migration.version < 11:
            migrations._apply(conn, migration)
    with write(conn):
        conn.execute(
            "INSERT INTO documents (id, kind, title, shelf, content_hash, body, created_at,"
            " updated_at) VALUES ('d1', 'note', 't', 'default', 'h', 'b', 0, 0)"
        )
        first, last = _insert_section(conn, "d1.1"), _insert_section(conn, "d1.2")
        conn.execute("INSERT INTO pii_scans VALUES (?, 'v', 0)", (last,))
        conn.execute("DELETE FROM sections WHERE id = ?", (last,))
        assert _insert_section(conn, "d1.3") == last  # the old schema reuses it
    migrations.migrate(conn)
    assert conn.execute("PRAGMA foreign_keys").fetchone() == (1,)
    assert [sid for (sid,) in conn.execute("SELECT id FROM sections ORDER BY id")] == [first, last]
    with write(conn):
        conn.execute("DELETE FROM sections WHERE id = ?", (last,))
        assert _insert_section(conn, "d1.4") == last + 1
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    conn.close()


class _Racing(FakeDetector):
    """A detector that runs `during` (once) in the middle of a scan: another writer."""

    during: list[Any] = []

    def __init__(self, config: DetectorConfig | None = None) -> None:
        super().__init__(config)

    def detect_many(self, texts: Sequence[str]) -> list[list[Span]]:
        while type(self).during:
            type(self).during.pop()()
        return super().detect_many(texts)


def test_a_rescan_never_stores_spans_of_a_text_that_was_replaced(tmp_path: Path) -> None:
    """A section deleted and re-created between the re-scan's read and its save keeps the
    spans its own write stored: the save is against the exact text scanned."""
    with _vault(tmp_path / "v.db", detector_factory=_Racing) as vault:
        path = tmp_path / "note.md"
        path.write_text("Call Dr. Olga Petrova today\n", encoding="utf-8")
        doc = vault.add([path], caller=OWNER).added[0].doc_id
        with write(vault.conn):  # stale: as if scanned by an older detector
            vault.conn.execute("UPDATE pii_scans SET detector_version = 'old'")

        def rewrite() -> None:
            path.write_text("Nothing private here\n", encoding="utf-8")
            assert vault.add([path], caller=OWNER).added[0].status == "updated"

        _Racing.during = [rewrite]
        assert vault.privacy.rescan(50) >= 1
        rows = vault.conn.execute(
            "SELECT s.text, p.detector_version, (SELECT count(*) FROM pii_spans x"
            " WHERE x.section_id = s.id) FROM sections s JOIN pii_scans p ON p.section_id = s.id"
            " WHERE s.doc_id = ?",
            (doc,),
        ).fetchall()
        assert rows == [("Nothing private here", vault.privacy.detector.version, 0)]


def test_an_agents_text_is_rescanned_without_the_known_entities(tmp_path: Path) -> None:
    with _vault(tmp_path / "v.db") as vault:
        vault.statements.add("Zorbulon is the plumber", caller=OWNER, entities=["Zorbulon"])
        vault.note("Ask Zorbulon about the sink", caller=AGENT)
        with write(vault.conn):
            vault.conn.execute("UPDATE pii_scans SET detector_version = 'old'")
        vault.privacy.rescan(50)
        kinds = vault.conn.execute("SELECT kind FROM pii_spans").fetchall()
        assert kinds == []  # the owner's known entity is not matched in the agent's words
        assert vault.privacy.status().sections_to_rescan == 0


def test_a_title_made_from_the_first_line_is_judged_as_that_line() -> None:
    spans = [Span(0, 4, "PERSON", 0.9, "ner"), Span(10, 30, "ADDRESS", 0.9, "pattern")]
    assert is_first_line("Olga at 12 Rose Lane", "Olga at 12 Rose Lane\nBring the key")
    assert not is_first_line("Olga at 12", "Olga at 12 Rose Lane")
    cut = [Span(0, 4, "PERSON", 0.9, "ner"), Span(10, 20, "ADDRESS", 0.9, "pattern")]
    assert clip_to(spans, 20) == cut  # an address running past the title is masked in it


@pytest.mark.real
def test_batched_threaded_writes_store_the_spans_of_one_by_one_detection(
    tmp_path: Path, models_dir: Path
) -> None:
    """Over 300 texts of the PII set: every stored section span is what `detect` finds in
    that text alone, and every label what a label alone gets (a title made from the first
    line: that line's spans). Batching, the second thread and the label rule change
    nothing the detector finds."""
    from privault.privacy.detector import Detector

    texts = [item["full_text"] for item in json.loads(SYNTH.read_text())][:300]
    with _vault(tmp_path / "v.db", detector_factory=Detector, models_dir=models_dir) as vault:
        for start in range(0, len(texts), 100):
            vault.note_many([{"text": text} for text in texts[start : start + 100]], caller=OWNER)
        detector = vault.privacy.detector
        stored = vault.conn.execute(
            "SELECT s.id, s.text, d.title, d.body FROM sections s JOIN documents d"
            " ON d.id = s.doc_id WHERE s.position = 0"
        ).fetchall()
        assert len(stored) == len(set(texts))
        for section_id, text, title, body in stored:
            alone = detector.detect(text)
            spans = vault.conn.execute(
                "SELECT start, end, kind, score, source FROM pii_spans WHERE section_id = ?"
                " ORDER BY start, end, kind",
                (section_id,),
            ).fetchall()
            assert spans == sorted((s.start, s.end, s.kind, s.score, s.source) for s in alone)
            (label_json,) = vault.conn.execute(
                "SELECT spans FROM label_spans WHERE label = ? AND doc_id ="
                " (SELECT doc_id FROM sections WHERE id = ?)",
                (title, section_id),
            ).fetchone()
            want = (
                clip_to(alone, len(title))
                if is_first_line(title, text)
                else label_spans(detector, title, body)
            )
            assert json.loads(label_json) == [
                [s.start, s.end, s.kind, s.score, s.source] for s in want
            ]


def test_every_write_stores_a_title_on_one_line(tmp_path: Path) -> None:
    """A title given by another program (a chat export's, a table cell's, a page's) may
    hold line breaks: stored as it came, it faked lines wherever titles are listed."""
    vault = _vault(tmp_path / "v.db")
    try:
        given = vault.note("Body.", caller=OWNER, title="Budget\n\nOK   [done]\r\nnext")
        first = vault.note("#  Plan\tfor   May \nbody", caller=OWNER)
        titles = {d.doc_id: str(d.title) for d in vault.docs(caller=OWNER).documents}
        assert [titles[d.doc_id] for d in (given, first)] == [
            "Budget OK [done] next",
            "Plan for May",
        ]
    finally:
        vault.close()
    page = tmp_path / "page.html"
    page.write_text("<html><head><title>Two\n  lines</title></head><body><p>Text.</p></body>")
    drafted = writing.file_draft(page, "default", (), 1_000_000)
    assert drafted is not None and drafted.title == "Two lines"
    fetched = writing.page_draft("https://example.com/", "A\nB", "Text.", "default", {}, 1_000)
    assert fetched.title == "A B"
