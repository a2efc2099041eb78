"""MCP over HTTP benchmark: memory_search latency, idle and while an ask runs, and throughput,
for the pooled server and the old single-lock one, in one run on one vault.

    python -m benchmarks.mcp --json [--sections 10000] [--clients 8] [--seconds 15]
        [--calls 100] [--modes pooled,single] [--rounds 1] [--chat-model NAME] [--data DIR]
        [--client sdk|raw] [--phases idle,ask,throughput]

Builds a vault of `--sections` sections with the real embedder and the real PII detector
(so the server finds nothing left to re-scan), then, for each mode, starts
`privault serve` on a free 127.0.0.1 port as a subprocess (`--readers 4`, or `--readers 0`:
every call through one connection under one lock) and drives it with the MCP SDK's
streamable HTTP client (or, with `--client raw`, plain JSON-RPC posts: the same requests
without the SDK client's CPU on the machine's cores):

* idle: `--calls` sequential memory_search calls in one session, p50/p95 in ms;
* during an ask: one session asks `ask_memory` (the local chat model writes the answer)
  while another calls memory_search back to back until the answer is in, then times as
  many searches again with no ask running (`between`: the same machine a minute later, so
  the ratio of the two is not swayed by load that changed since the idle phase); asks
  repeat until `--calls` searches were timed or `--ask-seconds` passed;
* throughput: `--clients` concurrent sessions calling memory_search for `--seconds`,
  calls/s, errors (must be 0) and the server's CPU seconds per call (from /proc).

Each mode also reports the resident memory of the server and its model workers after its
phases (`memory_mb`), and the index windows the server's strong-model pass gave vectors
while it was measured (`strong_windows_indexed`): the pass steps aside while calls run,
so this stays near 0 unless the phases leave the server idle.

The chat model is `--chat-model`, else the default answerer (qwen2.5-coder-1.5b) if it is
installed, else the smallest installed one; the report names it. With `--rounds N` the
modes alternate N times (pooled, single, pooled, ...) so a change in the machine's load
hits both. Every phase records the load average it ran at. With `--data DIR` the vault is
built there (and kept, and reused when its sections match); otherwise in a temporary
folder. Nothing leaves the machine: the server binds loopback and the client only talks
to it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx

WORDS = (
    "boiler invoice garden budget meeting travel hotel doctor school tax insurance car "
    "repair holiday birthday recipe project deadline contract rent energy bill garage "
    "bicycle passport museum concert dentist kitchen window painting library laptop"
).split()
SECTIONS_PER_NOTE = 10
MAX_CALLS = 50_000
CHAT_MODELS = ("qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b", "smollm2-135m")
# Each ask reads different sections (a repeated question would find its whole prompt in
# the model's cache and answer in a second, which is not what an agent's ask costs).
QUESTIONS = [
    f"What do my notes say about the {first} and the {second}?"
    for first, second in (
        ("boiler invoice", "garden budget"),
        ("dentist", "school"),
        ("passport", "holiday"),
        ("museum concert", "library"),
        ("car repair", "garage"),
        ("rent contract", "energy bill"),
    )
]
BOOT = (
    "from privault.interfaces import cli; from privault.interfaces.cli import agents;\n"
    "names = {g.name for g in cli.app.registered_groups}\n"
    "agents.register(cli.app) if 'mcp' not in names else None\n"
    "cli.main()"
)
READERS = {"pooled": 4, "single": 0}


def build_vault(path: Path, sections: int, models: Path) -> str:
    """A vault with `sections` sections and one agent; returns the agent's token."""
    from privault.caller import Caller
    from privault.vault import Vault

    rng = random.Random(7)
    vault = Vault.open(path, models_dir=models)
    notes = []
    for index in range(max(1, sections // SECTIONS_PER_NOTE)):
        parts = [f"# Note {index}"]
        for part in range(SECTIONS_PER_NOTE):
            words = " ".join(rng.choice(WORDS) for _ in range(40))
            parts.append(f"## Part {part}\n\n{words}.")
        notes.append({"text": "\n\n".join(parts)})
    for start in range(0, len(notes), 100):
        vault.note_many(notes[start : start + 100], caller=Caller.owner())
    token = vault.agents.issue("bench", read_only=True)
    vault.close()
    return token


def prepared_vault(folder: Path, sections: int, models: Path) -> tuple[Path, str, float]:
    """The vault in `folder` (built unless one of this size is there): path, token, seconds."""
    path = folder / "vault.db"
    marker = folder / "bench.json"
    if path.exists() and marker.exists():
        known = json.loads(marker.read_text())
        if known.get("sections") == sections:
            return path, str(known["token"]), 0.0
    for stale in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), marker):
        stale.unlink(missing_ok=True)
    started = time.perf_counter()
    token = build_vault(path, sections, models)
    marker.write_text(json.dumps({"sections": sections, "token": token}))
    return path, token, time.perf_counter() - started


