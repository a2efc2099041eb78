"""`privault demo`: the main job on an embedded demo vault, with the real local models.

A newcomer's first run: a few private notes go into a throw-away vault, then the same
search is shown as the owner sees it and as an agent sees it, side by side; a reminder
comes due and a page changes; finally an agent is registered and the real MCP server is
launched over stdio, as Claude Desktop would, and driven by the SDK's own client.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from privault.caller import Caller
from privault.errors import PrivaultError
from privault.interfaces import config
from privault.interfaces.cli.agents import TOKEN_ENV, client_config, executable
from privault.interfaces.cli.common import console, privacy_line
from privault.interfaces.cli.terminal import styled
from privault.timeutil import now_ms
from privault.vault import Vault

if TYPE_CHECKING:  # the MCP SDK loads only when the demo reaches its MCP part
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

NOTES = [
    (
        "Dentist",
        "# Dentist\nCheck-up with Dr. Maria Gonzalez on 3 March 2027 at 10:00.\n"
        "Her practice: 221 Baker Street, London. Phone +44 20 7946 0958.",
        ["health"],
    ),
    (
        "Invoice from Hargreaves Plumbing",
        "# Invoice from Hargreaves Plumbing\n"
        "Invoice 4471 for the boiler repair: 312.50 EUR, due 15 January 2027.\n"
        "Pay to IBAN GB82 WEST 1234 5698 7654 32, reference 4471. Contact: "
        "tom.hargreaves@example.com.",
        ["money"],
    ),
    (
        "Book club",
        "# Book club\nNext meeting at Priya Natarajan's flat. "
        "We are reading *The Left Hand of Darkness*; bring snacks.",
        ["social"],
    ),
    (
        "Shopping",
        "# Shopping\n- oat milk\n- rye bread\n- coffee beans\n- batteries (AA)",
        ["lists"],
    ),
]
FERRY = "<html><body><article><h1>Ferry</h1><p>The ferry leaves at {}.</p></article></body></html>"
ASK_QUESTION = "How much do I owe for the boiler repair, and by when?"
DEMO_AGENT = "demo-agent"
# How long the demo waits for the local model's answer: minutes on a slow or busy machine
# (the server itself never gives up on a model that is still writing, unless the owner
# sets ask_timeout).
ASK_WAIT = 600
MCP_QUERY = "who do I pay for the boiler repair"
QUERIES = ["when is the dentist appointment", "how much do I owe the plumber and to whom"]


def demo(
    keep: Annotated[
        bool, typer.Option("--keep", help="Keep the demo vault and print where it is.")
    ] = False,
    chat_model: Annotated[
        str | None,
        typer.Option(
            "--chat-model",
            help="The local answerer the demo's agent asks (default: the configured one, "
            "else qwen2.5-coder-1.5b); e.g. smollm2-135m on a slow machine.",
        ),
    ] = None,
) -> None:
    """Run the main job on a throw-away demo vault with the real models."""
    folder = Path(tempfile.mkdtemp(prefix="privault-demo-"))
    path = folder / "demo.db"
    answerer = chat_model or config.load_config().chat_model
    if answerer:  # the demo's server reads the demo folder's settings, not yours
        (folder / "config.yaml").write_text(f"chat_model: {json.dumps(answerer)}\n")
    console.rule(styled("[bold]privault demo"))
    console.print(f"demo vault: {path} (models from {config.models_dir()})")
    try:
        with Vault.open(path, models_dir=config.models_dir()) as vault:
            owner = Caller.owner()
            for title, text, tags in NOTES:
                added = vault.note(text, caller=owner, title=title, tags=tags)
                console.print(f"  stored {added.doc_id} — {title}", highlight=False)
            _searches(vault, owner, Caller.agent(DEMO_AGENT))
            console.print()
            _watches(vault, owner)
            console.print()
            token = _register_agent(vault, path)
        _mcp(folder, path, token)
    finally:
        if keep:
            console.print(f"kept: PRIVAULT_VAULT={path}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


def _searches(vault: Vault, owner: Caller, agent: Caller) -> None:
    """The same searches as the owner and as an agent, side by side; a context pack."""
    for query in QUERIES:
        console.print()
        console.rule(f"search: {query!r}")
        mine = vault.search(query, caller=owner, limit=1)
        theirs = vault.search(query, caller=agent, limit=1)
        table = Table(
            "the owner sees (policy open)",
            "an agent sees (policy standard)",
            show_lines=True,
            expand=True,
        )
        table.add_row(
            mine.results[0].text if mine.results else "—",
            theirs.results[0].text if theirs.results else "—",
        )
        console.print(table)
        held = ", ".join(f"{k} ×{n}" for k, n in theirs.privacy.held_back.items())
        console.print(styled("[dim]held back from the agent: {}[/dim]", held or "nothing"))
    console.print()
    pack = vault.context("what do I need to pay", caller=agent, budget=150)
    console.print(
        Panel(
            pack.text,
            title=f"context pack for an agent: {pack.used_tokens}/"
            f"{pack.budget} tokens, {pack.dropped} dropped",
        ),
        highlight=False,
    )


def _watches(vault: Vault, owner: Caller) -> None:
    """A reminder that comes due, and a page served on 127.0.0.1 that changes."""
    console.rule("watches: a reminder comes due, a page changes")
    page = {"hour": "nine"}

    class Ferry(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            body = FERRY.format(page["hour"]).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass  # keep the demo's output clean

    server = ThreadingHTTPServer(("127.0.0.1", 0), Ferry)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    watches = vault.watches
    try:
        watches.add(
            "remind", "Pay Hargreaves Plumbing, invoice 4471", caller=owner, at=now_ms() - 5_000
        )
        url = f"http://127.0.0.1:{server.server_address[1]}/ferry"
        watches.add("url", url, caller=owner, every="1h", allow_private=True)
        watches.poll(caller=owner)  # files the reminder and the page's first version
        for reminder in watches.reminders(caller=owner).reminders:
            console.print(f"  reminder due: {reminder.text} ({reminder.id})", highlight=False)
        page["hour"] = "ten"
        for run in watches.poll(caller=owner, now=now_ms() + 3_600_000).report.runs:
            console.print(f"  {url}: {run.status} — {run.summary}", highlight=False)
            console.print(run.diff or "", highlight=False, markup=False)
    finally:
        server.shutdown()
        server.server_close()


def _register_agent(vault: Vault, path: Path) -> str:
    """Register the demo agent as `privault agents add` does; print its client config."""
    console.rule("MCP: an agent connects")
    token = vault.agents.issue(DEMO_AGENT)
    console.print(f"  registered agent {DEMO_AGENT} (token shown once, stored hashed)")
    console.print("  client config (`privault mcp config --agent demo-agent`):")
    snippet = client_config(DEMO_AGENT, vault=path)
    console.print(json.dumps(snippet, indent=2), highlight=False, markup=False)
    return token


def _mcp(folder: Path, path: Path, token: str) -> None:
    """Launch `privault mcp` as a client would and drive it with the SDK's stdio client."""
    import anyio
    from mcp.client.stdio import StdioServerParameters

    env = {
        **os.environ,
        "PRIVAULT_HOME": str(folder),  # your config.yaml stays out (bar the answerer)
        "PRIVAULT_VAULT": str(path),
        "PRIVAULT_MODELS": str(config.models_dir()),
        TOKEN_ENV: token,
    }
    params = StdioServerParameters(
        command=executable(), args=["mcp", "--agent", DEMO_AGENT], env=env
    )
    console.print(f"  launching: {executable()} mcp --agent {DEMO_AGENT}", highlight=False)
    anyio.run(_mcp_session, params)
    with Vault.open(path, models_dir=config.models_dir()) as vault:
        console.print("  what the owner sees in `privault audit`:")
        for entry in reversed(vault.audit.entries(agent=DEMO_AGENT)):
            held = ", ".join(f"{kind} ×{n}" for kind, n in entry.held_back.items())
            console.print(
                f"    {entry.agent} {entry.tool} {'ok' if entry.ok else 'failed'} "
                f"policy={entry.policy or '-'} held back: {held or 'nothing'}",
                highlight=False,
            )


