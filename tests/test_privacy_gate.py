"""The gate: placeholders, refusal stubs, allow/deny lists, query scrubbing, overrides."""

from __future__ import annotations

import pytest

from privault.privacy import FakeDetector, Gate, Override, Policy, PolicySet, Span
from privault.privacy.detector import DetectorConfig
from privault.privacy.masking import IndexMasker
from privault.privacy.overrides import apply_overrides

POLICIES = PolicySet.load()
STANDARD = POLICIES.resolve("standard")
STRICT = POLICIES.resolve("strict")
OPEN = POLICIES.resolve("open")
DETECTOR = FakeDetector(DetectorConfig.build(known_entities=["Ada Lovelace"], ner=False))


def test_redact_uses_stable_typed_placeholders_within_one_response() -> None:
    gate = Gate(STANDARD)
    first = "Ada Lovelace wrote to ada@example.org."
    second = "Later, ada  LOVELACE replied; mail ada@example.org or bob@example.org."
    one = gate.apply(first, DETECTOR.detect(first))
    two = gate.apply(second, DETECTOR.detect(second))
    assert one.text == "<PERSON_1> wrote to <EMAIL_ADDRESS_1>."
    assert two.text == "Later, <PERSON_1> replied; mail <EMAIL_ADDRESS_1> or <EMAIL_ADDRESS_2>."
    assert one.held_back == {"PERSON": 1, "EMAIL_ADDRESS": 1}
    summary = gate.held_back()
    assert summary.policy == "standard"
    assert summary.kinds == {"EMAIL_ADDRESS": 3, "PERSON": 2}


def test_a_name_written_with_dashes_in_a_tag_keeps_its_number() -> None:
    gate = Gate(STANDARD)
    statement, tag = "Maria Gonzalez is my therapist", "agent:Maria-Gonzalez"
    said = gate.apply(statement, [Span(0, 14, "PERSON", 0.9, "ner")]).text
    assert said == "<PERSON_1> is my therapist"
    assert gate.apply(tag, [Span(6, 20, "PERSON", 0.9, "ner")]).text == "agent:<PERSON_1>"


def test_a_new_gate_numbers_afresh() -> None:
    text = "mail bob@example.org"
    Gate(STANDARD).apply("x@example.org", DETECTOR.detect("x@example.org"))
    assert Gate(STANDARD).apply(text, DETECTOR.detect(text)).text == "mail <EMAIL_ADDRESS_1>"


def test_undo_gives_back_the_numbers_and_counts_taken_since_a_mark() -> None:
    """Text gated to be measured and then left out gives its numbers back: the next value
    shown takes the next number after those still shown, never one past a gap."""
    gate = Gate(STANDARD)
    kept = gate.apply("mail ann@example.org", [Span(5, 20, "EMAIL_ADDRESS", 1.0, "pattern")])
    mark = gate.mark()
    left_out = "cc bob@example.org, ann@example.org"
    spans = [Span(3, 18, "EMAIL_ADDRESS", 1.0, "pattern"), Span(20, 35, "EMAIL_ADDRESS", 1.0, "x")]
    assert gate.apply(left_out, spans).text == "cc <EMAIL_ADDRESS_2>, <EMAIL_ADDRESS_1>"
    gate.undo(mark)
    shown = gate.apply("to cy@example.org", [Span(3, 17, "EMAIL_ADDRESS", 1.0, "pattern")])
    assert kept.text == "mail <EMAIL_ADDRESS_1>" and shown.text == "to <EMAIL_ADDRESS_2>"
    assert gate.apply("ann@example.org", [Span(0, 15, "EMAIL_ADDRESS", 1.0, "x")]).text == (
        "<EMAIL_ADDRESS_1>"
    )
    assert gate.held_back().kinds == {"EMAIL_ADDRESS": 3}


