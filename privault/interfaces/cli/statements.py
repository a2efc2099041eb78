"""`privault statement` (alias `st`): bi-temporal statements — what holds, since when.

Writes act as the owner; read commands take `--as AGENT` to preview exactly what that agent
would receive. Times are ISO 8601 with an offset (`2026-03-01T09:00:00+01:00`, `...Z`) or a
plain date (midnight UTC); a time without an offset is refused.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.table import Table

from privault.caller import Caller
from privault.errors import InputError
from privault.interfaces.cli.common import (
    AsOption,
    JsonOption,
    caller_for,
    console,
    emit_json,
    number,
    opened,
    privacy_line,
    read_text_argument,
)
from privault.interfaces.cli.terminal import styled
from privault.statements import ORDERS, NewStatement
from privault.timeutil import iso_minute

HELP = "Statements: facts that hold for a time — add, query, supersede, revise, history."

statement_app = typer.Typer(help=HELP, no_args_is_help=True)

TIME = "ISO 8601 with an offset, e.g. 2026-03-01T09:00:00+01:00"
IdArgument = Annotated[str, typer.Argument(help="A statement id (s_…).")]
ContentArgument = Annotated[str, typer.Argument(help="What holds, or - to read standard input.")]
EntityOption = Annotated[
    list[str] | None,
    typer.Option(
        "--entity",
        "-e",
        help="An entity the statement names (repeatable); prefix its kind as person:, org:, "
        "place: or other: (a bare name is a person; only people and places are masked).",
    ),
]
StatementShelfOption = Annotated[
    str, typer.Option("--shelf", help="The shelf it lives on (visibility and policy).")
]
SourceOption = Annotated[str | None, typer.Option("--source", help="Where it came from.")]
SalienceOption = Annotated[
    float | None, typer.Option("--salience", help="How much it matters, 0..1 (default 0.5).")
]
ConfidenceOption = Annotated[
    float | None, typer.Option("--confidence", help="How sure, 0..1 (default 1).")
]
OccurredOption = Annotated[
    str | None, typer.Option("--occurred-at", help=f"When it happened ({TIME}).")
]
ValidFromOption = Annotated[
    str | None,
    typer.Option("--valid-from", help=f"True from ({TIME}; default occurred-at, else now)."),
]
ValidToOption = Annotated[
    str | None, typer.Option("--valid-to", help=f"True until, exclusive ({TIME}).")
]
ValidAtOption = Annotated[
    str | None, typer.Option("--valid-at", help=f"What held in the world then ({TIME}).")
]
KnownAtOption = Annotated[
    str | None, typer.Option("--known-at", help=f"As the vault knew it then ({TIME}).")
]
MetaOption = Annotated[
    list[str] | None,
    typer.Option("--meta", help="Metadata KEY=VALUE (repeatable; VALUE may be JSON)."),
]
AllOption = Annotated[
    bool, typer.Option("--all", help="Include closed, superseded and revised versions.")
]


def _metadata(pairs: list[str] | None) -> dict[str, Any] | None:
    if not pairs:
        return None
    data: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--meta {pair!r}: use KEY=VALUE, e.g. --meta channel=email")
        try:
            data[key.strip()] = json.loads(value)
        except ValueError:
            data[key.strip()] = value
    return data


def _names(entities: list[str] | None) -> tuple[str, ...] | None:
    # No --entity: none for a new statement, inherited by a new version.
    return tuple(entities) if entities else None


def _statement(
    content: str,
    entity: list[str] | None,
    source: str | None,
    salience: float | None,
    confidence: float | None,
    occurred_at: str | None,
    valid_from: str | None,
    valid_to: str | None,
    meta: list[str] | None,
) -> NewStatement:
    """The statement `add` and `supersede` were given on the command line."""
    return NewStatement(
        read_text_argument(content),
        _names(entity),
        source,
        salience,
        confidence,
        occurred_at,
        valid_from,
        valid_to,
        _metadata(meta),
    )


def _window(item: dict[str, Any]) -> str:
    start = iso_minute(item["valid_from"])
    end = iso_minute(item["valid_to"])
    return f"{start} → {end or '…'}"


def _show_one(data: dict[str, Any], verb: str) -> None:
    item = data["statement"]
    label = "" if item["current"] else " [bold red]NOT current[/bold red] ({status})"
    line = styled(
        "{verb} [bold]{id}[/bold]" + label, verb=verb, id=item["id"], status=item["status"]
    )
    console.print(line, highlight=False)
    console.print(item["content"], highlight=False)
    details = [_window(item)]
    if item["entities"]:
        details.append("entities: " + ", ".join(item["entities"]))
    if item["source"]:
        details.append(f"source: {item['source']}")
    if item["confirmed_count"]:
        details.append(f"confirmed ×{item['confirmed_count']}")
    if item["disputed_with"]:
        details.append("disputed with " + ", ".join(item["disputed_with"]))
    console.print(styled("[dim]{}[/dim]", " · ".join(details)), highlight=False)
    console.print(styled("[dim]{}[/dim]", privacy_line(data)), highlight=False)


def _show_list(data: dict[str, Any]) -> None:
    if not data["statements"]:
        console.print("no statements")
    else:
        table = Table("id", "status", "statement", "entities", "valid")
        table.columns[0].no_wrap = table.columns[1].no_wrap = True
        for item in data["statements"]:
            status = "current" if item["current"] else "[red]NOT current[/red]\n{status}"
            if item["disputed_with"]:
                status += "\n[yellow]disputed[/yellow]"
            table.add_row(
                item["id"],
                styled(status, status=item["status"]),
                item["content"],
                ", ".join(item["entities"]),
                _window(item),
            )
        console.print(table)
    console.print(styled("[dim]{}[/dim]", privacy_line(data)), highlight=False)


def _emit_one(data: dict[str, Any], json_out: bool, verb: str) -> None:
    if json_out:
        emit_json(data)
    else:
        _show_one(data, verb)


def _emit_list(data: dict[str, Any], json_out: bool) -> None:
    if json_out:
        emit_json(data)
    else:
        _show_list(data)


@statement_app.command("add")
def add(
    content: ContentArgument,
    entity: EntityOption = None,
    source: SourceOption = None,
    salience: SalienceOption = None,
    confidence: ConfidenceOption = None,
    occurred_at: OccurredOption = None,
    valid_from: ValidFromOption = None,
    valid_to: ValidToOption = None,
    meta: MetaOption = None,
    shelf: StatementShelfOption = "default",
    json_out: JsonOption = False,
) -> None:
    """Record a statement; it holds until superseded, invalidated or its --valid-to."""
    with opened() as vault:
        statement = _statement(
            content, entity, source, salience, confidence, occurred_at, valid_from, valid_to, meta
        )
        response = vault.statements.add(statement, caller=Caller.owner(), shelf=shelf)
    _emit_one(response.to_dict(), json_out, "added")


@statement_app.command("query")
def query(
    text: Annotated[
        str | None, typer.Argument(help="Words to match (keywords and meaning).")
    ] = None,
    entity: EntityOption = None,
    source: SourceOption = None,
    valid_at: ValidAtOption = None,
    known_at: KnownAtOption = None,
    all_versions: AllOption = False,
    disputed: Annotated[bool, typer.Option("--disputed", help="Only disputed ones.")] = False,
    order: Annotated[
        str | None,
        typer.Option(
            "--order",
            help=f"One of {', '.join(ORDERS)} (default: relevance with text, else recency).",
        ),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", help="How many.", parser=number)] = 20,
    as_agent: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Find statements. Default: those that hold now, newest first (best match with TEXT)."""
    with opened() as vault:
        found = vault.statements.query(
            caller=caller_for(as_agent, vault),
            text=text,
            entities=entity or [],
            source=source,
            valid_at=valid_at,
            known_at=known_at,
            include_closed=all_versions,
            disputed=disputed,
            order=order,
            limit=limit,
        )
    _emit_list(found.to_dict(), json_out)


