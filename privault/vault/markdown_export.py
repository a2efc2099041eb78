"""`privault export --markdown DIR`: the vault as Markdown files a person can read.

One file per current document (older page versions and forgotten documents are left
out), named after its title, with front matter that `privault add` reads back; one
`_statements.md` with every statement version, a table per entity; and one `_shelves.md`
with every shelf's access settings, which `privault add` applies to the shelves it creates
(`vault.restored_shelves`), so a restricted shelf is not restored as a public one. The
owner's view: no gate, so the folder holds the vault's text in clear.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from privault.errors import InputError
from privault.jsonform import JsonForm
from privault.store import sync_read
from privault.store.connection import Connection
from privault.sync.markdown import (
    STATEMENTS_FILE,
    MarkdownDocument,
    file_name,
    render_document,
    render_statements,
)
from privault.sync.markdown_shelves import SHELVES_FILE, ShelfAccess, render_shelves
from privault.timeutil import now_ms, to_iso
from privault.vault.shelves import all_shelves


@dataclass(frozen=True)
class MarkdownReport(JsonForm):
    """What an export wrote."""

    folder: str
    documents: int
    statements: int


def _status(data: dict[str, Any], now: int) -> str:
    if data["invalidated_at"] is not None:
        return "revised"
    if data["superseded_by"]:
        return "superseded"
    if data["valid_to"] is not None and data["valid_to"] <= now:
        return "closed"
    return "current"


def export_markdown(conn: Connection, folder: Path) -> MarkdownReport:
    """Write the folder (created if missing); existing files of the same name are replaced."""
    target = folder.expanduser()
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot write to {target}: {exc.strerror or exc}") from None
    taken = {STATEMENTS_FILE.lower(), SHELVES_FILE.lower()}
    # First: a folder that holds documents also holds who may read their shelves.
    shelves = [
        (shelf.name, ShelfAccess(shelf.restricted, shelf.private, shelf.policy, shelf.agents))
        for shelf in all_shelves(conn)
    ]
    _write(target, SHELVES_FILE, render_shelves(shelves))
    written = 0
    for doc_id in sync_read.all_ids(conn, "document"):
        data = sync_read.payload(conn, "document", doc_id)
        if data is None or not data["current"]:
            continue
        doc = MarkdownDocument(
            id=doc_id,
            title=data["title"],
            kind=data["kind"],
            shelf=data["shelf"],
            tags=tuple(data["tags"]),
            source=data["source"],
            created_at=data["created_at"],
            updated_at=data["updated_at"],
            body=data["body"],
        )
        _write(target, file_name(doc, taken), render_document(doc))
        written += 1
    now = now_ms()
    by_entity: dict[str, list[dict[str, Any]]] = defaultdict(list)
    count = 0
    for statement_id in sync_read.all_ids(conn, "statement"):
        data = sync_read.payload(conn, "statement", statement_id)
        if data is None:
            continue
        count += 1
        item = {
            "id": statement_id,
            "content": data["content"],
            "valid_from": to_iso(data["valid_from"]),
            "valid_to": to_iso(data["valid_to"]),
            "recorded_at": to_iso(data["recorded_at"]),
            "status": _status(data, now),
        }
        for name in [entity[1] for entity in data["entities"]] or ["(no entity)"]:
            by_entity[name].append(item)
    tables = [
        (name, sorted(items, key=lambda i: (i["recorded_at"], i["id"])))
        for name, items in sorted(by_entity.items(), key=lambda kv: kv[0].casefold())
    ]
    _write(target, STATEMENTS_FILE, render_statements(tables))
    return MarkdownReport(str(target), written, count)


def _write(folder: Path, name: str, text: str) -> None:
    """Write one file directly inside `folder`: the name is checked once more, and a
    symbolic link of that name is replaced, never followed out of the folder."""
    path = folder / name
    if path.parent != folder or name in ("", ".", "..") or Path(name).is_absolute():
        raise InputError(f"refusing to write {name!r} outside {folder}")
    try:
        if path.is_symlink():
            path.unlink()
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
