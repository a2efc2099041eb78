"""The strong leg's index at a size the strong pass does not reach here.

    python -m benchmarks.strong_index --data S100.db [--rows N] [--queries 60] [--context] [--json]

The strong pass embeds 3–9 windows a second on 2 cores, so a vault of 100,000 windows
with complete strong coverage takes hours to build. This benchmark copies a kept vault
(`benchmarks.perf --sections N --keep FILE`), gives its first `--rows` windows strong
rows made from their MiniLM vectors lifted to 768 dimensions by a fixed random projection
(the geometry of real embeddings, not of the strong model's), and measures the strong
index both ways, alternating query by query: the float32 matrix in memory (what it does
up to `EXACT_ROWS` windows) and sign bits with a shortlist read back from the file as
int8 codes, its best few as vectors (what it does beyond; the rows are written as the
strong pass writes them, codes included). Reported: search p50 / p95, first load,
resident bytes, and how many of the exact scan's top 10 / top 50 the shortlist keeps.
Queries are windows' own vectors with a little noise (near duplicates: easy for both
ways). With `--context`, `context` with the strong leg is timed too, the strong model
embedding each of the benchmark's queries (with `--rows`, the leg ranks as while its pass
is partial).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import scale
from benchmarks.scale import _load, _summary
from privault import Caller, Vault
from privault.privacy.detector import FakeDetector
from privault.retrieval import strong_vectors
from privault.retrieval.strong import DEFAULT_STRONG_MODEL, index_name
from privault.retrieval.strong_vectors import StrongIndex
from privault.store import index_reads, strong_codes, strong_index
from privault.store.connection import connect
from privault.store.migrations import migrate

DIM = 768
K = 240  # what `context` asks the strong leg for (limit × VECTOR_OVERFETCH)


def lifted(vectors: np.ndarray, seed: int = 0) -> np.ndarray:
    """Unit vectors of DIM dimensions: `vectors` through a fixed random projection."""
    projection = np.random.default_rng(seed).standard_normal((vectors.shape[1], DIM))
    rows = vectors @ projection.astype(np.float32)
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def fill(path: Path, rows: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Strong rows for the first `rows` windows of the vault at `path`; (ids, vectors)."""
    conn = connect(path)
    migrate(conn)  # a kept vault may predate the tables the pass writes
    # The rows stand in for the default strong model's, so `context` ranks with them.
    strong_index.claim(conn, index_name(DEFAULT_STRONG_MODEL))
    ids, fast = index_reads.vectors_after(conn, 0, 384)
    ids, fast = ids[:rows], fast[:rows]
    vectors = lifted(fast)
    for start in range(0, len(ids), 5000):
        batch = [
            (int(cid), row.tobytes(), hashlib.sha256(row.tobytes()).digest())
            for cid, row in zip(
                ids[start : start + 5000], vectors[start : start + 5000], strict=True
            )
        ]
        strong_index.store(
            conn,
            {digest: blob for _, blob, digest in batch},
            [(cid, digest, None) for cid, _, digest in batch],
        )
    while strong_codes.fill_some(conn) is not None:  # rows the vault had: as the indexer does
        pass
    conn.close()
    return ids, vectors


def measure(path: Path, ids: np.ndarray, vectors: np.ndarray, queries: int) -> dict[str, Any]:
    rng = np.random.default_rng(5)
    picked = vectors[rng.choice(len(ids), queries, replace=False)]
    asked = picked + rng.standard_normal(picked.shape).astype(np.float32) * 0.02
    asked /= np.linalg.norm(asked, axis=1, keepdims=True)
    conn = connect(path, readonly=True)
    shipped = strong_vectors.EXACT_ROWS
    indexes, loads = {}, {}
    for name, exact_rows in (("in_memory", 2**62), ("sign_bits", 0)):
        strong_vectors.EXACT_ROWS = exact_rows
        started = time.perf_counter()
        index = StrongIndex(DIM)
        index.refresh(conn)
        loads[name] = round(time.perf_counter() - started, 2)
        indexes[name] = index
    strong_vectors.EXACT_ROWS = shipped
    laps: dict[str, list[float]] = {name: [] for name in indexes}
    found: dict[str, list[list[int]]] = {name: [] for name in indexes}
    for query in asked:
        for name, index in indexes.items():
            started = time.perf_counter()
            best = index.search(query, K, conn=conn)
            laps[name].append((time.perf_counter() - started) * 1000)
            found[name].append([cid for cid, _ in best])
    overlap = {
        f"top_{n}": round(
            float(
                np.mean(
                    [
                        len(set(a[:n]) & set(b[:n])) / n
                        for a, b in zip(found["sign_bits"], found["in_memory"], strict=True)
                    ]
                )
            ),
            4,
        )
        for n in (10, 50)
    }
    conn.close()
    return {
        name: {
            "search_ms": _summary(laps[name]),
            "first_load_seconds": loads[name],
            "resident_megabytes": round(indexes[name].resident_bytes / 1e6, 1),
        }
        for name in indexes
    } | {"sign_bits_keeps_of_the_exact": overlap}


def context_timing(path: Path, models: Path, queries: int) -> dict[str, Any]:
    """`context` as the owner, with the strong leg, over the vault at `path` (the windows
    `fill` gave strong rows: every one, or with `--rows` the first ones, and the leg ranks
    as while its pass is partial): the first call of the process (it loads the strong
    index) and p50 / p95 over the benchmark's queries. The strong model embeds each query
    for real; ranking quality means nothing here (the rows are projections)."""
    with Vault.open(path, models_dir=models, detector_factory=FakeDetector) as vault:
        coverage = vault.strong.coverage()
        built_by = strong_index.built_by(vault.conn)
        if coverage.model is None or not coverage.covered or built_by != index_name(coverage.model):
            return {
                "context": f"not measured: strong coverage {coverage.covered} of "
                f"{coverage.windows}, rows of {built_by}, model {coverage.model}"
            }
        owner = Caller.owner()
        started = time.perf_counter()
        vault.context("warm up", caller=owner)
        first = time.perf_counter() - started
        laps = []
        for query in scale.queries()[:queries]:
            started = time.perf_counter()
            vault.context(query, caller=owner)
            laps.append((time.perf_counter() - started) * 1000)
    return {
        "context_ms": _summary(laps),
        "first_context_seconds": round(first, 2),
        "context_strong_coverage": round(coverage.covered / coverage.windows, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a kept vault (copied)")
    parser.add_argument("--rows", type=int, default=None, help="windows given strong rows")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument(
        "--context", action="store_true", help="also time `context` with the strong leg"
    )
    parser.add_argument("--models", type=Path, default=Path.home() / ".privault" / "models")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    out: dict[str, Any] = {"load_average_start": _load(), "vault": str(args.data)}
    with tempfile.TemporaryDirectory(dir=args.data.parent) as folder:
        copy = Path(folder) / "strong.db"
        shutil.copyfile(args.data, copy)
        ids, vectors = fill(copy, args.rows)
        out["windows"] = len(ids)
        out |= measure(copy, ids, vectors, args.queries)
        del vectors
        if args.context:
            out |= context_timing(copy, args.models, args.queries)
    out["load_average_end"] = _load()
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        for key, value in out.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