def chat_model(models: Path, wanted: str | None) -> str:
    """The chat model the server will load: `wanted`, else the best one installed."""
    if wanted:
        return wanted
    for name in CHAT_MODELS:
        if (models / name).is_dir():
            return name
    raise SystemExit("no chat model installed: run `privault models install smollm2-135m`")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def load_average() -> float:
    return round(os.getloadavg()[0], 2)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc), 0.0 where unavailable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory(pid: int) -> dict[str, Any]:
    """Resident MB of a process and of each process it started (the model workers), from
    /proc: `rss` all resident pages, `anon` those no file backs (what memory pressure cannot
    simply drop)."""

    def status(of: Path) -> dict[str, float]:
        fields = dict(line.split(":", 1) for line in (of / "status").read_text().splitlines())
        return {
            key: round(int(fields[name].split()[0]) / 1024)
            for key, name in (("rss", "VmRSS"), ("anon", "RssAnon"))
            if name in fields
        }

    found: dict[str, Any] = {"server": status(Path(f"/proc/{pid}")), "workers": []}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found["workers"].append(status(stat.parent))
        except (OSError, IndexError, ValueError):
            continue
    every = [found["server"], *found["workers"]]
    found["total_rss_mb"] = sum(part.get("rss", 0) for part in every)
    found["total_anon_mb"] = sum(part.get("anon", 0) for part in every)
    return found


def percentiles(times: list[float]) -> dict[str, Any]:
    ordered = sorted(times)
    if not ordered:
        return {"calls": 0}
    return {
        "calls": len(ordered),
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 1),
        "max_ms": round(ordered[-1], 1),
    }


async def search(client: Any, rng: random.Random) -> float:
    """One memory_search; its time in ms (raises on a tool error)."""
    query = f"{rng.choice(WORDS)} {rng.choice(WORDS)}"
    started = time.perf_counter()
    result = await client.call_tool("memory_search", {"query": query, "limit": 10})
    if result.is_error:
        raise RuntimeError(f"memory_search error: {result.content[0].text}")
    return (time.perf_counter() - started) * 1000


@dataclass
class RawResult:
    """What `RawClient.call_tool` answers: the SDK result's fields the benchmark reads."""

    is_error: bool
    content: list[Any]
    structured_content: dict[str, Any] | None


@dataclass
class RawText:
    text: str


class RawClient:
    """JSON-RPC tools/call over plain HTTP posts: the load an agent puts on the server,
    without the SDK client's own CPU (result validation, stream machinery) on this
    machine's cores."""

    def __init__(self, session: Any) -> None:
        self.session = session

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> RawResult:
        message = {
            "jsonrpc": "2.0",
            "id": self.session.next_id(),
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        status, answer = await self.session.send(json.dumps(message).encode())
        result = (answer or {}).get("result") if status == 200 else None
        if not isinstance(result, dict):
            return RawResult(True, [RawText(f"HTTP {status}: {answer}")], None)
        texts = [RawText(str(item.get("text", ""))) for item in result.get("content") or []]
        return RawResult(bool(result.get("isError")), texts, result.get("structuredContent"))


CLIENT = {"kind": "sdk"}  # which client drives the server (`--client`)


async def session(url: str, token: str, work: Callable[[Any], Awaitable[Any]]) -> Any:
    import httpx2

    if CLIENT["kind"] == "raw":
        from benchmarks.fuzz import Session

        async with httpx2.AsyncClient(timeout=600) as http_client:
            raw = Session(http_client, url, token)
            await raw.open()
            return await work(RawClient(raw))

    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=600) as http_client,
        Client(streamable_http_client(url, http_client=http_client)) as client,
    ):
        return await work(client)


async def idle(url: str, token: str, calls: int) -> dict[str, Any]:
    async def work(client: Any) -> list[float]:
        rng = random.Random(1)
        for _ in range(5):  # warm-up: the query path's caches and the mirrors
            await search(client, rng)
        return [await search(client, rng) for _ in range(calls)]

    load = load_average()
    return {**percentiles(await session(url, token, work)), "load_average": load}


async def timed_ask(
    asker: Any, question: str, reply: dict[str, Any], finished: anyio.Event
) -> None:
    """One ask_memory; what it answered and how long it took go into `reply`."""
    started = time.perf_counter()
    result = await asker.call_tool("ask_memory", {"question": question, "budget": 800})
    reply["seconds"] = round(time.perf_counter() - started, 2)
    reply["error"] = result.content[0].text if result.is_error else None
    reply["model"] = (result.structured_content or {}).get("model")
    finished.set()


