"""The PII benchmark run small: recall from a tiny labelled set, and the write-time cost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import pii as bench

SENTENCES = [
    ("Anna Schmidt lives at 24 Clarke Avenue.", [("PERSON", "Anna Schmidt")]),
    ("Write to anna.schmidt@example.com today.", [("EMAIL_ADDRESS", "anna.schmidt@example.com")]),
    ("Nothing personal in this one.", []),
]


def _dataset(path: Path) -> Path:
    items = []
    for text, values in SENTENCES:
        spans = []
        for kind, value in values:
            start = text.index(value)
            spans.append(
                {
                    "entity_type": kind,
                    "entity_value": value,
                    "start_position": start,
                    "end_position": start + len(value),
                }
            )
        items.append({"full_text": text, "spans": spans})
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


@pytest.mark.real
def test_the_report_has_recall_and_the_write_time_cost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _dataset(tmp_path / "set.json")
    assert bench.main(["--data", str(data), "--json", "--batch", "2", "--repeat", "2"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["sentences"] == 3 and report["gold_values"] == 2
    assert report["leak_recall"] == 1.0
    assert report["clean_texts"] == 1 and report["clean_over_masking"] == 0.0
    cost = report["write_cost"]
    assert cost["batch"] == 2 and len(cost["cpu_ms_runs"]) == 2
    assert cost["cpu_ms_per_sentence"] > 0 and cost["wall_ms_per_sentence"] > 0
    assert len(cost["load_average"]) == 2
    assert set(report["engine_load"]) == {"wall_s", "cpu_s"}


def test_a_value_survives_where_its_text_is_read_not_inside_a_placeholder() -> None:
    assert not bench.survives("ON", "My sister <PERSON_1> bought a house at <ADDRESS_1>.")
    assert bench.survives("on", "Ottawa, ON K1P 5J2")
    assert bench.survives("Anna  Schmidt", "call anna schmidt")  # any case and spacing
    assert not bench.survives("Anna", "call <PERSON_1>")


def test_a_bad_batch_or_file_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _dataset(tmp_path / "set.json")
    with pytest.raises(SystemExit):
        bench.main(["--data", str(data), "--batch", "0"])
    assert "--batch and --repeat must be at least 1" in capsys.readouterr().err
    assert bench.main(["--data", str(tmp_path / "missing.json")]) == 2
    assert capsys.readouterr().err.startswith("error: cannot read")


@pytest.mark.real
def test_the_profile_splits_the_write_time_cost_into_stages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchmarks import pii_profile

    data = _dataset(tmp_path / "set.json")
    assert pii_profile.main(["--data", str(data), "--batch", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    stages = report["stages_cpu_ms_per_sentence"]
    assert report["sentences"] == 3 and report["cpu_ms_per_sentence"] > 0
    assert stages["small_pipeline"] > 0 and "presidio.PhoneRecognizer" in stages
    assert sum(stages.values()) <= report["cpu_ms_per_sentence"] + 0.01
    assert 0 <= report["second_ner_share"] <= 1
