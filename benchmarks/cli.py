"""Whole-process benchmark: the installed `privault` command, run as a user runs it.

    python -m benchmarks.cli [--notes 10000] [--runs 15] [--vault PATH] [--data WORDLIST]
        [--indexer detached|off] [--detector real|fake] [--own-writes 20] [--json]

Builds (or reuses, with `--vault`) a vault of `--notes` short notes — written through
`Vault.note_many` with the real embedder and, unless `--detector fake`, the real PII
detector, so the vault is what a user's would be after indexing — then times `--runs`
runs of each of:

* `privault note "…"` — a new text each run (never "unchanged"); with `--indexer
  detached` (the default, what a user gets) the command starts the background worker
  when none runs, and the worker indexes while the later runs go on;
* `privault search QUERY` as the owner — a different everyday query each run — after the
  notes' indexing has finished: first `search_cold`, every run in its own process
  (`PRIVAULT_WARM=off`), then `search` as a user gets it, where the first run starts the
  warm searcher and the later runs are answered by it (its first run is reported apart);
* read your own writes (`--own-writes`, default 20 pairs): `privault note FACT` and at once
  `privault search PARAPHRASE --json`, back to back, each a process as a user runs them
  (warm searcher and detached indexer as configured); counted: how many searches found
  the note in their results (it shares no key word with the query: found by meaning), and
  how many of them ran while the note was still queued for the indexer (then it was
  embedded by the search itself), with both commands' wall-time medians.

Each run is a fresh process of the command found on PATH (or beside this Python).
Reported per command: wall-time median, p90 and max, and the median CPU seconds the
process used (user + system, from the OS), which says what the run costs on a quiet
machine when others share this one. The load average is reported at the start and end.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.perf import _COMMON, Sentences, vocabulary

QUERIES = (
    "when is the dentist",
    "budget for the kitchen",
    "flight and hotel",
    "invoice from the client",
    "birthday dinner plans",
    "school report",
    "train to the city",
    "coffee with a friend",
    "music and film",
    "contract review",
)


def privault_command() -> str:
    """The installed `privault` executable (PATH first, then beside this Python)."""
    found = shutil.which("privault")
    beside = Path(sys.executable).with_name("privault")
    if found:
        return found
    if beside.exists():
        return str(beside)
    raise SystemExit("no installed `privault` command found (pip install -e .)")


def build(vault: Path, models: Path, notes: int, words: Path | None, detector: str) -> int:
    """Fill `vault` with `notes` short notes (fully indexed); return how many it holds."""
    from privault.caller import Caller
    from privault.privacy.detector import FakeDetector
    from privault.vault import Vault

    choice: dict[str, Any] = {"detector_factory": FakeDetector} if detector == "fake" else {}
    with Vault.open(vault, models_dir=models, **choice) as opened:
        have = opened.status().documents
        text = Sentences(vocabulary(words)[: len(_COMMON)], seed=17)
        owner = Caller.owner()
        while have < notes:
            batch = [{"text": text.sentence(10, 30)} for _ in range(min(500, notes - have))]
            have += sum(a.status == "added" for a in opened.note_many(batch, caller=owner))
        return have


# (note, a query that means the same in other words): read-your-own-writes pairs.
OWN_WRITES = (
    (
        "The heat pump service is booked with Aldridge Heating for 3 March; bring the warranty"
        " card.",
        "when is the boiler engineer coming",
    ),
    ("Dentist appointment moved to Thursday at 9, Dr Pellow in Harbour Street.", "dental visit"),
    (
        "Passport renewal form posted on Monday; the new one should come in three weeks.",
        "renewing my travel papers",
    ),
    ("Car MOT due at the Kwik Fit garage next Friday morning.", "vehicle inspection date"),
    (
        "Lena's piano recital is on the 14th at the village hall, starts at six.",
        "kid's piano concert",
    ),
    ("Water bill went up to 48 pounds a month from April.", "how much do we pay for water"),
    ("Vet booked for the cat's vaccinations on Saturday at 10.", "animal doctor for the kitten"),
    (
        "Flight to Lisbon leaves Gatwick at 07:40 on the 22nd, seat 14C.",
        "plane departure for the Portugal trip",
    ),
    (
        "Roof leak above the spare bedroom; the roofer quoted 650 for new flashing.",
        "price for fixing the ceiling drip",
    ),
    (
        "Mum's birthday dinner at the Italian place on Sunday, table for six.",
        "mother's celebration meal reservation",
    ),
    ("Gym membership cancelled, last payment taken on the 1st.", "fitness club subscription"),
    ("Book club reads The Remains of the Day for next month.", "novel for the reading group"),
    (
        "Tax return deadline is 31 January; the accountant needs the P60.",
        "when must I file with the revenue office",
    ),
    (
        "Broadband router replaced, new wifi password on the sticker underneath.",
        "internet box changed",
    ),
    (
        "Kids' swimming lessons move to Wednesday afternoons at the leisure centre.",
        "children's pool classes",
    ),
    ("Sold the old bike on the marketplace for 120.", "how much did I get for the bicycle"),
    ("Doctor said to take the antibiotics twice a day for a week.", "medicine dosage from the GP"),
    ("Wedding invitation from Tom and Priya: 12 June, RSVP by May.", "friends' marriage ceremony"),
    (
        "Landlord agreed to fix the washing machine by Tuesday.",
        "when will the laundry appliance be repaired",
    ),
    (
        "Electric car charger installation quoted at 900 with the grant.",
        "cost of the EV charging point",
    ),
)


def own_writes(exe: str, env: dict[str, str], vault: Path, pairs: int) -> dict[str, Any]:
    """`note` then `search` by meaning, back to back as processes: found how often, and
    how often the note was still queued when the search had run."""
    import sqlite3

    found = queued = 0
    note_walls, search_walls = [], []
    for index in range(pairs):
        fact, query = OWN_WRITES[index % len(OWN_WRITES)]
        fact = f"{fact} (#{time.time_ns() % 100_000})"  # a new text each run, never unchanged
        started = time.perf_counter()
        noted = subprocess.run(
            [exe, "note", fact, "--json"], env=env, capture_output=True, text=True, timeout=300
        )
        note_walls.append(time.perf_counter() - started)
        if noted.returncode != 0:
            raise SystemExit(f"note failed: {noted.stderr.strip()}")
        doc_id = json.loads(noted.stdout)["doc_id"]
        started = time.perf_counter()
        searched = subprocess.run(
            [exe, "search", query, "--json"], env=env, capture_output=True, text=True, timeout=300
        )
        search_walls.append(time.perf_counter() - started)
        if searched.returncode != 0:
            raise SystemExit(f"search failed: {searched.stderr.strip()}")
        results = json.loads(searched.stdout)["results"]
        found += any(hit["doc_id"] == doc_id for hit in results)
        # Read-only, plain file: the benchmark's vault is never encrypted.
        with sqlite3.connect(f"file:{vault}?mode=ro", uri=True) as peek:
            left = peek.execute(
                "SELECT count(*) FROM index_queue WHERE doc_id = ? AND section_id IS NOT NULL",
                (doc_id,),
            ).fetchone()[0]
        queued += bool(left)
    return {
        "pairs": pairs,
        "found": found,
        "still_queued_after_search": queued,
        "note_wall_median_s": round(statistics.median(note_walls), 3),
        "search_wall_median_s": round(statistics.median(search_walls), 3),
        "targets": {"found": pairs, "note_s": 0.2, "search_s": 0.3},
    }


def timed_runs(command: list[list[str]], env: dict[str, str]) -> dict[str, Any]:
    """Wall and CPU seconds of each command line, run one after another."""
    walls, cpus = [], []
    for argv in command:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv[1:3])} failed: {done.stderr.strip()}")
    ordered = sorted(walls)
    return {
        "runs": len(walls),
        "first_s": round(walls[0], 3),
        "wall_median_s": round(statistics.median(walls), 3),
        "wall_p90_s": round(ordered[int(0.9 * (len(ordered) - 1))], 3),
        "wall_max_s": round(ordered[-1], 3),
        "cpu_median_s": round(statistics.median(cpus), 3),
    }


def wait_for_indexer(vault: Path, seconds: float = 1800) -> float:
    """Seconds until the vault's index queue is empty and no indexer holds its lock."""
    from privault.interfaces.indexer import IndexerLock
    from privault.vault.capture import Capture

    started = time.monotonic()
    while time.monotonic() - started < seconds:
        with Capture.open(vault) as capture:
            idle = not capture.has_work()
        if idle and not IndexerLock(vault).held_elsewhere():
            break
        time.sleep(0.5)
    return time.monotonic() - started


