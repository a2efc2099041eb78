"""YAML front matter at the top of a Markdown file: what it tells `privault add`.

Notes kept in Obsidian and similar tools, and the files of `privault export --markdown`,
start with a `---` block. Its title, tags, shelf and created date are taken; the block
itself is not part of the stored text. A block that is not a YAML mapping is left in the
text, as the file's author wrote it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from privault import yamltext

STATEMENTS_MARK = "statements"  # `privault: statements`: an export's statement tables
SHELVES_MARK = "shelves"  # `privault: shelves`: an export's shelf settings


@dataclass(frozen=True)
class FrontMatter:
    """What a Markdown file's front matter tells `privault add`."""

    title: str | None = None
    tags: tuple[str, ...] = ()
    shelf: str | None = None
    created: str | None = None
    statements: bool = False  # the statements table of an export: not a document
    shelves: bool = False  # the shelf settings of an export: not a document either

    @property
    def document(self) -> bool:
        """Whether the file is a document (not one of an export's own files)."""
        return not (self.statements or self.shelves)


def split_front_matter(text: str) -> tuple[FrontMatter | None, str]:
    """(front matter, the text after it); (None, text) when there is none or it is not
    a YAML mapping (then the file is taken as it is)."""
    found = front_matter_data(text)
    if found is None:
        return None, text
    data, rest = found
    tags = data.get("tags") or ()
    if isinstance(tags, str):
        tags = [tags]
    return (
        FrontMatter(
            title=_plain_text(data.get("title")),
            tags=tuple(str(tag) for tag in tags) if isinstance(tags, list | tuple) else (),
            shelf=str(data["shelf"]) if data.get("shelf") else None,
            created=_time_text(data.get("created")),
            statements=data.get("privault") == STATEMENTS_MARK,
            shelves=data.get("privault") == SHELVES_MARK,
        ),
        rest,
    )


def front_matter_data(text: str) -> tuple[dict[Any, Any], str] | None:
    """(the front matter as YAML read it, the text after it); None when there is none or
    it is not a YAML mapping."""
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---\n", 4)
    if end < 0:
        return None
    try:
        data = yamltext.front_matter_load(text[4:end])
    except yamltext.YAMLError:
        return None
    if not isinstance(data, dict):
        return None
    rest = text[end + 5 :]
    return data, rest[1:] if rest.startswith("\n") else rest


def _plain_text(value: Any) -> str | None:
    """A title as written; a list, a mapping or `!!binary` bytes is none (the file's
    heading or name is), never their Python form."""
    return str(value) if isinstance(value, str | int | float | date) else None


def _time_text(value: Any) -> str | None:
    """A front matter time as ISO text; YAML reads an unquoted time as a datetime."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=UTC)
        return aware.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return str(value)
