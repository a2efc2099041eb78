"""The at-size half of `benchmarks.perf`: a realistic vault built through the write path.

    python -m benchmarks.perf --sections 1000000 --keep FILE [--json]

Builds `FILE` (or grows it, or reuses it when it already holds `--sections`) from the
archive of `benchmarks.corpus` — mails, chat turns and notes over ten years — through
`Vault.note_many`: real sectioning and chunking, keyword rows, PII spans, masked entries,
one transaction a batch. Two engines are stand-ins, to make a million sections buildable
on two shared cores (the real ones ran at ~18 sections/s here: 15 hours):

* the PII scan is the regex detector (`FakeDetector`: addresses, phone numbers, titles
  with names), not spaCy;
* passages are embedded by `ProxyEmbedder`: each sentence with its names, places, days
  and numbers replaced by one word per kind is embedded once by the real model, a
  window's vector is the normalised sum of its sentences' plus a small deterministic
  jitter of its exact text. The geometry is the real model's (topics cluster, queries
  embedded by the real model land among them), at the cost of a few hundred distinct
  sentences. Queries are always embedded by the real model.

The read path does not depend on which engines wrote the rows.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import corpus
from privault.caller import Caller
from privault.errors import ModelError
from privault.privacy.detector import Detector, FakeDetector
from privault.retrieval import fts
from privault.retrieval.embedder import Embedder
from privault.store.index_reads import Filters
from privault.vault import Vault
from privault.vault.embedding import default_embedder

BUILD_BATCH = 500  # documents per `note_many` call (one transaction each)
UNLOAD_AFTER = 5.0  # seconds: the serve probe measures what is held once the answerer is unloaded
JITTER = 0.35  # norm of a window's own jitter against its unit sentence sum (cos ~0.94)

_KINDS = {
    **{w: "Anna" for w in corpus.PEOPLE},
    **{w: "Baker" for w in corpus.SURNAMES},
    **{w: "Lisbon" for w in corpus.PLACES},
    **{w: "Monday" for w in corpus.DAYS},
    **{w: "May" for w in corpus.MONTHS},
}
_WORDS = re.compile(r"[A-Za-z]+|\d+(?::\d+)?|\S")
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")


def canonical(sentence: str) -> str:
    """A sentence with each slot value replaced by one word of its kind."""
    return " ".join(
        "7" if word[0].isdigit() else _KINDS.get(word, word) for word in _WORDS.findall(sentence)
    )


class ProxyEmbedder:
    """Passages embedded as sums of their (canonical) sentences' real vectors, plus a
    jitter of their own; queries by the real model. See the module docstring."""

    def __init__(self, real: Embedder) -> None:
        self.real = real
        self.name = real.name  # the file is read with the real model
        self.dim = real.dim
        self._sentences: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        parts = [[canonical(s) for s in _SENTENCES.split(t) if s.strip()] for t in texts]
        missing = sorted({p for ps in parts for p in ps} - self._sentences.keys())
        if missing:
            self._sentences.update(zip(missing, self.real.embed(missing), strict=True))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, (text, sentences) in enumerate(zip(texts, parts, strict=True)):
            base = sum((self._sentences[p] for p in sentences), np.zeros(self.dim, np.float32))
            base = base / max(float(np.linalg.norm(base)), 1e-9)
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
            jitter = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
            vector = base + jitter * (JITTER / np.sqrt(self.dim))
            out[row] = vector / np.linalg.norm(vector)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self.real.embed_query(text)

    def count_tokens(self, text: str) -> int:
        return self.real.count_tokens(text)


def build(path: Path, sections: int, models: Path, *, progress: bool = True) -> dict[str, float]:
    """Grow the vault at `path` to at least `sections` sections; documents are numbered, so
    a build stopped part way (or grown later) continues where it left off."""
    owner = Caller.owner()
    started = time.perf_counter()
    added = 0
    proxy = ProxyEmbedder(default_embedder(models))
    with Vault.open(
        path, models_dir=models, embedder=proxy, detector_factory=FakeDetector
    ) as vault:
        have = vault.status().sections
        number = vault.status().documents
        first = number
        while have < sections:
            batch = []
            while have < sections and len(batch) < BUILD_BATCH:
                batch.append(corpus.document(number))
                have += corpus.shape(number).sections
                number += 1
            vault.note_many(batch, caller=owner)
            added += len(batch)
            if progress:
                rate = added / max(time.perf_counter() - started, 1e-9)
                print(
                    f"\r{have} sections, {number - first} documents added ({rate:.0f}/s)",
                    end="",
                    file=sys.stderr,
                    flush=True,
                )
        if progress and added:
            print(file=sys.stderr)
        held = vault.status().sections
    return {
        "sections": held,
        "documents_added": added,
        "build_seconds": round(time.perf_counter() - started, 1),
    }


def _laps(function: Callable[[], Any], items: Sequence[Any]) -> list[float]:
    laps = []
    for item in items:
        started = time.perf_counter()
        function(item)
        laps.append((time.perf_counter() - started) * 1000)
    return laps


def _summary(laps: list[float]) -> dict[str, float]:
    ordered = sorted(laps)
    return {
        "p50": round(statistics.median(ordered), 2),
        "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
        "max": round(ordered[-1], 2),
    }


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def queries() -> list[str]:
    """The benchmark's queries: the corpus's questions, and each with a month and year."""
    plain = list(corpus.QUERIES)
    dated = [
        f"{q} in {corpus.MONTHS[i % 12]} {2016 + i % 10}" for i, q in enumerate(corpus.QUERIES)
    ]
    return plain + dated


def exact_top(conn: Any, vectors: np.ndarray, k: int, dim: int) -> list[dict[int, float]]:
    """For each query vector, the exact float32 cosine of its `k` best chunks: one pass
    over `chunks_vec`'s blocks (the layout `index_reads` reads), a block at a time."""
    best: list[dict[int, float]] = [{} for _ in range(len(vectors))]
    cursor = conn.execute(
        "SELECT c.size, c.validity, c.rowids, v.vectors FROM chunks_vec_chunks c "
        "JOIN chunks_vec_vector_chunks00 v ON v.rowid = c.chunk_id ORDER BY c.chunk_id"
    )
    for size, validity, rowids, blob in cursor:
        bits = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")
        valid = bits[:size].astype(bool)
        ids = np.frombuffer(rowids, dtype=np.int64)[valid]
        rows = np.frombuffer(blob, dtype=np.float32).reshape(size, dim)[valid]
        keep_best(best, ids, rows @ vectors.T, k)
    return best


