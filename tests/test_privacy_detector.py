"""The real detector (presidio + spaCy): a few fast checks, one engine per module."""

from __future__ import annotations

from pathlib import Path

import pytest

from privault.privacy import Detector, DetectorConfig, FakeDetector, Gate, PolicySet
from privault.privacy.detector import CustomPattern, second_ner_folder
from privault.spans import Span
from privault.vault.labels import label_text

pytestmark = pytest.mark.real
STANDARD = PolicySet.load().resolve("standard")


@pytest.fixture(scope="module")
def detector() -> Detector:
    built = Detector(DetectorConfig.build([STANDARD], known_entities=["Zorblax Quint"]))
    built.load()
    return built


def _kinds(spans: list[Span], text: str) -> set[tuple[str, str]]:
    return {(text[s.start : s.end], s.kind) for s in spans if STANDARD.counts(s)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Email Anna Schmidt at anna.schmidt@example.com",
            {("anna.schmidt@example.com", "EMAIL_ADDRESS")},
        ),
        ("My IBAN is GB33BUKB20201555555555", {("GB33BUKB20201555555555", "IBAN_CODE")}),
        ("Here's my SSN: 460-89-9847", {("460-89-9847", "US_SSN")}),
        (
            "I flew to Canada with zorblax quint",
            {("Canada", "LOCATION"), ("zorblax quint", "PERSON")},
        ),
        # spaCy calls both ORG; the name lists and the gazetteer put them right
        ("Tomomi Nishiyama lives in Nicosia", {("Tomomi Nishiyama", "PERSON")}),
        ("an orchestra serving Southern Tunisia", {("Tunisia", "LOCATION")}),
        ("my iban is gb42nawi04454264788619", {("gb42nawi04454264788619", "IBAN_CODE")}),
        # spaCy calls one ORG and the other a person the surname lists trim away as a word
        ("Regards, J. Mason", {("Mason", "PERSON")}),
        ("Thanks, R. Toft", {("Toft", "PERSON")}),
        ("From: Violet Church <v.church@example.org>", {("Violet Church", "PERSON")}),
        ("See you there.\nThanks!\nFaith", {("Faith", "PERSON")}),
        # a request names a person, given name an everyday word or not
        ("Remind Sunny to pay Dusty.", {("Sunny", "PERSON")}),
        ("Grandpa Frank turns 90.", {("Frank", "PERSON")}),
        # a listed town first in a title is a place there too
        ("Kyoto temple day plan", {("Kyoto", "LOCATION")}),
        ("Vancouver apartment hunt", {("Vancouver", "LOCATION")}),
        ("Lunch with Will on Thursday", {("Will", "PERSON")}),
    ],
)
def test_real_detection(detector: Detector, text: str, expected: set[tuple[str, str]]) -> None:
    assert expected <= _kinds(detector.detect(text), text)


def test_real_redaction(detector: Detector) -> None:
    text = "Anna Schmidt lives at 24 Clarke Avenue, phone +1-984-182-0190."
    out = Gate(STANDARD).apply(text, detector.detect(text)).text
    for value in ("Anna", "Schmidt", "Clarke", "984-182"):
        assert value not in out


@pytest.mark.parametrize(
    ("text", "hidden", "kept"),
    [
        ("Brno_conference_2024.pdf", ["Brno"], ["conference_2024.pdf"]),
        ("trip_to_Lisbon", ["Lisbon"], ["trip_to_"]),
        ("scan_passport_maria_gonzalez.jpg", ["maria", "gonzalez"], ["scan_passport_"]),
        ("Meeting_with_Omar_notes.md", ["Omar"], ["Meeting_with_", "_notes.md"]),
        ("fourier_transform_notes.pdf", [], ["fourier_transform_notes.pdf"]),
        ("write to john_smith@example.com today", ["john_smith@example.com"], ["write to"]),
    ],
)
def test_words_joined_by_underscores_are_read_apart(
    detector: Detector, text: str, hidden: list[str], kept: list[str]
) -> None:
    """File names and identifiers: a name among words joined by underscores is found and
    masked alone; an address keeps its underscore."""
    out = Gate(STANDARD).apply(text, detector.detect(text)).text
    assert not [value for value in hidden if value in out], out
    assert all(part in out for part in kept), out


