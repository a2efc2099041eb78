"""Performance benchmark: search latency on a large synthetic vault, and bulk ingest rate.

    python -m benchmarks.perf --sections 100000 [--json] [--data WORDLIST] [--queries N]
        [--long-words N] [--strong N] [--strong-threads T]
    python -m benchmarks.perf --sections 1000000 --keep FILE [--backlog 10000]
        [--strong-windows N] [--json]
    python -m benchmarks.perf --compare SMALL_FILE LARGE_FILE [--json]
    python -m benchmarks.perf --recall FILE [FILE ...] [--view plain|masked] [--json]

With `--keep`, the vault is realistic and kept (`benchmarks.scale`): built or grown in
FILE through the write path, then measured — search, context with the strong leg, the
vector leg's recall@10 against an exact scan, resident memory of a warm searcher and of a
serve-like process with both models, file size per section, `status`, the documents page,
and (`--backlog N`) search while N sections wait for the indexer. `--compare` measures kept
vaults of different sizes alternately, in one run (`benchmarks.growth`). `--recall` measures
the vector leg of kept vaults against an exact float32 scan: recall@10 and its CPU time
(`benchmarks.vector_recall`). What follows describes the default, synthetic run.

Builds a vault of `--sections` short sections (10 per document) from random Zipf-ish
sentences over a word list (`--data`, one word a line; a built-in vocabulary otherwise).
To keep the build short, most sections get random unit vectors written straight through
the store layer; `--ingest` notes (default 2,000) go through `Vault.note_many` with the real
embedder, which is also the ingest-rate figure. Queries are then run through
`Vault.search` as the owner, real query embedder included. Reported, measured in the same
run so ratios are fair on a shared machine:

* search p50/p95 (ms), query embedding included; the same queries with a month added
  ("... in March 2023"), which adds the dated ranking;
* vector leg p50 (`VectorIndex.search` alone) and the bandwidth floor: an exact float32
  numpy scan (`matrix @ query`) of the same vectors;
* FTS leg p50 (`fts.search` alone) and query-embedding p50;
* bulk ingest rate in notes per second (sectioning, embedding, PII scan and write) of
  short notes of 10-30 everyday words, in wall time and per CPU second of this process
  (`time.process_time`, every thread; on a machine shared with other work the CPU figure
  says what two free cores would do: `cpu_notes_per_second` = notes / CPU seconds × 2);
* with the strong model installed (`--strong N`, default 200; 0 skips): the rate of its
  background pass (`vault.strong.index`) over N windows of the ingested notes, in
  windows per second of wall time and CPU seconds per window, with `--strong-threads`
  threads (default 1, what `privault serve` uses); `search` never uses it, so the search
  figures above are the fast path whether it is installed or not;
* one long Markdown file (`--long-words`, default 40,000 words: about 90 pages, a heading
  every ~600 words, one sentence a line), in a vault of its own: the seconds until
  `Vault.add` returns with the file keyword-searchable (its PII scan and embedding left to
  the background indexer), and until the indexer has finished it — when gated callers
  can see it and every search leg finds it.

The write-time PII scan uses the regex-only detector unless `--detector real`. The load
average is reported at the start and the end: figures taken beside other work are slower.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from privault.caller import Caller
from privault.privacy.detector import FakeDetector
from privault.retrieval import fts, search
from privault.store import documents, index_reads, sections
from privault.store.connection import write
from privault.store.index_reads import Filters
from privault.vault import Vault
from privault.vault.embedding import PartedEmbedder, default_embedder

SECTIONS_PER_DOCUMENT = 10
LONG_SECTION_WORDS = 600  # the long document gets a heading about this often
# Synthetic documents are dated an hour apart from 2023-01-01, so a month names ~7% of a
# 100k-section vault and a day a few dozen documents: what the dated queries rank among.
SPREAD_START = 1_672_531_200_000
SPREAD_STEP = 3_600_000
MONTHS = "January February March April May June July August September October November December"
_COMMON = (
    "the of and to in is was for on with as by at from that this it be are have had not "
    "but or an they we you he she his her their our my your will would can could should "
    "meeting project garden budget kitchen invoice travel doctor school recipe contract "
    "bank flight hotel paint bike train coffee report plan review team client market price "
    "family friend birthday dinner weekend morning evening summer winter music book film "
    "city house car phone email letter note idea question answer problem reason result"
).split()


def vocabulary(path: Path | None, size: int = 20_000, seed: int = 7) -> list[str]:
    """Words, most frequent first: a given list, or common words plus made-up ones."""
    if path is not None:
        words = [w.strip() for w in path.read_text().splitlines() if w.strip()]
        return list(dict.fromkeys(words))
    rng = random.Random(seed)
    syllables = "ka lo mi ren to sa vel dor in ap ur ne bri ost cal fen mar tis quo".split()
    words = list(_COMMON)
    seen = set(words)
    while len(words) < size:
        word = "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


class Sentences:
    """Random sentences with Zipf-distributed words: a few very common, a long tail."""

    def __init__(self, words: list[str], seed: int = 11):
        self.words = words
        weights = 1.0 / np.arange(1, len(words) + 1) ** 1.05
        self.cumulative = np.cumsum(weights / weights.sum())
        self.rng = np.random.default_rng(seed)

    def draw(self, count: int) -> list[str]:
        picks = np.searchsorted(self.cumulative, self.rng.random(count))
        return [self.words[min(i, len(self.words) - 1)] for i in picks]

    def sentence(self, low: int = 8, high: int = 20) -> str:
        words = self.draw(int(self.rng.integers(low, high)))
        return " ".join(words).capitalize() + "."


def build_synthetic(vault: Vault, text: Sentences, count: int, dim: int) -> None:
    """`count` sections with random unit vectors, written through the store layer."""
    rng = np.random.default_rng(3)
    documents_needed = (count + SECTIONS_PER_DOCUMENT - 1) // SECTIONS_PER_DOCUMENT
    batch = 500
    for first in range(0, documents_needed, batch):
        with write(vault.conn):
            for number in range(first, min(first + batch, documents_needed)):
                doc_id = documents.new_id("d")
                title = f"Synthetic {number}"
                drafted = []
                for position in range(SECTIONS_PER_DOCUMENT):
                    body = " ".join(text.sentence() for _ in range(3))
                    vector = rng.standard_normal((1, dim)).astype(np.float32)
                    vector /= np.linalg.norm(vector)
                    drafted.append(
                        sections.IndexedSection(
                            path=str(position + 1),
                            parent_path=None,
                            position=position,
                            depth=1,
                            heading=f"Part {position + 1}",
                            breadcrumb=(title, f"Part {position + 1}"),
                            text=body,
                            start=0,
                            end=len(body),
                            chunks=((0, len(body), len(body.split())),),
                            chunk_texts=(f"{title} › Part {position + 1}\n{body}",),
                            vectors=vector,
                        )
                    )
                documents.insert_document(
                    vault.conn,
                    documents.Document(
                        id=doc_id,
                        kind="note",
                        title=title,
                        source=None,
                        shelf="default",
                        tags=(),
                        content_hash=f"synthetic-{number}",
                        created_at=SPREAD_START + number * SPREAD_STEP,
                        updated_at=SPREAD_START + number * SPREAD_STEP,
                        untrusted=False,
                        current=True,
                        previous_id=None,
                    ),
                    "",
                )
                sections.replace_sections(vault.conn, doc_id, drafted)


def timed(function: Callable[[], Any], repeat: int) -> list[float]:
    """Milliseconds of each of `repeat` calls."""
    laps = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        laps.append((time.perf_counter() - started) * 1000)
    return laps


def summary(laps: list[float]) -> dict[str, float]:
    ordered = sorted(laps)
    return {
        "p50": round(statistics.median(ordered), 2),
        "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    load_start = round(os.getloadavg()[0], 2)
    owner = Caller.owner()
    embedder = default_embedder(args.models)  # as a vault loads it
    text = Sentences(vocabulary(args.data))
    with tempfile.TemporaryDirectory() as folder:
        vault = Vault.open(
            Path(folder) / "perf.db", models_dir=args.models, embedder=embedder, **detector(args)
        )
        started = time.perf_counter()
        build_synthetic(vault, text, args.sections - args.ingest, embedder.dim)
        build_seconds = time.perf_counter() - started

        # Notes as people write them: real words (the made-up tail of the vocabulary costs
        # 3-4 word pieces a word, which no note does); tokens per note are reported.
        plain = Sentences(text.words[: len(_COMMON)], seed=5)
        notes = [{"text": plain.sentence(10, 30)} for _ in range(args.ingest)]
        note_tokens = statistics.mean(embedder.count_tokens(n["text"]) for n in notes)
        vault.note_many(notes[:10], caller=owner)  # warm: detector and session loaded
        started, cpu = time.perf_counter(), time.process_time()
        for first in range(10, len(notes), args.batch):
            vault.note_many(notes[first : first + args.batch], caller=owner)
        ingest_rate = (len(notes) - 10) / (time.perf_counter() - started)
        ingest_cpu = time.process_time() - cpu

        queries = [" ".join(text.draw(int(text.rng.integers(2, 6)))) for _ in range(args.queries)]
        vault.search("warm up the index", caller=owner)  # loads the in-memory matrix
        search_laps = [timed(lambda q=q: vault.search(q, caller=owner), 1)[0] for q in queries]
        months = MONTHS.split()
        dated = [f"{q} in {months[i % 12]} 2023" for i, q in enumerate(queries)]
        dated_laps = [timed(lambda q=q: vault.search(q, caller=owner), 1)[0] for q in dated]
        embed_laps = [timed(lambda q=q: embedder.embed_query(q), 1)[0] for q in queries]
        vectors = [embedder.embed_query(q) for q in queries]
        k = vault_candidates() * search.VECTOR_OVERFETCH
        conn = vault.conn
        vector_laps = [
            timed(lambda v=v: vault.vectors.search(v, k, conn=conn), 1)[0] for v in vectors
        ]
        matrix = index_reads.vectors_after(conn, 0, embedder.dim)[1]  # the same vectors
        floor_laps = [timed(lambda v=v: matrix @ v, 1)[0] for v in vectors]
        filters = Filters()
        fts_laps = [
            timed(lambda q=q: fts.search(vault.conn, q, filters, vault_candidates()), 1)[0]
            for q in queries
        ]
        strong = strong_rate(args, vault, owner)
        status = vault.status()
        vault.close()
        long_document = (
            add_long_document(args, embedder, plain, Path(folder)) if args.long_words else None
        )
    vector_p50 = statistics.median(vector_laps)
    floor_p50 = statistics.median(floor_laps)
    return {
        "sections": status.sections,
        "chunks": status.chunks,
        "vectors_in_memory": int(matrix.shape[0]),
        "build_seconds": round(build_seconds, 1),
        "queries": len(queries),
        "search_ms": summary(search_laps),
        "dated_search_ms": summary(dated_laps),
        "vector_leg_ms": summary(vector_laps),
        "floor_numpy_f32_ms": summary(floor_laps),
        "vector_leg_over_floor": round(vector_p50 / floor_p50, 2),
        "fts_leg_ms": summary(fts_laps),
        "query_embedding_ms": summary(embed_laps),
        "ingest_notes_per_second": round(ingest_rate, 1),
        "ingest_cpu_notes_per_second": round(2 * (len(notes) - 10) / ingest_cpu, 1),
        "ingest_notes": len(notes) - 10,
        "ingest_tokens_per_note": round(note_tokens, 1),
        "detector": args.detector,
        "long_document": long_document,
        "strong_index": strong,
        "load_average": {"start": load_start, "end": round(os.getloadavg()[0], 2)},
    }


def strong_rate(args: argparse.Namespace, vault: Vault, owner: Caller) -> dict[str, Any] | None:
    """Windows per second of the strong model's background pass over the ingested notes."""
    from privault.models import catalog
    from privault.models.handles import local_embedder
    from privault.retrieval.strong import DEFAULT_STRONG_MODEL

    if not args.strong or not catalog.is_installed(args.models, DEFAULT_STRONG_MODEL):
        return None
    engine = local_embedder(args.models, DEFAULT_STRONG_MODEL, threads=args.strong_threads)
    strong_vault = Vault.open(
        vault.path, models_dir=args.models, embedder=vault.embedder, strong_embedder=engine
    )
    try:
        strong_vault.strong.index(caller=owner, limit=8)  # warm up
        wall, cpu = time.perf_counter(), time.process_time()
        report = strong_vault.strong.index(caller=owner, limit=args.strong)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        strong_vault.close()
    return {
        "windows": report.windows,
        "threads": args.strong_threads,
        "windows_per_second": round(report.windows / wall, 2),
        "cpu_seconds_per_window": round(cpu / max(report.windows, 1), 4),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def add_long_document(
    args: argparse.Namespace, embedder: PartedEmbedder, text: Sentences, folder: Path
) -> dict[str, Any]:
    """Seconds `Vault.add` takes for one long Markdown file, in a fresh vault."""
    lines: list[str] = ["# A long document"]
    words = heading_words = 0
    while words < args.long_words:
        if heading_words >= LONG_SECTION_WORDS:
            lines += ["", f"## Part {len(lines)}", ""]
            heading_words = 0
        line = text.sentence(8, 30)
        lines.append(line)
        words += len(line.split())
        heading_words += len(line.split())
    path = folder / "long.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    vault = Vault.open(
        folder / "long.db", models_dir=args.models, embedder=embedder, **detector(args)
    )
    started, cpu = time.perf_counter(), time.process_time()
    vault.add([path], caller=Caller.owner(), background=True)
    searchable = time.perf_counter() - started
    probe = text.words[len(text.words) // 2]
    found = bool(vault.search(probe, caller=Caller.owner()).results)  # by its words already
    steps = 0
    while not vault.indexing.step(caller=Caller.owner()).idle:
        steps += 1
    indexed = time.perf_counter() - started
    cpu_seconds = time.process_time() - cpu
    status = vault.status()
    vault.close()
    return {
        "words": words,
        "sections": status.sections,
        "chunks": status.chunks,
        "keyword_searchable_seconds": round(searchable, 2),
        "found_by_its_words_before_indexing": found,
        "fully_indexed_seconds": round(indexed, 1),
        "indexer_batches": steps,
        "cpu_seconds": round(cpu_seconds, 1),
        "left_queued": status.indexing.sections,
        "words_per_second": round(words / indexed),
    }


def detector(args: argparse.Namespace) -> dict[str, Any]:
    """The detector the vault is opened with: the fake one unless `--detector real`."""
    return {"detector_factory": FakeDetector} if args.detector == "fake" else {}


def vault_candidates() -> int:
    """How many chunk candidates a search asks each leg for."""
    from privault.vault import finding

    return int(finding.CANDIDATES)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", type=int, default=100_000)
    parser.add_argument("--data", type=Path, default=None, help="word list, one word a line")
    parser.add_argument("--ingest", type=int, default=2000, help="notes embedded for real")
    parser.add_argument("--batch", type=int, default=500, help="notes per note_many call")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--models", type=Path, default=Path.home() / ".privault" / "models")
    parser.add_argument("--detector", choices=("fake", "real"), default="fake")
    parser.add_argument(
        "--long-words", type=int, default=40_000, help="words in the long file added (0: skip)"
    )
    parser.add_argument("--strong", type=int, default=200, help="windows for the strong rate")
    parser.add_argument("--strong-threads", type=int, default=1)
    parser.add_argument("--keep", type=Path, default=None, help="realistic vault: build/reuse")
    parser.add_argument("--backlog", type=int, default=0, help="with --keep: queued sections")
    parser.add_argument("--strong-windows", type=int, default=0, help="with --keep: strong pass")
    parser.add_argument(
        "--compare", type=Path, nargs="+", default=None, help="kept vaults, measured alternately"
    )
    parser.add_argument(
        "--recall", type=Path, nargs="+", default=None, help="kept vaults: vector leg vs exact"
    )
    parser.add_argument("--view", choices=("plain", "masked"), default="plain")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.recall is not None:
        from benchmarks import vector_recall

        result = vector_recall.measure(args.recall, args.models, args.view)
        if args.json:
            print(json.dumps(result, indent=2))
        else:
            vector_recall.render(result)
        return 0
    if args.compare is not None:
        from benchmarks import growth

        print(json.dumps(growth.compare(args.compare, args.models), indent=2))
        return 0
    if args.keep is not None:
        from benchmarks import scale

        print(json.dumps(scale.run(args), indent=2))
        return 0
    if args.ingest + 10 > args.sections:
        parser.error("--sections must be larger than --ingest + 10")
    result = run(args)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(
        f"{result['sections']} sections, {result['chunks']} chunks "
        f"(built in {result['build_seconds']} s)"
    )
    for name in (
        "search_ms",
        "dated_search_ms",
        "vector_leg_ms",
        "floor_numpy_f32_ms",
        "fts_leg_ms",
        "query_embedding_ms",
    ):
        print(f"  {name:<22} p50 {result[name]['p50']:>7}  p95 {result[name]['p95']:>7}")
    print(f"  vector leg / floor     {result['vector_leg_over_floor']}")
    print(
        f"  ingest                 {result['ingest_notes_per_second']} notes/s, "
        f"{result['ingest_cpu_notes_per_second']} per 2 CPU-seconds "
        f"({result['ingest_notes']} notes of {result['ingest_tokens_per_note']} tokens, "
        f"{result['detector']} detector)"
    )
    if result["strong_index"]:
        rate = result["strong_index"]
        print(
            f"  strong index           {rate['windows_per_second']} windows/s "
            f"({rate['cpu_seconds_per_window']} CPU s a window, {rate['threads']} thread(s), "
            f"load {rate['load_average'][0]})"
        )
    if result["long_document"]:
        long = result["long_document"]
        print(
            f"  long document          {long['words']} words, {long['chunks']} windows: "
            f"keyword-searchable in {long['keyword_searchable_seconds']} s, fully indexed "
            f"in {long['fully_indexed_seconds']} s"
        )
    load = result["load_average"]
    print(f"  load average           {load['start']} at the start, {load['end']} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
