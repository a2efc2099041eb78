"""The durability benchmark, small: writers SIGKILLed at random moments lose nothing."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from benchmarks import durability

pytestmark = pytest.mark.real


def test_killed_writers_lose_no_acknowledged_write(tmp_path: Path, models_dir: Path) -> None:
    args = argparse.Namespace(
        kills=2,
        writes=100,
        max_minutes=12,
        asks=1,
        imports=1,
        data=tmp_path / "run",
        models=models_dir,
        seed=3,
    )
    result = durability.run(args)
    kills = result["kills"]
    assert all(kills[name] >= 2 for name in durability.WRITERS), kills
    assert kills["serve_in_ask"] == 1 and kills["serve_in_import"] == 1
    for stage in ("after_kills", "after_index"):
        got = result[stage]
        assert got["acknowledged_writes"] >= 100, got
        assert got["lost_writes"] == 0 and got["lost_reminders"] == 0, got
        assert got["integrity_check"] == "ok"
        assert not any(got["half_written"].values()), got["half_written"]
    assert result["after_index"]["queued_sections"] == 0
    assert durability.ok(result)
