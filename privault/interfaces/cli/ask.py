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
    number,
    opened,
    unsearchable_line,
)
from privault.interfaces.cli.terminal import styled
from privault.vault.bounds import DEFAULT_ASK_BUDGET


def ask(
    question: Annotated[str, typer.Argument(help="The question.")],
    budget: Annotated[
        int,
        typer.Option("--budget", help="Tokens of memory the local model reads.", parser=number),
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
        if reply.refused:
            raise typer.Exit(1)
        return
    if reply.refused:
        console.print(styled("[yellow]refused:[/yellow] {}", reply.refused), highlight=False)
    else:
        console.print(reply.answer, highlight=False)
    for citation in reply.citations:
        console.print(
            styled(
                "[dim]  cites {node} — {title}[/dim]", node=citation.node_id, title=citation.title
            ),
            highlight=False,
        )
    held = {k: v for k, v in reply.held_back.to_dict().items() if v}
    console.print(
        styled(
            "[dim]policy {policy} ({mode}) · model {model} · held back: {held}[/dim]",
            policy=reply.policy,
            mode=reply.mode,
            model=reply.model or "none (no answer)",
            held=held or "nothing",
        ),
        highlight=False,
    )
    if reply.followup:
        console.print(styled("[dim]follow-up token: {}[/dim]", reply.followup), highlight=False)
    if line := unsearchable_line(reply.unsearchable):
        console.print(styled("[dim]{}[/dim]", line), highlight=False)
    if reply.refused:
        raise typer.Exit(1)  # no answer: a script sees it in the exit code too


def register(app: typer.Typer) -> None:
    """Add `ask` to the app."""
    app.command()(ask)
