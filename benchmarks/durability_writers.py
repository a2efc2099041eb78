"""The writer processes `benchmarks.durability` starts and kills.

    python -m benchmarks.durability_writers cli ACKS
    python -m benchmarks.durability_writers mcp ACKS URL TOKEN
    python -m benchmarks.durability_writers scheduler ACKS
    python -m benchmarks.durability_writers ask URL TOKEN

Each writes until it is killed and appends one line to ACKS for every write its client
was told about (an id returned): `doc ID`, or `reminder WATCH PLANNED DOC` for a filed
reminder. A line is written only after the call returned, so everything in ACKS was
acknowledged; a write in flight when the process dies is not, whether it landed or not.

* `cli` runs the `privault note` command (its real code path, in a loop in one process:
  starting a process per note would spend the benchmark on interpreter start-up);
* `mcp` calls `remember` over streamable HTTP on a `privault serve`, reconnecting while
  the server is down (the harness kills the server, not this client);
* `scheduler` is the clock's poll (`Vault.watches.poll`), filing due reminders it adds
  itself a few at a time;
* `ask` calls `ask_memory` once (the harness kills the server while it runs).
"""

from __future__ import annotations

import contextlib
import io
import json
import secrets
import sys
import time
from typing import IO, Any


def _acks(path: str) -> IO[str]:
    return open(path, "a", buffering=1, encoding="utf-8")  # line-buffered: one write a line


def cli_writer(acks: str) -> None:
    """`privault note` again and again, each note acknowledged by its printed id."""
    from privault.interfaces import cli

    app = cli.build_app("note")
    with _acks(acks) as out:
        for number in range(10**9):
            text = f"Note {number} from the command line, {secrets.token_hex(6)}"
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                app(["note", text, "--json"], standalone_mode=False)
            out.write(f"doc {json.loads(printed.getvalue())['doc_id']}\n")


def mcp_writer(acks: str, url: str, token: str) -> None:
    """`remember` over HTTP until killed; a server that is down is waited for."""
    import anyio

    anyio.run(_mcp_loop, acks, url, token)


async def _mcp_loop(acks: str, url: str, token: str) -> None:
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    number = 0
    with _acks(acks) as out:
        while True:
            try:
                async with httpx2.AsyncClient(
                    headers={"Authorization": f"Bearer {token}"}, timeout=120
                ) as http:
                    transport = streamable_http_client(url, http_client=http)
                    async with Client(transport, read_timeout_seconds=120) as client:
                        while True:
                            number += 1
                            text = f"Agent note {number}: {secrets.token_hex(6)}"
                            result = await client.call_tool("remember", {"text": text})
                            if not result.is_error:
                                out.write(f"doc {result.structured_content['doc_id']}\n")
            except Exception as exc:  # the server was killed: wait for it to come back
                causes = getattr(exc, "exceptions", None) or [exc]
                print(f"remember failed ({', '.join(map(repr, causes))}); retrying", flush=True)
                await anyio.sleep(0.5)


def scheduler(acks: str) -> None:
    """The clock's poll, over reminders it adds a few at a time (all due at once)."""
    from privault.caller import Caller
    from privault.interfaces.cli.common import open_vault
    from privault.timeutil import now_ms

    owner = Caller.owner()
    vault = open_vault()
    with _acks(acks) as out:
        while True:
            for _ in range(4):
                text = f"Reminder {secrets.token_hex(6)}: water the plants"
                vault.watches.add("remind", text, caller=owner, at=now_ms() - 1_000)
            for run in vault.watches.poll(caller=owner).report.runs:
                if run.status == "filed":
                    out.write(f"reminder {run.watch_id} {run.planned_at} {run.doc_ids[0]}\n")
            time.sleep(0.05)


def ask(url: str, token: str) -> None:
    """One ask_memory; prints what came back (the harness usually kills the server first)."""
    import anyio

    async def once() -> Any:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        async with httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {token}"}, timeout=300
        ) as http:
            transport = streamable_http_client(url, http_client=http)
            async with Client(transport, read_timeout_seconds=300) as client:
                print("asking", flush=True)
                return await client.call_tool("ask_memory", {"question": "what is in my notes?"})

    with contextlib.suppress(Exception):
        result = anyio.run(once)
        print(json.dumps({"error": result.is_error}), flush=True)


def main(argv: list[str]) -> int:
    role, *args = argv
    if role == "cli":
        cli_writer(args[0])
    elif role == "mcp":
        mcp_writer(*args[:3])
    elif role == "scheduler":
        scheduler(args[0])
    elif role == "ask":
        ask(*args[:2])
    else:
        raise SystemExit(f"unknown role {role!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