@statement_app.command("show")
def show(
    statement_id: IdArgument,
    known_at: KnownAtOption = None,
    as_agent: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Print one statement (as the vault knew it at --known-at)."""
    with opened() as vault:
        found = vault.statements.get(
            statement_id, caller=caller_for(as_agent, vault), known_at=known_at
        )
    _emit_one(found.to_dict(), json_out, "statement")


@statement_app.command("supersede")
def supersede(
    statement_id: IdArgument,
    content: ContentArgument,
    valid_from: Annotated[
        str | None,
        typer.Option("--valid-from", help=f"Where the old one ends and this begins ({TIME})."),
    ] = None,
    valid_to: ValidToOption = None,
    entity: EntityOption = None,
    source: SourceOption = None,
    salience: SalienceOption = None,
    confidence: ConfidenceOption = None,
    occurred_at: OccurredOption = None,
    meta: MetaOption = None,
    json_out: JsonOption = False,
) -> None:
    """The world changed: close ID exactly where the new statement opens (default now)."""
    with opened() as vault:
        statement = _statement(
            content, entity, source, salience, confidence, occurred_at, valid_from, valid_to, meta
        )
        response = vault.statements.supersede(statement_id, statement, caller=Caller.owner())
    _emit_one(response.to_dict(), json_out, "superseded by")


@statement_app.command("revise")
def revise(
    statement_id: IdArgument,
    content: ContentArgument,
    entity: EntityOption = None,
    source: SourceOption = None,
    salience: SalienceOption = None,
    confidence: ConfidenceOption = None,
    meta: MetaOption = None,
    json_out: JsonOption = False,
) -> None:
    """Better wording, same world: replace ID's text; the original stays in history."""
    with opened() as vault:
        statement = NewStatement(
            read_text_argument(content),
            _names(entity),
            source,
            salience,
            confidence,
            metadata=_metadata(meta),
        )
        response = vault.statements.revise(statement_id, statement, caller=Caller.owner())
    _emit_one(response.to_dict(), json_out, "revised as")


@statement_app.command("confirm")
def confirm(
    statement_id: IdArgument,
    source: Annotated[str | None, typer.Option("--source", help="Where it was heard.")] = None,
    heard_at: Annotated[
        str | None, typer.Option("--heard-at", help=f"When it was heard (default now; {TIME}).")
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Heard again: add one attestation to an open statement."""
    with opened() as vault:
        response = vault.statements.confirm(
            statement_id, caller=Caller.owner(), source=source, attested_at=heard_at
        )
    _emit_one(response.to_dict(), json_out, "confirmed")


@statement_app.command("dispute")
def dispute(
    statement_id: IdArgument,
    other_id: Annotated[str, typer.Argument(help="The statement it conflicts with.")],
    reason: Annotated[str | None, typer.Option("--reason", help="Why both cannot hold.")] = None,
    json_out: JsonOption = False,
) -> None:
    """Flag two open statements that cannot both hold (until one is closed)."""
    with opened() as vault:
        pair = vault.statements.dispute(
            statement_id, other_id, caller=Caller.owner(), reason=reason
        )
    _emit_list(pair.to_dict(), json_out)


@statement_app.command("invalidate")
def invalidate(
    statement_id: IdArgument,
    valid_to: Annotated[
        str | None,
        typer.Option("--valid-to", help=f"When it stopped holding (default now; {TIME})."),
    ] = None,
    reason: Annotated[str | None, typer.Option("--reason", help="Why it no longer holds.")] = None,
    json_out: JsonOption = False,
) -> None:
    """Close a statement; --valid-to may be in the past (learning late is normal)."""
    with opened() as vault:
        response = vault.statements.invalidate(
            statement_id, caller=Caller.owner(), valid_to=valid_to, reason=reason
        )
    _emit_one(response.to_dict(), json_out, "invalidated")


@statement_app.command("history")
def history(
    statement_id: IdArgument,
    known_at: KnownAtOption = None,
    as_agent: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Every version of ID's chain (supersedes and revisions), oldest first."""
    with opened() as vault:
        found = vault.statements.history(
            statement_id, caller=caller_for(as_agent, vault), known_at=known_at
        )
    _emit_list(found.to_dict(), json_out)


@statement_app.command("entities")
def entities(
    all_versions: AllOption = False,
    valid_at: ValidAtOption = None,
    known_at: KnownAtOption = None,
    min_count: Annotated[
        int,
        typer.Option("--min", help="Only entities named by at least N statements.", parser=number),
    ] = 1,
    as_agent: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Entities named by statements that hold now (or --all), with counts."""
    with opened() as vault:
        found = vault.statements.entities(
            caller=caller_for(as_agent, vault),
            include_closed=all_versions,
            valid_at=valid_at,
            known_at=known_at,
            min_count=min_count,
        )
    data = found.to_dict()
    if json_out:
        emit_json(data)
        return
    table = Table("entity", "statements")
    for item in data["entities"]:
        table.add_row(item["name"], str(item["count"]))
    console.print(table if data["entities"] else "no entities")
    console.print(styled("[dim]{}[/dim]", privacy_line(data)), highlight=False)


@statement_app.command("stats")
def stats(as_agent: AsOption = None, json_out: JsonOption = False) -> None:
    """Counts: total, open, closed, superseded, revised, disputed."""
    with opened() as vault:
        found = vault.statements.stats(caller=caller_for(as_agent, vault))
    data = found.to_dict()
    if json_out:
        emit_json(data)
        return
    counts = ("total", "open", "closed", "superseded", "revised", "disputed")
    console.print(" · ".join(f"{name} {data[name]}" for name in counts))


def register(app: typer.Typer) -> None:
    """Add `statement` and its short alias `st` to the app."""
    app.add_typer(statement_app, name="statement")
    app.add_typer(statement_app, name="st", help=f"Alias of `statement`. {HELP}")
