"""LoCoMo answers end to end: `Vault.ask` as the owner, MiniLM-only against the strong leg.

    python -m benchmarks.ask --locomo ../shared/data/locomo/locomo_dev.json --limit 150 \
        [--budgets 300,600,1000] [--models qwen2.5-coder-1.5b] [--no-strong | --strong-only]
        [--conversations 4-5] [--categories 1,3] [--json] [--cache FILE]

Questions (category 5, the unanswerable ones, excluded) are sampled with a fixed seed from
every conversation; each conversation goes into a fresh vault (one note per session, as in
`benchmarks.retrieval`), its strong pass runs, and every sampled question is asked at each
budget through two vault objects on the same file: one with MiniLM + FTS only, one with
the strong leg (`--strong-only`: that one alone). `--conversations A-B` samples from those
conversations only (1-based), e.g. the ones a change was not tuned on; `--categories` asks
those categories only (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop). Reported per variant
and budget, overall and per category:

* **f1**: token F1 of the answer against the gold answer, normalised as in the LoCoMo
  paper's evaluation (lower case, punctuation and articles removed; no stemming here);
  multi-hop answers are scored part by part (comma-separated) as there;
* **contains**: share of answers that contain the whole normalised gold answer;
* p50/p95 of the whole ask, and the mean prompt tokens the model read (of them, how
  many the KV cache already held) and the tokens it wrote.

Hundreds of asks take hours on 2 cores: Ctrl-C stops the run and still reports what was
measured (`interrupted: true`, `questions_answered`), each line of progress on stderr says
the ask's F1 and whether it contained the gold answer.

`--oracle` answers each question from a vault holding only its gold evidence turns (each
under its session's date, as the notes above): retrieval cannot miss there, so its F1 is
what the answerer reaches when retrieval is perfect, the ceiling for the variants above.

`--cache FILE` keeps the strong model's document vectors between runs (the file
`benchmarks.retrieval --cache` writes; queries are always embedded live).
"""

from __future__ import annotations

import contextlib
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

from benchmarks.retrieval import EVIDENCE, CachedStrong, session_note, sessions
from privault.caller import Caller
from privault.models import catalog
from privault.models.handles import local_embedder
from privault.privacy.detector import FakeDetector
from privault.retrieval.embedder import Embedder
from privault.retrieval.strong import DEFAULT_STRONG_MODEL
from privault.vault import Vault
from privault.vault.embedding import default_embedder

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


def sample(
    data: list[dict[str, Any]],
    limit: int,
    conversations: set[int] | None = None,
    categories: set[int] | None = None,
) -> list[tuple[int, int, str, str]]:
    """(conversation index, category, question, gold answer), `limit` of them at most,
    from the given conversations (1-based; None: all) and categories (None: 1-4)."""
    pool = [
        (index, int(qa["category"]), str(qa["question"]), str(qa["answer"]))
        for index, conversation in enumerate(data)
        if conversations is None or index + 1 in conversations
        for qa in conversation["qa"]
        if qa.get("category") != 5 and "answer" in qa
        if categories is None or int(qa["category"]) in categories
    ]
    return random.Random(SEED).sample(pool, min(limit, len(pool)))


def run(
    path: Path,
    models_dir: Path,
    chat_model: str,
    limit: int,
    budgets: list[int],
    strong_on: bool,
    cache: Path | None = None,
    conversations: set[int] | None = None,
    strong_only: bool = False,
    categories: set[int] | None = None,
    oracle: bool = False,
) -> dict[str, Any]:
    """Ask the sampled questions; see the module docstring for what is reported."""
    import json

    data = json.loads(path.read_text())
    asked = sample(data, limit, conversations, categories)
    embedder = default_embedder(models_dir)
    strong = None
    if strong_on and not oracle and catalog.is_installed(models_dir, DEFAULT_STRONG_MODEL):
        strong = CachedStrong(local_embedder(models_dir, DEFAULT_STRONG_MODEL), cache)
    owner = Caller.owner()
    common = {"models_dir": models_dir, "embedder": embedder, "chat_model": chat_model}
    rows: list[dict[str, Any]] = []
    interrupted = False
    with contextlib.ExitStack() as stack:
        try:
            # Every conversation's vaults first, then the questions in their sampled order:
            # a run stopped early has asked a uniform sample, not the first conversations.
            by_conversation = {
                index: _vaults(stack, data[index], models_dir, embedder, strong, chat_model)
                for index in sorted({item[0] for item in asked})
                if not oracle
            }
            if strong_only and strong is not None:
                by_conversation = {
                    index: {"strong": vaults["strong"]} for index, vaults in by_conversation.items()
                }
            chat = _share_one_model(by_conversation, min(budgets))
            for index, category, question, gold in asked:
                vaults = by_conversation.get(index)
                if oracle:  # the model loaded and warmed up once, in the first such vault
                    vault = _oracle_vault(stack, data[index], question, common)
                    if chat is None:
                        chat = _share_one_model({index: {"oracle": vault}}, min(budgets))
                    vault.asking._chat = chat
                    vaults = {"oracle": vault}
                for budget in budgets:
                    for variant, vault in (vaults or {}).items():
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
                                "cached_tokens": reply.timings.get("cached_tokens", 0),
                                "completion_tokens": reply.timings.get("completion_tokens", 0),
                            }
                        )
                        print(
                            f"{variant:6} {budget:5} {seconds:5.1f}s f1 {rows[-1]['f1']:.2f} "
                            f"contains {int(rows[-1]['contains'])} {question}",
                            file=sys.stderr,
                        )
        except KeyboardInterrupt:  # hours of asks: Ctrl-C reports what was measured so far
            interrupted = True
    if strong is not None:
        strong.save()
    return {
        "questions": len(asked),
        "questions_answered": len({r["question"] for r in rows}),
        "interrupted": interrupted,
        "model": chat_model,
        "conversations": sorted(conversations) if conversations else "all",
        "categories": sorted(categories) if categories else "all",
        "summary": summarise(rows),
        "by_category": summarise(rows, by_category=True),
        "rows": rows,
    }


