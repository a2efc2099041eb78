"""Where a context pack stops: the first candidate that no ranking scores near its best.

Fused scores are reciprocal ranks. They say how far down each leg found a candidate, not
how close it is to the question: the tenth window of a vault that holds one matching note
and the tenth of a vault full of them get the same score. Each leg's own score does say
it: bm25 for the keywords, the cosine similarity for the fast and the strong embedder.
So a candidate is **clearly weaker** than the best when every leg puts it well under that
leg's best candidate for the same question (a leg that did not find it at all counts as
under): its strong cosine, its fast cosine and its bm25 all further under the best ones
than the `Margins` allow (`SCORED`, or the wider `UNSCORED` for a candidate the strong
model gave no cosine: there the fast embedder's has to decide alone). Margins, not
absolute thresholds: a cosine's scale differs between models and between questions, its
distance to the best candidate much less.

A pack takes candidates in fused order until the budget is spent or the next candidate is
clearly weaker; what follows it is ranked lower still, and is not counted as `dropped`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from privault.retrieval.search import ChunkHit


@dataclass(frozen=True)
class Margins:
    """How far under each leg's best a candidate may score and still count as near it."""

    fast: float  # under the best fast cosine
    keyword_share: float  # the share of the best bm25 a candidate must reach
    strong: float | None = None  # under the best strong cosine (None: not scored by it)


# Measured on LoCoMo conversations 1-3 (`benchmarks.retrieval`, 2,000-token cap, 383
# questions): these are the narrowest margins that packed the evidence of every question
# the full cap packs. Narrower ones trade evidence for tokens: (0.12, 0.15) packed the
# same evidence but one in 28% fewer tokens there (median 1,432 against 1,992), but lost
# 7 of 377 questions on the conversations it was not tuned on. On LoCoMo, where every
# window of a conversation is about its two people, these margins end few packs early
# (median 1,947 tokens); they cut where a vault holds a few close notes among many others.
# A window the strong model gave no cosine (not installed, its pass not done, or not among
# its best) is held to the fast embedder's widest lossless margins there: its cosine
# alone separates evidence less (90% within 0.20 of the best, 95% within 0.24).
SCORED = Margins(strong=0.12, fast=0.25, keyword_share=0.5)
UNSCORED = Margins(fast=0.30, keyword_share=0.3)


def relevant(hits: Sequence[ChunkHit]) -> list[ChunkHit]:
    """The hits (best first) before the first one that is clearly weaker than the best;
    the first hit always stays (a pack is never empty for want of a calibrated score)."""
    best_strong = _best([hit.strong_similarity for hit in hits])
    best_fast = _best([hit.similarity for hit in hits])
    best_keyword = _best([hit.keyword_score for hit in hits])

    def near(hit: ChunkHit) -> bool:
        margins = SCORED if hit.strong_similarity is not None else UNSCORED
        return (
            _within(hit.strong_similarity, best_strong, margins.strong)
            or _within(hit.similarity, best_fast, margins.fast)
            or (
                hit.keyword_score is not None
                and best_keyword is not None
                and hit.keyword_score >= margins.keyword_share * best_keyword
            )
        )

    kept = list(hits[:1])
    for hit in hits[1:]:
        if not near(hit):
            break
        kept.append(hit)
    return kept


def _within(score: float | None, best: float | None, margin: float | None) -> bool:
    return score is not None and best is not None and margin is not None and score >= best - margin


def _best(scores: Sequence[float | None]) -> float | None:
    known = [score for score in scores if score is not None]
    return max(known) if known else None
