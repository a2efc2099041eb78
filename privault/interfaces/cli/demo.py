"""`privault demo`: the main job on an embedded demo vault, with the real local models.

A newcomer's first run: a few private notes go into a throw-away vault, then the same
search is shown as the owner sees it and as an agent sees it, side by side.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Annotated

import typer
from rich.panel import Panel
from rich.table import Table

from privault.caller import Caller
from privault.interfaces import config
from privault.interfaces.cli.common import console
from privault.vault import Vault

NOTES = [
    ("Dentist", "# Dentist\nCheck-up with Dr. Maria Gonzalez on 3 March 2027 at 10:00.\n"
     "Her practice: 221 Baker Street, London. Phone +44 20 7946 0958.", ["health"]),
    ("Invoice from Hargreaves Plumbing", "# Invoice from Hargreaves Plumbing\n"
     "Invoice 4471 for the boiler repair: 312.50 EUR, due 15 January 2027.\n"
     "Pay to IBAN GB82 WEST 1234 5698 7654 32, reference 4471. Contact: "
     "tom.hargreaves@example.com.", ["money"]),
    ("Book club", "# Book club\nNext meeting at Priya Natarajan's flat. "
     "We are reading *The Left Hand of Darkness*; bring snacks.", ["social"]),
    ("Shopping", "# Shopping\n- oat milk\n- rye bread\n- coffee beans\n- batteries (AA)",
     ["lists"]),
]
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
            table = Table("the owner sees (policy open)", "an agent sees (policy standard)",
                          show_lines=True, expand=True)
            table.add_row(mine.results[0].text if mine.results else "—",
                          theirs.results[0].text if theirs.results else "—")
            console.print(table)
            held = ", ".join(f"{k} ×{n}" for k, n in theirs.privacy.held_back.items())
            console.print(f"[dim]held back from the agent: {held or 'nothing'}[/dim]")
        console.print()
        pack = vault.context("what do I need to pay", caller=agent, budget=150)
        console.print(Panel(pack.text, title=f"context pack for an agent: {pack.used_tokens}/"
                            f"{pack.budget} tokens, {pack.dropped} dropped"), highlight=False)
    if keep:
        console.print(f"kept: PRIVAULT_VAULT={path}")
    else:
        for file in folder.iterdir():
            file.unlink()
        os.rmdir(folder)


def register(app: typer.Typer) -> None:
    """Add `demo` to the app."""
    app.command()(demo)
