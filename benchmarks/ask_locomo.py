"""LoCoMo answers end to end: `Vault.ask` as the owner, MiniLM-only against the strong leg.

    python -m benchmarks.ask --locomo ../shared/data/locomo/locomo_dev.json --limit 150 \
        [--budgets 300,600,1000] [--models qwen2.5-coder-1.5b] [--no-strong] [--json]
        [--cache FILE]

Questions (category 5, the unanswerable ones, excluded) are sampled with a fixed seed from
every conversation; each conversation goes into a fresh vault (one note per session, as in
`benchmarks.retrieval`), its strong pass runs, and every sampled question is asked at each
budget through two vault objects on the same file: one with MiniLM + FTS only, one with
the strong leg. Reported per variant and budget:

* **f1**: token F1 of the answer against the gold answer, normalised as in the LoCoMo
  paper's evaluation (lower case, punctuation and articles removed; no stemming here);
  multi-hop answers are scored part by part (comma-separated) as there;
* **contains**: share of answers that contain the whole normalised gold answer;
* p50/p95 of the whole ask, and the mean prompt tokens the model read.

Hundreds of asks take hours on 2 cores: Ctrl-C stops the run and still reports what was
measured (`interrupted: true`, `questions_answered`), each line of progress on stderr says
the ask's F1 and whether it contained the gold answer.

`--cache FILE` keeps the strong model's document vectors between runs (the file
`benchmarks.retrieval --cache` writes; queries are always embedded live).
"""

from __future__ import annotations

import random
import re
import statistics
import string
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.retrieval import CachedStrong, session_note, sessions
from privault import modelstore
from privault.caller import Caller
from privault.privacy.detector import FakeDetector
from privault.retrieval.embedder import FastEmbedder
from privault.retrieval.strong import DEFAULT_STRONG_MODEL, GemmaEmbedder
from privault.vault import Vault

SEED = 16


def normalise_answer(text: str) -> str:
    """LoCoMo's normalisation: lower case, no punctuation, no articles, single spaces."""
    text = str(text).lower().replace(",", "")
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the|and)\b", " ", text)
    return " ".join(text.split())


def token_f1(prediction: str, gold: str) -> float:
    """Token-overlap F1 of two normalised strings."""
    got, want = normalise_answer(prediction).split(), normalise_answer(gold).split()
    common = sum((Counter(got) & Counter(want)).values())
    if not common:
        return 0.0
    precision, recall = common / len(got), common / len(want)
    return 2 * precision * recall / (precision + recall)


def score(category: int, prediction: str, gold: str) -> float:
    """F1 as LoCoMo scores each category (multi-hop: mean over the gold's parts)."""
    if category == 3:
        gold = gold.split(";")[0].strip()
    if category == 1:
        parts = [p for p in gold.split(",") if p.strip()]
        guesses = [p for p in prediction.split(",") if p.strip()] or [prediction]
        return statistics.mean(max(token_f1(g, part) for g in guesses) for part in parts)
    return token_f1(prediction, gold)


def sample(data: list[dict[str, Any]], limit: int) -> list[tuple[int, int, str, str]]:
    """(conversation index, category, question, gold answer), `limit` of them at most."""
    pool = [
        (index, int(qa["category"]), str(qa["question"]), str(qa["answer"]))
        for index, conversation in enumerate(data)
        for qa in conversation["qa"]
        if qa.get("category") != 5 and "answer" in qa
    ]
    chosen = random.Random(SEED).sample(pool, min(limit, len(pool)))
    return sorted(chosen, key=lambda item: item[0])


def run(
    path: Path,
    models_dir: Path,
    chat_model: str,
    limit: int,
    budgets: list[int],
    strong_on: bool,
    cache: Path | None = None,
) -> dict[str, Any]:
    """Ask the sampled questions; see the module docstring for what is reported."""
    import json

    data = json.loads(path.read_text())
    asked = sample(data, limit)
    embedder = FastEmbedder(models_dir)
    strong = None
    if strong_on and modelstore.is_installed(models_dir, DEFAULT_STRONG_MODEL):
        strong = CachedStrong(GemmaEmbedder(models_dir), cache)
    owner = Caller.owner()
    rows: list[dict[str, Any]] = []
    chat = None
    interrupted = False
    try:
        for index in sorted({item[0] for item in asked}):
            with tempfile.TemporaryDirectory() as folder:
                file = Path(folder) / "vault.db"
                common = {"models_dir": models_dir, "embedder": embedder, "chat_model": chat_model}
                vaults = {"minilm": Vault.open(file, detector_factory=FakeDetector, **common)}
                notes = [session_note(*s) for s in sessions(data[index]["conversation"])]
                vaults["minilm"].note_many(notes, caller=owner)
                if strong is not None:
                    vaults["strong"] = Vault.open(
                        file, detector_factory=FakeDetector, strong_embedder=strong, **common
                    )
                    vaults["strong"].strong.index(caller=owner)
                for vault in vaults.values():
                    if chat is not None:
                        vault.asking._chat = chat  # one loaded model for every vault
                    else:
                        chat = vault.asking.chat
                    vault.ask("warm up: what happened?", caller=owner, budget=min(budgets))
                for _, category, question, gold in (item for item in asked if item[0] == index):
                    for budget in budgets:
                        for variant, vault in vaults.items():
                            started = time.perf_counter()
                            reply = vault.ask(question, caller=owner, budget=budget)
                            seconds = time.perf_counter() - started
                            rows.append(
                                {
                                    "variant": variant,
                                    "budget": budget,
                                    "category": category,
                                    "question": question,
                                    "gold": gold,
                                    "answer": reply.answer,
                                    "f1": round(score(category, reply.answer, gold), 4),
                                    "contains": normalise_answer(gold)
                                    in normalise_answer(reply.answer),
                                    "seconds": round(seconds, 3),
                                    "prompt_tokens": reply.timings.get("prompt_tokens", 0),
                                }
                            )
                            print(
                                f"{variant:6} {budget:5} {seconds:5.1f}s f1 {rows[-1]['f1']:.2f} "
                                f"contains {int(rows[-1]['contains'])} {question}",
                                file=sys.stderr,
                            )
                for vault in vaults.values():
                    vault.close()
    except KeyboardInterrupt:  # hours of asks: Ctrl-C reports what was measured so far
        interrupted = True
    if strong is not None:
        strong.save()
    return {
        "questions": len(asked),
        "questions_answered": len({r["question"] for r in rows}),
        "interrupted": interrupted,
        "model": chat_model,
        "summary": summarise(rows),
        "rows": rows,
    }


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """F1, gold contained, latency and prompt tokens per variant and budget."""
    out: dict[str, Any] = {}
    for variant in sorted({r["variant"] for r in rows}):
        for budget in sorted({r["budget"] for r in rows}):
            chosen = [r for r in rows if r["variant"] == variant and r["budget"] == budget]
            seconds = sorted(r["seconds"] for r in chosen)
            out[f"{variant}@{budget}"] = {
                "n": len(chosen),
                "f1": round(statistics.mean(r["f1"] for r in chosen), 3),
                "contains": round(sum(r["contains"] for r in chosen) / len(chosen), 3),
                "p50_s": round(statistics.median(seconds), 2),
                "p95_s": round(seconds[min(len(seconds) - 1, int(0.95 * len(seconds)))], 2),
                "mean_prompt_tokens": round(statistics.mean(r["prompt_tokens"] for r in chosen)),
            }
    return out
