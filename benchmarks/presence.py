"""Timing presence oracle: an agent's search for a name the vault holds against an absent one.

    python -m benchmarks.presence --data VAULT.db [--names 10] [--rounds 5] [--json]

`VAULT.db` is a kept vault with people in it (e.g. one `benchmarks.perf --sections N --keep
FILE` built); opening it applies any pending migration, so use a copy. The names are the
vault's most frequent PERSON values; each gets an absent twin of the same shape (the same
word lengths and capitals, no plain keyword row). Each pair is searched by an agent (the
`standard` policy masks names) in turn, the same question around both, `--rounds` times:
the report gives CPU milliseconds and SQLite VM steps per search, held and absent, and
their ratio (1.0: no oracle). The models are the vault's configured ones (`--models`).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from privault.caller import Caller
from privault.store.connection import companion
from privault.vault import Vault

QUESTION = "what did {} say about the garden"
LETTERS = "bcdfghjklmnpqrstvwxz"
VOWELS = "aeiou"
TITLES = frozenset({"mr", "mrs", "ms", "dr", "prof"})


def held_names(vault: Vault, count: int) -> list[str]:
    """The vault's most frequent two-word PERSON values (owner's text)."""
    found: Counter[str] = Counter()
    rows = vault.conn.execute(
        "SELECT s.text, p.start, p.end FROM pii_spans p JOIN sections s ON s.id = p.section_id"
        " WHERE p.kind = 'PERSON' AND p.field = 'text' LIMIT 200000"
    )
    for text, start, end in rows:
        words = [
            word
            for word in str(text)[start:end].split()
            if word.isalpha() and word.lower() not in TITLES
        ]
        if len(words) == 2:  # "Dr. Samir Lee" counts as "Samir Lee"
            found[" ".join(words)] += 1
    return [name for name, _ in found.most_common(count)]


def absent_twin(vault: Vault, name: str, rng: random.Random) -> str:
    """A name shaped like `name` (word lengths, capitals) that no plain row holds."""
    while True:
        words = []
        for word in name.split():
            letters = [rng.choice(VOWELS if i % 2 else LETTERS) for i in range(len(word))]
            words.append("".join(letters).capitalize())
        twin = " ".join(words)
        phrase = '"' + twin + '"'
        if not vault.conn.execute(
            "SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1", (phrase,)
        ).fetchone():
            return twin


def vm_steps(vault: Vault, call: Callable[[], object]) -> int:
    """SQLite virtual-machine steps `call` takes on the vault's connection and on the
    companion its searches rank keywords on (the machine's load does not change them)."""
    connections = [vault.conn]
    beside = companion(vault.conn)
    if beside is not None:
        connections.append(beside)
    steps = [0] * len(connections)  # one counter per connection: they step on two threads

    def counter(index: int) -> Callable[[], int]:
        def step() -> int:
            steps[index] += 1
            return 0

        return step

    for index, conn in enumerate(connections):
        conn.set_progress_handler(counter(index), 1)
    try:
        call()
    finally:
        for conn in connections:
            conn.set_progress_handler(None, 0)
    return sum(steps)


def measure(vault: Vault, caller: Caller, query: str) -> tuple[float, int]:
    """CPU milliseconds and VM steps of one search."""
    started = time.process_time()
    steps = vm_steps(vault, lambda: vault.search(query, caller=caller))
    return (time.process_time() - started) * 1000, steps


def run(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    load_start = os.getloadavg()[0]
    with Vault.open(args.data, models_dir=args.models) as vault:
        agent = Caller.agent("presence-bench")
        names = held_names(vault, args.names)
        if not names:
            raise SystemExit(f"{args.data}: no two-word PERSON values to probe")
        pairs = [(name, absent_twin(vault, name, rng)) for name in names]
        vault.search("warm up", caller=agent)
        per_pair = []
        for held, absent in pairs:
            times: dict[str, list[tuple[float, int]]] = {"held": [], "absent": []}
            for round_ in range(args.rounds + 1):
                order = [("held", held), ("absent", absent)]
                for label, name in order if round_ % 2 else order[::-1]:
                    spent = measure(vault, agent, QUESTION.format(name))
                    if round_:  # the first round warms both
                        times[label].append(spent)
            cpu = {k: statistics.median(t for t, _ in v) for k, v in times.items()}
            steps = {k: statistics.median(s for _, s in v) for k, v in times.items()}
            per_pair.append(
                {
                    "held": held,
                    "absent": absent,
                    "cpu_ms": {k: round(v, 1) for k, v in cpu.items()},
                    "vm_steps": steps,
                    "cpu_ratio": round(cpu["held"] / cpu["absent"], 3),
                    "steps_ratio": round(steps["held"] / steps["absent"], 3),
                }
            )
    return {
        "vault": str(args.data),
        "names": len(pairs),
        "rounds": args.rounds,
        "cpu_ratio_median": statistics.median(p["cpu_ratio"] for p in per_pair),
        "steps_ratio_median": statistics.median(p["steps_ratio"] for p in per_pair),
        "steps_ratio_max": max(p["steps_ratio"] for p in per_pair),
        "pairs": per_pair,
        "load_average": {"start": round(load_start, 2), "end": round(os.getloadavg()[0], 2)},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="a kept vault (a copy)")
    parser.add_argument("--names", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--models", type=Path, default=Path.home() / ".privault" / "models")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if not args.data.is_file():
        parser.error(f"no vault at {args.data}")
    result = run(args)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for pair in result["pairs"]:
            print(
                f"{pair['held']:>22} / {pair['absent']:<22} CPU ms {pair['cpu_ms']['held']:7.1f}"
                f" / {pair['cpu_ms']['absent']:7.1f}  steps ratio {pair['steps_ratio']}"
            )
        print(
            f"median held/absent: CPU {result['cpu_ratio_median']}, VM steps "
            f"{result['steps_ratio_median']} (max {result['steps_ratio_max']}); load "
            f"{result['load_average']['start']} -> {result['load_average']['end']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
