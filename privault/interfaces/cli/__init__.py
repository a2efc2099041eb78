"""The `privault` command line: thin commands that parse, call the Vault, and render."""

from __future__ import annotations

import sys
from typing import Annotated

import click
import typer

from privault.errors import PrivaultError
from privault.interfaces.cli.common import err_console
from privault.version import __version__

app = typer.Typer(
    name="privault",
    help="A local, privacy-gated memory vault for AI agents and the person who owns them.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        print(f"privault {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show version.")
    ] = False,
) -> None:
    """A local, privacy-gated memory vault for AI agents and the person who owns them.

    Paths: PRIVAULT_HOME (default ~/.privault), PRIVAULT_VAULT, PRIVAULT_MODELS;
    PRIVAULT_KEY unlocks an encrypted vault.
    """


def _register() -> None:
    from privault.interfaces.cli import (
        agents,
        ask,
        demo,
        documents,
        models,
        privacy,
        statements,
        sync,
        watches,
    )

    for module in (documents, ask, statements, watches, privacy, agents, models, sync, demo):
        module.register(app)


_register()


def main() -> None:
    """Entry point: run the app; a privault error is one line on stderr and exit code 1."""
    try:
        code = app(standalone_mode=False)
    except PrivaultError as exc:
        err_console.print(f"[red]error:[/red] {exc}", highlight=False, soft_wrap=True)
        sys.exit(1)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        err_console.print("aborted")
        sys.exit(130)
    except click.ClickException as exc:  # usage errors: bad option, missing argument
        exc.show()
        sys.exit(exc.exit_code)
    if isinstance(code, int) and code:
        sys.exit(code)
