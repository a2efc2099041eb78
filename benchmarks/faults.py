"""Model faults against a running server: crashes and hangs of the chat model's worker
while agents search and write. The server must never die and never lose a write.

    python -m benchmarks.faults --json [--crashes 100] [--hangs 20] [--searchers 4]
        [--chat-model smollm2-135m] [--ask-timeout 6] [--sections 500]

Starts `privault serve` on a free 127.0.0.1 port with the real chat model (SmolLM2 unless
`--chat-model`; `--ask-timeout` sets the owner's cap on a whole answer, else a hang is cut
when the worker has been silent longer than it is allowed), then:

* `--searchers` agents call memory_search back to back, and one agent calls `remember`
  (each acknowledged write is kept, to be checked at the end);
* one agent asks `ask_memory` again and again. A fault is injected into the worker the
  server runs (its pid is read from the state file beside the vault) while an answer is
  being written: a crash (SIGSEGV, SIGABRT or SIGKILL sent to it — what a faulting kernel,
  `abort()` or the out-of-memory killer does) or a hang (SIGSTOP: the worker stops
  answering). The next ask must succeed before the next fault, as in real use (three
  faults in a row would mark the model failed, by design).

Reports: server deaths (must be 0), acknowledged writes missing at the end (must be 0),
failed asks answered after their deadline (must be 0: a crash within 2 s of the signal, a
hang within the silence the error names + 2 s), recovery after a crash (worker ready again
with a new pid) against
the model's load time, and search errors and p95 during the run. The load average is
recorded: the machine's other work slows everything here.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import httpx

from benchmarks.mcp import BOOT, WORDS, build_vault, free_port, percentiles, search, session

CRASHES = (signal.SIGSEGV, signal.SIGABRT, signal.SIGKILL)


def worker_row(vault: Path, name: str) -> dict[str, Any] | None:
    """The chat worker's row in the state file beside the vault (None until written)."""
    from privault.models.health import board_path, read_board

    rows = [row for row in read_board(board_path(vault)) if row["name"] == name]
    return rows[0] if rows else None


