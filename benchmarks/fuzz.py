"""Fuzzing the MCP server at volume: generated tool calls over HTTP from concurrent clients.

    python -m benchmarks.fuzz --json [--calls 10000] [--clients 4] [--seed 1] [--data DIR]

Builds a small vault (owner notes on a public and a restricted shelf, statements, a
reminder; four agents, one read-only), starts `privault serve` on a free 127.0.0.1 port as
a subprocess (real embedder and detector; `smollm2-135m` answers asks when installed), reads
the tools' published input schemas from `tools/list`, and generates `--calls` JSON-RPC
requests from them with hypothesis: valid arguments, and malformed ones (a required field
missing, a wrong type, an unknown field, huge strings, odd Unicode and lone surrogates,
unknown tools, ids that do not exist or belong to what the agent may not see, arguments
that are not an object, bodies that are not JSON). `--clients` sessions send them
concurrently, each as its own agent.

Reports the calls sent, server crashes (the process exited, or it logged an unhandled
exception, or a tool body raised one), HTTP 5xx answers, and partial writes, found by
checking the audit log against the tables: every write call answered ok has its ok audit
row and its rows in the tables; every row an agent's write left in documents, statements
and watches is named by an ok audit row; every agent document has its sections, and each
section with text its index rows (a heading with no text of its own gets none today);
`PRAGMA integrity_check` is ok. All must be 0.

Then `--unauthenticated` requests go to hostile paths under /mcp (rich markup, terminal
escapes, traversal, 4,000-character paths) with no token, a made-up one or a malformed
header: every answer must be a bare 401 (405 for an odd method), and the audit rows
they leave must be bounded (one per source a minute, plus a summary at shutdown) and
carry none of the text the requests chose. Watch targets of kind `url` are IP
literals (loopback and private addresses, refused) or garbage, so nothing is looked up
or fetched: no traffic leaves the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import httpx

from benchmarks import fuzz_calls
from benchmarks.fuzz_calls import Call, Harvest

PROTOCOL = "2025-06-18"
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
AGENTS = ("fuzz-a", "fuzz-b", "fuzz-c", "fuzz-ro")  # the last one is read-only
BOOT = (
    "from privault.interfaces import cli; from privault.interfaces.cli import agents;\n"
    "names = {g.name for g in cli.app.registered_groups}\n"
    "agents.register(cli.app) if 'mcp' not in names else None\n"
    "cli.main()"
)
WRITE_TOOLS = {
    "remember",
    "memory_forget",
    "write_statement",
    "supersede_statement",
    "revise_statement",
    "confirm_statement",
    "dispute_statements",
    "invalidate_statement",
    "watch",
    "cancel_watch",
    "ack_reminder",
}
CREATES = {  # write tools whose audit ids name the rows they created
    "remember": "documents",
    "write_statement": "statements",
    "supersede_statement": "statements",
    "revise_statement": "statements",
    "watch": "watches",
}


# ---- the vault -------------------------------------------------------------------------


def build_vault(path: Path, models: Path, *, fake: bool = False) -> tuple[dict[str, str], dict]:
    """A small vault for the fuzz: owner notes (one shelf restricted), statements, a
    reminder, and the agents; returns their tokens and the ids an agent might guess."""
    from privault.caller import Caller
    from privault.vault import Vault

    owner = Caller.owner()
    engines: dict[str, Any] = {}
    if fake:
        from privault.privacy.detector import FakeDetector
        from privault.retrieval.embedder import FakeEmbedder

        engines = {"embedder": FakeEmbedder(), "detector_factory": FakeDetector}
    vault = Vault.open(path, models_dir=models, **engines)
    try:
        vault.shelves.add("vault-only", restricted=True, private=True)
        notes = [
            "# Boiler\n\nThe boiler service is booked with Jane Roe, jane.roe@example.com.",
            "# Rent\n\nRent goes to GB29 NWBK 6016 1331 9268 19 on the first of the month.",
            "# Garden\n\nPlant the tulips in October; the shed needs a new padlock.",
        ]
        added = [vault.note(text, caller=owner) for text in notes]
        hidden = vault.note("# Diary\n\nA private line.", caller=owner, shelf="vault-only")
        fact = vault.statements.add(
            "Jane Roe services the boiler", caller=owner, entities=["Jane Roe"]
        )
        vault.watches.add("remind", "Pay the rent", caller=owner, at="2020-01-01T09:00:00Z")
        tokens = {name: vault.agents.issue(name, read_only=name.endswith("-ro")) for name in AGENTS}
        trees = [vault.tree(doc.doc_id, caller=owner) for doc in [*added, hidden]]
        ids = {
            "doc_id": [doc.doc_id for doc in [*added, hidden]],
            "node_id": [node.node_id for tree in trees for node in tree.nodes],
            "statement_id": [fact.statement.statement.id],
        }
    finally:
        vault.close()
    return tokens, ids


# ---- the server ------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(path: Path, home: Path, models: Path, port: int) -> subprocess.Popen[bytes]:
    """`privault serve` on 127.0.0.1:`port`, up and answering."""
    env = {
        **os.environ,
        "PRIVAULT_VAULT": str(path),
        "PRIVAULT_HOME": str(home),
        "PRIVAULT_MODELS": str(models),
    }
    log = open(home / "serve.log", "wb")  # noqa: SIM115 - the server writes it until it stops
    command = [sys.executable, "-c", BOOT, "serve", "--port", str(port), "--chat-threads", "1"]
    server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"privault serve exited: {(home / 'serve.log').read_text()}")
        try:
            httpx.get(url, timeout=1)
            return server
        except httpx.TransportError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("privault serve did not start")


# ---- the clients -----------------------------------------------------------------------


class Session:
    """One MCP session over raw HTTP: every request and answer as sent and received."""

    def __init__(self, client: Any, url: str, token: str) -> None:
        self.client = client
        self.url = url
        self.headers = {**HEADERS, "Authorization": f"Bearer {token}"}
        self.harvest = Harvest()  # ids from this session's answers, for later calls
        self._next_id = 0

    def next_id(self) -> int:
        self._next_id += 1
        return self._next_id

    async def open(self) -> None:
        hello = {
            "jsonrpc": "2.0",
            "id": self.next_id(),
            "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "privault-fuzz", "version": "1"},
            },
        }
        reply = await self.client.post(self.url, json=hello, headers=self.headers)
        reply.raise_for_status()
        self.headers["mcp-session-id"] = reply.headers["mcp-session-id"]
        self.headers["mcp-protocol-version"] = PROTOCOL
        done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        (await self.client.post(self.url, json=done, headers=self.headers)).raise_for_status()

    async def send(self, body: bytes) -> tuple[int, Any]:
        """POST one raw body; (HTTP status, the JSON-RPC answer or None)."""
        reply = await self.client.post(self.url, content=body, headers=self.headers)
        return reply.status_code, answer_of(reply)

    async def tools(self) -> list[dict[str, Any]]:
        body = {"jsonrpc": "2.0", "id": self.next_id(), "method": "tools/list", "params": {}}
        status, answer = await self.send(json.dumps(body).encode())
        if status != 200 or not answer or "result" not in answer:
            raise RuntimeError(f"tools/list failed: {status} {answer}")
        return list(answer["result"]["tools"])


SSE_LINES = re.compile(r"\r\n|\r|\n")  # an event stream's line ends, and no others


def answer_of(reply: Any) -> Any:
    """The JSON-RPC message in a JSON or an event-stream answer (None if there is none).

    Event-stream lines end only at CR, LF or CRLF: `str.splitlines` would also cut at
    U+0085, U+2028 and the like, which may sit inside the JSON of an answer."""
    kind = reply.headers.get("content-type", "")
    text = reply.text
    if "text/event-stream" in kind:
        events = [[]]  # the data lines of each event
        for line in SSE_LINES.split(text):
            if not line:
                events.append([])
            elif line.startswith("data:"):
                events[-1].append(line[5:].removeprefix(" "))
        data = ["\n".join(event) for event in events if event]
        text = data[-1] if data else ""
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def outcome_of(status: int, answer: Any) -> str:
    """ok, tool_error (an isError result), rpc_error, http_4xx, http_5xx, or empty."""
    if status >= 500:
        return "http_5xx"
    if status >= 400:
        return "http_4xx"
    if not isinstance(answer, dict):
        return "empty"
    if "error" in answer:
        return "rpc_error"
    result = answer.get("result") or {}
    return "tool_error" if result.get("isError") else "ok"


async def drive(
    url: str, tokens: dict[str, str], calls: list[Call], clients: int
) -> list[dict[str, Any]]:
    """Send `calls` from `clients` concurrent sessions (call i from client i % clients)."""
    import httpx2

    results: list[dict[str, Any]] = []
    names = list(tokens)

    async def client_work(index: int) -> None:
        agent = names[index % len(names)]
        async with httpx2.AsyncClient(timeout=600) as http:
            session = Session(http, url, tokens[agent])
            await session.open()
            for call in calls[index::clients]:
                started = time.perf_counter()
                detail = ""
                try:
                    body = call.body(session.next_id(), session.harvest.ids)
                    status, answer = await session.send(body)
                    outcome = outcome_of(status, answer)
                    if outcome == "ok":
                        session.harvest.take(answer["result"].get("structuredContent"))
                    else:
                        detail = json.dumps(answer)[:300]
                        if outcome == "empty":  # nothing came back: say what was asked
                            detail = body[:300].decode(errors="replace")
                except httpx2.TransportError as exc:  # the server went away mid-call
                    status, outcome = 0, f"transport: {type(exc).__name__}"
                results.append(
                    {
                        "agent": agent,
                        "tool": call.tool,
                        "kind": call.kind,
                        "status": status,
                        "outcome": outcome,
                        "detail": detail,
                        "ms": round((time.perf_counter() - started) * 1000, 1),
                    }
                )

    async with anyio.create_task_group() as group:
        for index in range(clients):
            group.start_soon(client_work, index)
    return results


async def published_tools(url: str, token: str) -> list[dict[str, Any]]:
    import httpx2

    async with httpx2.AsyncClient(timeout=120) as http:
        session = Session(http, url, token)
        await session.open()
        return await session.tools()


# ---- the checks ------------------------------------------------------------------------


def check_vault(path: Path, results: list[dict[str, Any]], agents: tuple[str, ...]) -> dict:
    """Partial writes: the audit log against the tables (see the module docstring)."""
    from privault.store.connection import connect

    conn = connect(path)
    try:
        problems: list[str] = []
        names = ",".join("?" * len(agents))
        audit = conn.execute(
            f"SELECT agent, tool, ok, ids FROM audit WHERE agent IN ({names})", agents
        ).fetchall()
        ok_rows = Counter((agent, tool) for agent, tool, ok, _ in audit if ok)
        acknowledged = Counter(
            (r["agent"], r["tool"])
            for r in results
            if r["tool"] in WRITE_TOOLS and r["outcome"] == "ok"
        )
        for key, count in acknowledged.items():
            if ok_rows[key] != count:
                problems.append(f"{key}: {count} acknowledged, {ok_rows[key]} ok audit rows")
        for key, count in ok_rows.items():
            if key[1] in WRITE_TOOLS and acknowledged[key] != count:
                problems.append(f"{key}: {count} ok audit rows, {acknowledged[key]} acknowledged")
        named: dict[str, set[str]] = {table: set() for table in set(CREATES.values())}
        for _agent, tool, ok, ids in audit:
            if ok and tool in CREATES:
                named[CREATES[tool]].update(json.loads(ids))
        gone = {doc for (doc,) in conn.execute("SELECT id FROM tombstones")}
        for table, kind_clause in (
            ("documents", "AND kind = 'note'"),
            ("statements", ""),
            ("watches", ""),
        ):
            stored = {
                row_id
                for (row_id,) in conn.execute(
                    f"SELECT id FROM {table} WHERE author IN ({names}) {kind_clause}", agents
                )
            }
            orphans = stored - named[table]
            missing = named[table] - stored - gone
            if orphans:
                problems.append(f"{table}: {len(orphans)} rows no ok audit row names")
            if missing:
                problems.append(f"{table}: {len(missing)} acknowledged rows missing")
        unindexed = conn.execute(
            f"""SELECT count(*) FROM sections s JOIN documents d ON d.id = s.doc_id
                WHERE d.author IN ({names}) AND trim(s.text) != ''
                AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.section_id = s.id)""",
            agents,
        ).fetchone()[0]
        empty_docs = conn.execute(
            f"""SELECT count(*) FROM documents d WHERE d.author IN ({names})
                AND NOT EXISTS (SELECT 1 FROM sections s WHERE s.doc_id = d.id)""",
            agents,
        ).fetchone()[0]
        if unindexed:
            problems.append(f"{unindexed} agent sections with text but no index rows")
        if empty_docs:
            problems.append(f"{empty_docs} agent documents without sections")
        internal = conn.execute(
            f"SELECT count(*) FROM audit WHERE agent IN ({names}) AND reason = 'internal error'",
            agents,
        ).fetchone()[0]
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        if integrity != "ok":
            problems.append(f"integrity_check: {integrity}")
        return {
            "audit_rows": len(audit),
            "acknowledged_writes": sum(acknowledged.values()),
            "rows_written": {table: len(ids) for table, ids in named.items()},
            "integrity_check": integrity,
            "unhandled_exceptions": internal,
            "partial_writes": len(problems),
            "problems": problems,
        }
    finally:
        conn.close()


def crashes_in(log: str) -> int:
    """Unhandled exceptions the server logged (uvicorn and Starlette name them so)."""
    return log.count("Exception in ASGI application") + log.count("Traceback (most recent")


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    outcomes = Counter(r["outcome"] for r in results)
    return {
        "calls": len(results),
        "outcomes": dict(sorted(outcomes.items())),
        "by_kind": dict(sorted(Counter(r["kind"] for r in results).items())),
        "http_5xx": sum(1 for r in results if r["status"] >= 500),
        "transport_errors": sum(1 for r in results if r["status"] == 0),
        "writes_acknowledged": sum(
            1 for r in results if r["tool"] in WRITE_TOOLS and r["outcome"] == "ok"
        ),
    }


# ---- main ------------------------------------------------------------------------------


HOSTILE_PATHS = (
    "/mcp/%5B%2F%5D",  # `[/]`: crashed `privault audit` when written as a tool name
    "/mcp/%5Bbold%20red%5DWARNING%5B%2F%5D",
    "/mcp/%1B%5D0%3Bowned%07",  # an OSC title change
    "/mcp/%1B%5D52%3Bc%3BaGVsbG8%3D%07",  # an OSC 52 clipboard write
    "/mcp/%1B%5B2J%1B%5B31m",
    "/mcp/%C2%9B31m",  # C1 CSI
    "/mcp/..%2F..%2F..%2Fetc%2Fpasswd",
    "/mcp/%E2%80%AEevil",  # a bidi override
    "/mcp/" + "A" * 4000,
    "/mcp",
)


def unauthenticated_flood(port: int, count: int, seed: int) -> dict[str, Any]:
    """`count` requests with no token, a made-up one or a malformed header, to hostile
    paths under /mcp; every answer must be a bare 401 (or 405 for an odd method)."""
    rng = random.Random(seed)
    statuses: Counter[int] = Counter()
    started = time.perf_counter()
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
        for _ in range(count):
            headers = dict(HEADERS)
            auth = rng.choice(["none", "garbage", "made-up", "scheme"])
            if auth == "garbage":
                headers["Authorization"] = "Bearer [/] ]0;t %1B"
            elif auth == "made-up":
                headers["Authorization"] = f"Bearer pv_{rng.randbytes(24).hex()}"
            elif auth == "scheme":
                headers["Authorization"] = "Basic Zm9vOmJhcg=="
            method = rng.choice(["POST", "GET", "DELETE", "PUT", "PROPFIND"])
            reply = client.request(method, rng.choice(HOSTILE_PATHS), headers=headers)
            statuses[reply.status_code] += 1
    return {
        "requests": count,
        "seconds": round(time.perf_counter() - started, 1),
        "statuses": dict(sorted(statuses.items())),
    }


def refusal_audit(path: Path) -> dict[str, Any]:
    """The audit rows unauthenticated requests left (agent `(unknown)`), and whether any
    carries text the requests chose."""
    from privault.store.connection import connect

    conn = connect(path)
    try:
        found = conn.execute(
            "SELECT tool, coalesce(reason, '') FROM audit WHERE agent = '(unknown)'"
        ).fetchall()
    finally:
        conn.close()
    chosen = ("[", "\x1b", "\x9b", "\u202e", "passwd", "A" * 20, "owned", "Basic", "pv_")
    return {
        "rows": len(found),
        "tools": sorted({tool for tool, _ in found}),
        "rows_with_request_text": sum(
            1 for tool, reason in found if any(bit in tool + reason for bit in chosen)
        ),
        "longest_reason": max((len(reason) for _, reason in found), default=0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data", type=Path, default=None, help="keep the vault and log here")
    parser.add_argument(
        "--unauthenticated",
        type=int,
        default=2000,
        help="requests without a valid token to hostile paths, after the tool calls",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    models = Path(os.environ.get("PRIVAULT_MODELS", Path.home() / ".privault" / "models"))
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.data or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "vault.db"
        for stale in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            stale.unlink(missing_ok=True)
        home = folder / "home"
        home.mkdir(exist_ok=True)
        chat = "smollm2-135m" if (models / "smollm2-135m").is_dir() else None
        (home / "config.yaml").write_text(f"chat_model: {chat}\n" if chat else "")
        tokens, ids = build_vault(path, models)
        port = free_port()
        url = f"http://127.0.0.1:{port}/mcp"
        server = start_server(path, home, models, port)
        started = time.perf_counter()
        load_before = os.getloadavg()[0]
        try:
            tools = anyio.run(published_tools, url, tokens[AGENTS[0]])
            calls = fuzz_calls.generate(tools, ids, args.calls, seed=args.seed)
            results = anyio.run(drive, url, tokens, calls, args.clients)
            flood = unauthenticated_flood(port, args.unauthenticated, args.seed)
            alive = server.poll() is None
        finally:
            server.terminate()
            exit_code = server.wait(timeout=60)
        seconds = time.perf_counter() - started
        log = (home / "serve.log").read_text(errors="replace")
        report = {
            **summarise(results),
            "clients": args.clients,
            "seed": args.seed,
            "seconds": round(seconds, 1),
            "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
            "server_alive_at_end": alive,
            "server_exit_code_after_terminate": exit_code,
            "vault": check_vault(path, results, AGENTS),
            "tools": len(tools),
            "unauthenticated": {**flood, "audit": refusal_audit(path)},
        }
        # A crash: the process died, logged an unhandled exception, or a tool body raised
        # one (audited as an internal error).
        unhandled = report["vault"]["unhandled_exceptions"]
        report["server_crashes"] = (0 if alive else 1) + crashes_in(log) + unhandled
        if report["server_crashes"]:
            report["server_log_tail"] = log[-4000:]
    if args.json:
        print(json.dumps(report, indent=2))
        return
    vault = report["vault"]
    print(
        f"{report['calls']} calls from {args.clients} clients in {report['seconds']} s: "
        f"{report['server_crashes']} server crashes, {report['http_5xx']} HTTP 5xx, "
        f"{vault['partial_writes']} partial writes ({report['writes_acknowledged']} writes "
        f"acknowledged); outcomes {report['outcomes']}"
    )
    for problem in vault["problems"]:
        print("  partial write:", problem)
    flood = report["unauthenticated"]
    print(
        f"{flood['requests']} unauthenticated requests to hostile paths: answers "
        f"{flood['statuses']}; {flood['audit']['rows']} audit rows, "
        f"{flood['audit']['rows_with_request_text']} carrying text the requests chose"
    )


if __name__ == "__main__":
    random.seed(0)
    main()