def test_a_window_numbers_a_value_its_edge_cuts_as_the_whole_value() -> None:
    """A window is masked as its whole text is, and a value cut by its edge is numbered as
    that value: joined with a window showing it whole, it keeps its number."""
    text = "Met Ada Lovelace and Bob Smith at noon."
    masks = [Span(4, 16, "PERSON", 0.9, "ner"), Span(21, 30, "PERSON", 0.9, "ner")]
    gate = Gate(STANDARD)
    assert gate.apply(text, masks, window=(0, 8)).text == "Met <PERSON_1>"
    assert gate.apply(text, masks, window=(10, 24)).text == "<PERSON_1> and <PERSON_2>"
    assert gate.apply(text, masks, window=(0, len(text))).text == (
        "Met <PERSON_1> and <PERSON_2> at noon."
    )
    assert gate.apply(text, masks, window=(31, 39)).text == "at noon."
    assert gate.held_back().kinds == {"PERSON": 5}


def test_a_value_clipped_off_is_neither_numbered_nor_counted() -> None:
    text = "Notes for ann@example.org and the filing, cc cy@example.org"
    spans = [Span(10, 25, "EMAIL_ADDRESS", 1.0, "x"), Span(45, 59, "EMAIL_ADDRESS", 1.0, "x")]
    gate = Gate(STANDARD)
    clipped = gate.clipped(text, spans, 48)
    assert clipped.text == "Notes for <EMAIL_ADDRESS_1> and the filing, cc…"
    assert clipped.held_back == {"EMAIL_ADDRESS": 1}
    assert gate.apply("to bo@example.org", [Span(3, 17, "EMAIL_ADDRESS", 1.0, "x")]).text == (
        "to <EMAIL_ADDRESS_2>"
    )
    assert gate.held_back().kinds == {"EMAIL_ADDRESS": 2}
    # Cut inside the second placeholder: it goes whole; kept whole when the cut is past it.
    assert gate.clipped(text, spans, 60).text == "Notes for <EMAIL_ADDRESS_1> and the filing, cc…"
    assert gate.clipped(text, spans, 80).text == (
        "Notes for <EMAIL_ADDRESS_1> and the filing, cc <EMAIL_ADDRESS_3>"
    )


def test_the_length_of_a_text_a_clipped_reader_sees() -> None:
    text = "Notes for ann@example.org and the filing, cc cy@example.org"
    spans = [Span(10, 25, "EMAIL_ADDRESS", 1.0, "x"), Span(45, 59, "EMAIL_ADDRESS", 1.0, "x")]
    gate = Gate(STANDARD)
    # "Notes for <EMAIL_ADDRESS_1> and the filing, cc…": the text up to "cc", not the
    # second address, whose placeholder the cut at 60 would split.
    read = "Notes for ann@example.org and the filing, cc"
    assert text[: gate.shown_length(text, spans, 48)] == read
    assert text[: gate.shown_length(text, spans, 60)] == read
    assert gate.shown_length(text, spans, 80) == len(text)  # not cut
    assert text[: gate.shown_length(text, spans, 15)] == "Notes for"  # before the first
    # Nothing was numbered or counted: the next value shown is the first.
    assert gate.apply("to bo@example.org", [Span(3, 17, "EMAIL_ADDRESS", 1.0, "x")]).text == (
        "to <EMAIL_ADDRESS_1>"
    )
    assert gate.held_back().kinds == {"EMAIL_ADDRESS": 1}
    assert Gate(STRICT).shown_length(text, spans, 20) == len(text)  # withheld whole
    # Under `off` nothing is masked, even of the kinds the policy names: read as written.
    off = Policy(name="plain", mode="off", identifying=("EMAIL_ADDRESS",))
    assert text[: Gate(off).shown_length(text, spans, 48)] == text[:47].rstrip()


def test_refuse_returns_a_stub_naming_the_kinds() -> None:
    text = "Call Ada Lovelace on +44 20 7946 0958."
    gated = Gate(STRICT).apply(text, DETECTOR.detect(text))
    assert gated.withheld
    assert "Lovelace" not in gated.text and "7946" not in gated.text
    assert "PERSON" in gated.text and "PHONE_NUMBER" in gated.text


