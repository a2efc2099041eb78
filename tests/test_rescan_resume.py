"""A re-scan pass resumes after its last batch and looks back once at the end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from privault import Caller
from privault.store import pii
from tests.helpers import fake_vault

OWNER = Caller.owner()


def test_a_rescan_pass_resumes_and_finds_what_went_stale_behind_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with fake_vault(tmp_path / "v.db") as vault:
        added = vault.note_many(
            [{"text": f"Note {i}: ring Ottoline Quade about the boiler."} for i in range(12)],
            caller=OWNER,
        )
        conn, privacy = vault.conn, vault.privacy
        assert pii.mark_for_rescan(conn) == 12
        seen: list[int] = []
        real = pii.sections_to_scan

        def spy(*args: Any, **kwargs: Any) -> list[tuple[int, str, str]]:
            seen.append(kwargs.get("after", 0))  # section ids here are 1..12
            return real(*args, **kwargs)

        monkeypatch.setattr(pii, "sections_to_scan", spy)
        assert privacy.rescan(5) == 5
        assert privacy.rescan(5) == 5
        # The first note goes stale again behind the pass (as after a rewrite or a mark).
        assert pii.mark_for_rescan(conn, added[0].doc_id) == 1
        assert privacy.rescan(5) == 2  # the last two ahead of the pass
        assert privacy.rescan(5) == 1  # nothing ahead: one look from the start
        assert privacy.rescan(5) == 0
        assert vault.status().privacy.sections_to_rescan == 0
    # Batch by batch: from the start, after the 5th section, after the 10th; then past
    # the 12th nothing, so once more from the start (which finds the first note's).
    assert seen == [0, 5, 10, 12, 0, 1, 0]


def test_a_label_rescan_resumes_in_key_order_and_looks_back_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from privault.store import label_spans

    with fake_vault(tmp_path / "v.db") as vault:
        vault.note_many(
            [{"text": f"Note {i}: ring Ottoline Quade.", "title": f"T{i}"} for i in range(4)],
            caller=OWNER,
        )
        conn, privacy = vault.conn, vault.privacy
        labels = conn.execute("SELECT count(*) FROM label_spans").fetchone()[0]
        assert labels >= 4
        conn.execute("UPDATE label_spans SET detector_version = 'an older detector'")
        seen: list[tuple[str, str]] = []
        real = label_spans.stale

        def spy(*args: Any, **kwargs: Any) -> list[tuple[str, str, str, str, str]]:
            seen.append(kwargs.get("after", ("", "")))
            return real(*args, **kwargs)

        monkeypatch.setattr(label_spans, "stale", spy)
        done = 0
        while read := privacy.rescan(3):
            done += read
        assert done == labels
        keys = conn.execute("SELECT doc_id, label FROM label_spans ORDER BY doc_id, label")
        ordered = [tuple(key) for key in keys]
        # From the start, then after every third label, then once more from the start.
        expected = [("", ""), *ordered[2::3]]
        assert seen[: len(expected)] == expected
        assert seen[-1] == ("", "")
        left = conn.execute(
            "SELECT count(*) FROM label_spans WHERE detector_version = 'an older detector'"
        ).fetchone()[0]
        assert left == 0


def test_a_rescan_rewrites_only_the_index_entries_whose_masking_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from privault.privacy.detector import FakeDetector
    from privault.spans import Span

    with fake_vault(tmp_path / "v.db") as vault:
        vault.note_many(
            [
                {"text": "Ring Mr Hale about the boiler on Friday."},
                {"text": "Ring Mr Hale about the gutter on Monday."},
            ],
            caller=OWNER,
        )
        conn, privacy = vault.conn, vault.privacy

        def index() -> dict[int, tuple[int, str]]:
            rows = conn.execute(
                "SELECT c.section_id, c.id, g.text FROM chunks c "
                "JOIN gated_fts g ON g.rowid = c.id ORDER BY c.section_id"
            )
            return {section: (chunk, text) for section, chunk, text in rows}

        before = index()
        assert all("<PERSON>" in text for _, text in before.values())
        # the same spans again (as after a detector change that finds the same words)
        assert pii.mark_for_rescan(conn) == 2
        privacy.rescan(10, vault.embedder)
        assert index() == before  # no entry rewritten: same chunk ids, same texts

        # a detector that now finds "boiler" too: only that section's entries change
        real = FakeDetector.detect

        def more(self: FakeDetector, text: str) -> list[Span]:
            found = real(self, text)
            at = text.find("boiler")
            return found + ([Span(at, at + 6, "PERSON", 0.9, "pattern")] if at >= 0 else [])

        monkeypatch.setattr(FakeDetector, "detect", more)
        assert pii.mark_for_rescan(conn) == 2
        privacy.rescan(10, vault.embedder)
        after = index()
    changed = {section for section in before if after[section] != before[section]}
    assert len(changed) == 1
    (section,) = changed
    assert "boiler" not in after[section][1] and after[section][0] != before[section][0]


def test_a_rescan_masks_a_relabelled_documents_entries_in_the_same_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from privault.privacy.detector import FakeDetector
    from privault.spans import Span

    with fake_vault(tmp_path / "v.db") as vault:
        vault.note_many(
            [{"text": "Ring Mr Hale about the boiler.", "title": "Boiler at Larkfield"}],
            caller=OWNER,
        )
        conn = vault.conn
        real = FakeDetector.detect

        def more(self: FakeDetector, text: str) -> list[Span]:
            at = text.find("Larkfield")
            found = real(self, text)
            return found + [Span(at, at + 9, "LOCATION", 0.9, "pattern")] if at >= 0 else found

        monkeypatch.setattr(FakeDetector, "detect", more)
        assert pii.mark_for_rescan(conn) == 1
        conn.execute("UPDATE label_spans SET detector_version = 'an older detector'")
        vault.privacy.rescan(10, vault.embedder)
        (text,) = conn.execute("SELECT text FROM gated_fts").fetchone()
    assert "Larkfield" not in text and "<PERSON>" in text


def test_a_rescan_that_masks_the_same_words_keeps_the_strong_models_coverage(
    tmp_path: Path,
) -> None:
    from privault.models.fakes import FakeStrongEmbedder

    with fake_vault(tmp_path / "v.db", strong_embedder=FakeStrongEmbedder()) as vault:
        vault.note_many(
            [{"text": f"Ring Mr Hale about boiler {i}."} for i in range(3)], caller=OWNER
        )
        vault.strong.index(caller=OWNER)
        done = vault.strong.coverage()
        assert done.covered == done.windows > 0
        assert pii.mark_for_rescan(vault.conn) == 3
        vault.privacy.rescan(10, vault.embedder)
        assert vault.strong.coverage() == done  # nothing to embed or link again
