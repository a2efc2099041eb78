"""A detector revision that could change only some texts' spans re-reads only those: the
others keep their spans, marked as the new version's (`Detector.rereads`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from privault import Caller
from privault.privacy import detector as detector_module
from privault.privacy.detector import Detector, DetectorConfig, FakeDetector
from privault.privacy.pieces import PIECE_CHARS
from privault.spans import Span
from privault.store import label_spans, pii
from tests.helpers import fake_vault

OWNER = Caller.owner()
NOTES = [
    ("Garden plan", "Plant the roses by the south wall."),
    ("Scan", "Send ottoline_quade the scan_2024.pdf today."),
    ("Plumber", "Call Dr Ottoline Quade about the boiler."),
]


class Older(FakeDetector):
    """The detector a vault's spans were stored by."""

    def __init__(self, config: DetectorConfig) -> None:
        super().__init__(config)
        self.version = "older"


class Newer(FakeDetector):
    """A later revision that could change only texts with an underscore."""

    read: list[str] = []

    def __init__(self, config: DetectorConfig) -> None:
        super().__init__(config)
        self.version = "newer"

    def rereads(self, text: str, version: str | None) -> bool:
        return version != "older" or "_" in text

    def detect_many(self, texts: Sequence[str]) -> list[list[Span]]:
        Newer.read.extend(texts)
        return super().detect_many(texts)


def test_only_texts_the_revision_could_change_are_read_again(tmp_path: Path) -> None:
    with fake_vault(tmp_path / "v.db", detector_factory=Older) as vault:
        for title, text in NOTES:
            vault.note(text, caller=OWNER, title=title, tags=["home"])
        ids = [row[0] for row in vault.conn.execute("SELECT id FROM sections ORDER BY id")]
        before = pii.load_spans(vault.conn, ids)
    Newer.read = []
    with fake_vault(tmp_path / "v.db", detector_factory=Newer) as vault:
        assert vault.status().privacy.sections_to_rescan == len(ids)
        assert vault.privacy.rescan(200) > 0
        assert vault.status().privacy.sections_to_rescan == 0
        versions = {v for (v,) in vault.conn.execute("SELECT detector_version FROM pii_scans")}
        labels = {v for (v,) in vault.conn.execute("SELECT detector_version FROM label_spans")}
        after = pii.load_spans(vault.conn, ids)
        assert label_spans.stale(vault.conn, "newer", 100) == []
    assert versions == labels == {"newer"}
    assert Newer.read and all("_" in text for text in Newer.read)
    assert any("scan_2024" in text for text in Newer.read)
    assert [after[i].text for i in ids] == [before[i].text for i in ids]  # kept as they were


def test_a_rewritten_section_is_not_marked_with_spans_of_its_old_text(tmp_path: Path) -> None:
    with fake_vault(tmp_path / "v.db", detector_factory=Older) as vault:
        vault.note(NOTES[0][1], caller=OWNER, title="Garden plan")
        [(section_id, text)] = vault.conn.execute("SELECT id, text FROM sections").fetchall()
        vault.conn.execute("UPDATE sections SET text = 'rewritten' WHERE id = ?", (section_id,))
        assert pii.mark_current(vault.conn, [(section_id, text, "older", "newer")]) == []
        vault.conn.execute("UPDATE sections SET text = ? WHERE id = ?", (text, section_id))
        assert pii.mark_current(vault.conn, [(section_id, text, "older", "newer")]) == [section_id]


def test_the_real_detector_rereads_after_scoped_revisions_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(detector_module, "DETECTOR_REVISION", "39")
    monkeypatch.setattr(
        detector_module,
        "REVISION_SCOPES",
        {38: lambda text: "_" in text, 39: lambda text: "|" in text},
    )
    config = DetectorConfig(ner=False)
    detector = Detector(config)
    assert detector.version == config.version_at("39")
    for scanned in ("37", "38"):
        assert not detector.rereads("plain words", config.version_at(scanned))
        assert detector.rereads("a | b", config.version_at(scanned))
    assert detector.rereads("a_b", config.version_at("37"))
    assert not detector.rereads("a_b", config.version_at("38"))  # 38's change was made
    assert detector.rereads("plain words", config.version_at("36"))  # 37 changed anything
    assert detector.rereads("plain words", None)  # never scanned
    other = DetectorConfig(ner=False, known_entities=(("Quade", "PERSON"),))
    assert detector.rereads("plain words", other.version_at("38"))  # another configuration


def test_texts_read_in_pieces_are_read_again_after_revision_40(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The detector as revision 40 left it: a later revision that may change any text
    # (43) has every text read again, which says nothing of 40's scope.
    monkeypatch.setattr(detector_module, "DETECTOR_REVISION", "40")
    config = DetectorConfig(ner=False)
    detector = Detector(config)
    scanned = config.version_at("39")
    assert not detector.rereads("plain words", scanned)
    assert not detector.rereads("word " * (PIECE_CHARS // 5), scanned)  # one piece
    assert detector.rereads("word " * (PIECE_CHARS // 5) + "more", scanned)


def test_texts_with_a_lower_case_form_are_read_again_after_revision_41(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(detector_module, "DETECTOR_REVISION", "41")
    config = DetectorConfig(ner=False)
    detector = Detector(config)
    scanned = config.version_at("40")
    assert not detector.rereads("Lunch with Maria Lopez about the budget", scanned)
    assert not detector.rereads("lunch with maria about the budget", scanned)
    assert not detector.rereads("The cat and the dog. Rose picked a rose.", scanned)  # words
    assert detector.rereads("lopez\n\nLunch with Maria Lopez", scanned)
    assert detector.rereads("LOPEZ/2022 and lopez", scanned)
    assert detector.rereads("lopez_invoice\n\nLunch with Maria Lopez", scanned)  # read apart


def test_revision_43_reads_every_text_again() -> None:
    # Lower-case list mates changed: which texts hold one cannot be told without reading.
    config = DetectorConfig(ner=False)
    detector = Detector(config)
    assert detector_module.DETECTOR_REVISION == "43"
    for scanned in ("40", "41", "42"):
        assert detector.rereads("plain words", config.version_at(scanned))
