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
