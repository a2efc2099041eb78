"""Markdown export: one file per document with YAML front matter, and statement tables.

The files are meant for people and for other tools (Obsidian, any editor): the front
matter holds what privault needs to take a document back (`privault add` of the folder
reads title, tags, shelf and created date from it), the body is the text as stored.
Statements go into one `_statements.md` with a table per entity; its front matter marks
it, so adding the folder back skips it (statements are not documents). Who may read each
shelf goes into `_shelves.md` (`sync.markdown_shelves`). Reading front matter back is
`privault.retrieval.frontmatter`.
"""

from __future__ import annotations

import re
import unicodedata
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


_UNSAFE = re.compile(r"[^\w\- ]+", flags=re.UNICODE)  # separators, dots, controls, ...
_RESERVED = frozenset(
    {"con", "prn", "aux", "nul"}
    | {f"com{n}" for n in range(1, 10)}
    | {f"lpt{n}" for n in range(1, 10)}
)  # names Windows will not create, whatever the extension
MAX_STEM_BYTES = 120  # with a suffix and ".md", well under any file system's 255


def safe_stem(text: str) -> str:
    """A file name stem from untrusted text: word characters, '-', '_' and single spaces
    only (so no separator, no '.', no '..', no control character, nothing absolute), not a
    reserved device name, at most MAX_STEM_BYTES of UTF-8; '' when nothing is left."""
    stem = re.sub(r"\s+", " ", _UNSAFE.sub("", unicodedata.normalize("NFC", text))).strip()
    while len(stem.encode("utf-8")) > MAX_STEM_BYTES:
        stem = stem[:-1]
    stem = stem.strip()
    if stem.casefold() in _RESERVED:
        stem += "_"
    return stem


def file_name(doc: MarkdownDocument, taken: set[str]) -> str:
    """A readable, unique `.md` file name from the title (then the id, then a number),
    made only by `safe_stem`, so it names a file directly inside the export folder."""
    stem = safe_stem(doc.title) or safe_stem(doc.id) or "untitled"
    candidates = [stem, f"{stem} {safe_stem(doc.id)}".strip()]
    candidates += [f"{stem} {number}" for number in range(2, len(taken) + 3)]
    for candidate in candidates:
        name = f"{candidate}.md"
        if name.casefold() not in taken:
            taken.add(name.casefold())
            return name
    raise AssertionError("unreachable: more candidates than names taken")


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
