"""Capture and find: init, note, add, search, context, read, tree, docs, forget."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from privault.caller import Caller
from privault.errors import VaultError
from privault.filters import Filters
from privault.interfaces import config
from privault.interfaces.cli.common import (
    AsOption,
    JsonOption,
    ShelfOption,
    caller_for,
    console,
    emit_json,
    index_in_background,
    number,
    open_capture,
    opened,
    optional_time,
    privacy_line,
    progress_bar,
    read_text_argument,
    unsearchable_line,
    warm_search,
)
from privault.interfaces.cli.terminal import styled
from privault.timeutil import iso_minute
from privault.vault.bounds import DEFAULT_CONTEXT_BUDGET, DEFAULT_LIST_LIMIT, DEFAULT_SEARCH_LIMIT

KindOption = Annotated[str | None, typer.Option("--kind", help="note, file, page or reminder.")]
TagOption = Annotated[str | None, typer.Option("--tag", help="Only documents with this tag.")]
SinceOption = Annotated[
    str | None, typer.Option("--since", help="Only documents written at/after this ISO time.")
]
SupersededOption = Annotated[
    bool,
    typer.Option("--include-superseded", help="Also statements that no longer hold (NOT current)."),
]
UntilOption = Annotated[
    str | None, typer.Option("--until", help="Only documents written before this ISO time.")
]


def init(
    encrypt: Annotated[
        bool,
        typer.Option("--encrypt", help="Encrypt the file (key: PRIVAULT_KEY, else OS keyring)."),
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """Create the vault file (or check an existing one) and print where it is."""
    path = config.vault_path()
    existed = path.exists() and path.stat().st_size > 0
    if encrypt and existed:
        raise VaultError(f"{path} already exists; encryption is chosen when a vault is created")
    from privault.vault import create

    key, where = config.new_key(path) if encrypt else (config.vault_key(path), None)
    version = create(path, key=key)
    data = {
        "path": str(path),
        "created": not existed,
        "schema": version,
        "encrypted": bool(key),
        "key_source": where,
    }
    if json_out:
        emit_json(data)
        return
    verb = "created" if not existed else "already exists:"
    console.print(f"vault {verb} {path} (schema {version}{', encrypted' if key else ''})")
    if where == "keyring":
        console.print("the key is in the OS keyring; back it up — without it the vault is lost")


def note(
    text: Annotated[str, typer.Argument(help="The note text, or - to read standard input.")],
    title: Annotated[
        str | None, typer.Option("--title", help="Title (default: first line).")
    ] = None,
    tag: Annotated[list[str] | None, typer.Option("--tag", help="A tag (repeatable).")] = None,
    shelf: Annotated[str, typer.Option("--shelf", help="Shelf to store it on.")] = "default",
    json_out: JsonOption = False,
) -> None:
    """Store a note. Markdown headings split it into sections.

    It is stored and searchable by its words at once; its PII scan and embedding run in
    the background (see `privault index`), and agents see none of it until then."""
    body = read_text_argument(text)
    with open_capture() as capture:
        added = capture.note(body, caller=Caller.owner(), title=title, tags=tag or [], shelf=shelf)
    if added.status != "unchanged":
        index_in_background()
    if json_out:
        emit_json(added.to_dict())
    else:
        console.print(
            f"{added.status} {added.doc_id} — {added.title} ({added.sections} section"
            f"{'s' if added.sections != 1 else ''})",
            highlight=False,
        )


def add(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (walked recursively).")],
    shelf: Annotated[
        str | None,
        typer.Option(
            "--shelf",
            help="Shelf to store them on (default: a Markdown file's front matter `shelf`, "
            "else `default`).",
        ),
    ] = None,
    tag: Annotated[list[str] | None, typer.Option("--tag", help="A tag (repeatable).")] = None,
    from_kind: Annotated[
        str | None,
        typer.Option(
            "--from",
            help="Import an export of another app: chatgpt, claude, obsidian, notion, mbox "
            "or mem0 (detected when left out and only one fits).",
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Import: count what would be added/updated/skipped."),
    ] = False,
    prune: Annotated[
        bool,
        typer.Option("--prune", help="Import: delete items the export no longer has."),
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """Add files: .md .txt .html (main text) .pdf. Unchanged files are skipped.

    A Markdown file's YAML front matter gives its title, tags, shelf and created date
    (what `privault export --markdown` writes). A shelf so named that the vault lacks is
    created with the settings an export's `_shelves.md` gives it, else restricted to you;
    a shelf you have keeps its own. Files are stored and searchable by their
    words at once; their PII scan and embedding run in the background (`privault index`
    shows the progress).

    With --from KIND (or an export privault recognises), PATH is another app's export:
    a ChatGPT or Claude export, an Obsidian vault, a Notion export, an mbox mailbox, a
    mem0/OpenMemory export. Importing again updates what changed and skips the rest."""
    from privault.interfaces.cli.importing import import_paths, settled_line
    from privault.vault.writing import expand_paths

    kind = from_kind
    if kind is None and len(paths) == 1 and not _document_file(paths[0]):
        from privault.vault.importing import kind_of

        kind = kind_of(paths[0])
    if kind is not None:
        import_paths(
            kind,
            paths,
            shelf=shelf,
            tags=tag or [],
            dry_run=dry_run,
            prune=prune,
            json_out=json_out,
        )
        return
    if dry_run or prune:
        raise VaultError(
            "--dry-run and --prune are for imports: name the export's kind with --from"
        )

    files, _ = expand_paths(paths)
    with open_capture() as capture:
        if json_out or not files:
            report = capture.add(paths, caller=Caller.owner(), shelf=shelf, tags=tag or [])
        else:
            with progress_bar("adding") as bar:
                task = bar.add_task("", total=len(files))
                report = capture.add(
                    paths,
                    caller=Caller.owner(),
                    shelf=shelf,
                    tags=tag or [],
                    progress=lambda name: bar.update(task, advance=1, description=Path(name).name),
                )
    if report.count("added") or report.count("updated"):
        index_in_background()
    if json_out:
        emit_json(report.to_dict())
    else:
        console.print(
            f"added {report.count('added')}, updated {report.count('updated')}, "
            f"unchanged {report.count('unchanged')}, failed {len(report.failed)}"
        )
        for path, reason in report.failed:
            console.print(
                f"  failed: {reason}" if path in reason else f"  failed {path}: {reason}",
                highlight=False,
            )
        for settled in report.shelves:
            console.print(settled_line(settled), highlight=False)
    if report.failed and not report.added:
        raise typer.Exit(1)


def _document_file(path: Path) -> bool:
    """A file `add` takes as it is (.md .txt .html .pdf): never taken for an export."""
    from privault.retrieval.extract import SUPPORTED_SUFFIXES

    return path.is_file() and path.suffix.lower() in SUPPORTED_SUFFIXES


def search(
    query: Annotated[str, typer.Argument(help="Words or a question.")],
    limit: Annotated[
        int, typer.Option("--limit", "-n", help="How many results.", parser=number)
    ] = DEFAULT_SEARCH_LIMIT,
    shelf: ShelfOption = None,
    kind: KindOption = None,
    tag: TagOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    include_superseded: SupersededOption = False,
    as_agent: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Hybrid search (keywords + meaning); prints whole sections or excerpts, and the
    statements that hold now.

    A background process keeps the vault loaded for the next searches
    (the same results, faster; it exits after ten idle minutes).
    PRIVAULT_WARM=off: search in this process only, start nothing."""
    data = warm_search(
        {
            "query": query,
            "limit": limit,
            "shelf": shelf,
            "kind": kind,
            "tag": tag,
            "since": optional_time(since),
            "until": optional_time(until),
            "include_superseded": include_superseded,
            "as_agent": as_agent,
        }
    )
    if json_out:
        emit_json(data)
        return
    if not data["results"] and not data["statements"]:
        console.print("no results")
    for fact in data["statements"]:
        label = "" if fact.get("current", True) else "  [yellow]{label}[/yellow]"
        line = styled("[bold]fact[/bold] {id}" + label, id=fact["id"], label=fact.get("label"))
        console.print(line, highlight=False)
        console.print(fact["content"], highlight=False)
        console.print()
    for hit in data["results"]:
        crumb = " › ".join(hit["breadcrumb"])
        console.print(
            styled(
                "[bold]{crumb}[/bold]  [dim]{node} · {age} · {score}{excerpt}[/dim]",
                crumb=crumb,
                node=hit["node_id"],
                age=hit["age"],
                score=f"{hit['score']:.4f}",
                excerpt=" · excerpt" if hit["excerpt"] else "",
            ),
            highlight=False,
        )
        console.print(hit["text"], highlight=False)
        console.print()
    console.print(styled("[dim]{}[/dim]", privacy_line(data)), highlight=False)
    if waiting := unsearchable_line(data.get("unsearchable", 0)):
        console.print(styled("[dim]{}[/dim]", waiting), highlight=False)


