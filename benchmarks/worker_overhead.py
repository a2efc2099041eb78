"""What running a model in its supervised worker costs against running it in this process.

    python -m benchmarks.worker_overhead --json [--chat-model qwen2.5-coder-1.5b]
        [--asks 20] [--lines 96] [--rounds 3]

The same prompts go to the chat model loaded here (`LlamaChat`) and to the same model in a
worker (`WorkerChat`, as `serve` runs it), alternating one call each, so a change in the
machine's load hits both; likewise lines of text to the strong embedder
(`LlamaEmbedder` against `WorkerEmbedder`, one thread, as the background pass runs it).
Reports ask p50/p95 per side and strong-pass lines/s per side, with their ratios, and the
load average. Each prompt is an ask as the pipeline builds it (briefing, a few sections,
a question), so the KV-cache prefix reuse of both sides is exercised the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from pathlib import Path
from typing import Any

from privault.ask.briefing import AskSection, build_messages
from privault.models.handles import local_chat, local_embedder
from privault.models.llama import LlamaChat, LlamaEmbedder

TOPICS = "boiler invoice garden budget dentist passport rent energy bill museum school".split()


def prompts(count: int) -> list[Any]:
    rng = random.Random(5)
    asks = []
    for n in range(count):
        topic = rng.choice(TOPICS)
        sections = [
            AskSection(
                f"n{n}{k}",
                f"d{n}",
                f"{topic.title()} note {k}",
                f"The {topic} was discussed on day {k}; total {rng.randint(10, 999)} EUR, "
                f"due in {rng.randint(1, 12)} weeks, with {rng.choice(TOPICS)} to follow.",
                False,
                False,
                (),
            )
            for k in range(3)
        ]
        asks.append(build_messages(f"What was decided about the {topic}?", sections))
    return asks


def stats(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        "p50_s": round(statistics.median(ordered), 3),
        "p95_s": round(ordered[int(0.95 * (len(ordered) - 1))], 3),
    }


def chat_overhead(models: Path, name: str, asks: int, max_tokens: int) -> dict[str, Any]:
    here = LlamaChat(models, name, n_threads=2)
    worker = local_chat(models, name, threads=2)
    worker.start()
    timed: dict[str, list[float]] = {"in_process": [], "worker": []}
    try:
        for messages in prompts(asks):
            for side, model in (("in_process", here), ("worker", worker)):
                started = time.perf_counter()
                model.chat(messages, max_tokens=max_tokens)
                timed[side].append(time.perf_counter() - started)
    finally:
        worker.process.close()
    result = {side: stats(values) for side, values in timed.items()}
    result["p50_ratio"] = round(result["worker"]["p50_s"] / result["in_process"]["p50_s"], 3)
    result["p95_ratio"] = round(result["worker"]["p95_s"] / result["in_process"]["p95_s"], 3)
    return result


def strong_overhead(models: Path, name: str, lines: int, rounds: int) -> dict[str, Any]:
    rng = random.Random(9)
    texts = [
        f"{rng.choice(TOPICS)}: we talked about the {rng.choice(TOPICS)} on day {n}."
        for n in range(lines)
    ]
    here = LlamaEmbedder(models, name, threads=1)
    worker = local_embedder(models, name, threads=1)
    worker.process.start()
    seconds = {"in_process": 0.0, "worker": 0.0}
    try:
        for _ in range(rounds):
            for side, model in (("in_process", here), ("worker", worker)):
                for start in range(0, lines, 8):  # the pass's calls: 8 texts each
                    began = time.perf_counter()
                    model.embed_documents(texts[start : start + 8])
                    seconds[side] += time.perf_counter() - began
    finally:
        worker.process.close()
    rates = {side: round(lines * rounds / value, 2) for side, value in seconds.items()}
    return {"lines_per_s": rates, "ratio": round(rates["worker"] / rates["in_process"], 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chat-model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--strong-model", default="embeddinggemma-300m")
    parser.add_argument("--asks", type=int, default=20)
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--lines", type=int, default=96)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data", type=Path, help="the models folder (default: PRIVAULT_MODELS)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    default = Path(os.environ.get("PRIVAULT_MODELS", Path.home() / ".privault" / "models"))
    models = args.data or default
    load = os.getloadavg()[0]
    report = {
        "chat_model": args.chat_model,
        "chat": chat_overhead(models, args.chat_model, args.asks, args.max_tokens),
        "strong_model": args.strong_model,
        "strong": strong_overhead(models, args.strong_model, args.lines, args.rounds),
        "load_average": {"before": round(load, 2), "after": round(os.getloadavg()[0], 2)},
    }
    print(json.dumps(report, indent=2) if args.json else report)


if __name__ == "__main__":
    main()