def wait_ready(vault: Path, name: str, old_pid: int | None, seconds: float) -> float | None:
    """Seconds until the worker is ready with a pid other than `old_pid` (None: timed out)."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        row = worker_row(vault, name)
        if row and row["state"] == "ready" and row["pid"] and row["pid"] != old_pid:
            return time.monotonic() - started
        time.sleep(0.02)
    return None


class Load:
    """Searchers and a writer on their own sessions until `stop` is set."""

    def __init__(self, url: str, token: str, writer_token: str, searchers: int) -> None:
        self.url, self.token, self.writer_token = url, token, writer_token
        self.searchers = searchers
        self.stop = threading.Event()
        self.times: list[float] = []
        self.search_errors: list[str] = []
        self.written: list[str] = []
        self.write_errors: list[str] = []
        self._thread = threading.Thread(target=lambda: anyio.run(self._run), daemon=True)

    def start(self) -> None:
        self._thread.start()

    def join(self) -> None:
        self.stop.set()
        self._thread.join(timeout=120)

    async def _run(self) -> None:
        async with anyio.create_task_group() as group:
            for index in range(self.searchers):
                group.start_soon(self._search, index)
            group.start_soon(self._write)

    async def _search(self, index: int) -> None:
        async def work(client: Any) -> None:
            rng = random.Random(index)
            while not self.stop.is_set():
                try:
                    self.times.append(await search(client, rng))
                except Exception as exc:  # counted: the figure that must stay 0
                    self.search_errors.append(str(exc)[:200])
                await anyio.sleep(0.05)

        await session(self.url, self.token, work)

    async def _write(self) -> None:
        async def work(client: Any) -> None:
            count = 0
            while not self.stop.is_set():
                text = f"fault run note {count}: {' '.join(random.sample(WORDS, 6))}"
                result = await client.call_tool("remember", {"text": text})
                if result.is_error:
                    self.write_errors.append(result.content[0].text[:200])
                else:
                    self.written.append(str(result.structured_content["doc_id"]))
                count += 1
                await anyio.sleep(0.3)

        await session(self.url, self.writer_token, work)


async def faults(
    url: str, token: str, vault: Path, model: str, args: argparse.Namespace
) -> dict[str, Any]:
    """Inject the crashes and hangs, one per ask, with a good ask before each."""
    rng = random.Random(3)
    late: list[dict[str, Any]] = []
    recoveries: list[float] = []
    good_asks: list[float] = []
    failed_asks = 0
    unexpected: list[str] = []
    plan = [CRASHES[n % len(CRASHES)] for n in range(args.crashes)] + [signal.SIGSTOP] * args.hangs

    async def ask(client: Any, question: str) -> tuple[float, str | None]:
        started = time.perf_counter()
        result = await client.call_tool("ask_memory", {"question": question})
        if result.is_error:
            error = result.content[0].text
        else:  # a refusal (say, the model marked failed) is no answer either
            error = (result.structured_content or {}).get("refused")
        return time.perf_counter() - started, error

    async def work(client: Any) -> None:
        nonlocal failed_asks
        for number, sent in enumerate(plan):
            for _ in range(5):  # a good answer first (a restart may still be under way)
                seconds, error = await ask(client, f"what about the {rng.choice(WORDS)}?")
                if error is None:
                    good_asks.append(seconds)
                    break
                await anyio.sleep(0.5)
            row = worker_row(vault, model)
            pid = row["pid"] if row else None
            if not pid:
                unexpected.append(f"fault {number}: no worker pid in {row}")
                continue
            delay = rng.uniform(0.05, 0.4)  # into the answer: prompt or generation
            sent_at: list[float] = []

            def inject(
                pid: int = pid,
                sent: signal.Signals = sent,
                delay: float = delay,
                sent_at: list[float] = sent_at,
            ) -> None:
                time.sleep(delay)
                os.kill(pid, sent)
                sent_at.append(time.perf_counter())

            injector = threading.Thread(target=inject)
            injector.start()
            seconds, error = await ask(client, f"tell me about the {rng.choice(WORDS)}")
            answered_at = time.perf_counter()
            injector.join()
            if error is None:  # the answer was done before the signal: not a fault case
                if sent == signal.SIGSTOP:
                    os.kill(pid, signal.SIGCONT)
                continue
            failed_asks += 1
            if "model_unavailable" not in error:
                unexpected.append(error[:200])
            # A crash is seen at once; a hang when the silence it was allowed runs out (the
            # error names it) or at the ask_timeout.
            allowed = 2.0
            if sent == signal.SIGSTOP:
                named = re.search(r"no sign of life for (\d+) s", error)
                allowed += float(named.group(1)) if named else float(args.ask_timeout or 0)
            waited = answered_at - sent_at[0]
            if waited > allowed:
                late.append({"signal": sent.name, "after_signal_s": round(waited, 2)})
            ready = wait_ready(vault, model, pid, 120.0)
            if ready is None:
                unexpected.append(f"fault {number}: the worker did not come back in 120 s")
            else:
                recoveries.append(ready)

    await session(url, token, work)
    row = worker_row(vault, model) or {}
    return {
        "faults_planned": len(plan),
        "failed_asks": failed_asks,
        "late_answers": late,
        "unexpected": unexpected[:10],
        "recovery_s": percentiles([r * 1000 for r in recoveries]),
        "model_load_s": row.get("load_seconds"),
        "good_ask_s": percentiles([s * 1000 for s in good_asks]),
        "restarts": row.get("restarts"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--crashes", type=int, default=100)
    parser.add_argument("--hangs", type=int, default=20)
    parser.add_argument("--searchers", type=int, default=4)
    parser.add_argument("--sections", type=int, default=500)
    parser.add_argument("--chat-model", default="smollm2-135m")
    parser.add_argument("--ask-timeout", type=int, default=0, help="seconds (0: none)")
    parser.add_argument("--data", type=Path, help="a folder to build the vault in (kept)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    models = Path(os.environ.get("PRIVAULT_MODELS", Path.home() / ".privault" / "models"))
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.data or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        vault, home = folder / "vault.db", folder / "home"
        home.mkdir(exist_ok=True)
        timeout = f"ask_timeout: {args.ask_timeout}\n" if args.ask_timeout else ""
        (home / "config.yaml").write_text(
            f"chat_model: {args.chat_model}\n{timeout}strong_model: null\n"
        )
        token = build_vault(vault, args.sections, models)
        from privault.vault import Vault

        with Vault.open(vault, models_dir=models) as opened:
            writer = opened.agents.issue("writer")
            asker = opened.agents.issue("asker", read_only=True)
        port = free_port()
        url = f"http://127.0.0.1:{port}/mcp"
        env = {
            **os.environ,
            "PRIVAULT_VAULT": str(vault),
            "PRIVAULT_HOME": str(home),
            "PRIVAULT_MODELS": str(models),
        }
        server = subprocess.Popen(
            [sys.executable, "-c", BOOT, "serve", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        load = Load(url, token, writer, args.searchers)
        try:
            while True:
                if server.poll() is not None:
                    raise SystemExit("privault serve exited before it answered")
                try:
                    httpx.get(url, timeout=1)
                    break
                except httpx.TransportError:
                    time.sleep(0.2)
            if wait_ready(vault, args.chat_model, None, 600) is None:
                raise SystemExit("the chat model's worker never became ready")
            load_before = round(os.getloadavg()[0], 2)
            started = time.monotonic()
            load.start()
            result = anyio.run(faults, url, asker, vault, args.chat_model, args)
            load.join()
            alive = server.poll() is None
        finally:
            server.terminate()
            server.wait(timeout=60)
        with Vault.open(vault, models_dir=models) as opened:
            present = {row[0] for row in opened.conn.execute("SELECT id FROM documents")}
        missing = [doc for doc in load.written if doc not in present]
        report = {
            "seconds": round(time.monotonic() - started, 1),
            "chat_model": args.chat_model,
            "ask_timeout_s": args.ask_timeout,
            "server_deaths": 0 if alive else 1,
            "writes_acknowledged": len(load.written),
            "writes_lost": len(missing),
            "write_errors": len(load.write_errors),
            "searches": percentiles(load.times),
            "search_errors": len(load.search_errors),
            **result,
            "load_average": {"before": load_before, "after": round(os.getloadavg()[0], 2)},
        }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for key, value in report.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
