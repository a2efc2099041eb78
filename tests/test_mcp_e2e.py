"""End to end: `privault mcp` on stdio and `privault serve` over HTTP, as real subprocesses
with the real embedder and detector, driven by the SDK's own clients."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from privault.store import agents
from privault.store.connection import connect
from privault.store.migrations import migrate
from tests.helpers import free_port

pytestmark = pytest.mark.real

# Until `privault.interfaces.cli.agents` is registered in the CLI's `_register()`, launch the
# same app with it registered; afterwards this is exactly the `privault` executable.
BOOT = (
    "from privault.interfaces import cli; from privault.interfaces.cli import agents;\n"
    "names = {g.name for g in cli.app.registered_groups}\n"
    "agents.register(cli.app) if 'mcp' not in names else None\n"
    "cli.main()"
)


def privault_command() -> list[str]:
    exe = shutil.which("privault") or str(Path(sys.executable).with_name("privault"))
    probe = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60)
    if " serve " in probe.stdout and " mcp " in probe.stdout:
        return [exe]
    return [sys.executable, "-c", BOOT]


def register(*names: str) -> dict[str, str]:
    conn = connect(os.environ["PRIVAULT_VAULT"])
    try:
        migrate(conn)
        return {name: agents.issue(conn, name) for name in names}
    finally:
        conn.close()


def test_stdio_server_as_launched_by_a_client() -> None:
    token = register("claude")["claude"]
    command = privault_command()
    params = StdioServerParameters(
        command=command[0],
        args=[*command[1:], "mcp", "--agent", "claude"],
        env={**os.environ, "PRIVAULT_AGENT_TOKEN": token},
    )

    async def main() -> tuple[Any, Any, Any]:
        async with Client(params, read_timeout_seconds=120) as client:
            tools = await client.list_tools()
            added = await client.call_tool(
                "remember", {"text": "The boiler service is booked with jane.roe@example.com."}
            )
            found = await client.call_tool("memory_search", {"query": "boiler service"})
            return tools, added, found

    tools, added, found = anyio.run(main)
    assert "memory_search" in {tool.name for tool in tools.tools}
    assert not added.is_error, added.content
    hits = found.structured_content["results"]
    assert hits and "boiler" in hits[0]["text"]
    assert "jane.roe@example.com" not in hits[0]["text"]


def wait_until_up(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(process.stderr.read().decode() if process.stderr else "exited")
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.2)
    raise AssertionError("privault serve did not start")


def test_http_server_needs_a_valid_bearer_token() -> None:
    tokens = register("claude", "gone")
    conn = connect(os.environ["PRIVAULT_VAULT"])
    agents.revoke(conn, "gone")
    conn.close()
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    process = subprocess.Popen(
        [*privault_command(), "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_until_up(url, process)
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        for headers in (
            {},
            {"Authorization": f"Bearer {tokens['gone']}"},
            {"Authorization": "Bearer pv_wrong"},
            {"Authorization": "Basic abc"},
        ):
            refused = httpx.post(url, json=body, headers=headers, timeout=10)
            assert refused.status_code == 401
            assert refused.json() == {"error": "unauthorized"}

        result = anyio.run(http_search, url, tokens["claude"])
        assert not result.is_error, result.content
        assert result.structured_content["results"] == []
        with pytest.raises(Exception):  # noqa: B017 - the SDK's error type for a 401 varies
            anyio.run(http_search, url, tokens["gone"])
        with pytest.raises(Exception):  # noqa: B017
            anyio.run(http_search, url, "")
        # A browser page on another origin cannot drive the server (DNS rebinding guard).
        evil = httpx.post(
            url,
            json=body,
            timeout=10,
            headers={
                "Authorization": f"Bearer {tokens['claude']}",
                "Origin": "http://evil.example",
                "Accept": "application/json, text/event-stream",
            },
        )
        assert evil.status_code in (400, 403, 421)
    finally:
        process.terminate()
        process.wait(timeout=20)


async def http_search(url: str, token: str) -> Any:
    """One memory_search through the SDK's streamable HTTP client with a bearer token."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=120) as http_client:
        transport = streamable_http_client(url, http_client=http_client)
        async with Client(transport, read_timeout_seconds=120) as client:
            return await client.call_tool("memory_search", {"query": "anything"})
