"""Retrieval benchmark: does `Vault.context` pack the evidence for LoCoMo questions?

    python -m benchmarks.retrieval --data ../shared/data/locomo/locomo_dev.json \
        --budget 2000 [--fill] [--json] [--limit N | --conversations A-B] [--baseline]
        [--no-strong] [--strong-mode M] [--strong-weight W] [--strong-input I] [--tune 1-3]
        [--cache FILE] [--blas-threads N] [--set-lines] [--follow N] [--strong-coverage F,...]

Each LoCoMo conversation goes into a fresh vault (temp dir, real embedder): one note per
session, dated with the session's date. Every question that names evidence (category 5,
the adversarial "not answerable" ones, is skipped) is asked through
`vault.context(question, caller=Caller.owner(), budget=...)`. Reported per category and
overall:

* **hit** — share of questions where at least one evidence turn's text is inside the pack;
* **all** — share where every evidence turn's text is inside;
* p50/p95 latency of `context()` (query embedding included);
* the tokens each pack used (p50/p95): `context` stops early where the candidates left are
  clearly weaker, so a budget is a cap; `--fill` packs to the budget instead.

Both are also given by question shape (`set`: the question asks for several things, see
`privault.retrieval.thread.asks_for_set`; `fact`: any other), which decides how packs are
cut.

With the strong model installed (EmbeddingGemma-300M), the same vaults are also indexed by
its background pass (`vault.strong.index`) and every question is asked again with its leg
(`--strong-mode leg|rerank`, `--strong-weight W`): `privault` is MiniLM + FTS only,
`strong` adds it, in the same run. Both are reported over all conversations and over the
tuning ones (`--tune 1-3`) and the others apart, so over-fitting shows; `--conversations
4-5` runs only those (1-based). `--cache FILE` keeps the strong model's document vectors
between runs (queries are always embedded live: their time is part of the latency).
`--strong-input dated-line` embeds each window after its session's day
(`privault.retrieval.strong.STRONG_INPUT`); a cache file holds vectors of either input.

`--strong-coverage 0.1,0.3,1` measures the strong leg while partial: for each share, in
ascending order on the same vault, the background pass runs until that share of each
conversation's windows has strong vectors, taken in the order the product's pass takes
them (`privault.store.strong_index.ORDER`; here the newest sessions first), and every
question is asked again (`strong@0.1`, ...). The strong model embeds each question once
per run, so with several shares the later ones' latency leaves that embedding out.

`--set-lines` packs questions after a set as lines from 120 candidates, spread over
sections (off by default), and `--follow N` follows the names in the best N hits where the
strong model ranked them (5 by default; 0 never follows); `privault.vault.packs` has
their measured figures.

Latency depends on numpy's BLAS: by default it uses every core and its helper thread
spins for a while after each vector scan, which takes a core from the strong model's
query (two threads) in a loop of back-to-back calls. `privault serve` keeps BLAS on one
thread; `--blas-threads 1` measures `context` as the server runs it.

`--baseline` also runs the naive reference: 6-turn chunks, BM25 only (FTS5 in memory),
packed best first into the same budget, counted with the same tokenizer.

The write-time PII scan does not change what the owner reads (owner policy is `open`), so
the vault uses the regex-only detector by default to keep the run short; `--detector real`
runs presidio + spaCy instead.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from privault.caller import Caller
from privault.models import catalog
from privault.models.handles import local_embedder
from privault.privacy.detector import FakeDetector
from privault.retrieval import search
from privault.retrieval import strong as strong_inputs
from privault.retrieval.embedder import Embedder
from privault.retrieval.fts import match_expression
from privault.retrieval.strong import DEFAULT_STRONG_MODEL
from privault.retrieval.thread import asks_for_set
from privault.vault import Vault, finding, packs
from privault.vault.bounds import DEFAULT_CONTEXT_BUDGET
from privault.vault.embedding import default_embedder

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
EVIDENCE = re.compile(r"D(\d+):(\d+)")
BASELINE_TURNS = 6


def norm(text: str) -> str:
    """Whitespace-normalised text, so line breaks in a pack never decide a match."""
    return " ".join(text.split())


def parse_date(text: str) -> datetime:
    """A LoCoMo session date ("1:56 pm on 8 May, 2023") as a UTC datetime."""
    cleaned = re.sub(r"\s+", " ", text.strip())
    for pattern in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%d %B, %Y"):
        try:
            return datetime.strptime(cleaned, pattern).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise ValueError(f"unparsed LoCoMo date {text!r}")


def turn_line(turn: dict[str, Any]) -> str:
    """One turn as a line of the note: `Speaker: text [shares a photo: caption]`."""
    line = f"{turn['speaker']}: {turn['text']}"
    if turn.get("blip_caption"):
        line += f" [shares a photo: {turn['blip_caption']}]"
    return " ".join(line.split())


def sessions(conversation: dict[str, Any]) -> list[tuple[int, datetime, list[dict[str, Any]]]]:
    """(number, date, turns) of every non-empty session, in order."""
    found = []
    for key, turns in conversation.items():
        match = re.fullmatch(r"session_(\d+)", key)
        if match and isinstance(turns, list) and turns:
            number = int(match.group(1))
            found.append((number, parse_date(conversation[f"{key}_date_time"]), turns))
    return sorted(found, key=lambda item: item[0])


def session_note(number: int, when: datetime, turns: list[dict[str, Any]]) -> dict[str, Any]:
    """A session as a note: titled with its date (LoCoMo asks about time), one turn a line."""
    day = f"{when.day} {when:%B %Y}"
    return {
        "title": f"Conversation on {day}",
        "text": "\n".join(turn_line(turn) for turn in turns),
        "created_at": int(when.timestamp() * 1000),
    }


def questions(sample: dict[str, Any]) -> list[tuple[int, str, list[str]]]:
    """(category, question, evidence turn texts) for every answerable question."""
    turn_text = {
        turn["dia_id"]: norm(turn["text"])
        for _, _, turns in sessions(sample["conversation"])
        for turn in turns
    }
    asked = []
    for qa in sample["qa"]:
        if qa.get("category") == 5:
            continue
        ids = [f"D{s}:{t}" for s, t in EVIDENCE.findall(" ".join(qa.get("evidence") or []))]
        texts = [turn_text[i] for i in dict.fromkeys(ids) if i in turn_text]
        if texts:
            asked.append((int(qa["category"]), str(qa["question"]), texts))
    return asked


class Tally:
    """Hit / all counts per category (and per group of conversations), and latencies."""

    def __init__(self) -> None:
        self.counts: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])  # n, hit, all
        self.groups: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        self.shapes: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        self.latencies: list[float] = []
        self.tokens: list[int] = []
        self.category_tokens: dict[int, list[int]] = defaultdict(list)

    def add(
        self,
        category: int,
        context: str,
        evidence: list[str],
        group: str = "",
        shape: str = "",
        tokens: int | None = None,
    ) -> None:
        inside = [text in context for text in evidence]
        for counts in (self.counts[category], self.groups[group], self.shapes[shape]):
            counts[0] += 1
            counts[1] += any(inside)
            counts[2] += all(inside)
        if tokens is not None:
            self.tokens.append(tokens)
            self.category_tokens[category].append(tokens)

    def report(self) -> dict[str, Any]:
        def figures(n: int, hit: int, every: int) -> dict[str, Any]:
            return {"n": n, "hit": round(hit / n, 3), "all": round(every / n, 3)}

        total = [sum(c[i] for c in self.counts.values()) for i in range(3)]
        out: dict[str, Any] = {
            "overall": figures(*total),
            "by_category": {
                f"{cat} {CATEGORIES.get(cat, '?')}": {
                    **figures(*self.counts[cat]),
                    **(
                        {"tokens_used": spread(self.category_tokens[cat])}
                        if self.category_tokens[cat]
                        else {}
                    ),
                }
                for cat in sorted(self.counts)
            },
        }
        if len(self.groups) > 1:
            out["by_group"] = {name: figures(*self.groups[name]) for name in sorted(self.groups)}
        if len(self.shapes) > 1:
            out["by_shape"] = {name: figures(*self.shapes[name]) for name in sorted(self.shapes)}
        if self.tokens:
            out["tokens_used"] = spread(self.tokens)
        if self.latencies:
            ordered = sorted(self.latencies)
            out["latency_ms"] = {
                "p50": round(statistics.median(ordered), 2),
                "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
                "max": round(ordered[-1], 2),
            }
        return out


def spread(tokens: list[int]) -> dict[str, int]:
    """Median, 95th percentile and most of the tokens packs used."""
    used = sorted(tokens)
    return {
        "p50": round(statistics.median(used)),
        "p95": used[int(0.95 * (len(used) - 1))],
        "max": used[-1],
    }


def strong_name(coverage: float, coverages: tuple[float, ...]) -> str:
    """The report's name for the strong leg at one coverage ("strong" when it is the only,
    full one, as before coverages were measured)."""
    return "strong" if coverages == (1.0,) else f"strong@{coverage:g}"


def ask_all(
    vault: Vault,
    tally: Tally,
    asked: list[tuple[int, str, list[str]]],
    group: str,
    budget: int,
    fill: bool,
) -> None:
    """Every question through `vault.context`, into `tally` (after one warm-up call)."""
    owner = Caller.owner()
    vault.context("warm up", caller=owner, budget=budget)
    for category, question, evidence in asked:
        shape = "set" if asks_for_set(question) else "fact"
        started = time.perf_counter()
        pack = vault.context(question, caller=owner, budget=budget, fill=fill)
        tally.latencies.append((time.perf_counter() - started) * 1000)
        tally.add(category, norm(pack.text), evidence, group, shape, pack.used_tokens)


def run_vault(
    samples: list[tuple[int, dict[str, Any]]],
    embedder: Embedder,
    budget: int,
    real_detector: bool,
    strong: Any = None,
    tune: set[int] | None = None,
    fill: bool = False,
    coverages: tuple[float, ...] = (1.0,),
) -> dict[str, Any]:
    """privault itself: a fresh vault per conversation, `context()` per question; with a
    strong embedder, every question again through a second vault object on the same file
    that has the strong leg, once per share in `coverages` (ascending): the background
    pass is run until that share of the windows has strong vectors, in its own order."""
    coverages = tuple(sorted(coverages))
    names = [strong_name(c, coverages) for c in coverages] if strong is not None else []
    tallies = {"privault": Tally(), **{name: Tally() for name in names}}
    owner = Caller.owner()
    ingest_seconds = 0.0
    strong_seconds = dict.fromkeys(names, 0.0)
    strong_windows = dict.fromkeys(names, 0)
    all_windows = 0
    for number, sample in samples:
        group = "" if tune is None else ("tune" if number in tune else "held_out")
        with tempfile.TemporaryDirectory() as folder:
            fake = {} if real_detector else {"detector_factory": FakeDetector}
            path = Path(folder) / "vault.db"
            vault = Vault.open(path, models_dir=embedder_dir(embedder), embedder=embedder, **fake)
            notes = [session_note(*s) for s in sessions(sample["conversation"])]
            started = time.perf_counter()
            vault.note_many(notes, caller=owner)
            ingest_seconds += time.perf_counter() - started
            asked = list(questions(sample))

            ask_all(vault, tallies["privault"], asked, group, budget, fill)
            vault.close()
            if strong is None:
                continue
            with Vault.open(
                path,
                models_dir=embedder_dir(embedder),
                embedder=embedder,
                strong_embedder=strong,
                **fake,
            ) as strong_vault:
                windows = strong_vault.strong.coverage().windows
                all_windows += windows
                for coverage, name in zip(coverages, names, strict=True):
                    started = time.perf_counter()
                    wanted = windows if coverage >= 1 else round(coverage * windows)
                    missing = wanted - strong_vault.strong.coverage().covered
                    if missing > 0:
                        strong_vault.strong.index(caller=owner, limit=missing)
                    strong_seconds[name] += time.perf_counter() - started
                    strong_windows[name] += strong_vault.strong.coverage().covered
                    ask_all(strong_vault, tallies[name], asked, group, budget, fill)
    reports = {name: tally.report() for name, tally in tallies.items()}
    reports["privault"]["ingest_seconds"] = round(ingest_seconds, 2)
    for name in names:
        reports[name]["index_seconds"] = round(strong_seconds[name], 2)
        reports[name]["windows_indexed"] = strong_windows[name]
        reports[name]["windows"] = all_windows
    return reports


class CachedStrong:
    """The strong embedder with its document vectors kept in a file between runs."""

    def __init__(self, engine: Any, path: Path | None, *, remember_queries: bool = False) -> None:
        self.engine, self.path = engine, path
        self.queries: dict[str, np.ndarray] | None = {} if remember_queries else None
        self.name, self.dim = engine.name, engine.dim
        self.cache: dict[str, np.ndarray] = {}
        if path is not None and path.exists():
            with np.load(path, allow_pickle=False) as data:
                self.cache = dict(zip(data["texts"].tolist(), data["vectors"], strict=True))
        self.embedded = 0

    def embed_documents(self, texts: Any) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if missing:
            self.embedded += len(missing)
            for text, vector in zip(missing, self.engine.embed_documents(missing), strict=True):
                self.cache[text] = vector
        return np.stack([self.cache[t] for t in texts]) if texts else np.zeros((0, self.dim))

    def embed_query(self, text: str) -> np.ndarray:
        if self.queries is None:
            return self.engine.embed_query(text)
        if text not in self.queries:
            self.queries[text] = self.engine.embed_query(text)
        return self.queries[text]

    def save(self) -> None:
        if self.path is not None and self.embedded:
            texts = list(self.cache)
            # Written through a handle: given a path, numpy appends ".npz" to a name without
            # it, and the next run would look for the name it was given and find nothing.
            with self.path.open("wb") as out:
                np.savez(
                    out, texts=np.array(texts), vectors=np.stack([self.cache[t] for t in texts])
                )


def run_baseline(
    samples: list[dict[str, Any]], count_tokens: Callable[[str], int], budget: int
) -> dict[str, Any]:
    """The naive reference: 6-turn chunks, FTS5 bm25 only, best chunks packed in order."""
    tally = Tally()
    for sample in samples:
        db = sqlite3.connect(":memory:")
        db.execute("CREATE VIRTUAL TABLE chunks USING fts5(text, tokenize = 'porter unicode61')")
        for _, when, turns in sessions(sample["conversation"]):
            day = f"{when.day} {when:%B %Y}"
            for start in range(0, len(turns), BASELINE_TURNS):
                lines = [turn_line(t) for t in turns[start : start + BASELINE_TURNS]]
                db.execute(
                    "INSERT INTO chunks (text) VALUES (?)",
                    (f"## Conversation on {day}\n" + "\n".join(lines),),
                )
        for category, question, evidence in questions(sample):
            started = time.perf_counter()
            expression = match_expression(question)
            found = (
                db.execute(
                    "SELECT text FROM chunks WHERE chunks MATCH ? ORDER BY bm25(chunks) LIMIT 60",
                    (expression,),
                ).fetchall()
                if expression
                else []
            )
            packed, used = [], 0
            for (text,) in found:
                cost = count_tokens(text) + 2
                if used + cost <= budget:
                    packed.append(text)
                    used += cost
            tally.latencies.append((time.perf_counter() - started) * 1000)
            tally.add(category, norm("\n\n".join(packed)), evidence)
        db.close()
    return tally.report()


def embedder_dir(embedder: Embedder) -> Path:
    """The models folder the embedder was loaded from (the vault only needs it named)."""
    return getattr(embedder, "models_dir", Path("."))


def coverage_list(text: str) -> tuple[float, ...]:
    """`--strong-coverage`: one share or several, comma-separated, each in (0, 1]."""
    try:
        found = tuple(sorted({float(part) for part in text.split(",")}))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of shares: {text!r}") from None
    if not found or not all(0 < share <= 1 for share in found):
        raise argparse.ArgumentTypeError("each share must be above 0 and at most 1")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, type=Path, help="locomo JSON file")
    parser.add_argument(
        "--budget", type=int, default=DEFAULT_CONTEXT_BUDGET, help="most tokens a pack may use"
    )
    parser.add_argument(
        "--fill", action="store_true", help="pack to the budget (no stop at weaker matches)"
    )
    parser.add_argument("--limit", type=int, default=None, help="first N conversations only")
    parser.add_argument(
        "--conversations", default=None, help="only these conversations (1-based, e.g. 4-5)"
    )
    parser.add_argument("--models", type=Path, default=Path.home() / ".privault" / "models")
    parser.add_argument("--baseline", action="store_true", help="also run the naive baseline")
    parser.add_argument("--detector", choices=("fake", "real"), default="fake")
    parser.add_argument("--no-strong", action="store_true", help="MiniLM + FTS only")
    parser.add_argument("--strong-mode", choices=("leg", "rerank"), default=finding.STRONG_MODE)
    parser.add_argument("--strong-weight", type=float, default=search.STRONG_WEIGHT)
    parser.add_argument(
        "--strong-input", choices=("line", "dated-line"), default=strong_inputs.STRONG_INPUT
    )
    parser.add_argument("--set-lines", action="store_true", help="set questions as lines")
    parser.add_argument("--follow", type=int, default=packs.FOLLOW_TOP, help="hits followed")
    parser.add_argument("--tune", default="1-3", help="conversations tuned on (1-based range)")
    parser.add_argument("--cache", type=Path, default=None, help="strong document vectors")
    parser.add_argument("--blas-threads", type=int, default=None, help="numpy's BLAS threads")
    parser.add_argument(
        "--strong-coverage",
        type=coverage_list,
        default=(1.0,),
        help="shares of windows the strong pass covers, e.g. 0.1,0.3,1 (newest first)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.blas_threads is not None:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=args.blas_threads, user_api="blas")
    numbered = list(enumerate(json.loads(args.data.read_text()), start=1))[: args.limit]
    if args.conversations:
        low, _, high = args.conversations.partition("-")
        wanted = range(int(low), int(high or low) + 1)
        numbered = [(number, sample) for number, sample in numbered if number in wanted]
    samples = [sample for _, sample in numbered]
    packs.FOLLOW_TOP = args.follow
    if args.set_lines:
        packs.SET_PIECE, packs.SET_CANDIDATES, packs.SET_REPEAT_DISCOUNT = "line", 120, 0.8
    embedder = default_embedder(args.models)
    embedder.models_dir = args.models  # type: ignore[attr-defined]
    strong = None
    if not args.no_strong and catalog.is_installed(args.models, DEFAULT_STRONG_MODEL):
        strong = CachedStrong(
            local_embedder(args.models, DEFAULT_STRONG_MODEL),
            args.cache,
            remember_queries=len(args.strong_coverage) > 1,
        )
        finding.STRONG_MODE = args.strong_mode
        search.STRONG_WEIGHT = args.strong_weight
        strong_inputs.STRONG_INPUT = args.strong_input
    low, _, high = args.tune.partition("-")
    tune = set(range(int(low), int(high or low) + 1))
    reports = run_vault(
        numbered,
        embedder,
        args.budget,
        args.detector == "real",
        strong,
        tune,
        args.fill,
        args.strong_coverage,
    )
    if strong is not None:
        strong.save()
    result: dict[str, Any] = {
        "data": str(args.data),
        "conversations": [number for number, _ in numbered],
        "budget": args.budget,
        "fill": args.fill,
        "set_lines": args.set_lines,
        "follow": args.follow,
        "tune": sorted(tune),
        "blas_threads": args.blas_threads,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        **reports,
    }
    if strong is not None:
        result["strong_settings"] = {
            "mode": args.strong_mode,
            "weight": args.strong_weight,
            "input": args.strong_input,
            "coverage": args.strong_coverage,
        }
    if args.baseline:
        result["baseline"] = run_baseline(samples, embedder.count_tokens, args.budget)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"conversations {result['conversations']}, budget {args.budget} tokens")
    shown = [name for name in result if name.startswith("strong") and name != "strong_settings"]
    for name in ("privault", *shown, "baseline"):
        if name not in result:
            continue
        report = result[name]
        overall = report["overall"]
        print(f"\n{name}: hit {overall['hit']:.3f}  all {overall['all']:.3f}  (n={overall['n']})")
        for cat, figures in report["by_category"].items():
            print(
                f"  {cat:<16} hit {figures['hit']:.3f}  all {figures['all']:.3f}  "
                f"(n={figures['n']})"
            )
        for part in ("by_group", "by_shape"):
            for group, figures in report.get(part, {}).items():
                print(
                    f"  [{group}] hit {figures['hit']:.3f}  all {figures['all']:.3f}  "
                    f"n={figures['n']}"
                )
        if "tokens_used" in report:
            used = report["tokens_used"]
            print(f"  tokens used: p50 {used['p50']}  p95 {used['p95']}  max {used['max']}")
        if "latency_ms" in report:
            lat = report["latency_ms"]
            print(f"  latency ms: p50 {lat['p50']}  p95 {lat['p95']}  max {lat['max']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
