"""What gating long sections costs an agent: search and context over mailbox-sized notes.

    python -m benchmarks.gated_sections --data DIR [--notes 6] [--lines 4000]
        [--rounds 5] [--allow "Jonas Becker"] [--json]

A vault is built in `DIR` (fake engines: gating, not detection or embedding, is timed) with
`--notes` notes of `--lines` lines each, every line naming a person and an e-mail address
(a mail log, a long thread), and a last line the query finds. The shipped policies get
`--allow` on their allow-lists ("" for none). The agent (`standard`: names and addresses
masked, the whole section gated to decide excerpts on what it reads) and the owner (`open`)
then search and ask for a context pack, `--rounds` times each after a warm-up; the report
gives the median and worst wall milliseconds of each.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from privault import Caller, Vault
from privault.privacy.detector import FakeDetector
from privault.privacy.policy import shipped_policies_dir
from privault.retrieval.embedder import FakeEmbedder

OWNER, AGENT = Caller.owner(), Caller.agent("helper")
QUERY = "spare padlock garden shed"


def build(folder: Path, notes: int, lines: int, allow: str) -> Vault:
    """The vault of the benchmark (made afresh)."""
    policies = folder / "policies"
    shutil.rmtree(policies, ignore_errors=True)
    policies.mkdir(parents=True)
    for source in shipped_policies_dir().glob("*.yaml"):
        data = yaml.safe_load(source.read_text())
        data["allow"] = [allow] if allow else []
        (policies / source.name).write_text(yaml.safe_dump(data))
    path = folder / "gated.db"
    for stale in folder.glob("gated.db*"):
        stale.unlink()
    vault = Vault.open(
        path,
        models_dir=folder / "models",
        embedder=FakeEmbedder(),
        detector_factory=FakeDetector,
        privacy={"agents": {AGENT.name: "standard"}},
        policies_dir=policies,
    )
    for n in range(notes):
        body = "\n".join(
            f"Dr Jonas Becker wrote to user{n}x{k}@example.com about boiler {k}."
            for k in range(lines)
        )
        vault.note(
            f"# Log {n}\n\n{body}\n\nThe spare padlock for the garden shed {n}.", caller=OWNER
        )
    return vault


def run(args: argparse.Namespace) -> dict[str, Any]:
    args.data.mkdir(parents=True, exist_ok=True)
    vault = build(args.data, args.notes, args.lines, args.allow)
    times: dict[str, list[float]] = {}
    try:
        for who, caller in (("agent", AGENT), ("owner", OWNER)):
            for round_ in range(args.rounds + 1):  # the first round warms the caches
                for what in ("search", "context"):
                    started = time.perf_counter()
                    if what == "search":
                        found = len(vault.search(QUERY, caller=caller).results)
                    else:
                        found = len(vault.context(QUERY, caller=caller).sections)
                    spent = (time.perf_counter() - started) * 1000
                    assert found, f"the {who}'s {what} found nothing"
                    if round_:
                        times.setdefault(f"{who}_{what}", []).append(spent)
    finally:
        vault.close()
    report: dict[str, Any] = {
        "notes": args.notes,
        "lines": args.lines,
        "allow": args.allow,
        "rounds": args.rounds,
    }
    for key, samples in times.items():
        report[key] = {
            "median_ms": round(statistics.median(samples), 1),
            "max_ms": round(max(samples), 1),
        }
    report["load"] = [round(value, 2) for value in os.getloadavg()]
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a folder for the vault")
    parser.add_argument("--notes", type=int, default=6)
    parser.add_argument("--lines", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--allow", default="Jonas Becker", help='an allowed value ("": none)')
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    report = run(args)
    if args.json:
        print(json.dumps(report))
    else:
        for key, figures in report.items():
            if isinstance(figures, dict):
                print(f"{key}: median {figures['median_ms']} ms, worst {figures['max_ms']}")
        print(f"load {report['load']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
