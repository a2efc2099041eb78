"""Timing presence oracle in statement filters: an agent filtering statements by an entity
the vault holds masked, against one it does not hold.

    python -m benchmarks.statement_presence --data DIR [--statements 400] [--rounds 15] [--json]

Two vaults are built in `DIR` (fake engines: the filter, not detection, is timed), each
with `--statements` statements on a shelf whose policy (`standard`) masks names, naming
"Maria Lopez" in one and "Sofia Garcia" in the other. An agent whose own policy masks only
contact details (so entity filters are open to it) asks both for "Maria Lopez", in turn,
`--rounds` times; both answers are empty. The report gives the median and p90 wall
milliseconds per vault and their ratio (1.0: no oracle).
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

from privault import Caller, Vault
from privault.privacy.detector import FakeDetector
from privault.privacy.policy import shipped_policies_dir
from privault.retrieval.embedder import FakeEmbedder

OWNER, AGENT = Caller.owner(), Caller.agent("helper")
ASKED = "Maria Lopez"
NAMES = {"held": ASKED, "absent": "Sofia Garcia"}
CONTACTS = """name: contacts
description: contact details are masked; names are not
mode: redact
identifying: [EMAIL_ADDRESS, PHONE_NUMBER]
threshold: 0.4
"""


def contacts_policies(folder: Path) -> Path:
    """`folder/policies`: the shipped policies and `contacts` (made once)."""
    policies = folder / "policies"
    if not policies.exists():
        shutil.copytree(shipped_policies_dir(), policies)
        (policies / "contacts.yaml").write_text(CONTACTS)
    return policies


def build(folder: Path, name: str, statements: int) -> Vault:
    """A vault of `statements` statements naming `name` on a shelf that masks names."""
    policies = contacts_policies(folder)
    path = folder / f"{name.split()[0].lower()}.db"
    path.unlink(missing_ok=True)
    vault = Vault.open(
        path,
        models_dir=folder / "models",
        embedder=FakeEmbedder(),
        detector_factory=FakeDetector,
        privacy={"agents": {AGENT.name: "contacts"}},
        policies_dir=policies,
    )
    vault.shelves.add("family", policy="standard")
    for day in range(statements):
        vault.statements.add(
            f"{name} visited on day {day}.", caller=OWNER, entities=[name], shelf="family"
        )
    return vault


def run(args: argparse.Namespace) -> dict[str, Any]:
    args.data.mkdir(parents=True, exist_ok=True)
    vaults = {kind: build(args.data, name, args.statements) for kind, name in NAMES.items()}
    times: dict[str, list[float]] = {kind: [] for kind in vaults}
    try:
        for round_ in range(args.rounds + 1):  # the first round warms the caches
            for kind, vault in vaults.items():
                started = time.perf_counter()
                found = vault.statements.query(caller=AGENT, entities=[ASKED]).statements
                spent = (time.perf_counter() - started) * 1000
                assert found == (), f"the {kind} vault answered {found}"
                if round_:
                    times[kind].append(spent)
    finally:
        for vault in vaults.values():
            vault.close()
    report: dict[str, Any] = {"statements": args.statements, "rounds": args.rounds}
    for kind, spent in times.items():
        ordered = sorted(spent)
        report[kind] = {
            "median_ms": round(statistics.median(ordered), 2),
            "p90_ms": round(ordered[int(len(ordered) * 0.9)], 2),
        }
    report["ratio"] = round(report["held"]["median_ms"] / report["absent"]["median_ms"], 3)
    report["load"] = [round(value, 2) for value in os.getloadavg()]
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a folder for the two vaults")
    parser.add_argument("--statements", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    report = run(args)
    if args.json:
        print(json.dumps(report))
    else:
        for kind in NAMES:
            print(f"{kind}: median {report[kind]['median_ms']} ms, p90 {report[kind]['p90_ms']}")
        print(f"held / absent: {report['ratio']} (load {report['load']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
