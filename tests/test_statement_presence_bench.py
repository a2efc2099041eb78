"""The statement-filter presence benchmark on a few statements: both vaults answer empty,
and the report holds the figures it promises."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks import statement_presence


def test_it_times_held_against_absent_and_both_answer_nothing(tmp_path: Path) -> None:
    args = argparse.Namespace(data=tmp_path, statements=5, rounds=2, json=True)
    report = statement_presence.run(args)
    assert report["statements"] == 5 and report["rounds"] == 2
    for kind in ("held", "absent"):
        assert report[kind]["median_ms"] > 0 and report[kind]["p90_ms"] >= 0
    assert report["ratio"] > 0
