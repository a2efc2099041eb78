"""Where a context pack stops: the first candidate no leg scores near its best."""

from __future__ import annotations

import pytest

from privault.retrieval import relevance
from privault.retrieval.search import ChunkHit


def hit(
    chunk_id: int,
    keyword: float | None = None,
    fast: float | None = None,
    strong: float | None = None,
) -> ChunkHit:
    """A fused hit with the legs' own scores (its fused score only orders the list)."""
    return ChunkHit(chunk_id, 1, 1.0 / chunk_id, None, None, keyword, fast, strong)


def kept(hits: list[ChunkHit]) -> list[int]:
    return [found.chunk_id for found in relevance.relevant(hits)]


@pytest.mark.parametrize(
    ("hits", "expected"),
    [
        # The strong cosine decides when its leg found everything: 0.58 is within the
        # margin of 0.62, 0.45 is not, and no other leg holds the fourth up.
        (
            [hit(1, strong=0.62), hit(2, strong=0.58), hit(3, strong=0.45), hit(4, strong=0.6)],
            [1, 2],
        ),
        # A candidate far down the strong leg that the keywords score near their best stays.
        (
            [hit(1, strong=0.6, keyword=8.0), hit(2, strong=0.3, keyword=6.0), hit(3, strong=0.3)],
            [1, 2],
        ),
        # ...as does one the fast embedder scores within 0.25 of its best.
        (
            [
                hit(1, fast=0.7, strong=0.6),
                hit(2, fast=0.46, strong=0.3),
                hit(3, fast=0.44, strong=0.3),
            ],
            [1, 2],
        ),
        # A window the strong model gave no cosine is held to wider margins: the fast
        # cosine within 0.3 of its best...
        ([hit(1, fast=0.7), hit(2, fast=0.5), hit(3, fast=0.45), hit(4, fast=0.39)], [1, 2, 3]),
        (
            [hit(1, fast=0.7, strong=0.6), hit(2, fast=0.42), hit(3, fast=0.42, strong=0.3)],
            [1, 2],
        ),
        # ...or bm25 at 0.3 of the best (keywords alone: no vectors yet).
        ([hit(1, keyword=10.0), hit(2, keyword=3.0), hit(3, keyword=2.9)], [1, 2]),
        # A leg that did not find a candidate at all counts as under: found by nothing
        # near its best, it ends the pack.
        ([hit(1, keyword=5.0, fast=0.5), hit(2), hit(3, keyword=5.0)], [1]),
        ([], []),
    ],
)
def test_the_pack_stops_at_the_first_clearly_weaker_candidate(
    hits: list[ChunkHit], expected: list[int]
) -> None:
    assert kept(hits) == expected


def test_the_margins_are_measured_from_the_best_candidate_not_the_first() -> None:
    # The first hit (best fused rank) is not the best by cosine: the margin is taken from
    # the best one (0.70), so 0.55 is clearly weaker even though it is near the first.
    hits = [hit(1, strong=0.65), hit(2, strong=0.70), hit(3, strong=0.55)]
    assert kept(hits) == [1, 2]


def test_the_first_candidate_always_stays() -> None:
    # The first is clearly weaker than the third, but a pack is never empty; the second,
    # as weak, ends it.
    hits = [hit(1, strong=0.40), hit(2, strong=0.45), hit(3, strong=0.70)]
    assert kept(hits) == [1]
