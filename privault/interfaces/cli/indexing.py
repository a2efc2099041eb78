"""Keeping the index whole: index (the background work, in the foreground), reindex, status.

`privault index` runs both background stages: first what deferred writes left (PII scan,
fast embeddings, masked entries), then the strong model's vectors for every index window.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from privault.caller import Caller
from privault.interfaces import config
from privault.interfaces.cli.common import (
    JsonOption,
    console,
    emit_json,
    err_console,
    number,
    opened,
    optional_time,
    progress_bar,
)

if TYPE_CHECKING:
    from privault.vault import Vault


def index(
    retry: Annotated[
        bool, typer.Option("--retry", help="Try again now what failed (too often, or lately).")
    ] = False,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            help="Give at most this many windows their strong vectors.",
            parser=number,
        ),
    ] = None,
    strong_only: Annotated[
        bool, typer.Option("--strong", help="Only the strong model's pass (steer it below).")
    ] = False,
    shelf: Annotated[
        str | None,
        typer.Option("--shelf", help="Strong pass: only windows of this shelf."),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option("--since", help="Strong pass: only documents from this date on."),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Run the background indexing now, in the foreground, with a progress bar.

    `note` and `add` store text at once and leave its PII scan and embedding to a
    background indexer (`privault serve`, or a worker the CLI starts); until it has run,
    agents see none of that text. Then every index window gets the strong model's vector
    (when it is installed), which `context` and `ask` rank with. This does the same work
    here and returns when it is done; safe to stop and run again: it resumes where it
    stopped.

    The strong pass covers notes and reminders before files and pages, newest first (a
    large archive takes days on a laptop); `--strong --shelf X --since DATE` runs it now
    for just those windows.
    """
    owner = Caller.owner()
    since_ms = optional_time(since)
    with opened() as vault:
        done, errors = 0, list[str]()
        if json_out:
            if not strong_only:
                done, errors = _run(vault, retry, lambda stage, done, remaining: None)
            strong = vault.strong.index(caller=owner, limit=limit, shelf=shelf, since=since_ms)
        else:
            if not strong_only:
                with progress_bar("indexing") as bar:
                    task = bar.add_task("", total=vault.indexing.status().sections or None)

                    def show(stage: str, done: int, remaining: int) -> None:
                        bar.update(task, total=done + remaining, completed=done, description=stage)

                    done, errors = _run(vault, retry, show)
            with progress_bar("strong vectors") as bar:
                task = bar.add_task("", total=None)
                strong = vault.strong.index(
                    caller=owner,
                    limit=limit,
                    progress=lambda done, total: bar.update(task, completed=done, total=total),
                    shelf=shelf,
                    since=since_ms,
                )
        left = vault.indexing.status()
    data = {
        "done": done,
        "remaining": left.sections,
        "dead": left.dead,
        "errors": errors,
        "strong": None
        if strong.model is None
        else {
            "model": strong.model,
            "windows": strong.windows,
            "embedded": strong.embedded,
            "remaining": strong.remaining,
            "stopped": strong.stopped,
        },
    }
    if json_out:
        emit_json(data)
    else:
        console.print(f"indexed {done} sections and titles; {left.sections} sections left")
        for error in errors[:3]:
            console.print(f"  failed: {error}", highlight=False, markup=False)
        if left.sections:
            console.print(
                "  left: failed and waiting to be tried again (`privault index --retry`"
                " tries them now), or held by an indexer running elsewhere"
            )
        if strong.model is not None:
            console.print(
                f"{strong.model}: {strong.windows} windows given strong vectors "
                f"({strong.embedded} texts embedded), {strong.remaining} remaining"
            )
        if strong.stopped:
            err_console.print(f"strong vectors paused: {strong.stopped}", markup=False)
    if errors and left.sections:
        raise typer.Exit(1)


def _run(vault: Vault, retry: bool, show: Callable[[str, int, int], None]) -> tuple[int, list[str]]:
    """Step the indexer until it is idle or fails three times in a row; (done, errors).

    A failed batch's rows wait for a backoff (30 s at first) and are then tried one by
    one, so a text the indexer cannot read fails alone; this run goes on with the other
    rows and ends while they wait (`--retry` tries them at once)."""
    owner = Caller.owner()
    if retry:
        vault.indexing.retry_failed(caller=owner)
    done = 0
    errors: list[str] = []
    failing = 0
    while failing < 3:  # the same cause again and again (a broken model): stop and say it
        step = vault.indexing.step(caller=owner)
        if step.idle:
            break
        if step.error:
            errors.append(step.error)
            failing += 1
            continue
        failing = 0
        done += step.done
        show(step.stage, done, step.remaining)
    return done, errors


def reindex(json_out: JsonOption = False) -> None:
    """Cut and embed every section's chunks again with this version's chunking.

    Needed once after an upgrade that changed how text is chunked (`privault status`
    says so). Sections, node ids, tags and PII spans stay as they are; search keeps
    working while it runs. Takes about as long as adding the same text anew.
    """
    with opened() as vault:
        if json_out:
            written, chunks = vault.reindex(caller=Caller.owner())
        else:
            with progress_bar("re-indexing sections") as bar:
                task = bar.add_task("", total=None)
                written, chunks = vault.reindex(
                    caller=Caller.owner(),
                    progress=lambda done, total: bar.update(task, completed=done, total=total),
                )
    if json_out:
        emit_json({"sections": written, "chunks": chunks})
    else:
        console.print(f"re-indexed {written} sections into {chunks} chunks")