async def during_ask(url: str, token: str, calls: int, seconds: float) -> dict[str, Any]:
    """memory_search timed back to back while an ask_memory runs, ask after ask."""
    times: list[float] = []
    between: list[float] = []
    asks: list[dict[str, Any]] = []
    deadline = time.monotonic() + seconds
    load = load_average()

    async def work(asker: Any) -> None:
        async def searcher(client: Any) -> None:
            rng = random.Random(2)
            await search(client, rng)  # a session of its own, ready before the ask starts
            while len(times) < calls and time.monotonic() < deadline:
                reply: dict[str, Any] = {}
                finished = anyio.Event()
                question = QUESTIONS[len(asks) % len(QUESTIONS)]
                async with anyio.create_task_group() as group:
                    group.start_soon(timed_ask, asker, question, reply, finished)
                    await anyio.sleep(0.2)  # the ask is past its retrieval, in the model
                    during = len(times)
                    while not finished.is_set():
                        times.append(await search(client, rng))
                asks.append(reply)
                for _ in range(len(times) - during):
                    between.append(await search(client, rng))

        await session(url, token, searcher)

    await session(url, token, work)
    return {
        **percentiles(times),
        "between": percentiles(between),
        "asks": len(asks),
        "ask_seconds": [a["seconds"] for a in asks],
        "ask_errors": [a["error"] for a in asks if a["error"]],
        "answered_by": sorted({a["model"] for a in asks if a.get("model")}),
        "load_average": load,
    }


async def throughput(
    url: str, token: str, clients: int, seconds: float, pid: int
) -> dict[str, Any]:
    counts = {"calls": 0, "errors": 0}
    deadline = time.monotonic() + seconds

    async def work(client: Any, seed: int) -> None:
        rng = random.Random(seed)
        while time.monotonic() < deadline and counts["calls"] < MAX_CALLS:
            try:
                await search(client, rng)
                counts["calls"] += 1
            except Exception as exc:
                counts["errors"] += 1
                print(exc, file=sys.stderr)

    load = load_average()
    cpu_before = cpu_seconds(pid)
    client_before = time.process_time()
    start = time.monotonic()
    async with anyio.create_task_group() as group:
        for seed in range(clients):
            group.start_soon(session, url, token, lambda c, s=seed: work(c, s))
    elapsed = time.monotonic() - start
    cpu = cpu_seconds(pid) - cpu_before
    client_cpu = time.process_time() - client_before
    return {
        "clients": clients,
        "seconds": round(elapsed, 2),
        "calls": counts["calls"],
        "errors": counts["errors"],
        "calls_per_second": round(counts["calls"] / elapsed, 1),
        "server_cpu_ms_per_call": round(1000 * cpu / max(1, counts["calls"]), 2),
        "client_cpu_ms_per_call": round(1000 * client_cpu / max(1, counts["calls"]), 2),
        "load_average": load,
    }


def strong_windows(path: Path) -> int:
    """Index windows with the strong model's vectors so far."""
    from privault.store import strong_index
    from privault.store.connection import connect

    conn = connect(path, readonly=True)
    try:
        return strong_index.coverage(conn)[0]
    finally:
        conn.close()


