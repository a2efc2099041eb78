"""Durability benchmark: writers killed with SIGKILL at random moments lose nothing.

    python -m benchmarks.durability [--kills 10] [--writes 10000] [--max-minutes 60]
        [--asks 3] [--imports 2] [--data DIR] [--seed N] [--json]

Three writer processes write to one vault file at once (see `benchmarks.durability_writers`):
the `privault note` command (deferred writes, indexed in the background), an MCP client
calling `remember` over HTTP on a real `privault serve` (foreground writes with the real
detector and embedder), and the scheduler's poll filing reminders. At random moments (1–6 s
apart) one of them is SIGKILLed — the CLI writer, the *server* (where the MCP writes
happen), or the scheduler — and started again, until each was killed `--kills` times and
`--writes` writes were acknowledged (an id returned to the writer's client). Then
`privault serve` is killed `--asks` times in the middle of an `ask_memory`, and `--imports`
times while its clock indexes a folder of files just added with `privault add`.

Afterwards every writer is stopped, and the vault is checked: SQLite's `integrity_check`,
every acknowledged document (and reminder) present, and no half-written document
(`store.integrity`: sections without windows or keyword rows, scanned windows without
vectors, queued windows not withheld, sections neither scanned nor queued, labels neither
scanned nor queued, orphan rows). Then `privault index --limit 0` finishes what is queued
(the PII scans and embeddings; not the strong model's separate pass) and the check runs
again, now with an empty queue. The vault and logs stay in `--data` (default: a
temporary folder) for inspection.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

WRITERS = ("cli", "serve", "scheduler")
# The installed command beside this Python (what a user runs), else the same entry point.
_INSTALLED = Path(sys.executable).with_name("privault")
PRIVAULT = (
    [str(_INSTALLED)]
    if _INSTALLED.exists()
    else [sys.executable, "-c", "from privault.interfaces.cli import main; main()"]
)


class Harness:
    """The vault's folder, the processes running on it, and what they acknowledged."""

    def __init__(self, folder: Path, models: Path, seed: int) -> None:
        self.folder = folder
        self.vault = folder / "vault.db"
        self.rng = random.Random(seed)
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.env = {
            **os.environ,
            "PRIVAULT_HOME": str(folder),
            "PRIVAULT_VAULT": str(self.vault),
            "PRIVAULT_MODELS": str(models),
        }
        self.env.pop("PRIVAULT_INDEXER", None)
        # The writers are this package's modules, whatever folder the harness runs from.
        root = str(Path(__file__).resolve().parents[1])
        self.env["PYTHONPATH"] = os.pathsep.join(
            p for p in (root, os.environ.get("PYTHONPATH", "")) if p
        )
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.kills = dict.fromkeys((*WRITERS, "serve_in_ask", "serve_in_import"), 0)
        self.token = ""

    # ---- processes -------------------------------------------------------------------

    def privault(self, *args: str, env: dict[str, str] | None = None) -> str:
        done = subprocess.run(
            [*PRIVAULT, *args],
            env=env or self.env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        if done.returncode != 0:
            raise SystemExit(f"privault {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout

    def setup(self) -> None:
        (self.folder / "config.yaml").write_text("chat_model: smollm2-135m\n", encoding="utf-8")
        self.privault("init")
        self.token = json.loads(self.privault("agents", "add", "bench", "--json"))["token"]
        self.privault("note", "The boiler service is booked for Monday with Dana.")

    def start(self, name: str) -> None:
        log = open(self.folder / f"{name}.log", "ab")  # noqa: SIM115 - the child holds it
        writers = [sys.executable, "-m", "benchmarks.durability_writers"]
        argv = {
            "cli": [*writers, "cli", str(self.folder / "acks-cli.txt")],
            "mcp": [*writers, "mcp", str(self.folder / "acks-mcp.txt"), self.url, self.token],
            "scheduler": [*writers, "scheduler", str(self.folder / "acks-scheduler.txt")],
            "serve": [*PRIVAULT, "serve", "--port", str(self.port)],
        }[name]
        self.procs[name] = subprocess.Popen(argv, env=self.env, stdout=log, stderr=log)
        if name == "serve":
            self.wait_for_server()

    def wait_for_server(self, seconds: float = 600) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.procs["serve"].poll() is not None:
                raise SystemExit(f"privault serve exited; see {self.folder / 'serve.log'}")
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.3)
        raise SystemExit("privault serve did not come up")

    def kill(self, name: str, counter: str | None = None) -> None:
        proc = self.procs[name]
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            self.kills[counter or name] += 1

    def stop(self, *names: str) -> None:
        """Stop these processes the polite way (SIGTERM, then SIGKILL after a minute)."""
        for name in names:
            if name in self.procs:
                self._terminate(name)

    def _terminate(self, name: str) -> None:
        proc = self.procs[name]
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    # ---- acknowledged writes ---------------------------------------------------------

    def acked(self, writer: str) -> int:
        """How many lines one writer's acknowledgement file holds."""
        path = self.folder / f"acks-{writer}.txt"
        return path.read_text(encoding="utf-8").count("\n") if path.exists() else 0

    def acks(self) -> tuple[list[str], list[tuple[str, int]]]:
        docs: list[str] = []
        reminders: list[tuple[str, int]] = []
        for path in self.folder.glob("acks-*.txt"):
            for line in path.read_text(encoding="utf-8").split("\n")[:-1]:  # whole lines
                kind, *rest = line.split()
                if kind == "doc":
                    docs.append(rest[0])
                else:
                    reminders.append((rest[0], int(rest[1])))
                    docs.append(rest[2])
        return docs, reminders


def random_kills(harness: Harness, kills: int, writes: int, deadline: float) -> None:
    """Kill a random writer every 1–6 s until each was killed `kills` times and `writes`
    writes were acknowledged (or the deadline passes).

    Only a writer that acknowledged something since it was last started is a candidate:
    a kill should land in the middle of work, not while a restarted server still loads
    its models (which under load can take longer than the gap between kills)."""
    acks = {"cli": "cli", "serve": "mcp", "scheduler": "scheduler"}  # whose file shows work
    for name in ("serve", "cli", "mcp", "scheduler"):
        harness.start(name)
    since = {name: harness.acked(acks[name]) for name in WRITERS}
    while time.monotonic() < deadline:
        short = [name for name in WRITERS if harness.kills[name] < kills]
        if not short and len(harness.acks()[0]) >= writes:
            break
        time.sleep(harness.rng.uniform(1, 6))
        working = [name for name in short or WRITERS if harness.acked(acks[name]) > since[name]]
        if not working:
            continue
        victim = harness.rng.choice(working)
        harness.kill(victim)
        harness.start(victim)
        since[victim] = harness.acked(acks[victim])


def kill_during_asks(harness: Harness, asks: int) -> None:
    """Kill the server while an `ask_memory` is being answered, `asks` times: shortly
    after the asking client says it sent the question."""
    for _ in range(asks):
        asker = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.durability_writers", "ask", harness.url]
            + [harness.token],
            env=harness.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert asker.stdout is not None
        asker.stdout.readline()  # "asking": the call is on its way
        time.sleep(harness.rng.uniform(0.2, 2.0))  # retrieving, or the model answering
        harness.kill("serve", counter="serve_in_ask")
        asker.kill()
        asker.wait()
        harness.start("serve")


def kill_during_imports(harness: Harness, imports: int, files: int = 40) -> None:
    """Add a folder with `privault add` (its indexing left to serve's clock) and kill the
    server once the clock is part-way through it, `imports` times."""
    quiet = {**harness.env, "PRIVAULT_INDEXER": "off"}  # the server, not a worker, indexes
    for round_ in range(imports):
        folder = harness.folder / f"import-{round_}"
        folder.mkdir()
        for number in range(files):
            lines = [f"# File {number} of import {round_}"]
            lines += [f"Line {i}: the plan for week {i} with item {number}." for i in range(60)]
            (folder / f"file-{number:03d}.md").write_text("\n".join(lines), encoding="utf-8")
        harness.privault("add", str(folder), "--json", env=quiet)
        queued = _queued(harness)
        deadline = time.monotonic() + 600
        while _queued(harness) > queued - files // 3 and time.monotonic() < deadline:
            time.sleep(0.3)
        harness.kill("serve", counter="serve_in_import")
        harness.start("serve")


def wait_until_indexed(harness: Harness, seconds: float = 3600) -> None:
    """Until the queue is empty (whoever indexes it), and a little after."""
    deadline = time.monotonic() + seconds
    while _queued(harness) and time.monotonic() < deadline:
        time.sleep(1)
    time.sleep(5)  # a worker that emptied it exits; serve's clock takes the lock


def wait_for_workers(harness: Harness, seconds: float = 1800) -> None:
    """Until no indexer holds the vault's lock (a worker serve's exit started, say)."""
    from privault.interfaces.indexer import IndexerLock

    deadline = time.monotonic() + seconds
    while IndexerLock(harness.vault).held_elsewhere() and time.monotonic() < deadline:
        time.sleep(1)


def _queued(harness: Harness) -> int:
    from privault.store import index_queue
    from privault.vault.capture import Capture

    with Capture.open(harness.vault) as capture:
        return index_queue.backlog(capture.conn).sections


def check(harness: Harness) -> dict[str, Any]:
    """What the vault holds against what was acknowledged, and whether anything is torn."""
    from privault.store import index_queue, integrity
    from privault.store.connection import connect

    docs, reminders = harness.acks()
    conn = connect(harness.vault)
    try:
        return {
            "acknowledged_writes": len(docs),
            "acknowledged_reminders": len(reminders),
            "lost_writes": len(integrity.missing_documents(conn, sorted(set(docs)))),
            "lost_reminders": len(integrity.missing_reminders(conn, reminders)),
            "integrity_check": integrity.integrity_check(conn),
            "half_written": integrity.half_written(conn),
            "queued_sections": index_queue.backlog(conn).sections,
        }
    finally:
        conn.close()


def run(args: argparse.Namespace) -> dict[str, Any]:
    load_start = round(os.getloadavg()[0], 2)
    folder = args.data or Path(tempfile.mkdtemp(prefix="privault-durability-"))
    folder.mkdir(parents=True, exist_ok=True)
    harness = Harness(folder, args.models, args.seed)
    started = time.monotonic()
    harness.setup()
    try:
        random_kills(harness, args.kills, args.writes, started + args.max_minutes * 60)
        harness.stop("cli", "mcp", "scheduler")
        kill_during_asks(harness, args.asks)
        wait_until_indexed(harness)  # so that serve's clock, not a worker, takes the imports
        kill_during_imports(harness, args.imports)
    finally:
        harness.stop("cli", "mcp", "scheduler", "serve")
    after_kills = check(harness)  # a consistent snapshot, whatever a worker still does
    wait_for_workers(harness)
    # Finish what the kills left queued. The strong model's vectors are not part of a
    # write (each round of that pass is its own transaction, resumed by the next) and
    # take minutes on thousands of windows, so `--limit 0` skips that pass here.
    harness.privault("index", "--json", "--limit", "0")
    after_index = check(harness)
    return {
        "kills": {k: v for k, v in harness.kills.items()},
        "total_kills": sum(harness.kills.values()),
        "after_kills": after_kills,
        "after_index": after_index,
        "minutes": round((time.monotonic() - started) / 60, 1),
        "load_average": {"start": load_start, "end": round(os.getloadavg()[0], 2)},
        "folder": str(folder),
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def ok(result: dict[str, Any]) -> bool:
    """Whether nothing acknowledged was lost and nothing is torn, before and after."""
    for stage in ("after_kills", "after_index"):
        got = result[stage]
        if got["lost_writes"] or got["lost_reminders"] or got["integrity_check"] != "ok":
            return False
        if any(got["half_written"].values()):
            return False
    return result["after_index"]["queued_sections"] == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=10, help="SIGKILLs of each writer")
    parser.add_argument("--writes", type=int, default=10_000, help="acknowledged writes")
    parser.add_argument("--max-minutes", type=float, default=60)
    parser.add_argument("--asks", type=int, default=3, help="server kills during an ask")
    parser.add_argument("--imports", type=int, default=2, help="kills during a folder import")
    parser.add_argument("--data", type=Path, default=None, help="folder for the vault and logs")
    parser.add_argument("--models", type=Path, default=Path.home() / ".privault" / "models")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    result = run(args)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        final = result["after_index"]
        print(
            f"{final['acknowledged_writes']} acknowledged writes "
            f"({final['acknowledged_reminders']} reminders), {result['total_kills']} kills "
            f"{result['kills']}: lost {final['lost_writes']} writes, "
            f"{final['lost_reminders']} reminders; integrity {final['integrity_check']}; "
            f"half-written before indexing {result['after_kills']['half_written']}, "
            f"after {final['half_written']}; {result['minutes']} min, load average "
            f"{result['load_average']['start']} -> {result['load_average']['end']}"
        )
    return 0 if ok(result) else 1


if __name__ == "__main__":
    sys.exit(main())
