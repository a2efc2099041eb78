"""The vector leg against an exact float32 scan: recall@10 and CPU time, on kept vaults.

    python -m benchmarks.perf --recall FILE [FILE ...] [--view plain|masked] [--json]

Each FILE is a vault `benchmarks.perf --sections N --keep FILE` built. Opened read-only
(a vault written before the residual codes were added needs one search by this code
first, which adds them). For the benchmark's queries (`scale.queries()`: the corpus's
questions, alone and with a month and year), embedded by the real model:

* recall@10: the share of the leg's ten best (`VectorIndex.search(v, 10)`) that are among
  the exact ten best of a float32 scan of every vector of the view (`chunks_vec`; for the
  masked view a chunk's masked vector where it has one); ties with the tenth count;
* the leg's CPU time (process time: the machine may be shared) asked for 240 rows (what a
  search asks: candidates x over-fetch) and for 10, p50 / p95 / max in ms, with numpy's
  BLAS on one thread as `privault serve` runs it (a multi-threaded matrix product's
  spinning helper thread would be counted as the leg's CPU).

Vaults are taken query by query in turn, so their figures share the machine's load.
The module runs on any privault that has `VectorIndex(dim, view)`, so the same command
with an older checkout first on `PYTHONPATH` gives the before figures.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack, closing
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks import corpus
from benchmarks.scale import _load, _summary, keep_best, queries, recall_at
from privault.retrieval.embedder import Embedder
from privault.retrieval.vectors import VectorIndex
from privault.store.connection import Connection, connect
from privault.vault.embedding import default_embedder

SEARCH_K = 240  # what a search asks the leg for (CANDIDATES x VECTOR_OVERFETCH)
ROUNDS = 2  # timed passes over the queries


def exact_top(
    conn: Connection, vectors: np.ndarray, k: int, dim: int, view: str
) -> list[dict[int, float]]:
    """For each query vector, the exact cosine of its `k` best chunks in `view`: one pass
    over `chunks_vec` in its own order, a batch at a time (vectors are unit length)."""
    masked: dict[int, bytes] = {}
    if view == "masked":
        masked = dict(
            conn.execute("SELECT chunk_id, embedding FROM masked_chunks WHERE length(embedding)")
        )
    best: list[dict[int, float]] = [{} for _ in range(len(vectors))]
    cursor = conn.execute("SELECT rowid, embedding FROM chunks_vec")
    while batch := cursor.fetchmany(20_000):
        ids = np.fromiter((row[0] for row in batch), np.int64, len(batch))
        blobs = b"".join(masked.get(int(chunk_id), blob) for chunk_id, blob in batch)
        rows = np.frombuffer(blobs, dtype=np.float32).reshape(len(batch), dim)
        keep_best(best, ids, rows @ vectors.T, k)
    return best


def _cpu_laps(
    indexes: Sequence[tuple[Connection, VectorIndex]], vectors: np.ndarray, k: int
) -> list[list[float]]:
    """Per vault, the CPU ms of `search(v, k)` for every query, vaults in turn."""
    laps: list[list[float]] = [[] for _ in indexes]
    for _ in range(ROUNDS):
        for vector in vectors:
            for i, (conn, index) in enumerate(indexes):
                started = time.process_time()
                index.search(vector, k, conn=conn)
                laps[i].append((time.process_time() - started) * 1000)
    return laps


def measure(
    paths: Sequence[Path], models: Path, view: str = "plain", embedder: Embedder | None = None
) -> dict[str, Any]:
    """Recall@10 and the leg's CPU time on each vault at `paths` (see the module doc);
    queries are embedded by the real model unless `embedder` is given (tests)."""
    out: dict[str, Any] = {"load_average_start": _load(), "view": view}
    embedder = embedder or default_embedder(models)
    with threadpool_limits(limits=1, user_api="blas"):
        out["vaults"] = _measure(paths, embedder, view)
    out["load_average_end"] = _load()
    return out


def _measure(paths: Sequence[Path], embedder: Embedder, view: str) -> list[dict[str, Any]]:
    """The figures of each vault (`measure`)."""
    asked = queries()
    undated = len(corpus.QUERIES)  # `queries()`: the questions, then each with a date
    vectors = np.stack([embedder.embed_query(q) for q in asked]).astype(np.float32)
    with ExitStack() as stack:
        conns = [stack.enter_context(closing(connect(p, readonly=True))) for p in paths]
        indexes = []
        for conn in conns:
            index = VectorIndex(embedder.dim, view)
            index.refresh(conn)
            indexes.append((conn, index))
        vaults = []
        for path, (conn, index) in zip(paths, indexes, strict=True):
            exact = exact_top(conn, vectors, 10, embedder.dim, view)
            recalls = [
                recall_at([cid for cid, _ in index.search(v, 10, conn=conn)], best, 10)
                for v, best in zip(vectors, exact, strict=True)
            ]
            vaults.append(
                {
                    "vault": str(path),
                    "rows": len(index),
                    "queries": len(asked),
                    "recall_at_10": round(statistics.mean(recalls), 4),
                    "recall_at_10_min": round(min(recalls), 4),
                    # the corpus's questions alone (what `--keep` reports), then dated
                    "recall_at_10_undated": round(statistics.mean(recalls[:undated]), 4),
                    "recall_at_10_dated": round(statistics.mean(recalls[undated:]), 4),
                    "missed_of_top_10": round(sum(10 - 10 * r for r in recalls)),
                }
            )
        for k in (SEARCH_K, 10):
            for figures, laps in zip(vaults, _cpu_laps(indexes, vectors, k), strict=True):
                figures[f"leg_cpu_ms_k{k}"] = _summary(laps)
    return vaults


def render(result: dict[str, Any], write: Callable[[str], Any] = print) -> None:
    """The figures as text, a line per vault."""
    for figures in result["vaults"]:
        search, ten = figures[f"leg_cpu_ms_k{SEARCH_K}"], figures["leg_cpu_ms_k10"]
        write(
            f"{figures['vault']}: {figures['rows']} rows, recall@10 {figures['recall_at_10']}"
            f" (min {figures['recall_at_10_min']}, {figures['missed_of_top_10']} missed),"
            f" leg CPU ms k={SEARCH_K} p50 {search['p50']} p95 {search['p95']},"
            f" k=10 p50 {ten['p50']} p95 {ten['p95']}"
        )
    write(f"load average {result['load_average_start']} -> {result['load_average_end']}")
