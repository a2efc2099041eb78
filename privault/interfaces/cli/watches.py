"""`privault watch …` and `privault reminders`: standing jobs that re-read pages, run web
searches, file reminders and index folders.

Writes act as the owner; `list`, `show` and `reminders` take `--as AGENT` to preview what
that agent would receive. The search backend of `search` watches is `search_backend` in
`config.yaml` (a SearXNG-compatible JSON endpoint); it is read here and passed in, the core
never reads config. `watch poll` runs what is due once — for cron, and for `--now` tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from rich.table import Table

from privault.caller import Caller
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
from privault.timeutil import iso_minute
from privault.vault.bounds import DEFAULT_REMINDER_LIMIT
from privault.vault.watches import VaultWatches

WATCH_HELP = "Watches: re-read pages, run searches, file reminders, index folders on a schedule."
watch_app = typer.Typer(help=WATCH_HELP, no_args_is_help=True)
add_app = typer.Typer(
    help="Add a watch: url, search, remind or folder. Give --every and/or --at.",
    no_args_is_help=True,
)
watch_app.add_typer(add_app, name="add")
reminders_app = typer.Typer(
    help="Reminders that came due; listed until acknowledged.", invoke_without_command=True
)

TIME = "ISO 8601 with an offset, e.g. 2026-03-01T09:00:00+01:00"
IdArgument = Annotated[str, typer.Argument(help="A watch id (w…), from `watch list`.")]
EveryOption = Annotated[
    str | None,
    typer.Option("--every", help="An interval (30m, 6h, 1d, 1w, 1h30m) or a cron expression."),
]
AtOption = Annotated[str | None, typer.Option("--at", help=f"First (or only) run, {TIME}.")]
ShelfOption = Annotated[str, typer.Option("--shelf", help="File what it finds on this shelf.")]
CatchupOption = Annotated[
    int,
    typer.Option(
        "--max-catchup",
        help="Runs missed during downtime to catch up, at most.",
        parser=number,
    ),
]
PrivateOption = Annotated[
    bool,
    typer.Option(
        "--allow-private",
        help="Allow loopback, LAN and other private addresses (refused by default).",
    ),
]
DIFF_LINES = 40  # a human reading a poll wants the gist; --json carries the whole diff


@contextmanager
def _watches() -> Iterator[VaultWatches]:
    """`vault.watches` with the configured search backend (set by `opened`)."""
    with opened() as vault:
        yield vault.watches


def _show_watches(data: dict[str, Any]) -> None:
    if not data["watches"]:
        console.print("no watches")
    else:
        table = Table("id", "kind", "target", "schedule", "status", "next run", "last")
        for column in (0, 5):
            table.columns[column].no_wrap = True
        for item in data["watches"]:
            last = styled("{}", item["last_status"] or "—")
            if item["last_error"]:
                last = styled("{status}\n[red]{error}[/red]", status=last, error=item["last_error"])
            table.add_row(
                item["id"],
                item["kind"],
                item["target"],
                item["schedule"] or "once",
                item["status"],
                iso_minute(item["next_run_at"]) or "—",
                last,
            )
        console.print(table)
    console.print(styled("[dim]{}[/dim]", privacy_line(data)), highlight=False)


def _show_run(run: dict[str, Any]) -> None:
    colour = {"error": "red", "changed": "yellow", "filed": "green"}.get(run["status"], "dim")
    console.print(
        styled(
            f"[{colour}]{{status}}[/{colour}] {{watch}} · {{summary}}"
            " [dim](planned {planned}, attempt {attempt})[/dim]",
            status=run["status"],
            watch=run["watch_id"],
            summary=run["summary"],
            planned=iso_minute(run["planned_at"]),
            attempt=run["attempt"],
        ),
        highlight=False,
    )
    if run["error"] and run["error"] != run["summary"]:
        console.print(styled("  [red]{}[/red]", run["error"]), highlight=False)
    if run["diff"]:
        lines = run["diff"].splitlines()
        shown = "\n".join(lines[:DIFF_LINES])
        if len(lines) > DIFF_LINES:
            shown += f"\n… {len(lines) - DIFF_LINES} more lines (--json)"
        console.print(shown, highlight=False)


def _show_watch(data: dict[str, Any], verb: str) -> None:
    item = data["watch"]
    console.print(
        styled(
            "{verb} [bold]{id}[/bold] {kind} {target}",
            verb=verb,
            id=item["id"],
            kind=item["kind"],
            target=item["target"],
        ),
        highlight=False,
    )
    details = [
        f"every {item['schedule']}" if item["schedule"] else "once",
        f"status {item['status']}",
        f"next {item['next_run_at'] or '—'}",
        f"shelf {item['shelf']}",
        f"runs {item['runs']}, failures {item['failures']}, skipped {item['skipped']}",
    ]
    if item["allow_private"]:
        details.append("private addresses allowed")
    console.print(styled("[dim]{}[/dim]", " · ".join(details)), highlight=False)
    if item["last_error"]:
        console.print(styled("[red]last error:[/red] {}", item["last_error"]), highlight=False)
    for run in data["runs"]:
        _show_run(run)
    console.print(styled("[dim]{}[/dim]", privacy_line(data)), highlight=False)


def _emit_watch(data: dict[str, Any], json_out: bool, verb: str) -> None:
    if json_out:
        emit_json(data)
    else:
        _show_watch(data, verb)


def _add(kind: str, target: str, json_out: bool, **options: Any) -> None:
    with _watches() as watches:
        added = watches.add(kind, target, caller=Caller.owner(), **options)
    _emit_watch(added.to_dict(), json_out, "added")


@add_app.command("url")
def add_url(
    url: Annotated[str, typer.Argument(help="The page to watch (http or https).")],
    every: EveryOption = None,
    at: AtOption = None,
    shelf: ShelfOption = "default",
    allow_private: PrivateOption = False,
    max_catchup: CatchupOption = 1,
    json_out: JsonOption = False,
) -> None:
    """Watch a page: store a new version (with the diff) only when its text changes."""
    _add(
        "url",
        url,
        json_out,
        every=every,
        at=at,
        shelf=shelf,
        allow_private=allow_private,
        max_catchup=max_catchup,
    )


@add_app.command("search")
def add_search(
    query: Annotated[str, typer.Argument(help="The web search to run.")],
    every: EveryOption = None,
    at: AtOption = None,
    shelf: ShelfOption = "default",
    fetch_pages: Annotated[
        bool, typer.Option("--fetch-pages", help="Also fetch and file each new result's page.")
    ] = False,
    allow_private: PrivateOption = False,
    max_catchup: CatchupOption = 1,
    json_out: JsonOption = False,
) -> None:
    """Run a web search on a schedule and file results not filed before.

    The backend is `search_backend` in config.yaml (a SearXNG-compatible JSON endpoint).
    """
    _add(
        "search",
        query,
        json_out,
        every=every,
        at=at,
        shelf=shelf,
        fetch_pages=fetch_pages,
        allow_private=allow_private,
        max_catchup=max_catchup,
    )


@add_app.command("remind")
def add_remind(
    text: Annotated[str, typer.Argument(help="What to be reminded of, or - for stdin.")],
    at: AtOption = None,
    every: EveryOption = None,
    shelf: ShelfOption = "default",
    max_catchup: CatchupOption = 1,
    json_out: JsonOption = False,
) -> None:
    """File a reminder at --at or every --every; due until acknowledged.

    The reminder is a note tagged `reminder` (search finds it), listed by
    `privault reminders` until `privault reminders ack ID`.
    """
    _add(
        "remind",
        read_text_argument(text),
        json_out,
        every=every,
        at=at,
        shelf=shelf,
        max_catchup=max_catchup,
    )


@add_app.command("folder")
def add_folder(
    path: Annotated[str, typer.Argument(help="The folder to index (md, txt, html, pdf).")],
    every: EveryOption = None,
    at: AtOption = None,
    shelf: ShelfOption = "default",
    max_catchup: CatchupOption = 1,
    json_out: JsonOption = False,
) -> None:
    """Index new and changed files under a folder; removed files are marked removed."""
    _add("folder", path, json_out, every=every, at=at, shelf=shelf, max_catchup=max_catchup)


@watch_app.command("list")
def list_(
    all_watches: Annotated[bool, typer.Option("--all", help="Include cancelled ones.")] = False,
    as_agent: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """List watches: kind, target, schedule, status, next run, last result."""
    with opened() as vault:
        watches = vault.watches
        found = watches.list(caller=caller_for(as_agent, vault), include_cancelled=all_watches)
    data = found.to_dict()
    if json_out:
        emit_json(data)
    else:
        _show_watches(data)


@watch_app.command("show")
def show(
    watch_id: IdArgument,
    runs: Annotated[
        int, typer.Option("--runs", "-n", help="How many recent runs.", parser=number)
    ] = 10,
    as_agent: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Show one watch with its recent runs, their diffs and errors."""
    with opened() as vault:
        watches = vault.watches
        found = watches.show(watch_id, caller=caller_for(as_agent, vault), runs=runs)
    _emit_watch(found.to_dict(), json_out, "watch")


