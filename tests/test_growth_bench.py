"""`benchmarks.perf --compare` times search with the keyword leg split and not, in turn,
and leaves the shipped threshold as it found it."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import growth
from privault import Caller
from privault.models import cores
from privault.retrieval import fts
from tests.helpers import fake_vault


def test_search_is_timed_split_and_in_one_range_in_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    owner = Caller.owner()
    monkeypatch.setattr(fts, "SPLIT_MIN_CHUNKS", 10)
    monkeypatch.setattr(cores, "spare_core", lambda: True)
    ranges: list[object] = []
    ranked = fts.ranked

    def spy(*args: object, **kwargs: object) -> list[tuple[int, float]]:
        ranges.append(args[4] if len(args) > 4 else None)
        return ranked(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(fts, "ranked", spy)
    with fake_vault(tmp_path / "a.db") as small, fake_vault(tmp_path / "b.db") as large:
        large.note_many([{"text": f"Boiler service {i}"} for i in range(40)], caller=owner)
        small.note_many([{"text": f"Boiler service {i}"} for i in range(3)], caller=owner)
        for vault in (small, large):
            vault.search("warm up", caller=owner)
        ranges.clear()
        out = growth._keyword_ranges([small, large], owner, ["boiler", "service 7"])
    assert set(out) == {
        "search_ms_split",
        "search_ms_one_range",
        "share_of_searches_with_a_spare_core",
    }
    assert all(len(out[name]) == 2 for name in ("search_ms_split", "search_ms_one_range"))
    assert out["share_of_searches_with_a_spare_core"] == [{"share": 1.0}]
    assert fts.SPLIT_MIN_CHUNKS == 10  # as it was before the run
    assert any(part is not None for part in ranges)  # the large vault's split searches
    assert ranges.count(None) >= 2 * 2  # one range: the small vault, and every one-range lap
