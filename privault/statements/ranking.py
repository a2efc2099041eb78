"""Ranking statements: keyword (FTS5), vector similarity, rank fusion and a composite score.

Keyword matching always runs; vector similarity joins in when an embedder is given and some
statements have embeddings. The two lists are fused by reciprocal rank (k = 60), which needs
no score calibration between bm25 and cosine distance.
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import TypeVar

from privault.statements.model import Embed
from privault.statements.vectors import embed_many
from privault.store import statement_reads
from privault.store.connection import Connection

RRF_K = 60
RECENCY_HALF_LIFE_MS = 30 * 86_400_000  # a statement heard a month ago counts half as fresh
_WORD = re.compile(r"\w+")
K = TypeVar("K", bound=Hashable)


def keyword_ranks(conn: Connection, text: str) -> dict[int, int]:
    """Statement rowid -> rank (1 = best) for statements sharing a word with `text`.

    Words are quoted one by one and OR-ed, so user text can never be read as FTS syntax,
    and bm25 still puts statements that share more (and rarer) words first.
    """
    words = _WORD.findall(text)
    if not words:
        return {}
    expression = " OR ".join(f'"{word}"' for word in dict.fromkeys(words))
    found = statement_reads.keyword_rowids(conn, expression)
    return {rowid: position for position, rowid in enumerate(found, start=1)}


def vector_ranks(
    conn: Connection, embed: Embed, text: str, candidates: Iterable[int], top: int
) -> dict[int, int]:
    """Rowid -> rank among the `top` candidates nearest to `text` (exact cosine scan).

    Only candidates are scored, so time and entity filters never starve the result the way
    a global k-nearest search followed by filtering could.
    """
    pool = list(candidates)
    if not pool or not statement_reads.has_vectors(conn):
        return {}
    query = embed_many(embed, [text])[0]
    scored = statement_reads.vector_distances(conn, query, pool)
    scored.sort()
    return {rowid: position for position, (_, rowid) in enumerate(scored[:top], start=1)}


def fuse(*rankings: dict[int, int]) -> dict[int, float]:
    """Reciprocal rank fusion: rowid -> sum of 1 / (k + rank) over the rankings it is in."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rowid, rank in ranking.items():
            scores[rowid] = scores.get(rowid, 0.0) + 1.0 / (RRF_K + rank)
    return scores


def freshness(heard_at: int, at: int) -> float:
    """1 for a statement heard at `at`, halving every `RECENCY_HALF_LIFE_MS` before it."""
    age = max(0, at - heard_at)
    return float(0.5 ** (age / RECENCY_HALF_LIFE_MS))


def composite(
    relevance: float | None, heard_at: int, at: int, salience: float, confidence: float
) -> float:
    """Relevance (0..1, when text was given), freshness and salience, scaled by confidence.

    Weights: with text 0.5 relevance + 0.25 freshness + 0.25 salience; without text
    freshness and salience share equally. Confidence scales the result between half and
    full, so a doubtful statement sinks but never vanishes.
    """
    fresh = freshness(heard_at, at)
    if relevance is None:
        base = 0.5 * fresh + 0.5 * salience
    else:
        base = 0.5 * relevance + 0.25 * fresh + 0.25 * salience
    return base * (0.5 + 0.5 * confidence)


_COMMON = frozenset(
    "a an and are as at be by for from has have in is it its of on or the to was were with".split()
)


def stems(text: str) -> frozenset[str]:
    """The words `overlap_scores` compares: their first six letters, case-folded, less the
    most common ones."""
    return frozenset(word[:6] for word in _WORD.findall(text.casefold()) if word not in _COMMON)


def overlap_scores(texts: dict[str, str], query: str) -> dict[str, float]:
    """Id -> how well each text matches the query's words, for texts sharing at least one.

    Used over statements *as a gated caller sees them* (placeholders in place of masked
    values), so no form of a masked value can match. Words are compared by their first six
    letters, case-folded; rarer words weigh more (idf over `texts`).
    """
    return stem_overlap({key: stems(text) for key, text in texts.items()}, query)


def stem_overlap(found: Mapping[K, AbstractSet[str]], query: str) -> dict[K, float]:
    """`overlap_scores` over texts already reduced to their `stems`."""
    wanted = stems(query)
    if not wanted:
        return {}
    total = len(found)
    weight = {
        word: math.log(1 + total / (1 + sum(1 for words in found.values() if word in words)))
        for word in wanted
    }
    scores: dict[K, float] = {}
    for key, words in found.items():
        shared = wanted & words
        if shared:
            scores[key] = sum(weight[word] for word in shared) / math.sqrt(len(words) or 1)
    return scores