def run_mode(
    mode: str, path: Path, home: Path, models: Path, token: str, args: argparse.Namespace
) -> dict[str, Any]:
    """Start `privault serve` in `mode` and measure it. The windows its strong-model pass
    indexed meanwhile are reported: that pass works only while no call is being served."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    env = {
        **os.environ,
        "PRIVAULT_VAULT": str(path),
        "PRIVAULT_HOME": str(home),
        "PRIVAULT_MODELS": str(models),
    }
    command = [sys.executable, "-c", BOOT, "serve", "--port", str(port)]
    command += ["--readers", str(READERS[mode])]
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        started = time.monotonic()
        while True:
            if server.poll() is not None:
                raise SystemExit(f"privault serve exited: {server.stderr.read().decode()}")
            try:
                httpx.get(url, timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() - started > 600:
                    raise SystemExit("privault serve did not start") from None
                time.sleep(0.2)
        result: dict[str, Any] = {"readers": READERS[mode]}
        strong_before = strong_windows(path)
        if "idle" in args.phases:
            result["idle"] = anyio.run(idle, url, token, args.calls)
        if "ask" in args.phases:
            result["during_ask"] = anyio.run(during_ask, url, token, args.calls, args.ask_seconds)
        if "throughput" in args.phases:
            result["throughput"] = anyio.run(
                throughput, url, token, args.clients, args.seconds, server.pid
            )
        result["strong_windows_indexed"] = strong_windows(path) - strong_before
        result["memory_mb"] = memory(server.pid)
        return result
    finally:
        server.terminate()
        server.wait(timeout=60)


def ratio(top: float | None, bottom: float | None) -> float | None:
    return round(top / bottom, 2) if top and bottom else None


def summary(runs: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """The ratios the issue asks for, per round (pooled over single; ask over idle)."""
    out: dict[str, Any] = {
        "throughput_ratio": [],
        "during_ask_p95_over_idle_p95": {},
        "during_ask_p95_over_between_p95": {},
    }
    by_mode: dict[str, list[dict[str, Any]]] = {}
    for mode, result in runs:
        by_mode.setdefault(mode, []).append(result)
        if "during_ask" in result and "idle" in result:
            slowdown = ratio(result["during_ask"].get("p95_ms"), result["idle"].get("p95_ms"))
            out["during_ask_p95_over_idle_p95"].setdefault(mode, []).append(slowdown)
        if "during_ask" in result:
            ask = result["during_ask"]
            slowdown = ratio(ask.get("p95_ms"), ask.get("between", {}).get("p95_ms"))
            out["during_ask_p95_over_between_p95"].setdefault(mode, []).append(slowdown)
    for pooled, single in zip(by_mode.get("pooled", []), by_mode.get("single", []), strict=False):
        if "throughput" in pooled and "throughput" in single:
            out["throughput_ratio"].append(
                ratio(
                    pooled["throughput"]["calls_per_second"],
                    single["throughput"]["calls_per_second"],
                )
            )
    ratios = [value for value in out["throughput_ratio"] if value is not None]
    if ratios:
        out["throughput_ratio_median"] = round(statistics.median(ratios), 2)
    for name in ("during_ask_p95_over_idle_p95", "during_ask_p95_over_between_p95"):
        for mode, values in out[name].items():
            known = [value for value in values if value is not None]
            if known:
                out[f"{name}_median"] = {
                    **out.get(f"{name}_median", {}),
                    mode: round(statistics.median(known), 2),
                }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=100, help="timed searches per latency set")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=15.0, help="throughput phase length")
    parser.add_argument("--ask-seconds", type=float, default=120.0, help="cap on the ask phase")
    parser.add_argument("--modes", default="pooled,single")
    parser.add_argument("--phases", default="idle,ask,throughput")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--chat-model", default=None)
    parser.add_argument("--data", type=Path, default=None, help="build (and keep) the vault here")
    parser.add_argument(
        "--client",
        choices=("sdk", "raw"),
        default="sdk",
        help="the MCP SDK's client, or plain JSON-RPC posts (less client CPU)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    modes = [mode.strip() for mode in args.modes.split(",") if mode.strip()]
    if not modes or any(mode not in READERS for mode in modes):
        raise SystemExit(f"--modes takes {', '.join(READERS)}")
    CLIENT["kind"] = args.client
    models = Path(os.environ.get("PRIVAULT_MODELS", Path.home() / ".privault" / "models"))
    chat = chat_model(models, args.chat_model)
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.data or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        load_at_build = load_average()
        path, token, build_seconds = prepared_vault(folder, args.sections, models)
        home = Path(scratch) / "home"
        home.mkdir()
        (home / "config.yaml").write_text(f"chat_model: {chat}\n")
        runs = [
            (mode, run_mode(mode, path, home, models, token, args))
            for _ in range(args.rounds)
            for mode in modes
        ]
    report = {
        "sections": args.sections,
        "build_seconds": round(build_seconds, 1),
        "build_load_average": load_at_build,
        "chat_model": chat,
        "client": args.client,
        "cpus": os.cpu_count(),
        "runs": [{"mode": mode, **result} for mode, result in runs],
        "summary": summary(runs),
        "targets": {
            "throughput_ratio": ">= 1.7",
            "during_ask_p95_over_idle_p95": "<= 1.2",
            "during_ask_p95_over_between_p95": "<= 1.2",
        },
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{args.sections} sections (built in {report['build_seconds']} s); chat model {chat}")
    for mode, result in runs:
        idle_, ask = result.get("idle", {}), result.get("during_ask", {})
        flow = result.get("throughput", {})
        print(
            f"{mode:>6}: idle p50 {idle_.get('p50_ms')} p95 {idle_.get('p95_ms')} ms · "
            f"during ask p95 {ask.get('p95_ms')} ms ({ask.get('calls')} calls, "
            f"{ask.get('asks')} asks) · {flow.get('clients')} clients "
            f"{flow.get('calls_per_second')} calls/s, {flow.get('errors')} errors "
            f"(load {flow.get('load_average')})"
        )
    print(json.dumps(report["summary"]))


if __name__ == "__main__":
    main()
