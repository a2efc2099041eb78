"""Search latency of two or more versions of privault on one vault, query by query in turn.

    python -m benchmarks.interleaved --data VAULT.db --code old=DIR --code new=DIR
        [--rounds 3] [--json]

Each `--code NAME=DIR` is a source tree of privault (a checkout: `git worktree add DIR
REV`); `--code NAME=.` is this one. Each runs in a process of its own that opens the vault
as the owner (the regex PII detector, the installed embedder), refreshes its vector index
and searches once to warm up. Then every query of `benchmarks.perf`'s set goes to each
process in turn (which goes first alternates), `--rounds` times: a shared machine's slow
spells fall on every version alike, which runs one after the other do not give. Reported
per version: search p50 / p95 / max in ms, and the load average at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks.scale import _load, _summary, queries

_SERVE = """
import sys, time
from pathlib import Path
from privault.caller import Caller
from privault.privacy.detector import FakeDetector
from privault.vault import Vault
owner = Caller.owner()
with Vault.open(Path(sys.argv[1]), models_dir=Path(sys.argv[2]),
                detector_factory=FakeDetector) as vault:
    vault.vectors.refresh(vault.conn)
    vault.search("warm up", caller=owner)
    print("ready", flush=True)
    for line in sys.stdin:
        started = time.perf_counter()
        vault.search(line.rstrip("\\n"), caller=owner)
        print((time.perf_counter() - started) * 1000, flush=True)
"""


def _start(tree: Path, vault: Path, models: Path) -> subprocess.Popen[str]:
    """A process searching `vault` with the privault of source tree `tree`."""
    env = dict(os.environ, PYTHONPATH=str(tree.resolve()))
    process = subprocess.Popen(
        [sys.executable, "-c", _SERVE, str(vault), str(models)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tree.resolve(),
    )
    assert process.stdout is not None
    if process.stdout.readline().strip() != "ready":
        process.kill()
        raise RuntimeError(f"privault from {tree} could not open {vault}")
    return process


def compare(
    vault: Path, codes: dict[str, Path], models: Path, rounds: int, asked: list[str]
) -> dict[str, Any]:
    """Each version's search laps on `vault`, taken query by query in turn."""
    processes = {name: _start(tree, vault, models) for name, tree in codes.items()}
    laps: dict[str, list[float]] = {name: [] for name in codes}
    names = list(codes)
    try:
        for round_ in range(rounds):
            for n, query in enumerate(asked):
                for name in names if (n + round_) % 2 == 0 else names[::-1]:
                    process = processes[name]
                    assert process.stdin is not None and process.stdout is not None
                    process.stdin.write(query.replace("\n", " ") + "\n")
                    process.stdin.flush()
                    laps[name].append(float(process.stdout.readline()))
    finally:
        for process in processes.values():
            if process.stdin is not None:
                process.stdin.close()
            process.wait(timeout=60)
    return {
        "vault": str(vault),
        "searches_per_version": rounds * len(asked),
        "search_ms": {name: _summary(one) for name, one in laps.items()},
        "load_average_end": _load(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="a vault `perf --keep` built")
    parser.add_argument(
        "--code", action="append", required=True, help="NAME=DIR: a source tree of privault"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--models", type=Path, default=Path.home() / ".privault" / "models")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    codes = {}
    for spec in args.code:
        name, _, tree = spec.partition("=")
        if not name or not tree or not (Path(tree) / "privault" / "__init__.py").is_file():
            parser.error(f"--code {spec!r}: give NAME=DIR, DIR a source tree of privault")
        codes[name] = Path(tree)
    if not args.data.is_file():
        parser.error(f"--data {args.data}: no such vault")
    result = compare(args.data, codes, args.models, args.rounds, queries())
    if args.json:
        print(json.dumps(result))
    else:
        for name, figures in result["search_ms"].items():
            print(f"{name}: search p50 {figures['p50']} ms, p95 {figures['p95']} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
