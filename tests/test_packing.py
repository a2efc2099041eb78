"""Context packing: budget respected, nothing dropped silently, rank order kept, and
placeholders numbered by what the pack returns."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from privault.privacy import Gate, PolicySet, Span
from privault.retrieval.packing import Pack, Piece, pack
from tests.gate_support import numbered_from_one, placeholder_numbers


def _words(text: str) -> int:
    return len(text.split())


def test_pack_respects_budget_and_counts_drops() -> None:
    texts = {1: "one " * 30, 2: "two " * 30, 3: "three " * 30, 4: "four " * 5}
    pieces = [Piece(sid, 0, len(texts[sid])) for sid in (1, 2, 3, 4)]
    packed = pack(
        pieces,
        80,
        header=lambda sid: f"## s{sid}",
        window_text=lambda p: texts[p.section_id][p.start : p.end],
        count_tokens=_words,
    )
    assert packed.used_tokens <= 80
    assert [s.section_id for s in packed.sections] == [1, 2, 4]
    assert packed.dropped == 1
    assert _words(packed.text) <= packed.used_tokens


def _pack_of_one_text(text: str, pieces: list[Piece]) -> Pack:
    """Windows of one section `text`, headed "## s", in a budget of 100 words."""
    return pack(
        pieces,
        100,
        header=lambda sid: "## s",
        window_text=lambda p: text[p.start : p.end],
        count_tokens=_words,
    )


def test_windows_of_one_section_are_merged_in_text_order() -> None:
    text = "a b c d e f g h i j"
    pieces = [Piece(1, 10, 13), Piece(1, 0, 3), Piece(1, 10, 13)]
    packed = _pack_of_one_text(text, pieces)
    assert packed.sections[0].render() == "## s\na b\n…\nf g"
    assert packed.dropped == 0


def test_overlapping_windows_are_merged_and_paid_for_once() -> None:
    text = "a b c d e f g h i j"
    pieces = [Piece(1, 0, 7), Piece(1, 4, 11)]  # "a b c d" and "c d e f" share "c d"
    packed = _pack_of_one_text(text, pieces)
    assert packed.sections[0].render() == "## s\na b c d e f"
    assert packed.used_tokens == _words("## s") + _words("a b c d e f")


_LINES = "\n".join(f"w{i} x{i} y{i}" for i in range(12))
_STARTS = [0] + [i + 1 for i, ch in enumerate(_LINES) if ch == "\n"]
_ENDS = [i for i, ch in enumerate(_LINES) if ch == "\n"] + [len(_LINES)]


@given(
    st.lists(
        st.tuples(st.integers(1, 3), st.integers(0, 11), st.integers(0, 3)),
        max_size=25,
    ),
    st.integers(5, 60),
)
def test_used_tokens_bound_the_returned_text_and_the_budget(picks, budget) -> None:
    # Windows of whole lines, overlapping, adjacent or apart, in any order.
    pieces = [
        Piece(section, _STARTS[line], _ENDS[min(line + extra, 11)])
        for section, line, extra in picks
    ]
    packed = pack(
        pieces,
        budget,
        header=lambda sid: f"## s{sid}",
        window_text=lambda p: _LINES[p.start : p.end],
        count_tokens=_words,
    )
    assert _words(packed.text) <= packed.used_tokens <= budget


def _email(text: str) -> list[Span]:
    """`text`'s one email address, as the gate's decided masks."""
    start = text.index("@")
    start = text.rfind(" ", 0, start) + 1
    end = text.find(" ", start)
    return [Span(start, len(text) if end < 0 else end, "EMAIL_ADDRESS", 1.0, "pattern")]


def _gated_pack(texts: dict[int, tuple[str, list[Span]]], pieces: list[Piece], budget: int) -> Pack:
    """`pieces` packed as a response gates them: one gate numbering every window it makes,
    a dropped window undone."""
    gate = Gate(PolicySet.load().resolve("standard"))

    def checkpoint():
        mark = gate.mark()
        return lambda: gate.undo(mark)

    def window_text(piece: Piece) -> str:
        text, masks = texts[piece.section_id]
        return gate.apply(text, masks, window=(piece.start, piece.end)).text

    return pack(
        pieces,
        budget,
        header=lambda sid: f"## s{sid}",
        window_text=window_text,
        count_tokens=_words,
        checkpoint=checkpoint,
    )


def test_a_window_that_does_not_fit_leaves_no_gap_in_the_numbers() -> None:
    """The best window holds an address and does not fit; the next ones do. Their values
    are numbered from 1, the same value alike in both: `<EMAIL_ADDRESS_2>` alone would
    tell the reader a masked address was in text it was not shown."""
    long = "billing goes to ann@example.org " + "and the invoice is late " * 20
    short = "copies go to bob@example.org"
    texts = {1: long, 2: short, 3: "and again bob@example.org"}
    spans = {sid: (text, _email(text)) for sid, text in texts.items()}
    pieces = [Piece(sid, 0, len(text)) for sid, text in texts.items()]
    packed = _gated_pack(spans, pieces, 30)
    assert [s.section_id for s in packed.sections] == [2, 3] and packed.dropped == 1
    assert placeholder_numbers(packed.text) == {"EMAIL_ADDRESS": {1}}
    assert _words(packed.text) <= packed.used_tokens <= 30


def test_windows_joined_over_a_value_their_edge_cut_keep_its_number() -> None:
    """A window ending inside a name, joined with one that shows it whole, shows it under
    the number it had: the number the cut part took is not left behind, unused."""
    text = "w0 w1 w2 Ada Lovelace w5 w6"
    name = [Span(9, 21, "PERSON", 0.9, "ner")]
    packed = _gated_pack({1: (text, name)}, [Piece(1, 0, 13), Piece(1, 6, len(text))], 100)
    assert packed.sections[0].body() == "w0 w1 w2 <PERSON_1> w5 w6"


@given(st.lists(st.tuples(st.integers(1, 4), st.integers(0, 11)), max_size=20), st.integers(8, 60))
def test_what_a_pack_returns_is_numbered_from_one(picks, budget) -> None:
    # Sections of lines, each line naming one of a few people; windows of one to three
    # lines, in any order, some of which do not fit.
    people = ["Ann Lee", "Bo Chan", "Cy Diaz", "Di Fox", "Ed Gray"]
    lines = [f"l{i} saw {people[i * i % 5]} there" for i in range(12)]
    text = "\n".join(lines)
    starts = [text.index(line) for line in lines]
    masks = [
        Span(
            at + len(f"l{i} saw "),
            at + len(f"l{i} saw ") + len(people[i * i % 5]),
            "PERSON",
            0.9,
            "ner",
        )
        for i, at in enumerate(starts)
    ]
    pieces = [
        Piece(
            section,
            starts[line],
            starts[min(line + section % 3, 11)] + len(lines[min(line + section % 3, 11)]),
        )
        for section, line in picks
    ]
    texts = {section: (text, masks) for section in range(1, 5)}
    packed = _gated_pack(texts, pieces, budget)
    assert numbered_from_one(packed.text)
    assert _words(packed.text) <= packed.used_tokens <= budget