def _change(verb: str, watch_id: str, json_out: bool) -> None:
    with _watches() as watches:
        changed = getattr(watches, verb)(watch_id, caller=Caller.owner())
    _emit_watch(changed.to_dict(), json_out, {"cancel": "cancelled"}.get(verb, f"{verb}d"))


@watch_app.command("cancel")
def cancel(watch_id: IdArgument, json_out: JsonOption = False) -> None:
    """Stop a watch for good (its runs and what it filed are kept)."""
    _change("cancel", watch_id, json_out)


@watch_app.command("pause")
def pause(watch_id: IdArgument, json_out: JsonOption = False) -> None:
    """Stop running a watch until `watch resume`."""
    _change("pause", watch_id, json_out)


@watch_app.command("resume")
def resume(watch_id: IdArgument, json_out: JsonOption = False) -> None:
    """Run a paused watch again from its next planned time (missed runs are skipped)."""
    _change("resume", watch_id, json_out)


@watch_app.command("run")
def run(watch_id: IdArgument, json_out: JsonOption = False) -> None:
    """Run one watch now, outside its schedule (its planned runs are not moved)."""
    with _watches() as watches:
        done = watches.run(watch_id, caller=Caller.owner())
    data = done.to_dict()
    if json_out:
        emit_json(data)
    elif data["run"] is None:
        console.print("another worker is running this watch right now")
    else:
        _show_run(data["run"])