CheckOption = Annotated[
    bool,
    typer.Option(
        "--check",
        help="Also read every page of the file and check every document is whole "
        "(minutes for gigabytes); exits 1 on a fault, saying what to do.",
    ),
]

# What a broken rule of a whole document (`Vault.check`) asks of the owner.
_REPAIR = "`privault reindex` cuts and indexes every section again"


def status(json_out: JsonOption = False, check: CheckOption = False) -> None:
    """Counts, file size, schema, models present, index health."""
    from privault.models import catalog

    models = {}
    for name, manifest in catalog.manifests(config.models_dir()).items():
        folder = config.models_dir() / name
        present = all(
            catalog.file_path(config.models_dir(), manifest, file).exists()
            for file in manifest.files
        )
        models[name] = {"role": manifest.role, "installed": present, "path": str(folder)}
    with opened() as vault:
        data = vault.status().to_dict()
        checked = vault.check() if check else None
    data["models"] = models
    if checked is not None:
        data["check"] = checked.to_dict()
    if json_out:
        emit_json(data)
    else:
        _print_status(data)
    if checked is not None:
        if not json_out:
            _print_check(checked.file, checked.half_written)
        if not checked.healthy:
            raise typer.Exit(1)


def _print_check(file: str, half_written: dict[str, int]) -> None:
    """What `status --check` found, and what to do about it."""
    if file == "ok":
        console.print("file: every page read, no fault")
    else:
        err_console.print(
            f"file: DAMAGED ({file}) — stop writing to it, copy it aside with its -wal file, "
            "and restore a `privault export` bundle into a new vault (`privault import`)",
            style="red",
            highlight=False,
            markup=False,
        )
    for rule, rows in half_written.items():
        err_console.print(
            f"index: {rows} rows break '{rule.replace('_', ' ')}' — {_REPAIR}",
            style="red",
            highlight=False,
            markup=False,
        )
    if file == "ok" and not half_written:
        console.print("documents: every one whole")


def _print_status(data: dict[str, Any]) -> None:
    """`status` as lines for the owner."""
    console.print(f"vault {data['path']} · {data['bytes'] / 1e6:.1f} MB · schema {data['schema']}")
    console.print(
        f"documents {data['documents']} · sections {data['sections']} · chunks {data['chunks']}"
    )
    health = "healthy" if data["index"]["healthy"] else "NEEDS REPAIR"
    console.print(
        f"index: {data['index']['fts_rows']} keyword rows, "
        f"{data['index']['vector_rows']} vectors — {health}"
    )
    if data["index"].get("stale_masking"):
        console.print(
            "index: no masked entries for gated callers yet — run `privault reindex`",
            style="yellow",
        )
    queued = data["indexing"]
    if queued["sections"] or queued["dead"]:
        console.print(
            f"indexing: {queued['sections']} sections of {queued['documents']} documents "
            "wait for their PII scan and embedding (withheld from agents until then)"
            + (
                f"; {queued['dead']} failed — `privault index` tries again"
                if queued["dead"]
                else ""
            ),
            style="yellow",
        )
        for error in queued["errors"]:
            console.print(f"  last error: {error}", highlight=False, markup=False)
    if data["index"]["stale_chunking"]:
        console.print(
            "index: cut by an older chunking — run `privault reindex` to find more", style="yellow"
        )
    strong = data.get("strong") or {}
    if strong.get("problem"):
        console.print(
            f"strong model {strong['model']}: {strong['problem']} — context and ask rank"
            " without it",
            style="yellow",
            highlight=False,
            markup=False,
        )
    elif strong.get("model"):
        share = strong["covered"] / strong["windows"] if strong["windows"] else 1.0
        console.print(
            f"strong model {strong['model']}: {strong['covered']} of {strong['windows']} "
            f"windows ({share:.0%})"
            + ("" if strong["complete"] else f" — covering {strong['order']}; `privault index`")
        )
    for name, model in data["models"].items():
        mark = "installed" if model["installed"] else "not installed"
        console.print(f"model {name} ({model['role']}): {mark}")
    for worker in data["workers"]:
        restarts = f", {worker['restarts']} restarts" if worker["restarts"] else ""
        line = (
            f"model {worker['name']} runs in process {worker['pid'] or '-'} "
            f"(for process {worker['process']}): {worker['state']}{restarts}"
        )
        if worker["state"] in ("failed", "restarting", "idle") and worker["reason"]:
            line += f" — {worker['reason']}"
        style = {"failed": "red", "restarting": "yellow"}.get(worker["state"])
        console.print(line, style=style, highlight=False, markup=False)
        if worker["state"] == "failed":
            console.print("  run `privault doctor` to see whether the model runs on this machine")


def register(app: typer.Typer) -> None:
    """Add these commands to the app."""
    for command in (index, reindex, status):
        app.command()(command)