@pytest.mark.parametrize(
    ("tag", "hidden", "kept"),
    [
        ("lopez", ["lopez"], []),
        ("maria.lopez", ["maria", "lopez"], ["."]),
        ("lopez-invoice", ["lopez"], ["-invoice"]),
        ("lopez_invoice", ["lopez"], ["_invoice"]),
        ("invoice", [], ["invoice"]),
    ],
)
@pytest.mark.parametrize(
    "body",
    ["Lunch with Maria Lopez about the budget on Friday.", "Call Maria Lopez back about it."],
)
def test_a_tag_writing_the_notes_name_small_is_masked(
    detector: Detector, tag: str, hidden: list[str], kept: list[str], body: str
) -> None:
    """A tag is scanned with its note's opening after it (`vault.labels`): the name found
    there is masked in the tag written small too, where it is no ordinary word."""
    text = label_text(tag, body)
    spans = [span for span in detector.detect(text) if span.end <= len(tag)]
    out = Gate(STANDARD).apply(tag, spans).text
    assert not [value for value in hidden if value in out], out
    assert all(part in out for part in kept), out


def test_known_values_and_own_patterns_match_underscores_as_written() -> None:
    config = DetectorConfig(
        custom_patterns=(CustomPattern("staff", "PERSON", r"EMP_\d{4}", 0.9),),
        known_entities=(("vera_k", "PERSON"),),
    )
    text = "ask vera_k about EMP_1234"
    found = {text[s.start : s.end] for s in Detector(config).detect(text) if s.score >= 0.85}
    assert {"vera_k", "EMP_1234"} <= found


def test_a_labelled_postcode_is_masked_and_its_label_kept(detector: Detector) -> None:
    text = "City: Málaga\nPostcode: 47801"
    out = Gate(STANDARD).apply(text, detector.detect(text)).text
    assert "47801" not in out and "Postcode:" in out


def test_a_postcode_alone_in_a_chat_reply_is_masked(detector: Detector) -> None:
    text = "Thanks, and the billing postcode?\nMe: EH12 9DN"
    out = Gate(STANDARD).apply(text, detector.detect(text)).text
    assert "EH12" not in out and "9DN" not in out and out.startswith("Thanks, and the billing")


def test_packaged_lists_load() -> None:
    from privault.privacy.names import load_name_lists
    from privault.privacy.places import load_gazetteer

    lists = load_name_lists()
    assert lists.is_first("Miklós") and not lists.is_first("The") and lists.is_word("Meet")
    assert "cyprus" in load_gazetteer().countries


def test_version_tracks_configuration() -> None:
    plain = Detector(DetectorConfig.build([STANDARD]))
    known = Detector(DetectorConfig.build([STANDARD], known_entities=["Olive"]))
    assert plain.version != known.version
    assert plain.version == Detector(DetectorConfig.build([STANDARD])).version
    assert FakeDetector().version.startswith("fake-")


