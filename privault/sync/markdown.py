"""Markdown export: one file per document with YAML front matter, and statement tables.

The files are meant for people and for other tools (Obsidian, any editor): the front
matter holds what privault needs to take a document back (`privault add` of the folder
reads title, tags, shelf and created date from it), the body is the text as stored.
Statements go into one `_statements.md` with a table per entity; its front matter marks
it, so adding the folder back skips it (statements are not documents). Reading front
matter back is `privault.retrieval.frontmatter`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from privault.retrieval.frontmatter import STATEMENTS_MARK
from privault.timeutil import to_iso

STATEMENTS_FILE = "_statements.md"


@dataclass(frozen=True)
class MarkdownDocument:
    """What one exported document file says."""

    id: str
    title: str
    kind: str
    shelf: str
    tags: tuple[str, ...]
    source: str | None
    created_at: int
    updated_at: int
    body: str


def file_name(doc: MarkdownDocument, taken: set[str]) -> str:
    """A readable, unique file name from the title (the id breaks ties)."""
    stem = re.sub(r"[^\w\- ]+", "", doc.title, flags=re.UNICODE).strip()[:60].strip()
    stem = re.sub(r"\s+", " ", stem) or doc.id
    name = f"{stem}.md"
    if name.lower() in taken:
        name = f"{stem} ({doc.id}).md"
    taken.add(name.lower())
    return name


def front_matter(data: dict[str, Any]) -> str:
    """A YAML front matter block."""
    dumped = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{dumped}---\n"


def render_document(doc: MarkdownDocument) -> str:
    """The file text: front matter, a blank line, the body as stored."""
    data: dict[str, Any] = {
        "id": doc.id,
        "title": doc.title,
        "kind": doc.kind,
        "tags": list(doc.tags),
        "shelf": doc.shelf,
        "created": to_iso(doc.created_at),
        "updated": to_iso(doc.updated_at),
    }
    if doc.source and doc.kind == "page":
        data["source"] = doc.source
    return front_matter(data) + "\n" + doc.body


def _cell(value: Any) -> str:
    text = "" if value is None else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def render_statements(by_entity: Sequence[tuple[str, Iterable[dict[str, Any]]]]) -> str:
    """One table per entity (statements without entities under "(no entity)")."""
    parts = [front_matter({"privault": STATEMENTS_MARK, "title": "Statements"})]
    columns = ("id", "content", "valid_from", "valid_to", "recorded_at", "status")
    for entity, found in by_entity:
        parts.append(f"\n## {entity}\n\n| {' | '.join(columns)} |\n|{'---|' * len(columns)}\n")
        for item in found:
            parts.append("| " + " | ".join(_cell(item.get(c)) for c in columns) + " |\n")
    return "".join(parts)