def test_refuse_passes_text_without_pii() -> None:
    gated = Gate(STRICT).apply("Buy milk.", [])
    assert gated.text == "Buy milk." and not gated.withheld


def test_off_returns_text_as_stored() -> None:
    text = "Ada Lovelace, ada@example.org"
    assert Gate(OPEN).apply(text, DETECTOR.detect(text)).text == text


def test_overlapping_spans_merge() -> None:
    text = "Jane Q Doe is here"
    spans = [Span(0, 6, "PERSON", 0.9, "ner"), Span(5, 10, "PERSON", 0.8, "ner")]
    assert Gate(STANDARD).apply(text, spans).text == "<PERSON_1> is here"


def test_spans_below_threshold_or_of_other_kinds_are_kept() -> None:
    text = "On Monday Jane came"
    spans = [Span(3, 9, "DATE_TIME", 0.9, "ner"), Span(10, 14, "PERSON", 0.1, "ner")]
    assert Gate(STANDARD).apply(text, spans).text == text


def test_allow_and_deny_lists() -> None:
    policy = Policy(
        name="custom",
        mode="redact",
        identifying=("PERSON",),
        allow=("Santa Claus",),
        deny=({"value": "Project Falcon", "kind": "ORGANIZATION"},),  # type: ignore[arg-type]
    )
    text = "Santa Claus met Ada about project falcon"
    spans = [Span(0, 11, "PERSON", 0.9, "ner"), Span(16, 19, "PERSON", 0.9, "ner")]
    assert (
        Gate(policy).apply(text, spans).text == "Santa Claus met <PERSON_1> about <ORGANIZATION_1>"
    )


def test_a_denied_value_is_masked_however_its_words_are_joined() -> None:
    """A tag or a file name joins a value's words with hyphens or underscores; a deny-list
    value is masked in every such spelling, with its own kind."""
    policy = Policy(
        name="custom",
        mode="redact",
        deny=(  # type: ignore[arg-type]
            {"value": "Project Falcon", "kind": "ORGANIZATION"},
            {"value": "Jean-Luc", "kind": "PERSON"},
            {"value": "O'Brien", "kind": "PERSON"},
        ),
    )
    text = (
        "project-falcon, Project_Falcon.pdf, project\u2011falcon and PROJECT  FALCON; jean luc;"
        " O\u2019Brien; projectfalcon"
    )
    assert Gate(policy).apply(text, []).text == (
        "<ORGANIZATION_1>, <ORGANIZATION_2>.pdf, <ORGANIZATION_3> and <ORGANIZATION_1>;"
        " <PERSON_1>; <PERSON_2>; projectfalcon"
    )


def test_deny_list_values_that_share_a_word_are_each_masked() -> None:
    """ "Blue Falcon" found first must not take up the "Falcon" of "Falcon Nest": a window
    opening at "Falcon" masks all of "Falcon Nest" as the whole text does."""
    policy = Policy(
        name="custom",
        mode="redact",
        deny=(  # type: ignore[arg-type]
            {"value": "Blue Falcon", "kind": "PERSON"},
            {"value": "Falcon Nest", "kind": "LOCATION"},
        ),
    )
    text = "ask for Blue\nFalcon Nest is the boat"
    found = [(text[span.start : span.end], span.kind) for span in Gate(policy).denied(text)]
    assert found == [("Blue\nFalcon", "PERSON"), ("Falcon Nest", "LOCATION")]
    assert Gate(policy).apply(text, []).text == "ask for <PERSON_1> is the boat"


def test_ner_false_ignores_ner_spans() -> None:
    policy = STANDARD.model_copy(update={"ner": False})
    text = "Jane came"
    assert Gate(policy).apply(text, [Span(0, 4, "PERSON", 0.9, "ner")]).text == text