def keep_best(best: list[dict[int, float]], ids: np.ndarray, scores: np.ndarray, k: int) -> None:
    """Merge a batch's scores (rows x queries) into each query's `k` best (id → score)."""
    for q in range(scores.shape[1]):
        column = scores[:, q]
        top = np.argpartition(-column, min(k, len(column) - 1))[:k]
        merged = best[q] | {int(ids[i]): float(column[i]) for i in top}
        best[q] = dict(sorted(merged.items(), key=lambda pair: -pair[1])[:k])


def recall_at(found: Sequence[int], exact: dict[int, float], k: int) -> float:
    """Share of `found`'s first `k` that are among the exact `k` best (a chunk scoring as
    high as the exact k-th counts: ties have no order)."""
    if not exact:
        return 1.0
    tenth = min(exact.values())
    chosen = list(found)[:k]
    return sum(exact.get(cid, -2.0) >= tenth - 1e-6 or cid in exact for cid in chosen) / k


def report(path: Path, models: Path, *, backlog: int, strong_windows: int) -> dict[str, Any]:
    """What the vault at `path` measures like (see `benchmarks.perf`)."""
    owner = Caller.owner()
    result: dict[str, Any] = {"load_average_start": _load()}
    with Vault.open(path, models_dir=models, detector_factory=FakeDetector) as vault:
        conn = vault.conn
        status_laps = _laps(lambda _: vault.status(), range(3))
        status = vault.status()
        result["sections"] = status.sections
        result["chunks"] = status.chunks
        result["documents"] = status.documents
        size = sum(
            os.path.getsize(f"{path}{suffix}")
            for suffix in ("", "-wal")
            if os.path.exists(f"{path}{suffix}")
        )
        result["file_bytes_per_section"] = round(size / max(status.sections, 1))
        result["file_megabytes"] = round(size / 1e6, 1)
        result["status_ms"] = _summary(status_laps)
        _note(result)
        started = time.perf_counter()
        index = vault.vectors
        index.refresh(conn)  # codes made for rows written before them, then the mirror
        result["index_load_seconds"] = round(time.perf_counter() - started, 2)
        result["index_resident_megabytes"] = round(index.resident_bytes / 1e6, 1)
        asked = queries()
        vault.search("warm up", caller=owner)
        result["search_ms"] = _summary(_laps(lambda q: vault.search(q, caller=owner), asked))
        result["search_ms_again"] = _summary(_laps(lambda q: vault.search(q, caller=owner), asked))
        _note(result)
        embedder = vault.embedder
        vectors = np.stack([embedder.embed_query(q) for q in corpus.QUERIES])
        k = 60 * 4  # what `search` asks the leg for (CANDIDATES x VECTOR_OVERFETCH)
        result["vector_leg_ms"] = _summary(
            _laps(lambda v: index.search(v, k, conn=conn), list(vectors))
        )
        result["fts_leg_ms"] = _summary(
            _laps(lambda q: fts.search(conn, q, Filters(), 60), list(corpus.QUERIES))
        )
        exact = exact_top(conn, vectors, 10, embedder.dim)
        recalls = [
            recall_at([cid for cid, _ in index.search(v, 10, conn=conn)], best, 10)
            for v, best in zip(vectors, exact, strict=True)
        ]
        result["vector_recall_at_10"] = round(statistics.mean(recalls), 4)
        result["vector_recall_at_10_min"] = round(min(recalls), 4)
        _note(result)
        result["docs_page_ms"] = _summary(
            _laps(lambda _: vault.docs(caller=owner, limit=100), range(5))
        )
        if strong_windows:
            result["strong"] = _strong(vault, owner, strong_windows, asked)
            _note(result)
        if backlog:
            result["backlog"] = _backlog(vault, owner, backlog, asked)
            _note(result)
    result["rss"] = {
        "warm_searcher": _probe(path, models, strong=False, chat=False),
        "serve_both_models": _probe(path, models, strong=True, chat=True),
    }
    result["load_average_end"] = _load()
    return result


