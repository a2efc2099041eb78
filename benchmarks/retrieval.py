"""Retrieval benchmark: does `Vault.context` pack the evidence for LoCoMo questions?

    python -m benchmarks.retrieval --data ../shared/data/locomo/locomo_dev.json \
        --budget 1000 [--json] [--limit N] [--baseline]

Each LoCoMo conversation goes into a fresh vault (temp dir, real embedder): one note per
session, dated with the session's date. Every question that names evidence (category 5,
the adversarial "not answerable" ones, is skipped) is asked through
`vault.context(question, caller=Caller.owner(), budget=...)`. Reported per category and
overall:

* **hit** — share of questions where at least one evidence turn's text is inside the pack;
* **all** — share where every evidence turn's text is inside;
* p50/p95 latency of `context()` (query embedding included).

`--baseline` also runs the naive reference: 6-turn chunks, BM25 only (FTS5 in memory),
packed best first into the same budget, counted with the same tokenizer.

The write-time PII scan does not change what the owner reads (owner policy is `open`), so
the vault uses the regex-only detector by default to keep the run short; `--detector real`
runs presidio + spaCy instead.
"""

from __future__ import annotations

import argparse
import json
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

from privault.caller import Caller
from privault.privacy.detector import FakeDetector
from privault.retrieval.embedder import FastEmbedder
from privault.retrieval.fts import match_expression
from privault.vault import Vault

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_EVIDENCE = re.compile(r"D(\d+):(\d+)")
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
        ids = [f"D{s}:{t}" for s, t in _EVIDENCE.findall(" ".join(qa.get("evidence") or []))]
        texts = [turn_text[i] for i in dict.fromkeys(ids) if i in turn_text]
        if texts:
            asked.append((int(qa["category"]), str(qa["question"]), texts))
    return asked


class Tally:
    """Hit / all counts per category, and latencies."""

    def __init__(self) -> None:
        self.counts: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])  # n, hit, all
        self.latencies: list[float] = []

    def add(self, category: int, context: str, evidence: list[str]) -> None:
        inside = [text in context for text in evidence]
        counts = self.counts[category]
        counts[0] += 1
        counts[1] += any(inside)
        counts[2] += all(inside)

    def report(self) -> dict[str, Any]:
        def figures(n: int, hit: int, every: int) -> dict[str, Any]:
            return {"n": n, "hit": round(hit / n, 3), "all": round(every / n, 3)}

        total = [sum(c[i] for c in self.counts.values()) for i in range(3)]
        out: dict[str, Any] = {
            "overall": figures(*total),
            "by_category": {
                f"{cat} {CATEGORIES.get(cat, '?')}": figures(*self.counts[cat])
                for cat in sorted(self.counts)
            },
        }
        if self.latencies:
            ordered = sorted(self.latencies)
            out["latency_ms"] = {
                "p50": round(statistics.median(ordered), 2),
                "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
                "max": round(ordered[-1], 2),
            }
        return out


def run_vault(
    samples: list[dict[str, Any]], embedder: FastEmbedder, budget: int, real_detector: bool
) -> dict[str, Any]:
    """privault itself: a fresh vault per conversation, `context()` per question."""
    tally = Tally()
    owner = Caller.owner()
    ingest_seconds = 0.0
    for sample in samples:
        with tempfile.TemporaryDirectory() as folder:
            fake = {} if real_detector else {"detector_factory": FakeDetector}
            vault = Vault.open(
                Path(folder) / "vault.db",
                models_dir=embedder_dir(embedder),
                embedder=embedder,
                **fake,
            )
            notes = [session_note(*s) for s in sessions(sample["conversation"])]
            started = time.perf_counter()
            vault.note_many(notes, caller=owner)
            ingest_seconds += time.perf_counter() - started
            vault.context("warm up", caller=owner, budget=budget)
            for category, question, evidence in questions(sample):
                started = time.perf_counter()
                pack = vault.context(question, caller=owner, budget=budget)
                tally.latencies.append((time.perf_counter() - started) * 1000)
                tally.add(category, norm(pack.text), evidence)
            vault.close()
    report = tally.report()
    report["ingest_seconds"] = round(ingest_seconds, 2)
    return report


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


def embedder_dir(embedder: FastEmbedder) -> Path:
    """The models folder the embedder was loaded from (the vault only needs it named)."""
    return getattr(embedder, "models_dir", Path("."))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, type=Path, help="locomo JSON file")
    parser.add_argument("--budget", type=int, default=1000, help="context budget in tokens")
    parser.add_argument("--limit", type=int, default=None, help="first N conversations only")
    parser.add_argument("--models", type=Path, default=Path.home() / ".privault" / "models")
    parser.add_argument("--baseline", action="store_true", help="also run the naive baseline")
    parser.add_argument("--detector", choices=("fake", "real"), default="fake")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    samples = json.loads(args.data.read_text())[: args.limit]
    embedder = FastEmbedder(args.models)
    embedder.models_dir = args.models  # type: ignore[attr-defined]
    result: dict[str, Any] = {
        "data": str(args.data),
        "conversations": len(samples),
        "budget": args.budget,
        "privault": run_vault(samples, embedder, args.budget, args.detector == "real"),
    }
    if args.baseline:
        result["baseline"] = run_baseline(samples, embedder.count_tokens, args.budget)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{result['conversations']} conversations, budget {args.budget} tokens")
    for name in ("privault", "baseline"):
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
        if "latency_ms" in report:
            lat = report["latency_ms"]
            print(f"  latency ms: p50 {lat['p50']}  p95 {lat['p95']}  max {lat['max']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