async def _mcp_session(params: StdioServerParameters) -> None:
    """One client session: list the tools, search, read the due reminders."""
    from mcp import Client
    from mcp.shared.exceptions import MCPError
    from mcp.types import REQUEST_TIMEOUT

    async with Client(params, read_timeout_seconds=ASK_WAIT) as client:
        tools = (await client.list_tools()).tools
        console.print(f"  {len(tools)} tools: {', '.join(t.name for t in tools)}", highlight=False)
        found = await call_tool(client, "memory_search", query=MCP_QUERY, limit=1)
        for hit in found["results"]:
            console.print(Panel(Text(hit["text"]), title=Text(f"memory_search → {hit['title']}")))
        due = await call_tool(client, "list_reminders")
        for reminder in due["reminders"]:
            console.print(f"  list_reminders → {reminder['text']}", highlight=False)
        try:
            reply = await call_tool(client, "ask_memory", question=ASK_QUESTION)
        except MCPError as exc:
            if exc.code != REQUEST_TIMEOUT:
                raise
            raise PrivaultError(
                f"demo: the local model wrote no answer within {ASK_WAIT} s. This machine is "
                "too busy or too slow for it: `privault doctor` shows its speed"
            ) from None
        answer = reply["answer"] or f"refused: {reply['refused']}"
        console.print(Panel(Text(answer), title=Text(f"ask_memory → {reply['model']}")))
        for citation in reply["citations"]:
            console.print(f"  cites {citation['node_id']} — {citation['title']}", highlight=False)
        context = ", ".join(f"{k} ×{n}" for k, n in reply["held_back"]["context"].items())
        console.print(
            f"  the local model saw placeholders for: {context or 'nothing'}; "
            f"masked in its answer: {reply['held_back']['leak_masks']}",
            highlight=False,
        )


async def call_tool(client: Client, name: str, **arguments: Any) -> dict[str, Any]:
    """Call one MCP tool by name, print its privacy line, return its structured result."""
    result = await client.call_tool(name, arguments)
    if result.is_error:
        text = result.content[0].text if result.content else "error"  # type: ignore[union-attr]
        raise PrivaultError(f"demo: {name} failed over MCP: {text}")
    data: dict[str, Any] = result.structured_content or {}
    flat = isinstance(data.get("held_back"), dict) and all(
        isinstance(v, int) for v in data["held_back"].values()
    )
    line = privacy_line(data) if "policy" in data and flat else f"policy {data.get('policy')}"
    shown = f" {json.dumps(arguments)}" if arguments else ""
    console.print(
        styled("  [bold]{name}[/bold]{shown}: {line}", name=name, shown=shown, line=line),
        highlight=False,
    )
    return data


def register(app: typer.Typer) -> None:
    """Add `demo` to the app."""
    app.command()(demo)
