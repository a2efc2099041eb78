"""The PII benchmark's second own set and labels set: well-formed, frozen, reproducible."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import pii_labels, pii_synth2

HERE = Path(__file__).parent.parent / "benchmarks"
SETS = {"synth2": HERE / "pii_synth2_v1.json", "labels": HERE / "pii_labels_v1.json"}


@pytest.mark.parametrize("name", sorted(SETS))
def test_every_gold_span_is_the_text_it_names(name: str) -> None:
    items = json.loads(SETS[name].read_text(encoding="utf-8"))
    assert items
    for item in items:
        for span in item["spans"]:
            value = item["full_text"][span["start_position"] : span["end_position"]]
            assert value == span["entity_value"] and value.strip() == value and value


def test_the_labels_set_has_enough_titles_with_and_without_pii() -> None:
    items = json.loads(SETS["labels"].read_text(encoding="utf-8"))
    clean = [item for item in items if not item["spans"]]
    assert len(items) >= 300 and len(clean) >= 150 and len(items) - len(clean) >= 150
    assert all(len(item["full_text"]) <= 80 for item in items)


def test_the_committed_sets_are_what_their_generators_make() -> None:
    committed = json.loads(SETS["synth2"].read_text(encoding="utf-8"))
    assert pii_synth2.generate(count=50) == committed[:50]
    assert pii_labels.generate() == json.loads(SETS["labels"].read_text(encoding="utf-8"))
