"""The second NER pass runs only where it can add a name, and never misses what it alone finds."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from helpers import untrained_tagger

from privault.privacy import Detector, DetectorConfig, PolicySet
from privault.privacy import detector as detector_module
from privault.privacy import engine as engine_module
from privault.privacy.detector import second_ner_folder
from privault.privacy.names import load_name_lists
from privault.privacy.second_pass import COVERED_SCORE, second_pass_can_add
from privault.spans import Span

STANDARD = PolicySet.load().resolve("standard")


def _span(text: str, value: str, kind: str = "PERSON", score: float = 0.85) -> Span:
    start = text.index(value)
    return Span(start, start + len(value), kind, score, "ner")


NAME = "The parcel went to Arild Nguyen yesterday."


@pytest.mark.parametrize(
    ("text", "spans", "expected"),
    [
        # a capitalised name nothing found: the second pass may find it
        (NAME, [], True),
        # found already: nothing left for it
        (NAME, [_span(NAME, "Arild Nguyen")], False),
        (NAME, [_span(NAME, "Arild Nguyen", "LOCATION")], False),
        # found only weakly, or as an organisation: it may still say "person" surely
        (NAME, [_span(NAME, "Arild Nguyen", score=COVERED_SCORE - 0.05)], True),
        (NAME, [_span(NAME, "Arild Nguyen", "ORGANIZATION")], True),
        # half found: the other half is a candidate
        (NAME, [_span(NAME, "Arild")], True),
        # capitalised ordinary words, acronyms, honorifics, days and months: no candidate
        ("Meeting moved to Friday. Bring the report and the VPN keys in March.", [], False),
        ("Dear Sir, Thanks for the Invoice.", [], False),
        # casual lower case: capitals cannot tell names, so it always runs
        ("ok talked to luiz mendes, she says the meeting is moved to Thursday", [], True),
        ("Notes\nmet luiz at noon", [], True),
        ("Call me. then we go", [], True),
        # nothing with letters
        ("", [], False),
        ("1234 5678 / 99", [], False),
    ],
)
def test_when_the_second_pass_can_add(text: str, spans: list[Span], expected: bool) -> None:
    assert second_pass_can_add(text, spans, load_name_lists()) is expected


class _FakeEngine:
    """The engine's interface with canned spans: records what the second pass was given."""

    has_second = True
    model_name = "fake"

    def __init__(self, second: dict[str, list[Span]]) -> None:
        self.second = second
        self.seen: list[str] = []

    def analyze_many(self, texts: Sequence[str], *, ner: bool) -> list[list[Span]]:
        return [[] for _ in texts]

    def second_entities(self, texts: Sequence[str]) -> list[list[Span]]:
        self.seen.extend(texts)
        return [self.second.get(text, []) for text in texts]


def test_the_detector_sends_only_candidates_and_keeps_what_comes_back(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    covered = "Bring the report on Friday."
    fake = _FakeEngine({NAME: [_span(NAME, "Arild Nguyen")]})
    monkeypatch.setattr(engine_module, "load_engine", lambda second_ner=None: fake)
    # Without the name tagger, which would find the name itself and leave no candidate.
    monkeypatch.setattr(detector_module, "load_tagger", untrained_tagger)
    detector = Detector(DetectorConfig.build([STANDARD], second_ner=tmp_path))
    found = detector.detect_many([NAME, covered, NAME])
    assert fake.seen == [NAME]  # the repeat is scanned once, the covered text not at all
    masked = {NAME[s.start : s.end] for s in found[0] if STANDARD.counts(s)}
    assert "Arild Nguyen" in masked
    assert found[2] == found[0] and found[1] == []


def test_without_ner_there_is_no_second_pass(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake = _FakeEngine({})
    monkeypatch.setattr(engine_module, "load_engine", lambda second_ner=None: fake)
    config = DetectorConfig(ner=False, second_ner=tmp_path)
    Detector(config).detect_many([NAME])
    assert fake.seen == []


# Sentences of kinds the small pipeline misses names in and the medium one finds them:
# a name signing off, a name of Turkish letters opening a line, a casual lower-case line.
SECOND_ONLY = [
    ("Can you send the badge form to Ian? Thanks, Victor", "Victor"),
    ("Özger F. İnönü works for Pinecrest School.", "Özger F. İnönü"),
    ("ok talked to luiz felipe mendes, she says the meeting is moved to Thursday", "mendes"),
]


@pytest.mark.real
@pytest.mark.parametrize(("text", "name"), SECOND_ONLY)
def test_gating_keeps_every_name_the_second_pass_alone_finds(
    text: str, name: str, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = second_ner_folder(models_dir)
    assert folder is not None, "run `privault models install en-core-web-md-ner`"
    first_only = Detector(DetectorConfig.build([STANDARD]))
    both = Detector(DetectorConfig.build([STANDARD], second_ner=folder))

    def masked(detector: Detector) -> str:
        spans = [s for s in detector.detect(text) if STANDARD.counts(s)]
        return "".join(text[i] for s in spans for i in range(s.start, s.end))

    # The spaCy recognisers alone (no name tagger, which finds most of these names too).
    with monkeypatch.context() as patch:
        patch.setattr(detector_module, "load_tagger", untrained_tagger)
        assert name not in masked(first_only)
        assert second_pass_can_add(text, first_only.detect(text), load_name_lists())
        assert name in masked(both)
    assert name in masked(Detector(DetectorConfig.build([STANDARD], second_ner=folder)))


@pytest.mark.real
@pytest.mark.parametrize(
    "text",
    [
        "Meeting moved to Friday. Bring the report and the VPN keys in March.",
        "Thanks for the Invoice, the Boiler works again.",
    ],
)
def test_what_the_gate_skips_the_second_pass_adds_nothing_to(text: str, models_dir: Path) -> None:
    folder = second_ner_folder(models_dir)
    assert folder is not None, "run `privault models install en-core-web-md-ner`"
    first = Detector(DetectorConfig.build([STANDARD])).detect(text)
    assert not second_pass_can_add(text, first, load_name_lists())
    extra = engine_module.load_engine(folder).second_entities([text])[0]
    assert not [s for s in extra if s.kind in ("PERSON", "LOCATION")]
