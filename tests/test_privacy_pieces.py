"""Long texts read in pieces: where they are cut, and spans moved back to the text's offsets."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privault.privacy import engine, pieces
from privault.privacy.pieces import cut_into_pieces, read_in_pieces
from privault.spans import Span


def _cuts(text: str, size: int) -> list[str]:
    return [piece for _, piece in cut_into_pieces(text, size)]


@pytest.mark.parametrize(
    ("text", "size", "expected"),
    [
        ("", 10, [""]),
        ("short", 10, ["short"]),
        ("exactly 10", 10, ["exactly 10"]),
        # at the last line end in the latter half of the piece
        ("aaaa\nbbb\ncccccc", 10, ["aaaa\nbbb\n", "cccccc"]),
        ("line one\r\nline two\r\nthree", 12, ["line one\r\n", "line two\r\n", "three"]),
        # a line too long: after a sentence's end, then after a space
        ("One two. Three four five", 12, ["One two. ", "Three four ", "five"]),
        ("Said “no.” Then left now", 14, ["Said “no.” ", "Then left now"]),
        ("aaaa bbbb cccc", 7, ["aaaa ", "bbbb ", "cccc"]),
        # no place to cut in the latter half: at the size
        ("a bcdefghijklmn", 6, ["a bcde", "fghijk", "lmn"]),
        # a line end in the first half only is not taken: pieces stay at least half full
        ("ab\ncdefgh ijkl", 10, ["ab\ncdefgh ", "ijkl"]),
    ],
)
def test_a_long_text_is_cut_at_line_ends_then_sentences_then_spaces(
    text: str, size: int, expected: list[str]
) -> None:
    assert _cuts(text, size) == expected


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("ab .!?\n\r\t\u2028é"), max_size=300),
    st.integers(min_value=2, max_value=40),
)
def test_pieces_are_the_text_in_order_none_too_long(text: str, size: int) -> None:
    cut = list(cut_into_pieces(text, size))
    assert "".join(piece for _, piece in cut) == text
    assert all(text[offset : offset + len(piece)] == piece for offset, piece in cut)
    assert all(len(piece) <= size for _, piece in cut)
    assert all(len(piece) >= size // 2 for _, piece in cut[:-1])  # never many small ones


def _capitalised(text: str) -> list[Span]:
    """A stand-in for a pipeline: capitalised words as PERSON spans of `text`."""
    return [Span(*m.span(), "PERSON", 0.8, "ner") for m in re.finditer(r"[A-Z]\w+", text)]


def test_spans_found_piece_by_piece_are_moved_to_the_texts_offsets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = [f"line {i} met Name{i} and Other{i} in town\n" for i in range(40)]
    text = "".join(lines)
    monkeypatch.setattr(pieces, "PIECE_CHARS", 100)
    monkeypatch.setattr(pieces, "MARGIN", 10)
    read: list[str] = []

    def reader(piece: str) -> list[Span]:
        read.append(piece)
        return _capitalised(piece)

    found = pieces.read_in_pieces(text, reader)
    assert len(read) > 10 and max(map(len, read)) <= 120  # in pieces, with their margins
    assert found == _capitalised(text)  # where no piece cuts a name: as read whole
    assert [text[s.start : s.end] for s in found[:4]] == ["Name0", "Other0", "Name1", "Other1"]


def test_texts_of_one_piece_are_read_whole_and_longer_ones_in_pieces(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pieces, "PIECE_CHARS", 10)
    texts = ["short", "x" * 10, "y" * 11, ""]
    assert engine._read_whole(texts) == [0, 1, 3]
    assert engine._read_in_pieces(texts) == [2]


def test_a_piece_is_well_under_what_spacy_reads_at_once() -> None:
    assert pieces.PIECE_CHARS * 10 <= 1_000_000  # spaCy's default `nlp.max_length`


def _cards(text: str) -> list[Span]:
    return [
        Span(*m.span(), "CREDIT_CARD", 1.0, "test") for m in re.finditer(r"4111( 1111){3}", text)
    ]


def test_a_value_across_a_cut_is_found_whole_once() -> None:
    text = "data," * 1998 + "card 4111 1111 1111 1111 end " + "more words " * 2000
    cuts = [offset for offset, _ in cut_into_pieces(text)]
    value = text.index("4111")
    assert any(value < cut < value + 19 for cut in cuts)  # the cut falls inside the number
    assert [(s.start, s.end) for s in read_in_pieces(text, _cards)] == [(value, value + 19)]


def test_a_piece_is_never_empty() -> None:
    cut = [piece for _, piece in cut_into_pieces("abcde", size=1)]  # ends, however small
    assert "".join(cut) == "abcde" and all(cut) and len(cut) > 1
