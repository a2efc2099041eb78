"""Where a context pack stops: the first candidate that no ranking scores near its best.

Fused scores are reciprocal ranks. They say how far down each leg found a candidate, not
how close it is to the question: the tenth window of a vault that holds one matching note
and the tenth of a vault full of them get the same score. Each leg's own score does say
it: bm25 for the keywords, the cosine similarity for the fast and the strong embedder.
So a candidate is **clearly weaker** than the best when every leg puts it well under that
leg's best candidate for the same question (a leg that did not find it at all counts as
under): its strong cosine more than `STRONG_MARGIN` under the best strong cosine, its fast
cosine more than `FAST_MARGIN` under the best fast one (`FAST_MARGIN_ALONE` where no strong
cosine is known), and its bm25 under `KEYWORD_SHARE` of the best bm25. Margins, not
absolute thresholds: a cosine's scale differs between models and between questions, its
distance to the best candidate much less.

A pack takes candidates in fused order until the budget is spent or the next candidate is
clearly weaker; what follows it is ranked lower still, and is not counted as `dropped`.
"""

from __future__ import annotations

from collections.abc import Sequence

from privault.retrieval.search import ChunkHit

# Measured on LoCoMo conversations 1-3 (`benchmarks.retrieval`, 2,000-token cap). With the
# strong leg, 90% of the evidence windows are within 0.17 of the best strong cosine, and a
# window both models put that far under ends the pack: the same evidence in a third fewer
# tokens. Without it the fast cosine alone separates evidence less (90% within 0.20, 95%
# within 0.24), so its margin is wider: a narrower one lost evidence there.
STRONG_MARGIN = 0.10
FAST_MARGIN = 0.15  # ...when the strong model scored the candidates too
FAST_MARGIN_ALONE = 0.30  # ...when it did not (not installed, or its pass not done)
KEYWORD_SHARE = 0.5


def relevant(hits: Sequence[ChunkHit]) -> list[ChunkHit]:
    """The hits (best first) before the first one that is clearly weaker than the best;
    the first hit always stays (a pack is never empty for want of a calibrated score)."""
    best_strong = _best([hit.strong_similarity for hit in hits])
    best_fast = _best([hit.similarity for hit in hits])
    best_keyword = _best([hit.keyword_score for hit in hits])
    fast_margin = FAST_MARGIN if best_strong is not None else FAST_MARGIN_ALONE

    def near(score: float | None, best: float | None, margin: float) -> bool:
        return score is not None and best is not None and score >= best - margin

    kept = list(hits[:1])
    for hit in hits[1:]:
        if not (
            near(hit.strong_similarity, best_strong, STRONG_MARGIN)
            or near(hit.similarity, best_fast, fast_margin)
            or (
                hit.keyword_score is not None
                and best_keyword is not None
                and hit.keyword_score >= KEYWORD_SHARE * best_keyword
            )
        ):
            break
        kept.append(hit)
    return kept


def _best(scores: Sequence[float | None]) -> float | None:
    known = [score for score in scores if score is not None]
    return max(known) if known else None