def test_version_changes_when_the_name_tagger_is_retrained(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spans stored by an earlier tagger are scanned again after a retraining."""
    before = Detector(DetectorConfig.build([STANDARD])).version
    monkeypatch.setattr("privault.privacy.detector.WEIGHTS_SHA256", "0" * 64)
    assert Detector(DetectorConfig.build([STANDARD])).version != before


def test_detect_many_equals_detect_one_by_one(detector: Detector) -> None:
    texts = [
        "Email Anna Schmidt at anna.schmidt@example.com",
        "",
        "Tomomi Nishiyama lives in Nicosia and flew to Canada on 3 March.",
        "Plumber\n\nCall Jaroslava P. Sedláčková on +44 20 7946 0958 about the boiler.",
        "Email Anna Schmidt at anna.schmidt@example.com",  # a repeat is parsed once
        "nothing personal here, just a shopping list: eggs, milk, bread",
    ]
    batched = detector.detect_many(texts)
    # a fresh detector, so no answer comes from the batch's cache
    alone = Detector(detector.config)
    assert batched == [alone.detect(text) for text in texts]


@pytest.mark.parametrize(
    ("with_context", "without", "kind"),
    [
        ("Driver licenses: D1234567", "Room code: D1234567", "US_DRIVER_LICENSE"),
        ("Phone numbers: 212 555 0199", "Totals: 212 555 0199", "PHONE_NUMBER"),
    ],
)
def test_context_words_still_count_without_a_lemmatizer(
    with_context: str, without: str, kind: str
) -> None:
    # The small pipeline runs no lemmatizer; presidio matches its context words ("license",
    # "number") inside the lower-cased words, plurals included.
    from privault.privacy.engine import load_engine

    boosted, plain = load_engine().analyze_many([with_context, without], ner=False)

    def score(spans: list[Span]) -> float:
        return max(s.score for s in spans if s.kind == kind and s.source == "pattern")

    assert score(boosted) > score(plain)


def test_proper_nouns_come_from_the_tag_table() -> None:
    # No attribute ruler runs: the tagger's NNP is read as PROPN through the model's table.
    from privault.privacy.engine import load_engine

    text = "Rintanen began writing the report."
    spans = load_engine().analyze_many([text], ner=True)[0]
    found = {(text[s.start : s.end], s.kind, s.source) for s in spans}
    assert ("Rintanen", "PERSON", "propn") in found


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("Anna Schmidt called about the invoice.", False),
        ("Anna Schmidt\ncalled about the invoice.", True),
        ("Anna Schmidt\r\nLisbon", True),
        ("Anna Schmidt\u2028Lisbon", True),
    ],
)
def test_only_texts_of_several_lines_are_parsed(text: str, parsed: bool) -> None:
    # The parser's sentences keep an entity from running across a line break; on one line
    # it is skipped (a quarter of the pipeline's cost).
    from privault.privacy.engine import load_engine

    engine = load_engine()
    batch = engine.parse(["A note of one line.", text, "Line one\nline two"])
    assert [doc.text for doc in batch] == ["A note of one line.", text, "Line one\nline two"]
    assert [doc.has_annotation("DEP") for doc in batch] == [False, parsed, True]


def test_a_block_of_lines_is_read_as_the_whole_pipeline_reads_it() -> None:
    # Entities of a multi-line block are the ones the full pipeline (parser included) finds.
    from privault.privacy.engine import load_engine

    engine = load_engine()
    text = "Agatha Á Ottarsdóttir\n\nEBEN\nAustria"
    parsed = engine.parse([text])[0]
    whole = engine._nlp(text)
    assert [(e.start_char, e.end_char, e.label_) for e in parsed.ents] == [
        (e.start_char, e.end_char, e.label_) for e in whole.ents
    ]
    spans = engine.analyze_many([text], ner=True)[0]
    eben = text.index("EBEN")
    assert any(s.start <= eben and s.end >= eben + 4 for s in spans)


def test_a_batch_reads_each_text_with_the_tagger_once(
    detector: Detector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spans, judging them and judging again after the second recogniser read one
    reading of the text (a batch as large as the indexer's), not three."""
    from privault.privacy.tagger import Tagger

    reads: list[str] = []
    read = Tagger._read

    def counted(self: Tagger, text: str) -> object:
        reads.append(text)
        return read(self, text)

    monkeypatch.setattr(Tagger, "_read", counted)
    Tagger.forget()
    texts = [f"Lunch with Oriel Fenwhistle and her dog Biscuit on day {n}" for n in range(130)]
    texts.append("A long note about the garden. " * 200)  # longer than is kept: read anew
    found = detector.detect_many(texts)
    assert all(
        ("Oriel Fenwhistle", "PERSON") in _kinds(spans, text)
        for spans, text in zip(found[:-1], texts, strict=False)
    )
    assert sorted(set(reads)) == sorted(texts)
    assert len(reads) - reads.count(texts[-1]) == 130


def test_a_text_longer_than_spacy_reads_at_once_is_read_in_pieces(
    models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both pipelines read a text over their `max_length` piece by piece (here a 2,700
    character text with the limit lowered to 400), and where no cut falls inside an entity
    the spans are those of a whole read."""
    from privault.privacy import pieces
    from privault.privacy.engine import load_engine

    both = Detector(DetectorConfig.build([STANDARD], second_ner=second_ner_folder(models_dir)))
    both.load()
    people = ["Anna Schmidt", "Oriel Fenwhistle", "Tomomi Nishiyama", "Arild Nguyen"]
    text = "".join(
        f"{n}. met {people[n % 4]} in Vienna, then mailed anna{n}@example.com on Monday.\n"
        for n in range(36)
    )
    whole = both.detect(text)  # one piece: read whole
    engine = load_engine(both.config.second_ner)
    assert engine.has_second
    monkeypatch.setattr(pieces, "PIECE_CHARS", 300)
    monkeypatch.setattr(pieces, "MARGIN", 50)  # a piece and its margins within the limit
    for pipeline in (engine._nlp, engine._second):
        monkeypatch.setattr(pipeline, "max_length", 400)
        with pytest.raises(ValueError, match="E088"):
            pipeline(text)  # the limit bites: read whole, this text is refused
    asked: list[str] = []
    second_entities = engine.second_entities

    def second(texts: list[str]) -> list[list[Span]]:
        asked.extend(texts)
        return second_entities(texts)

    monkeypatch.setattr(engine, "second_entities", second)
    assert both.detect(text) == whole
    assert asked == [text]  # the second recogniser read it too (its lines start small)
    emails = [text[s.start : s.end] for s in whole if s.kind == "EMAIL_ADDRESS"]
    assert emails == [f"anna{n}@example.com" for n in range(36)]
    assert _kinds(whole, text) >= {(name, "PERSON") for name in people}