def _note(result: dict[str, Any]) -> None:
    """The figures so far, on stderr: a long run that is stopped still says something."""
    print(json.dumps(result), file=sys.stderr, flush=True)


def _strong(vault: Vault, owner: Caller, windows: int, asked: list[str]) -> dict[str, Any]:
    """Context latency with the strong leg, after the strong pass covered `windows` more."""
    started = time.perf_counter()
    done = vault.strong.index(caller=owner, limit=windows)
    seconds = time.perf_counter() - started
    from privault.store import strong_index

    covered, total = strong_index.coverage(vault.conn)
    vault.context("warm up", caller=owner)
    laps = _laps(lambda q: vault.context(q, caller=owner), asked[: len(corpus.QUERIES)])
    return {
        "windows_this_run": done.windows,
        "pass_windows_per_second": round(done.windows / max(seconds, 1e-9), 2),
        "coverage": round(covered / max(total, 1), 5),
        "context_ms": _summary(laps),
    }


def _backlog(vault: Vault, owner: Caller, sections: int, asked: list[str]) -> dict[str, Any]:
    """Search latency with `sections` queued for the indexer, against idle (same run)."""
    idle = _summary(_laps(lambda q: vault.search(q, caller=owner), asked))
    number = 10**8  # documents of their own, apart from the vault's numbering
    queued, docs = 0, []
    while queued < sections:
        batch = [corpus.document(number + i) for i in range(200)]
        number += 200
        added = vault.note_many(batch, caller=owner, background=True)
        docs += [a.doc_id for a in added if a.status == "added"]
        queued = vault.status().indexing.sections
    busy = _summary(_laps(lambda q: vault.search(q, caller=owner), asked))
    found = vault.search(corpus.QUERIES[0], caller=owner)
    # The backlog's documents go again (the vault keeps its size): forgetting, measured.
    forgotten = _laps(lambda doc_id: vault.forget(doc_id, caller=owner), docs)
    return {
        "queued_sections": queued,
        "idle_search_ms": idle,
        "queued_search_ms": busy,
        "p95_ratio": round(busy["p95"] / idle["p95"], 2),
        "reported_unsearchable": found.unsearchable,
        "forget_queued_document_ms": _summary(forgotten),
        "forgotten_documents": len(docs),
    }