def stop_warm(vault: Path) -> None:
    """Stop the vault's warm searcher, if one runs (its lock file names its process)."""
    from privault.interfaces import warm
    from privault.interfaces.indexer import ProcessLock

    path = warm.socket_path(vault.resolve())
    lock = None if path is None else path.with_suffix(".lock")
    if lock is None or not ProcessLock(lock).held_elsewhere():
        return
    os.kill(int(lock.read_text()), signal.SIGTERM)
    while ProcessLock(lock).held_elsewhere():
        time.sleep(0.1)


def run(args: argparse.Namespace) -> dict[str, Any]:
    load_start = round(os.getloadavg()[0], 2)
    folder = Path(tempfile.mkdtemp(prefix="privault-cli-"))
    vault = args.vault or folder / "vault.db"
    started = time.perf_counter()
    held = build(vault, args.models, args.notes, args.data, args.detector)
    build_seconds = time.perf_counter() - started
    env = {
        **os.environ,
        "PRIVAULT_HOME": str(vault.parent),
        "PRIVAULT_VAULT": str(vault),
        "PRIVAULT_MODELS": str(args.models),
    }
    if args.indexer == "off":
        env["PRIVAULT_INDEXER"] = "off"
    else:
        env.pop("PRIVAULT_INDEXER", None)
    exe = privault_command()
    rng = random.Random(5)
    text = Sentences(vocabulary(args.data)[: len(_COMMON)], seed=rng.randint(0, 10**6))
    notes = [[exe, "note", f"{text.sentence(8, 20)} {time.time_ns()}"] for _ in range(args.runs)]
    note = timed_runs(notes, env)
    indexed_after = wait_for_indexer(vault) if args.indexer == "detached" else None
    searches = [[exe, "search", QUERIES[i % len(QUERIES)]] for i in range(args.runs)]
    stop_warm(vault)
    search_cold = timed_runs(searches, {**env, "PRIVAULT_WARM": "off"})
    warm_env = {k: v for k, v in env.items() if k != "PRIVAULT_WARM"}
    search = timed_runs(searches, warm_env)
    fresh = own_writes(exe, warm_env, vault, args.own_writes) if args.own_writes else None
    stop_warm(vault)
    return {
        "command": exe,
        "notes_in_vault": held,
        "build_seconds": round(build_seconds, 1),
        "indexer": args.indexer,
        "note": note,
        "indexer_done_after_notes_s": round(indexed_after, 1) if indexed_after else None,
        "search": search,
        "search_cold": search_cold,
        "own_writes": fresh,
        "targets": {"note_s": 0.5, "search_s": 1.0},
        "load_average": {"start": load_start, "end": round(os.getloadavg()[0], 2)},
        "vault": str(vault),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--vault", type=Path, default=None, help="build here, or reuse it")
    parser.add_argument("--data", type=Path, default=None, help="word list, one word a line")
    parser.add_argument("--models", type=Path, default=Path.home() / ".privault" / "models")
    parser.add_argument("--indexer", choices=("detached", "off"), default="detached")
    parser.add_argument("--detector", choices=("real", "fake"), default="real")
    parser.add_argument("--own-writes", type=int, default=20, help="note+search pairs (0: none)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.runs < 10:
        parser.error("--runs must be at least 10 (a median of fewer says little)")
    result = run(args)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{result['notes_in_vault']} notes in {result['vault']} ({result['command']})")
    for name in ("note", "search", "search_cold"):
        got = result[name]
        print(
            f"  privault {name:<7} median {got['wall_median_s']:.3f} s  p90 {got['wall_p90_s']:.3f}"
            f"  max {got['wall_max_s']:.3f}  cpu median {got['cpu_median_s']:.3f} s"
            f"  (target {result['targets'][name.split('_')[0] + '_s']} s, {got['runs']} runs)"
        )
    if fresh := result["own_writes"]:
        print(
            f"  note then search by meaning: found {fresh['found']}/{fresh['pairs']}"
            f" ({fresh['still_queued_after_search']} still queued when searched)"
            f"  note median {fresh['note_wall_median_s']:.3f} s"
            f"  search median {fresh['search_wall_median_s']:.3f} s"
        )
    load = result["load_average"]
    print(f"  load average {load['start']} at the start, {load['end']} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
