"""`privault ask`: answers from private memory written by the local model."""

from __future__ import annotations

from typing import Annotated

import typer

from privault.interfaces.cli.common import (
    AsOption,
    JsonOption,
    caller_for,
    console,
    emit_json,
    opened,
)
from privault.vault.context import DEFAULT_ASK_BUDGET


def ask(
    question: Annotated[str, typer.Argument(help="The question.")],
    budget: Annotated[
        int, typer.Option("--budget", help="Tokens of memory the local model reads.")
    ] = DEFAULT_ASK_BUDGET,
    instruction: Annotated[
        str | None,
        typer.Option("--instruction", help="With --followup: reshape the last answer once."),
    ] = None,
    followup: Annotated[
        str | None, typer.Option("--followup", help="The follow-up token of an earlier reply.")
    ] = None,
    as_agent: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Answer QUESTION from the vault with the local model; private text stays on this machine.

    Under an agent's policy the model sees placeholders instead of identifying values, and
    the answer is scanned before release. The reply lists citations, what was held back and
    a single-use follow-up token (valid for minutes) for one more --instruction.
    """
    with opened() as vault:
        reply = vault.ask(
            question,
            caller=caller_for(as_agent, vault),
            budget=budget,
            instruction=instruction,
            followup=followup,
        )
    data = reply.to_dict()
    if json_out:
        emit_json(data)
        return
    if reply.refused:
        console.print(f"[yellow]refused:[/yellow] {reply.refused}", highlight=False)
    else:
        console.print(reply.answer, highlight=False, markup=False)
    for citation in reply.citations:
        console.print(f"[dim]  cites {citation.node_id} — {citation.title}[/dim]", highlight=False)
    held = {k: v for k, v in reply.held_back.to_dict().items() if v}
    console.print(
        f"[dim]policy {reply.policy} ({reply.mode}) · model {reply.model} · "
        f"held back: {held or 'nothing'}[/dim]",
        highlight=False,
    )
    if reply.followup:
        console.print(f"[dim]follow-up token: {reply.followup}[/dim]", highlight=False)


def register(app: typer.Typer) -> None:
    """Add `ask` to the app."""
    app.command()(ask)
