"""Hybrid search: FTS5 bm25 and exact vector KNN, merged by reciprocal-rank fusion.

Ranks, not scores, are fused: bm25 and cosine live on different scales, and RRF needs no
calibration between them. Hits are chunks; callers group them into sections.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from privault.retrieval import fts
from privault.retrieval.fts import Filters
from privault.retrieval.vectors import VectorIndex
from privault.store.connection import Connection

RRF_K = 60
VECTOR_OVERFETCH = 4  # the vector leg is unfiltered: fetch extra to survive filtering
# Below this cosine similarity a vector neighbour is unrelated text (all-MiniLM-L6-v2 puts
# random English pairs around 0.0–0.15); it would only pad results with noise.
MIN_SIMILARITY = 0.15


@dataclass(frozen=True)
class ChunkHit:
    """A chunk found by either leg, with its fused score and where each leg ranked it."""

    chunk_id: int
    section_id: int
    score: float
    keyword_rank: int | None
    vector_rank: int | None


def fuse(rankings: Sequence[Sequence[int]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Reciprocal-rank fusion of several rankings of ids; best first."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank + 1)
    return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))


def hybrid(
    conn: Connection,
    vectors: VectorIndex,
    query: str,
    query_vector: np.ndarray | None,
    filters: Filters,
    limit: int,
) -> list[ChunkHit]:
    """The best `limit` chunks for a query under `filters`, by fused keyword+vector rank."""
    keyword = fts.search(conn, query, filters, limit)
    vector: list[tuple[int, float]] = []
    if query_vector is not None:
        vectors.refresh(conn)
        vector = [
            (chunk_id, similarity)
            for chunk_id, similarity in vectors.search(query_vector, limit * VECTOR_OVERFETCH)
            if similarity >= MIN_SIMILARITY
        ]
    keyword_ids = [chunk_id for chunk_id, _ in keyword]
    candidate_ids = list(dict.fromkeys(keyword_ids + [chunk_id for chunk_id, _ in vector]))
    sections = fts.visible_chunks(conn, candidate_ids, filters)
    vector_ids = [chunk_id for chunk_id, _ in vector if chunk_id in sections][:limit]
    keyword_rank = {chunk_id: rank for rank, chunk_id in enumerate(keyword_ids)}
    vector_rank = {chunk_id: rank for rank, chunk_id in enumerate(vector_ids)}
    hits = [
        ChunkHit(
            chunk_id,
            sections[chunk_id],
            score,
            keyword_rank.get(chunk_id),
            vector_rank.get(chunk_id),
        )
        for chunk_id, score in fuse([keyword_ids, vector_ids])
        if chunk_id in sections
    ]
    return hits[:limit]


def chunk_spans(conn: Connection, chunk_ids: Sequence[int]) -> dict[int, tuple[int, int]]:
    """Character spans (within their section's text) of these chunks."""
    if not chunk_ids:
        return {}
    marks = ",".join("?" * len(chunk_ids))
    return {
        int(chunk_id): (int(start), int(end))
        for chunk_id, start, end in conn.execute(
            f"SELECT id, start, end FROM chunks WHERE id IN ({marks})", list(chunk_ids)
        )
    }
