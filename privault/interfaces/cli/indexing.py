"""`privault index`: the strong model's background pass, run in the foreground."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from privault.caller import Caller
from privault.interfaces.cli.common import JsonOption, console, emit_json, opened


def index(
    limit: Annotated[
        int | None, typer.Option("--limit", help="Stop after this many windows.")
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Compute the strong model's vectors for every index window that lacks them.

    Writes keep search fast by leaving this to later: `privault serve` does it in the
    background, this command in the foreground. Safe to stop and run again: it resumes
    where it stopped. Without the strong model installed it does nothing.
    """
    with opened() as vault:
        if json_out:
            report = vault.strong.index(caller=Caller.owner(), limit=limit)
        else:
            with _progress("strong vectors") as bar:
                task = bar.add_task("", total=None)
                report = vault.strong.index(
                    caller=Caller.owner(),
                    limit=limit,
                    progress=lambda done, total: bar.update(task, completed=done, total=total),
                )
    data = {
        "model": report.model,
        "windows": report.windows,
        "embedded": report.embedded,
        "remaining": report.remaining,
    }
    if json_out:
        emit_json(data)
    elif report.model is None:
        console.print(
            "no strong model installed (`privault models install embeddinggemma-300m`); "
            "nothing to do"
        )
    else:
        console.print(
            f"{report.model}: {report.windows} windows indexed ({report.embedded} texts "
            f"embedded), {report.remaining} remaining"
        )


def _progress(label: str) -> Progress:
    return Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        console=console,
        transient=True,
    )


def register(app: typer.Typer) -> None:
    """Add the command to the app."""
    app.command()(index)
