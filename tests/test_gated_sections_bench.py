"""The gated-sections benchmark on a small vault: every call finds the section, and the
report holds the figures it promises."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks import gated_sections


def test_it_times_the_agent_and_the_owner_on_long_sections(tmp_path: Path) -> None:
    args = argparse.Namespace(
        data=tmp_path, notes=2, lines=30, rounds=2, allow="Jonas Becker", json=True
    )
    report = gated_sections.run(args)
    for key in ("agent_search", "agent_context", "owner_search", "owner_context"):
        assert report[key]["median_ms"] > 0 and report[key]["max_ms"] >= report[key]["median_ms"]
    assert report["notes"] == 2 and report["allow"] == "Jonas Becker"