def _probe(path: Path, models: Path, *, strong: bool, chat: bool) -> dict[str, Any]:
    """Resident memory of a fresh process that opened the vault and searched, as the warm
    searcher does; with `strong` and `chat` also holding both models, as `serve` does."""
    return in_child("benchmarks.scale", "probe_child", path, models, int(strong), int(chat))


def in_child(module: str, function: str, *args: object) -> dict[str, Any]:
    """`module.function(*args)` (args as strings) in a fresh Python process: its JSON
    result, or {"error": its last line of stderr}."""
    code = (
        f"import json, sys; from {module} import {function}; "
        f"print(json.dumps({function}(*sys.argv[1:])))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1:]}
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _rss() -> dict[str, float]:
    """This process's resident memory, and its child processes' (the model workers)."""
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = round(int(value.split()[0]) / 1024, 1)
    workers = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            if parent == os.getpid():
                status = (stat.parent / "status").read_text()
                workers += int(status.split("VmRSS:")[1].split()[0]) / 1024
        except (OSError, IndexError, ValueError):
            continue
    return {
        "rss_mb": fields.get("VmRSS", 0.0),
        "peak_mb": fields.get("VmHWM", 0.0),
        "workers_rss_mb": round(workers, 1),
    }


def probe_child(path: str, models: str, strong: str, chat: str) -> dict[str, Any]:
    """The body of `_probe`, run in the child. As `serve` (`chat`), it loads the real PII
    detector too, as serve does at start; the warm searcher is measured without it."""
    owner = Caller.owner()
    with Vault.open(
        Path(path),
        models_dir=Path(models),
        detector_factory=Detector if chat == "1" else FakeDetector,
        chat_unload_after=UNLOAD_AFTER,
    ) as vault:
        if chat == "1":
            vault.privacy.detector.detect("Warm up with Dana Lee in Paris.")
        for query in corpus.QUERIES[:5]:
            vault.search(query, caller=owner)
        out: dict[str, Any] = {"after_searches": _rss()}
        if strong == "1":
            for query in corpus.QUERIES[:5]:
                vault.context(query, caller=owner)
            # Loaded even where no window has a strong vector yet (`context` then skips it).
            engine = vault.shared.engines.strong
            if engine is not None:
                engine.embed_query(corpus.QUERIES[0])
            out["with_strong_model"] = {**_rss(), "loaded": engine is not None}
        if chat == "1":
            try:
                vault.load_chat_model()
            except ModelError as error:  # not installed: the figures so far still count
                out["with_chat_model"] = {"error": str(error)}
                return out
            out["with_chat_model"] = _rss()
            wait_unloaded(vault, UNLOAD_AFTER)
            out["after_the_answerer_is_unloaded"] = _rss()
    return out


def wait_unloaded(vault: Vault, unload_after: float) -> None:
    """Until the answerer's worker has gone (the vault's `chat_unload_after` seconds)."""
    ends = time.monotonic() + unload_after + 60
    while vault.asking.chat.health().state != "idle":
        if time.monotonic() > ends:
            raise RuntimeError("the answerer was not unloaded")
        time.sleep(0.2)


def run(args: Any) -> dict[str, Any]:
    """`benchmarks.perf --keep FILE`: build or grow the vault, then measure it."""
    built = build(args.keep, args.sections, args.models)
    measured = report(
        args.keep, args.models, backlog=args.backlog, strong_windows=args.strong_windows
    )
    return {"build": built, **measured, "vault": str(args.keep)}
