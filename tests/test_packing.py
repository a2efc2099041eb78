"""Context packing: budget respected, nothing dropped silently, rank order kept."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from privault.retrieval.packing import Pack, Piece, pack


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