def _vaults(
    stack: contextlib.ExitStack,
    conversation: dict[str, Any],
    models_dir: Path,
    embedder: Embedder,
    strong: CachedStrong | None,
    chat_model: str,
) -> dict[str, Vault]:
    """One conversation in a fresh vault, opened twice: MiniLM + FTS, and with the strong leg
    (its pass run); closed, and the folder removed, when `stack` closes."""
    owner = Caller.owner()
    file = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "vault.db"
    common: dict[str, Any] = {
        "models_dir": models_dir,
        "embedder": embedder,
        "chat_model": chat_model,
    }
    vaults = {"minilm": Vault.open(file, detector_factory=FakeDetector, **common)}
    stack.callback(vaults["minilm"].close)
    vaults["minilm"].note_many(
        [session_note(*s) for s in sessions(conversation["conversation"])], caller=owner
    )
    if strong is not None:
        vaults["strong"] = Vault.open(
            file, detector_factory=FakeDetector, strong_embedder=strong, **common
        )
        stack.callback(vaults["strong"].close)
        vaults["strong"].strong.index(caller=owner)
    return vaults


def _share_one_model(by_conversation: dict[int, dict[str, Vault]], budget: int) -> Any:
    """Load the answering model once for every vault, and warm each vault up (unscored);
    the model (None without a vault)."""
    chat = None
    for vaults in by_conversation.values():
        for vault in vaults.values():
            if chat is None:
                chat = vault.asking.chat
            else:
                vault.asking._chat = chat
            vault.ask("warm up: what happened?", caller=Caller.owner(), budget=budget)
    return chat


def _oracle_vault(
    stack: contextlib.ExitStack,
    conversation: dict[str, Any],
    question: str,
    common: dict[str, Any],
) -> Vault:
    """A fresh vault holding only the gold evidence turns of `question`, each session's
    under its date as `session_note` writes it (MiniLM + FTS; the model is shared)."""
    qa = next(qa for qa in conversation["qa"] if qa["question"] == question)
    wanted = set(EVIDENCE.findall(" ".join(qa.get("evidence") or [])))
    notes = []
    for number, when, turns in sessions(conversation["conversation"]):
        kept = [t for t in turns if tuple(t["dia_id"][1:].split(":")) in wanted]
        if kept:
            notes.append(session_note(number, when, kept))
    file = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "vault.db"
    vault = Vault.open(file, detector_factory=FakeDetector, **common)
    stack.callback(vault.close)
    if notes:
        vault.note_many(notes, caller=Caller.owner())
    return vault


CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


def summarise(rows: list[dict[str, Any]], by_category: bool = False) -> dict[str, Any]:
    """F1, gold contained, latency and prompt tokens per variant and budget (and, with
    `by_category`, per LoCoMo category too)."""
    out: dict[str, Any] = {}
    groups = sorted({r["category"] for r in rows}) if by_category else [None]
    for variant, budget, category in (
        (v, b, c)
        for v in sorted({r["variant"] for r in rows})
        for b in sorted({r["budget"] for r in rows})
        for c in groups
    ):
        chosen = [
            r
            for r in rows
            if r["variant"] == variant
            and r["budget"] == budget
            and (category is None or r["category"] == category)
        ]
        if chosen:
            seconds = sorted(r["seconds"] for r in chosen)
            key = f"{variant}@{budget}"
            if category is not None:
                key += f" {category} {CATEGORIES.get(category, '?')}"
            out[key] = {
                "n": len(chosen),
                "f1": round(statistics.mean(r["f1"] for r in chosen), 3),
                "contains": round(sum(r["contains"] for r in chosen) / len(chosen), 3),
                "p50_s": round(statistics.median(seconds), 2),
                "p95_s": round(seconds[min(len(seconds) - 1, int(0.95 * len(seconds)))], 2),
                "mean_prompt_tokens": round(statistics.mean(r["prompt_tokens"] for r in chosen)),
                "mean_cached_tokens": round(statistics.mean(r["cached_tokens"] for r in chosen)),
                "mean_completion_tokens": round(
                    statistics.mean(r["completion_tokens"] for r in chosen)
                ),
            }
    return out