@watch_app.command("poll")
def poll(
    now: Annotated[
        str | None, typer.Option("--now", help=f"Act as if it were this time ({TIME}).")
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Run every due watch once (for cron; `privault serve` does this on a clock)."""
    with _watches() as watches:
        report = watches.poll(caller=Caller.owner(), now=now)
    data = report.to_dict()
    if json_out:
        emit_json(data)
        return
    console.print(
        f"ran {data['ran']} · failed {data['failed']} · retrying {data['retrying']}"
        f" · dead {data['dead']} · skipped {data['skipped']} · {data['elapsed_ms']} ms",
        highlight=False,
    )
    for item in data["runs"]:
        _show_run(item)


@reminders_app.callback()
def reminders(
    ctx: typer.Context,
    all_reminders: Annotated[
        bool, typer.Option("--all", help="Include acknowledged ones (newest first).")
    ] = False,
    limit: Annotated[
        int, typer.Option("--limit", "-n", help="How many at most.", parser=number)
    ] = DEFAULT_REMINDER_LIMIT,
    after: Annotated[
        str | None,
        typer.Option("--after", help="Continue a listing: the cursor it printed for the rest."),
    ] = None,
    as_agent: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """List reminders that came due and are not acknowledged; `reminders ack ID` clears one.

    The longest due first (with --all, the newest first). A listing that stops at --limit
    says how many more there are and the --after that lists them.
    """
    if ctx.invoked_subcommand is not None:
        return
    with opened() as vault:
        found = vault.watches.reminders(
            caller=caller_for(as_agent, vault),
            include_acked=all_reminders,
            limit=limit,
            after=after,
        )
    data = found.to_dict()
    if json_out:
        emit_json(data)
        return
    if not data["reminders"]:
        console.print("no reminders due")
    else:
        table = Table("id", "due", "reminder", "status")
        for item in data["reminders"]:
            status = styled("[bold yellow]due[/bold yellow]" if item["due"] else "acknowledged")
            table.add_row(item["id"], iso_minute(item["due_at"]), item["text"], status)
        console.print(table)
    if found.next is not None:
        again = " --all" if all_reminders else ""
        agent = f" --as {as_agent}" if as_agent else ""
        console.print(
            f"… and {found.more} more: privault reminders{again}{agent} --after {found.next}"
            " (or a larger --limit)",
            highlight=False,
            soft_wrap=True,  # the command stays one line to copy
        )
    console.print(styled("[dim]{}[/dim]", privacy_line(data)), highlight=False)


@reminders_app.command("ack")
def ack(
    reminder_id: Annotated[str, typer.Argument(help="A reminder id (r…).")],
    json_out: JsonOption = False,
) -> None:
    """Acknowledge a reminder so it is no longer listed as due."""
    with _watches() as watches:
        acked = watches.ack(reminder_id, caller=Caller.owner())
    data = acked.to_dict()
    if json_out:
        emit_json(data)
    else:
        reminder = data["reminder"]
        console.print(f"acknowledged {reminder['id']}: {reminder['text']}", highlight=False)


@reminders_app.command("snooze")
def snooze(
    reminder_id: Annotated[str, typer.Argument(help="A reminder id (r…).")],
    for_: Annotated[
        str, typer.Option("--for", help="How long it stays off the due list: 1h, 1d, 1w…")
    ] = "1d",
    json_out: JsonOption = False,
) -> None:
    """Take a due reminder off the list for a while; it is due again after that."""
    with _watches() as watches:
        snoozed = watches.snooze(reminder_id, caller=Caller.owner(), interval=for_)
    data = snoozed.to_dict()
    if json_out:
        emit_json({**data, "snoozed_for": for_})
    else:
        reminder = data["reminder"]
        console.print(f"snoozed {reminder['id']} for {for_}: {reminder['text']}", highlight=False)


def register(app: typer.Typer) -> None:
    """Add `watch` and `reminders` to the app."""
    app.add_typer(watch_app, name="watch")
    app.add_typer(reminders_app, name="reminders")
