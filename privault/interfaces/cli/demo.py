"""`privault demo`: the main job on an embedded demo vault, with the real local models.

A newcomer's first run: a few private notes go into a throw-away vault, then the same
search is shown as the owner sees it and as an agent sees it, side by side.
"""

from __future__ import annotations

import os
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Annotated

import typer
from rich.panel import Panel
from rich.table import Table

from privault.caller import Caller
from privault.interfaces import config
from privault.interfaces.cli.common import console
from privault.timeutil import now_ms
from privault.vault import Vault

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
QUERIES = ["when is the dentist appointment", "how much do I owe the plumber and to whom"]


def demo(
    keep: Annotated[
        bool, typer.Option("--keep", help="Keep the demo vault and print where it is.")
    ] = False,
) -> None:
    """Run the main job on a throw-away demo vault with the real models."""
    folder = Path(tempfile.mkdtemp(prefix="privault-demo-"))
    path = folder / "demo.db"
    console.rule("[bold]privault demo")
    console.print(f"demo vault: {path} (models from {config.models_dir()})")
    with Vault.open(path, models_dir=config.models_dir()) as vault:
        owner = Caller.owner()
        for title, text, tags in NOTES:
            added = vault.note(text, caller=owner, title=title, tags=tags)
            console.print(f"  stored {added.doc_id} — {title}", highlight=False)
        agent = Caller.agent("demo-agent")
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
            console.print(f"[dim]held back from the agent: {held or 'nothing'}[/dim]")
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
        console.print()
        _watches(vault, owner)
    if keep:
        console.print(f"kept: PRIVAULT_VAULT={path}")
    else:
        for file in folder.iterdir():
            file.unlink()
        os.rmdir(folder)


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


def register(app: typer.Typer) -> None:
    """Add `demo` to the app."""
    app.command()(demo)