def test_overrides_mark_and_unmark() -> None:
    text = "Bob Marley met Jane at the Blue Cafe"
    spans = [Span(0, 10, "PERSON", 0.9, "ner"), Span(15, 19, "PERSON", 0.9, "ner")]
    overrides = [
        Override(1, "doc1", None, "PERSON", "bob marley", "unmark"),
        Override(2, "doc1", None, "LOCATION", "Blue Cafe", "mark"),
        Override(3, "doc2", None, "PERSON", "Jane", "unmark"),  # another document
        Override(4, "doc1", "node9", "PERSON", "Jane", "unmark"),  # another node
    ]
    result = apply_overrides(text, spans, overrides, doc_id="doc1", node_id="node1")
    assert (
        Gate(STANDARD).apply(text, result).text == "Bob Marley met <PERSON_1> at the <LOCATION_1>"
    )


JONAS = Policy(
    name="custom", mode="redact", identifying=("PERSON", "ADDRESS"), allow=("Jonas Becker",)
)


def _person(text: str, value: str, source: str = "propagated", start: int = 0) -> Span:
    at = text.index(value, start)
    return Span(at, at + len(value), "PERSON", 0.8, source)


def _spread(text: str, value: str, start: int = 0) -> list[Span]:
    """A name found whole, and each of its words found again by name spreading."""
    at = text.index(value, start)
    spans = [Span(at, at + len(value), "PERSON", 0.85, "ner")]
    for word in value.split():
        spans.append(_person(text, word, start=at))
    return spans


@pytest.mark.parametrize(
    ("text", "spans", "expected"),
    [
        # The whole allowed value, and the parts of it name spreading found, all shown.
        (
            "Jonas Becker and plain BADGE456 here.",
            _spread("Jonas Becker and plain BADGE456 here.", "Jonas Becker"),
            "Jonas Becker and plain BADGE456 here.",
        ),
        # Any case and spacing of the allowed value, a line break between its words.
        (
            "met JONAS\n  becker today",
            _spread("met JONAS\n  becker today", "JONAS\n  becker"),
            "met JONAS\n  becker today",
        ),
        # A part of the allowed value standing alone is not an occurrence of it.
        (
            "Jonas Becker called; Becker's wife too.",
            [
                *_spread("Jonas Becker called; Becker's wife too.", "Jonas Becker"),
                _person("Jonas Becker called; Becker's wife too.", "Becker", start=13),
            ],
            "Jonas Becker called; <PERSON_1>'s wife too.",
        ),
        # A span reaching past the allowed value is another, longer value: masked whole.
        (
            "Jonas Becker Smith came",
            _spread("Jonas Becker Smith came", "Jonas Becker Smith"),
            "<PERSON_1> came",
        ),
        (
            "at 12 Jonas Becker Street",
            [
                Span(3, 25, "ADDRESS", 0.75, "address"),
                *_spread("at 12 Jonas Becker Street", "Jonas Becker"),
            ],
            "at <ADDRESS_1>",
        ),
        # Only whole words: the allowed value inside a longer word is not an occurrence.
        (
            "XJonas Becker came",
            [Span(0, 6, "PERSON", 0.8, "ner"), _person("XJonas Becker came", "Becker")],
            "<PERSON_1> <PERSON_2> came",
        ),
    ],
    ids=["parts", "case-spacing", "part-alone", "longer-name", "address", "inside-a-word"],
)
def test_an_allowed_value_is_never_masked_whole_or_in_part(
    text: str, spans: list[Span], expected: str
) -> None:
    assert Gate(JONAS).apply(text, spans).text == expected
    refused = Gate(JONAS.model_copy(update={"mode": "refuse"})).apply(text, spans)
    assert refused.withheld == (expected != text)


def test_the_masked_index_lets_the_same_allowed_values_through() -> None:
    text = "Jonas Becker met Jonas Becker Smith"
    spans = [*_spread(text, "Jonas Becker"), *_spread(text, "Jonas Becker Smith", start=13)]
    masker = IndexMasker(PolicySet({"open": OPEN, "custom": JONAS}))
    assert masker.mask(text, spans) == "Jonas Becker met <PERSON>"
    # Under a second gated policy that does not allow it, the index masks it for both.
    both = IndexMasker(PolicySet({"custom": JONAS, "standard": STANDARD}))
    assert both.mask(text, spans) == "<PERSON> met <PERSON>"
