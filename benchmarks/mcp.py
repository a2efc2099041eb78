"""MCP over HTTP benchmark: memory_search latency and sustained throughput, on loopback.

    python -m benchmarks.mcp --json [--sections 10000] [--calls 200] [--clients 8] [--seconds 15]

Builds a temporary vault of `--sections` sections (real embedder; the fake PII detector at
write time only, to keep set-up short — reads use the real detector on every query, as in
production), starts `privault serve` on a free 127.0.0.1 port as a subprocess, and drives it
with the MCP SDK's streamable HTTP client:

* latency: `--calls` sequential memory_search calls in one session, p50/p95/max in ms;
* throughput: `--clients` concurrent sessions calling memory_search for `--seconds`
  (and at most 50 000 calls), reporting calls/s and the error count (must be zero).

Nothing leaves the machine: the server binds loopback and the client only talks to it.
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
BOOT = (
    "from privault.interfaces import cli; from privault.interfaces.cli import agents;\n"
    "names = {g.name for g in cli.app.registered_groups}\n"
    "agents.register(cli.app) if 'mcp' not in names else None\n"
    "cli.main()"
)


def build_vault(path: Path, sections: int, models: Path) -> str:
    """A vault with `sections` sections and one agent; returns the agent's token."""
    from privault.caller import Caller
    from privault.privacy.detector import FakeDetector
    from privault.vault import Vault

    rng = random.Random(7)
    vault = Vault.open(path, models_dir=models, detector_factory=FakeDetector)
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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def search(client: Any, rng: random.Random) -> bool:
    query = f"{rng.choice(WORDS)} {rng.choice(WORDS)}"
    result = await client.call_tool("memory_search", {"query": query, "limit": 10})
    if result.is_error:
        print(f"memory_search error: {result.content[0].text}", file=sys.stderr)
    return not result.is_error


async def session(url: str, token: str, work: Any) -> Any:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=120) as http_client,
        Client(streamable_http_client(url, http_client=http_client)) as client,
    ):
        return await work(client)


async def latency(url: str, token: str, calls: int) -> dict[str, float]:
    async def work(client: Any) -> list[float]:
        rng = random.Random(1)
        await search(client, rng)  # warm-up: embedder and detector load on first use
        times = []
        for _ in range(calls):
            start = time.perf_counter()
            if not await search(client, rng):
                raise RuntimeError("memory_search failed")
            times.append((time.perf_counter() - start) * 1000)
        return times

    times = sorted(await session(url, token, work))
    return {
        "calls": len(times),
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
        "max_ms": round(times[-1], 2),
    }


async def throughput(url: str, token: str, clients: int, seconds: float) -> dict[str, Any]:
    counts = {"calls": 0, "errors": 0}
    deadline = time.monotonic() + seconds

    async def work(client: Any, seed: int) -> None:
        rng = random.Random(seed)
        while time.monotonic() < deadline and counts["calls"] < MAX_CALLS:
            try:
                ok = await search(client, rng)
            except Exception:
                ok = False
            counts["calls"] += 1
            counts["errors"] += 0 if ok else 1

    start = time.monotonic()
    async with anyio.create_task_group() as group:
        for seed in range(clients):
            group.start_soon(session, url, token, lambda c, s=seed: work(c, s))
    elapsed = time.monotonic() - start
    return {
        "clients": clients,
        "seconds": round(elapsed, 2),
        "calls": counts["calls"],
        "errors": counts["errors"],
        "calls_per_second": round(counts["calls"] / elapsed, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    models = Path(os.environ.get("PRIVAULT_MODELS", Path.home() / ".privault" / "models"))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "vault.db"
        started = time.perf_counter()
        token = build_vault(path, args.sections, models)
        build_seconds = time.perf_counter() - started
        port = free_port()
        url = f"http://127.0.0.1:{port}/mcp"
        env = {
            **os.environ,
            "PRIVAULT_VAULT": str(path),
            "PRIVAULT_HOME": folder,
            "PRIVAULT_MODELS": str(models),
        }
        server = subprocess.Popen(
            [sys.executable, "-c", BOOT, "serve", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            for _ in range(300):
                try:
                    httpx.get(url, timeout=1)
                    break
                except httpx.TransportError:
                    time.sleep(0.2)
            single = anyio.run(latency, url, token, args.calls)
            concurrent = anyio.run(throughput, url, token, args.clients, args.seconds)
        finally:
            server.terminate()
            server.wait(timeout=30)
    report = {
        "sections": args.sections,
        "build_seconds": round(build_seconds, 1),
        "memory_search_latency": single,
        "concurrent": concurrent,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{args.sections} sections (built in {report['build_seconds']} s)")
        print(f"memory_search over HTTP: p50 {single['p50_ms']} ms · p95 {single['p95_ms']} ms")
        print(
            f"{concurrent['clients']} clients: {concurrent['calls_per_second']} calls/s, "
            f"{concurrent['errors']} errors in {concurrent['seconds']} s"
        )


if __name__ == "__main__":
    main()
