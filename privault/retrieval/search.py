"""Hybrid search: FTS5 bm25 and exact vector KNN, merged by reciprocal-rank fusion.

Ranks, not scores, are fused: bm25 and cosine live on different scales, and RRF needs no
calibration between them. Hits are chunks; callers group them into sections.

The query is embedded on a worker thread while the calling thread ranks the keywords on
its own connection (onnxruntime and SQLite both work outside the GIL); the vector scan
follows on the calling thread, where BLAS has both cores to itself. At 100,000 sections
this took search p95 from 47 to 40-44 ms (`benchmarks.perf`, same vault, same queries).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass

import numpy as np

from privault.models import cores
from privault.retrieval import fts
from privault.retrieval.early import EarlyWindows
from privault.retrieval.vectors import VectorIndex
from privault.store import index_reads
from privault.store.connection import Connection, companion
from privault.store.index_reads import Filters

RRF_K = 5  # top ranks dominate: measured on LoCoMo, k in 1..10 beat 60 by 4 points
VECTOR_OVERFETCH = 4  # the vector leg is unfiltered: fetch extra to survive filtering
# Below this cosine similarity a vector neighbour is unrelated text (all-MiniLM-L6-v2 puts
# random English pairs around 0.0–0.15); it would only pad results with noise.
MIN_SIMILARITY = 0.15
KEYWORD_WEIGHT = 1.0
VECTOR_WEIGHT = 1.0
# The strong leg (`context`, `ask`): on LoCoMo conversations 1-3, weights 1..10 were tried;
# 2 packed the most evidence (above 3 the strong model alone crowds out keyword matches).
STRONG_WEIGHT = 2.0
# Where query embeddings and keyword legs run (threads started on first use); a server's
# readers search at once, each with one of each in flight.
_QUERY_EMBEDDINGS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="privault-query")
_KEYWORD_LEGS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="privault-keywords")


@dataclass(frozen=True)
class ChunkHit:
    """A chunk found by any leg, with its fused score, where each leg ranked it and what
    each leg scored it (None where a leg did not find it): bm25 (higher is better) and the
    cosine similarities of the fast and the strong embedder. The fused score says only
    how high the legs ranked a chunk; the leg scores say how close it is to the query,
    which is what a pack needs to tell when the remaining candidates are clearly weaker.
    """

    chunk_id: int
    section_id: int
    score: float
    keyword_rank: int | None
    vector_rank: int | None
    keyword_score: float | None = None
    similarity: float | None = None
    strong_similarity: float | None = None


def fuse(
    rankings: Sequence[Sequence[int]],
    k: int | None = None,
    weights: Sequence[float] | None = None,
) -> list[tuple[int, float]]:
    """Weighted reciprocal-rank fusion of several rankings of ids; best first."""
    k = RRF_K if k is None else k
    scores: dict[int, float] = {}
    for index, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[index]
        for rank, item in enumerate(ranking):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank + 1)
    return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))


def hybrid(
    conn: Connection,
    vectors: VectorIndex,
    query: str,
    embed: Callable[[], np.ndarray],
    filters: Filters,
    limit: int,
    period: tuple[int, int] | None = None,
    strong: Sequence[int] = (),
    strong_weight: float | None = None,
    early: EarlyWindows | None = None,
    strong_similarity: Mapping[int, float] | None = None,
) -> list[ChunkHit]:
    """The best `limit` chunks for a query under `filters`, by fused keyword+vector rank.

    Both legs search the view `vectors` holds (`plain`, or `masked` for gated callers).
    `embed()` gives the query's vector; it runs on a worker thread
    while the keywords are ranked, so it must not touch `conn`. `strong` is a third leg
    ranked by the caller (chunk ids, best first, same view), fused in with
    `strong_weight` (default STRONG_WEIGHT); chunks it does not cover compete on the
    other legs. `strong_similarity` (chunk id → the strong model's cosine) is carried into
    the hits it covers.

    With a `period` (dates the query names, epoch ms), both legs are ranked a second time
    among the documents dated inside it, and those rankings are fused in too: what was
    written then gains rank, and everything else still competes.

    `early` (the owner's searches only) holds windows of queued sections not embedded yet:
    they are embedded on another worker thread and ranked in the vector leg with the rest.
    """
    embedding = _QUERY_EMBEDDINGS.submit(embed)
    pending = _QUERY_EMBEDDINGS.submit(early.vectors) if early and early.windows else None
    # One filter lookup for both legs' candidates: the keyword leg's best rows are
    # fetched unfiltered first, then checked together with the vector neighbours. The
    # keyword leg runs on its own connection beside the vector leg where it can. A large
    # index's keywords are ranked whole beside the vector leg where pruning can prove
    # its ranking (`fts.pruned`, which proves less within a range); otherwise, when a
    # core is idle, in two ranges of chunk ids: the first beside the vector leg, the
    # rest on this thread after it (`fts.split`). The ids are the vector index's (no
    # statement here: one would hand the GIL to the query embedding and start the
    # keyword leg ~5 ms late). A dated query's vector ranking inside its period is made
    # by whichever thread is free first: at a million chunks this one while the
    # companion prunes, the companion when this one ranks the rest of the keywords.
    # (When this thread ranked the period first, then the rest of the keywords, at 1M
    # chunks search took ~3 ms more at p50 and ~5 ms at p95: the companion sat idle.)
    fetch = limit * fts.OVERFETCH
    beside = companion(conn)
    ranges = fts.split(*vectors.id_span) if beside else None
    first, rest = ranges if ranges and cores.spare_core() else (None, None)
    dated = filters.within(*period) if period else None
    refreshed = threading.Event()
    dated_taken = threading.Lock()  # held by the thread that ranks the period's vectors
    decided = threading.Event()  # the companion knows whether `pruned` ranked it whole
    pruned: list[bool] = []

    def ranked_apart(connection: Connection, rowids: tuple[int, int]) -> list[tuple[int, float]]:
        return fts.ranked(connection, query, fetch, vectors.view, rowids, prune=False)

    def rest_of_keywords() -> list[tuple[int, float]]:  # where the companion could not prune
        return ranked_apart(conn, rest) if rest and decided.wait() and pruned == [False] else []

    def extra_vectors() -> _Extra | None:
        return _Extra(early, pending.result()) if early and pending else None

    def beside_legs(second: Connection) -> tuple[list[tuple[int, float]], Nearest | None]:
        if first is None:
            words = fts.ranked(second, query, fetch, vectors.view)
        else:
            try:
                whole = fts.pruned(second, query, fetch, vectors.view)
                pruned.append(whole is not None)
            finally:
                decided.set()
            words = whole if whole is not None else ranked_apart(second, first)
        if dated is None or not dated_taken.acquire(blocking=False):
            return words, None
        refreshed.wait()  # the index as this search's thread refreshed it
        inside = _nearest(second, vectors, embedding.result(), limit, dated.span, extra_vectors())
        return words, inside

    keywords = _KEYWORD_LEGS.submit(beside_legs, beside) if beside else None
    dated_vector: Nearest | None = None
    try:
        query_vector = embedding.result()
        vectors.refresh(conn)
        refreshed.set()
        extra = extra_vectors()
        vector = _nearest(conn, vectors, query_vector, limit, extra=extra)
        # What this thread does next depends on the companion. Where it could not prune,
        # the rest of the keywords come first (the companion takes the period's vectors
        # after its own range); while it is still pruning, the period's vectors and the
        # candidates so far are looked up before waiting for its verdict.
        later = rest_of_keywords() if decided.is_set() else None
        if dated is not None and dated_taken.acquire(blocking=False):
            dated_vector = _nearest(conn, vectors, query_vector, limit, dated.span, extra)
        # While the companion is still ranking: its candidates are all that is left.
        waiting = keywords is not None and not keywords.done()
        early_ids = _ids(vector, strong, dated_vector) if waiting else []
        found = index_reads.dated_chunks(conn, early_ids, filters)
        if later is None:
            later = rest_of_keywords()
    except BaseException:
        refreshed.set()
        if keywords:  # the companion is free for the next search only once it is done
            wait([keywords])
        raise
    if keywords:
        words, inside = keywords.result()
        dated_vector = inside if inside is not None else dated_vector
        unfiltered = fts.merged(words, later, fetch)
    else:
        unfiltered = fts.ranked(conn, query, fetch, vectors.view)
    # Every leg's candidates looked up once, with their documents' dates for the period.
    checked = set(early_ids)
    rest_ids = [c for c in _ids(unfiltered, strong, dated_vector, vector) if c not in checked]
    found.update(index_reads.dated_chunks(conn, rest_ids, filters))
    sections = {chunk_id: section for chunk_id, (section, _) in found.items()}
    keyword_ids = [chunk_id for chunk_id, _ in unfiltered if chunk_id in sections][:limit]
    keyword_scores = dict(unfiltered)
    if len(unfiltered) == fetch and len(keyword_ids) < limit:
        joined = fts.joined(conn, query, filters, limit, vectors.view)
        keyword_ids = [chunk_id for chunk_id, _ in joined]
        keyword_scores.update(joined)
        sections.update(index_reads.visible_chunks(conn, keyword_ids, filters))
    similarity = dict(vector)
    vector_ids = [chunk_id for chunk_id, _ in vector if chunk_id in sections][:limit]
    strong_ids = [chunk_id for chunk_id in strong if chunk_id in sections][:limit]
    rankings = [keyword_ids, vector_ids, strong_ids]
    weights = [
        KEYWORD_WEIGHT,
        VECTOR_WEIGHT,
        STRONG_WEIGHT if strong_weight is None else strong_weight,
    ]
    if dated is not None:
        ranked_words = [chunk_id for chunk_id, _ in unfiltered]
        assert dated_vector is not None  # ranked by whichever thread took `dated_taken`
        created = {chunk_id: at for chunk_id, (_, at) in found.items()}
        rankings += _dated_legs(ranked_words, dated_vector, dated.span, created, limit, similarity)
        weights += [KEYWORD_WEIGHT, VECTOR_WEIGHT]
    keyword_rank = {chunk_id: rank for rank, chunk_id in enumerate(keyword_ids)}
    vector_rank = {chunk_id: rank for rank, chunk_id in enumerate(vector_ids)}
    strong_similarity = strong_similarity or {}
    hits = [
        ChunkHit(
            chunk_id,
            sections[chunk_id],
            score,
            keyword_rank.get(chunk_id),
            vector_rank.get(chunk_id),
            keyword_scores.get(chunk_id),
            similarity.get(chunk_id),
            strong_similarity.get(chunk_id),
        )
        for chunk_id, score in fuse(rankings, weights=weights)
        if chunk_id in sections
    ]
    return hits[:limit]


def _ids(*rankings: Sequence[int] | Nearest | None) -> list[int]:
    """The chunk ids of these rankings (plain ids, or (id, score) pairs), each once."""
    ids: dict[int, None] = {}
    for ranking in rankings:
        for item in ranking or ():
            ids[item[0] if isinstance(item, tuple) else item] = None
    return list(ids)


@dataclass(frozen=True)
class _Extra:
    """Windows outside the index (queued, embedded at query time) and their vectors."""

    windows: EarlyWindows
    matrix: np.ndarray


Nearest = list[tuple[int, float]]  # chunk ids and cosine similarities, best first


def _nearest(
    conn: Connection,
    vectors: VectorIndex,
    query_vector: np.ndarray,
    limit: int,
    period: tuple[int, int] | None = None,
    extra: _Extra | None = None,
) -> Nearest:
    """The vector leg: the nearest chunks (over-fetched, to survive filtering) that are
    related text at all, best first; `extra` windows compete with the index's."""
    fetch = limit * VECTOR_OVERFETCH
    found = vectors.search(query_vector, fetch, period, conn=conn)
    if extra is not None:
        scores = extra.matrix @ query_vector.astype(np.float32)
        keep = np.ones(len(scores), dtype=bool)
        if period is not None:
            created = extra.windows.created
            keep = (created >= period[0]) & (created < period[1])
        ids = extra.windows.ids
        found = sorted(
            found + [(int(ids[i]), float(scores[i])) for i in np.flatnonzero(keep)],
            key=lambda pair: -pair[1],
        )[:fetch]
    return [
        (chunk_id, similarity) for chunk_id, similarity in found if similarity >= MIN_SIMILARITY
    ]


def _dated_legs(
    keyword: list[int],
    vector: Nearest,
    period: tuple[int, int],
    created: Mapping[int, int],
    limit: int,
    similarity: dict[int, float],
) -> list[list[int]]:
    """Both legs ranked again among chunks of documents created inside `period`: the
    keyword leg's own best rows that fall inside, and the exact vector ranking inside the
    period (`vector`; `similarity` learns their cosine). `created` holds the visible
    candidates' document dates."""
    start, end = period
    inside = {chunk_id for chunk_id, at in created.items() if start <= at < end}
    similarity.update(vector)
    return [
        [chunk_id for chunk_id in keyword if chunk_id in inside][:limit],
        [chunk_id for chunk_id, _ in vector if chunk_id in inside][:limit],
    ]
