"""`privault add --from KIND PATH`: imports of other apps' exports, as `add` writes files.

Only the owner imports (the MCP server has no such tool). Items are stored searchable by
their words at once; their PII scan and embedding run in the background, as for `add`.
Also what `add` of a Markdown export says about the shelves it created (`settled_line`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from privault.caller import Caller
from privault.interfaces.cli.common import (
    console,
    emit_json,
    index_in_background,
    open_capture,
    opened,
    progress_bar,
)

if TYPE_CHECKING:
    from privault.vault import Vault
    from privault.vault.added import SettledShelf
    from privault.vault.capture import Capture
    from privault.vault.import_results import ImportCounts, ImportReport


def import_paths(
    kind: str,
    paths: Sequence[Path],
    *,
    shelf: str | None,
    tags: Sequence[str],
    dry_run: bool,
    prune: bool,
    json_out: bool,
) -> None:
    """Import each path as an export of `kind` and print the reports."""
    reports: list[ImportReport] = []
    with ExitStack() as stack:
        # Documents need no model and no policy now (they are indexed later): the light
        # capture handle. Memories become statements, scanned as they are written: the vault.
        importer: Vault | Capture
        if kind == "mem0":
            importer = stack.enter_context(opened())
        else:
            importer = stack.enter_context(_capture())
        for path in paths:
            options = {"shelf": shelf or "default", "tags": tags, "dry_run": dry_run}
            reports.append(_import_one(importer, kind, path, prune, options, quiet=json_out))
    if json_out:
        emit_json([r.to_dict() for r in reports] if len(reports) != 1 else reports[0].to_dict())
    else:
        for report in reports:
            _print(report)
    if all(
        r.failed and not any(r.total(s) for s in ("added", "updated", "skipped")) for r in reports
    ):
        raise typer.Exit(1)


def _import_one(
    importer: Vault | Capture,
    kind: str,
    path: Path,
    prune: bool,
    options: dict[str, Any],
    *,
    quiet: bool,
) -> ImportReport:
    """One export imported, with a progress bar unless `quiet`."""
    owner = Caller.owner()
    if quiet:
        return importer.import_from(kind, path, caller=owner, prune=prune, **options)
    with progress_bar(f"importing {path.name}") as bar:
        task = bar.add_task("", total=None)

        def show(counts: ImportCounts) -> None:
            # Cheap: the bar redraws on its own clock, a few times a second.
            bar.update(task, completed=counts.done, description=_line(counts))

        return importer.import_from(kind, path, caller=owner, prune=prune, progress=show, **options)


@contextmanager
def _capture() -> Iterator[Capture]:
    """The capture handle for the length of the import; afterwards what it queued is
    handed to an indexer (as `add` does)."""
    with open_capture() as capture:
        yield capture
        has_work = capture.has_work()
    if has_work:
        index_in_background()


def _line(counts: ImportCounts) -> str:
    return (
        f"added {counts.total('added')} · updated {counts.total('updated')} · "
        f"skipped {counts.total('skipped')} · failed {len(counts.failed)}"
    )


def _print(report: ImportReport) -> None:
    verb = "would import" if report.dry_run else "imported"
    console.print(f"{verb} {report.path} as {report.kind}", highlight=False, markup=False)
    for label, counts in sorted(report.counts.items()):
        console.print(
            f"  {label}: {'would add' if report.dry_run else 'added'} {counts['added']}, "
            f"{'would update' if report.dry_run else 'updated'} {counts['updated']}, "
            f"skipped {counts['skipped']} (unchanged)",
            highlight=False,
            markup=False,
        )
    if not report.counts:
        console.print("  nothing to import", highlight=False)
    for item, reason in report.failed:
        console.print(f"  failed {item}: {reason}", highlight=False, markup=False)
    if report.deletions_unknown:
        console.print(f"  {report.deletions_unknown}", highlight=False, markup=False)
    if report.gone:
        kept = "deleted here too" if report.pruned else "kept here; --prune deletes them"
        console.print(
            f"  {len(report.gone)} item(s) deleted at the source ({kept}):", highlight=False
        )
        for gone in report.gone[:20]:
            target = gone.doc_id or gone.statement_id
            console.print(f"    {gone.key} → {target}", highlight=False, markup=False)
        if len(report.gone) > 20:
            console.print(f"    … and {len(report.gone) - 20} more", highlight=False)


def settled_line(settled: SettledShelf) -> str:
    """What adding files did about one shelf they name, and what the owner can do next."""
    name = settled.name
    if settled.outcome == "owner_only":
        return (
            f"shelf {name} created restricted to the owner: no access settings came with its "
            f"files (open it with `privault shelf publish {name}` or "
            f"`privault shelf attach {name} AGENT`)"
        )
    if settled.outcome == "kept":
        exported = settled.exported.describe() if settled.exported else "none"
        return (
            f"shelf {name} exists here and keeps its own access ({settled.access.describe()}); "
            f"the export had it {exported}"
        )
    line = f"shelf {name} created as exported: {settled.access.describe()}"
    if settled.not_attached:
        line += (
            f"; not registered here, so not on its access list: {', '.join(settled.not_attached)}"
            f" (`privault agents add NAME`, then `privault shelf attach {name} NAME`)"
        )
    return line
