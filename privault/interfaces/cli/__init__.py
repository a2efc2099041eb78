"""The `privault` command line: thin commands that parse, call the Vault, and render."""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from typing import Annotated

import click
import typer

from privault.errors import PrivaultError, storage_fault, utf8_text
from privault.interfaces.cli.common import err_console
from privault.interfaces.cli.terminal import styled
from privault.version import __version__

# typer carries its own copy of click: usage errors come from either.
_CLICK_ERRORS: tuple[type[Exception], ...] = (
    click.ClickException,
    *{c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"},
)
_USAGE_ERRORS: tuple[type[Exception], ...] = (
    click.UsageError,
    *{c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError"},
)

# Which module registers each top-level command. Running one command imports only its
# module (and what that needs): `privault note` must not pay for the MCP server, the
# scheduler or the detector. Help, and any word not listed, registers every module.
# `tests/test_cli_registry.py` checks this table against what the modules register.
MODULES = (
    "documents",
    "indexing",
    "ask",
    "statements",
    "watches",
    "privacy",
    "agents",
    "serve",
    "ui",
    "models",
    "sync",
    "demo",
)
COMMANDS = {
    **dict.fromkeys(
        ("init", "note", "add", "search", "context", "read", "tree", "docs", "forget"),
        "documents",
    ),
    **dict.fromkeys(("index", "reindex", "status"), "indexing"),
    "ask": "ask",
    "statement": "statements",
    "st": "statements",
    "watch": "watches",
    "reminders": "watches",
    "policy": "privacy",
    "pii": "privacy",
    **dict.fromkeys(("agents", "shelf", "audit", "mcp"), "agents"),
    "serve": "serve",
    "ui": "ui",
    **dict.fromkeys(("models", "doctor"), "models"),
    **dict.fromkeys(("export", "import", "sync"), "sync"),
    "demo": "demo",
}


def _version(value: bool) -> None:
    if value:
        print(f"privault {__version__}")
        raise typer.Exit()


def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show version.")
    ] = False,
) -> None:
    """A local, privacy-gated memory vault for AI agents and the person who owns them.

    Paths: PRIVAULT_HOME (default ~/.privault), PRIVAULT_VAULT, PRIVAULT_MODELS;
    PRIVAULT_KEY unlocks an encrypted vault.
    """


def build_app(command: str | None = None) -> typer.Typer:
    """The `privault` app with every command, or only the module that registers `command`."""
    built = typer.Typer(
        name="privault",
        help="A local, privacy-gated memory vault for AI agents and the person who owns them.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    built.callback()(_root)
    for name in (COMMANDS[command],) if command in COMMANDS else MODULES:
        importlib.import_module(f"{__name__}.{name}").register(built)
    _unwrap_help(built)
    return built


def _unwrap_help(app: typer.Typer) -> None:
    """Let the terminal wrap each command's help: the docstrings are wrapped for the source,
    and typer keeps their line breaks, which made ragged lines in an 80-column terminal. A
    paragraph with an indented line (an example) keeps its breaks."""
    for info in app.registered_commands:
        text = info.help or inspect.getdoc(info.callback) or ""
        info.help = "\n\n".join(
            paragraph
            if any(line[:1].isspace() for line in paragraph.splitlines())
            else " ".join(paragraph.splitlines())
            for paragraph in text.split("\n\n")
        )
    for group in app.registered_groups:
        if group.typer_instance is not None:
            _unwrap_help(group.typer_instance)


_full: list[typer.Typer] = []


def __getattr__(name: str) -> typer.Typer:
    # `app`: the whole command line (tests drive it; `main` builds only what it runs).
    if name == "app":
        if not _full:
            _full.append(build_app())
        return _full[0]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _command(argv: list[str]) -> str | None:
    """The command a command line runs (its first word), if it names one."""
    for word in argv:
        if word in ("--help", "-h", "--version"):
            return None
        if not word.startswith("-"):
            return word
    return None


def _usage_error(exc: Exception) -> int:
    """Print a usage error as one line naming where help is; return the exit code (2)."""
    context = getattr(exc, "ctx", None)
    where = context.command_path if context is not None else "privault"
    message = " ".join(str(getattr(exc, "format_message", exc.__str__)()).split())
    err_console.print(
        styled("[red]error:[/red] {message} (see `{where} --help`)", message=message, where=where),
        highlight=False,
        soft_wrap=True,
    )
    return 2 if isinstance(exc, _USAGE_ERRORS) else int(getattr(exc, "exit_code", 1))


# Set to show the traceback of an error privault did not expect (a bug, a failing disk).
DEBUG_VARIABLE = "PRIVAULT_DEBUG"
EXIT_INTERRUPTED = 130  # the shell's code for a command stopped by Ctrl-C
EXIT_INTERNAL = 70  # sysexits' EX_SOFTWARE


def main() -> None:
    """Entry point: run the app; a privault error is one line on stderr and exit code 1,
    an interrupt "interrupted" and 130, any other error one line naming it and 70 (with
    its traceback when PRIVAULT_DEBUG is set)."""
    try:
        _run()
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(EXIT_INTERRUPTED)
    except Exception as exc:
        if os.environ.get(DEBUG_VARIABLE, "") not in ("", "0"):
            raise
        fault = storage_fault(exc)  # the disk or the file, not privault: say what to do
        if fault is not None:
            err_console.print(
                styled("[red]error:[/red] {}", fault), highlight=False, soft_wrap=True
            )
            sys.exit(1)
        err_console.print(
            styled(
                "[red]internal error:[/red] {kind}: {what} — privault did not expect this "
                "(a bug, or the disk or system failing); run again with {debug}=1 to see "
                "where it happened",
                kind=type(exc).__name__,
                what=" ".join(str(exc).split()) or "(no message)",
                debug=DEBUG_VARIABLE,
            ),
            highlight=False,
            soft_wrap=True,
        )
        sys.exit(EXIT_INTERNAL)


def _run() -> None:
    try:
        for position, argument in enumerate(sys.argv[1:], 1):
            utf8_text(argument, f"argument {position}")  # a byte the terminal could not decode
        code = build_app(_command(sys.argv[1:]))(standalone_mode=False)
    except PrivaultError as exc:
        err_console.print(styled("[red]error:[/red] {}", exc), highlight=False, soft_wrap=True)
        sys.exit(1)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        err_console.print("aborted")
        sys.exit(EXIT_INTERRUPTED)
    except _CLICK_ERRORS as exc:  # usage errors: bad option, missing argument
        sys.exit(_usage_error(exc))
    if code == EXIT_INTERRUPTED:  # typer's answer to Ctrl-C inside a command
        raise KeyboardInterrupt
    if isinstance(code, int) and code:
        sys.exit(code)