def context(
    query: Annotated[str, typer.Argument(help="What the context is for.")],
    budget: Annotated[
        int, typer.Option("--budget", help="Most tokens to return.", parser=number)
    ] = DEFAULT_CONTEXT_BUDGET,
    fill: Annotated[
        bool,
        typer.Option("--fill", help="Fill the budget, also with clearly weaker matches."),
    ] = False,
    shelf: ShelfOption = None,
    kind: KindOption = None,
    tag: TagOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    include_superseded: SupersededOption = False,
    as_agent: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """The relevant sections, up to a token budget (for pasting into a prompt)."""
    with opened() as vault:
        pack = vault.context(
            query,
            caller=caller_for(as_agent, vault),
            budget=budget,
            filters=Filters(shelf, kind, tag, optional_time(since), optional_time(until)),
            include_superseded=include_superseded,
            fill=fill,
        )
    data = pack.to_dict()
    if json_out:
        emit_json(data)
        return
    console.print(pack.text, highlight=False)
    console.print()
    console.print(
        styled(
            "[dim]{used}/{budget} tokens · {sections} sections · {dropped} dropped · "
            "{privacy}[/dim]",
            used=pack.used_tokens,
            budget=pack.budget,
            sections=len(pack.sections),
            dropped=pack.dropped,
            privacy=privacy_line(data),
        ),
        highlight=False,
    )
    if line := unsearchable_line(pack.unsearchable):
        console.print(styled("[dim]{}[/dim]", line), highlight=False)


def read(
    node_id: Annotated[str, typer.Argument(help="A node id from search or tree.")],
    as_agent: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Print one section."""
    with opened() as vault:
        view = vault.read(node_id, caller=caller_for(as_agent, vault))
    data = view.to_dict()
    if json_out:
        emit_json(data)
        return
    console.print(
        styled(
            "[bold]{crumb}[/bold]  [dim]{node}[/dim]",
            crumb=" › ".join(view.breadcrumb),
            node=view.node_id,
        ),
        highlight=False,
    )
    console.print(view.text, highlight=False)
    if view.children:
        console.print(styled("[dim]children: {}[/dim]", ", ".join(view.children)))
    if view.links:
        console.print(styled("[dim]links: {}[/dim]", ", ".join(view.links)))
    console.print(styled("[dim]{}[/dim]", privacy_line(data)), highlight=False)


def tree(
    doc_id: Annotated[
        str | None, typer.Argument(help="A document id (default: list docs).")
    ] = None,
    as_agent: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """Print a document's heading tree with node ids."""
    if doc_id is None:
        docs(as_agent=as_agent, json_out=json_out)
        return
    with opened() as vault:
        found = vault.tree(doc_id, caller=caller_for(as_agent, vault))
    if json_out:
        emit_json(found.to_dict())
        return
    console.print(
        styled(
            "[bold]{title}[/bold] [dim]{id} · {kind} · {shelf}[/dim]",
            title=found.title,
            id=found.doc_id,
            kind=found.kind,
            shelf=found.shelf,
        ),
        highlight=False,
    )
    for node in found.nodes:
        console.print(
            styled(
                "{indent}{heading}  [dim]{node} · {chars} chars[/dim]",
                indent="  " * max(node.depth, 0),
                heading=node.heading,
                node=node.node_id,
                chars=node.chars,
            ),
            highlight=False,
        )


def docs(
    shelf: ShelfOption = None,
    kind: KindOption = None,
    tag: TagOption = None,
    limit: Annotated[
        int, typer.Option("--limit", "-n", help="How many.", parser=number)
    ] = DEFAULT_LIST_LIMIT,
    as_agent: AsOption = None,
    json_out: JsonOption = False,
) -> None:
    """List documents, newest first."""
    with opened() as vault:
        listed = vault.docs(
            caller=caller_for(as_agent, vault), filters=Filters(shelf, kind, tag), limit=limit
        )
    if json_out:
        emit_json(listed.to_dict())
        return
    from rich.table import Table

    table = Table("doc id", "kind", "shelf", "title", "tags", "created")
    for entry in listed.documents:
        doc = entry.to_dict()
        table.add_row(
            doc["doc_id"],
            doc["kind"],
            doc["shelf"],
            doc["title"],
            ", ".join(doc["tags"]),
            iso_minute(doc["created_at"]),
        )
    console.print(table)


def forget(
    doc_id: Annotated[str, typer.Argument(help="The document to delete.")],
    json_out: JsonOption = False,
) -> None:
    """Delete a document and its index rows (a tombstone records the deletion)."""
    with opened() as vault:
        gone = vault.forget(doc_id, caller=Caller.owner())
    if json_out:
        emit_json({"doc_id": doc_id, "forgotten": gone})
    else:
        console.print(f"forgot {doc_id}" if gone else f"{doc_id} was already gone")


def register(app: typer.Typer) -> None:
    """Add these commands to the app."""
    for command in (init, note, add, search, context, read, tree, docs, forget):
        app.command()(command)
