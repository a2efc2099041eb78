"""Section trees and chunking."""

from __future__ import annotations

import pytest

from privault.retrieval.sectioning import estimate_tokens, split_chunks, split_sections

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


def test_chunks_cover_the_text_at_line_boundaries() -> None:
    lines = [f"Speaker {i}: " + "words " * 20 for i in range(30)]
    text = "\n".join(lines)
    chunks = split_chunks(text, target_tokens=60, overlap_tokens=0)
    assert len(chunks) > 5
    joined = "\n".join(text[c.start : c.end] for c in chunks)
    assert joined == text
    for chunk in chunks:
        assert chunk.start == 0 or text[chunk.start - 1] == "\n"
        assert chunk.tokens <= 60 or text[chunk.start : chunk.end].count("\n") == 0


def test_each_chunk_repeats_the_line_before_it() -> None:
    # A reply only makes sense after what it answers: chunks overlap by one short line.
    lines = [f"Speaker {i}: " + "words " * 20 for i in range(30)]
    text = "\n".join(lines)
    chunks = split_chunks(text, target_tokens=60, overlap_tokens=64)
    assert chunks[0].start == 0 and chunks[-1].end == len(text)
    for before, after in zip(chunks, chunks[1:], strict=False):
        shared = text[after.start : before.end]
        assert shared.count("\n") == 0 and shared in lines  # exactly one line repeated
    lines[10] = "Speaker 10: " + "long " * 80  # longer than the overlap: not repeated
    text = "\n".join(lines)
    chunks = split_chunks(text, target_tokens=60, overlap_tokens=64)
    assert sum("long" in text[c.start : c.end] for c in chunks) == 1


def test_a_very_long_line_is_cut() -> None:
    text = "This is a sentence. " * 200
    chunks = split_chunks(text, target_tokens=50)
    assert len(chunks) > 10
    assert all(estimate_tokens(text[c.start : c.end]) <= 120 for c in chunks)
