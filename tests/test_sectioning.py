"""Section trees and chunking."""

from __future__ import annotations

import pytest

from privault.retrieval.sectioning import (
    CHUNK_TOKENS,
    ChunkDraft,
    estimate_tokens,
    split_chunks,
    split_sections,
)

CASES = [
    ("plain text only", [("0", None, ("Doc",), "plain text only")]),
    (
        "intro\n# A\na\n## A1\na1\n# B\nb",
        [
            ("0", None, ("Doc",), "intro"),
            ("1", None, ("Doc", "A"), "a"),
            ("1.1", "1", ("Doc", "A", "A1"), "a1"),
            ("2", None, ("Doc", "B"), "b"),
        ],
    ),
    (
        "# A\n### deep\nx\n## mid\ny",
        [
            ("1", None, ("Doc", "A"), ""),
            ("1.1", "1", ("Doc", "A", "deep"), "x"),
            ("1.2", "1", ("Doc", "A", "mid"), "y"),
        ],
    ),
    (
        "# Code\n```\n# not a heading\n```\ntail",
        [("1", None, ("Doc", "Code"), "```\n# not a heading\n```\ntail")],
    ),
]


@pytest.mark.parametrize(("body", "expected"), CASES)
def test_heading_tree(body: str, expected: list[tuple]) -> None:
    sections = split_sections(body, "Doc")
    got = [(s.path, s.parent_path, s.breadcrumb, s.text) for s in sections]
    assert got == expected


def test_section_offsets_point_into_the_body() -> None:
    body = "pre\n# One\nalpha\n# Two\nbeta"
    for section in split_sections(body, "T"):
        assert section.text in body[section.start : section.end]


def _lines_of(text: str, chunk: ChunkDraft) -> list[str]:
    return text[chunk.start : chunk.end].split("\n")


def test_every_line_ends_one_window_with_the_two_lines_before_it() -> None:
    # A reply only makes sense after what it answers: each line is indexed together with
    # the two lines before it, so no chunk border cuts a reply off from its question.
    lines = [f"Speaker {i}: " + "words " * 12 for i in range(30)]
    text = "\n".join(lines)
    chunks = split_chunks(text)
    assert len(chunks) == len(lines)
    for index, chunk in enumerate(chunks):
        assert _lines_of(text, chunk) == lines[max(0, index - 2) : index + 1]
        assert chunk.tokens == sum(estimate_tokens(line) for line in _lines_of(text, chunk))


def test_short_lines_are_joined_before_windowing() -> None:
    # One-word lines (a list, a poem) would otherwise cost a chunk each.
    text = "\n".join(f"item{i}" for i in range(60))
    chunks = split_chunks(text)
    assert len(chunks) < 60 // 3
    covered = {line for chunk in chunks for line in _lines_of(text, chunk)}
    assert covered == set(text.split("\n"))  # nothing falls between windows
    assert all(chunk.start == 0 or text[chunk.start - 1] == "\n" for chunk in chunks)


def test_a_window_over_the_cap_drops_its_earliest_lines() -> None:
    lines = [f"Speaker {i}: " + "words " * 80 for i in range(6)]  # ~90 tokens a line
    text = "\n".join(lines)
    chunks = split_chunks(text)
    assert len(chunks) == len(lines)
    for index, chunk in enumerate(chunks):
        assert chunk.tokens <= 2 * CHUNK_TOKENS
        assert _lines_of(text, chunk)[-1] == lines[index]
        assert len(_lines_of(text, chunk)) == min(index + 1, 2)


def test_a_very_long_line_is_cut() -> None:
    text = "This is a sentence. " * 200
    chunks = split_chunks(text, target_tokens=50)
    assert len(chunks) > 10
    assert all(estimate_tokens(text[c.start : c.end]) <= 120 for c in chunks)
