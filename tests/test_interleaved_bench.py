"""`benchmarks.interleaved`: versions of privault searched query by query in turn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import interleaved
from privault.caller import Caller
from privault.privacy.detector import FakeDetector
from privault.vault import Vault

HERE = Path(__file__).resolve().parent.parent  # this source tree


@pytest.mark.real
def test_each_version_searches_every_query_in_turn(
    tmp_path: Path, models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "kept.db"
    with Vault.open(path, models_dir=models_dir, detector_factory=FakeDetector) as vault:
        vault.note_many(
            [
                {"text": f"The dental check-up is on day {i}; the plumber comes too."}
                for i in range(30)
            ],
            caller=Caller.owner(),
        )
    argv = ["--data", str(path), "--code", f"a={HERE}", "--code", f"b={HERE}", "--rounds", "1"]
    assert interleaved.main([*argv, "--models", str(models_dir), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["search_ms"]) == {"a", "b"}
    assert result["searches_per_version"] == len(interleaved.queries())
    for figures in result["search_ms"].values():
        assert 0 < figures["p50"] <= figures["p95"] <= figures["max"]


def test_a_code_that_is_not_a_source_tree_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "v.db").write_bytes(b"")
    with pytest.raises(SystemExit) as exited:
        interleaved.main(["--data", str(tmp_path / "v.db"), "--code", f"old={tmp_path}"])
    assert exited.value.code == 2
    assert "a source tree of privault" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        interleaved.main(["--data", str(tmp_path / "none.db"), "--code", f"new={HERE}"])
    assert "no such vault" in capsys.readouterr().err
