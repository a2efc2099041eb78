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
