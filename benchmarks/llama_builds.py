"""How fast each way of building llama.cpp runs the local models on this machine.

    python -m benchmarks.llama_builds --json [--build NAME=DIR ...] [--rounds 2]
        [--chat-model qwen2.5-coder-1.5b] [--strong-model embeddinggemma-300m]
        [--data ../shared/data/locomo/locomo_dev.json]

Each `--build NAME=DIR` is a directory holding a `llama_cpp` package (built with
`pip install --no-deps --target DIR llama-cpp-python` under some CMAKE_ARGS); `NAME=` with
no directory is the one installed in this environment. Every build runs in its own child
process (a build that faults on this CPU reports its signal instead of ending the run),
one after another, for `--rounds` rounds so a change in the machine's load hits all of
them. Per build and round it reports llama.cpp's system line and, for the chat model,
prompt tokens/s (a ~500-token prompt, evaluated from an empty cache) and generation
tokens/s (64 greedy tokens, evaluated one at a time); for the strong model,
windows/s of the background pass (one thread, batches as `index --strong` sends them).
Windows are conversation turns (one a window) from `--data` (a LoCoMo file) or generated
lines.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from privault.interfaces.config import models_dir

WINDOWS = 96
BATCH = 8  # texts per call, as the worker receives them (handles.TEXTS_PER_CALL)
GENERATE = 64


def windows(data: Path | None, count: int) -> list[str]:
    if data is not None:
        lines: list[str] = []
        for conversation in json.loads(data.read_text()):
            body = conversation.get("conversation", conversation)
            for key, turns in body.items():
                if key.startswith("session_") and isinstance(turns, list):
                    lines += [f"{t.get('speaker', '')}: {t.get('text', '')}" for t in turns]
        return lines[:count]
    rng = random.Random(3)
    words = "we met at the cafe after work and talked about the trip to the lake house".split()
    return [" ".join(rng.choice(words) for _ in range(rng.randint(12, 40))) for _ in range(count)]


def measure_chat(models: Path, name: str) -> dict[str, Any]:
    import numpy as np

    from privault.models.llama import LlamaChat

    chat = LlamaChat(models, name, n_threads=2)
    llm = chat._llm  # evaluated token by token here, to time prompt and generation apart
    text = " ".join(f"Item {n}: the invoice for the boiler repair was paid." for n in range(40))
    prompt = chat.tokens(text)
    llm.reset()
    started = time.perf_counter()
    llm.eval(prompt)
    prompt_s = time.perf_counter() - started
    llm.reset()
    llm.eval(chat.tokens("Count from 1 to 500, separated by commas: 1, 2, 3,"))
    started = time.perf_counter()
    for _ in range(GENERATE):  # greedy: the most likely next token, evaluated alone
        llm.eval([int(np.argmax(llm.scores[llm.n_tokens - 1]))])
    generation_s = time.perf_counter() - started
    return {
        "prompt_tokens": len(prompt),
        "prompt_tps": round(len(prompt) / prompt_s, 1),
        "generated_tokens": GENERATE,
        "generation_tps": round(GENERATE / generation_s, 2),
    }


def measure_strong(models: Path, name: str, texts: list[str]) -> dict[str, Any]:
    from privault.models.llama import LlamaEmbedder

    embedder = LlamaEmbedder(models, name)
    embedder.embed_documents(texts[:BATCH])  # warm-up, not counted
    started = time.perf_counter()
    for start in range(0, len(texts), BATCH):
        embedder.embed_documents(texts[start : start + BATCH])
    rate = len(texts) / (time.perf_counter() - started)
    return {"windows": len(texts), "windows_per_s": round(rate, 2)}


def child(args: argparse.Namespace) -> None:
    """One build, one round: runs inside the child process whose sys.path holds the build."""
    from privault.models.llama import system_info

    result: dict[str, Any] = {"system_info": system_info()}
    result["chat"] = measure_chat(args.models, args.chat_model)
    texts = windows(args.data, args.windows)
    result["strong"] = measure_strong(args.models, args.strong_model, texts)
    print(json.dumps(result))


def run_build(args: argparse.Namespace, directory: str) -> dict[str, Any]:
    env = dict(os.environ)
    paths = [str(Path.cwd())] + ([directory] if directory else [])
    env["PYTHONPATH"] = os.pathsep.join(paths + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    command = [sys.executable, "-m", "benchmarks.llama_builds", "--child"]
    command += ["--models", str(args.models), "--chat-model", args.chat_model]
    command += ["--strong-model", args.strong_model, "--windows", str(args.windows)]
    if args.data is not None:
        command += ["--data", str(args.data)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-3:]
        return {"failed": f"exit {done.returncode}", "stderr": tail}
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def summary(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    good = [r for r in rounds if "failed" not in r]
    if not good:
        return {"failed": rounds[0]}

    def median(path: tuple[str, str]) -> float:
        return round(statistics.median(r[path[0]][path[1]] for r in good), 2)

    return {
        "system_info": good[0]["system_info"],
        "prompt_tps": median(("chat", "prompt_tps")),
        "generation_tps": median(("chat", "generation_tps")),
        "strong_windows_per_s": median(("strong", "windows_per_s")),
        "rounds": rounds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--build", action="append", default=[], help="NAME=DIR (an empty DIR: this environment)"
    )
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--models", type=Path, default=models_dir())
    parser.add_argument("--chat-model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--strong-model", default="embeddinggemma-300m")
    parser.add_argument("--data", type=Path, default=None, help="a LoCoMo file for the windows")
    parser.add_argument("--windows", type=int, default=WINDOWS)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    builds = [spec.partition("=")[::2] for spec in (args.build or ["installed="])]
    rounds: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in builds}
    for _ in range(args.rounds):
        for name, directory in builds:
            rounds[name].append(run_build(args, directory))
    report: dict[str, Any] = {
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "builds": {name: summary(found) for name, found in rounds.items()},
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for name, figures in report["builds"].items():
        if "failed" in figures:
            print(f"{name}: failed {figures['failed']}")
            continue
        print(
            f"{name}: prompt {figures['prompt_tps']} tok/s, generation {figures['generation_tps']} "
            f"tok/s, strong pass {figures['strong_windows_per_s']} windows/s"
        )
    print(f"load average {report['load_average']}")


if __name__ == "__main__":
    main()
