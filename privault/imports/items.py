"""What an importer yields: plain values parsed once from another app's export.

Each source module (`chatgpt`, `claude`, `obsidian`, `notion`, `mbox`, `mem0`) streams
these from a path and knows nothing of the vault: a `Page` becomes a document, a `Memory` a
statement, a `Bad` item is reported (which one, why) and the import goes on. `key` is the
item's identity at its source (the app's own id, else a content hash): importing the same
export again matches items by it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from privault.errors import InputError
from privault.store.documents import TAG_CHARACTERS


class NotThisKind(InputError):
    """The path is not an export of the kind asked for (or of any kind, when detecting)."""


@dataclass(frozen=True)
class Link:
    """A link from one imported item to another of the same source, by the target's key."""

    label: str  # as written: 'Other note', a Message-ID
    key: str  # the target item's key


@dataclass(frozen=True)
class Page:
    """An item that becomes a document: a conversation, a note, a mail, a database row.

    `file`, when set, is a file inside the source (a PDF in an Obsidian vault) whose text
    the vault extracts; `text` is then empty.
    """

    key: str
    label: str  # what it is, for counts: 'conversation', 'note', 'message', 'row', …
    title: str
    text: str
    created_at: int | None = None  # epoch ms UTC, the source's own date
    # When it last changed; what dates an item without its own date (a file's time) when
    # it is first imported. Not part of `digest`: a file touched but not edited is skipped.
    updated_at: int | None = None
    tags: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    links: tuple[Link, ...] = ()
    scope: str = ""
    file: str | None = None
    source_digest: str | None = None  # a digest of the item's raw bytes, where the reader has it
    origin: str | None = None  # the file it was read from, where it is one (see `adopt`)
    # What makes two items under one key the same item, where the key is a claim another
    # item can copy (a mail's Message-ID is the sender's to choose): an item whose key
    # holds another identity is kept apart, never written over it. None: the key alone.
    identity: str | None = None

    @property
    def digest(self) -> str:
        """What decides 'changed since the last import'."""
        if self.source_digest is not None:
            return self.source_digest
        return _digest(
            [self.title, self.text, self.created_at, list(self.tags), dict(self.metadata)]
            + [[link.label, link.key] for link in self.links]
            + [self.file, _file_stamp(self.file)]
        )


@dataclass(frozen=True)
class Revision:
    """One event of a memory's history, oldest first: ADD, UPDATE or DELETE."""

    event: str
    content: str
    at: int | None


@dataclass(frozen=True)
class Memory:
    """An item that becomes a statement: a mem0 memory, with its history."""

    key: str
    content: str
    created_at: int | None
    updated_at: int | None = None
    entities: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    history: tuple[Revision, ...] = ()
    deleted: bool = False  # deleted or archived in the app: kept closed, not current
    scope: str = ""
    label: str = "memory"

    @property
    def digest(self) -> str:
        """What decides 'changed since the last import'."""
        return _digest(
            [self.content, self.created_at, self.updated_at, list(self.entities)]
            + [list(self.tags), dict(self.metadata), self.deleted]
            + [[r.event, r.content, r.at] for r in self.history]
        )


@dataclass(frozen=True)
class Bad:
    """An item that could not be read: reported, skipped, the rest imported."""

    where: str  # which item: its key, title or position in the file
    reason: str
    key: str | None = None  # when known: an item that exists at the source, not deleted
    label: str = "item"


@dataclass(frozen=True)
class Unchanged:
    """An item the vault already holds exactly as the source has it (the `Known` check
    said so): skipped before it is parsed, which is most of what importing again costs."""

    key: str
    label: str
    scope: str = ""


Item = Page | Memory | Bad | Unchanged
# Asked by a reader before it parses an item: does the vault hold this key with this digest
# of its raw bytes already? (The vault's answer; the readers never see the vault.)
Known = Callable[[str, str], bool]


PROBE = 8  # items looked at for one of its kind before an export is refused as another's


def of_this_kind(marked: Iterable[tuple[Item, bool | None]], refusal: str) -> Iterator[Item]:
    """The items of an export, once one of the first `PROBE` is marked as of this kind
    (True beside it); `NotThisKind(refusal)` when none is.

    No item decides alone: a damaged one (False: read but not of this kind; None: not
    readable at all) at the start is reported and the rest imports, while another app's
    export, none of whose items fit, is still refused. Nothing is yielded before the kind
    is known, so a refused import has written nothing."""
    held: list[Item] = []
    unfit = False
    items = iter(marked)
    for item, mark in items:
        if mark:
            yield from held
            yield item
            yield from (rest for rest, _ in items)
            return
        held.append(item)
        unfit = unfit or mark is False
        if len(held) >= PROBE:
            raise NotThisKind(refusal)
    if unfit:
        raise NotThisKind(refusal)
    yield from held  # nothing readable to judge by: what could not be read is reported


# The readers that skip an item by its raw bytes (mail, conversations) stamp their digest
# with this; bump it when one of them comes to read the same bytes into other text (2: mail
# keeps its calendar invitations, and the text of a multipart message with no boundary; 3:
# every HTML part of a mail with no plain one, and text/enriched; 4: a label keeps its '@'
# and '+'; 5: Claude's artifacts and citation-split text, ChatGPT without its citation
# markup and tool calls, mail charsets read as browsers read them, HTML cells apart, no
# CRs, mail with no Date dated by its mailbox). The next import reads every such item
# again (and counts it updated).
RAW_READERS = 5


def raw_digest(kind: str, raw: bytes | str) -> str:
    """The digest of an item's raw bytes, by the reader version that will parse it
    (`RAW_READERS`: a reader that learns to read more is not skipped by an older digest)."""
    data = raw.encode("utf-8", errors="surrogatepass") if isinstance(raw, str) else raw
    reader = f"{kind}/{RAW_READERS}".encode()
    return "r" + hashlib.sha256(reader + b"\x00" + data).hexdigest()


def _digest(parts: list[Any]) -> str:
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8", errors="surrogatepass")).hexdigest()


def _file_stamp(path: str | None) -> list[int] | None:
    if path is None:
        return None
    from pathlib import Path

    try:
        stat = Path(path).stat()
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


def content_key(*parts: str) -> str:
    """A key for an item whose source gives it no id: a digest of what identifies it."""
    return "h" + hashlib.sha256("\x00".join(parts).encode(errors="replace")).hexdigest()[:32]


_TAG_BAD = re.compile(rf"[^{TAG_CHARACTERS}]+")


def clean_tag(raw: str) -> str | None:
    """A source's tag as a vault tag (`TAG`), or None: what a tag cannot hold becomes '-'."""
    tag = _TAG_BAD.sub("-", raw.strip().lstrip("#")).strip("-")
    tag = tag.lstrip(".:/-")[:64]
    return tag or None


def clean_tags(raws: Any) -> tuple[str, ...]:
    """Tags from a list (or one string) of a source's tags, cleaned, order kept."""
    if isinstance(raws, str):
        raws = re.split(r"[,\s]+", raws)
    if not isinstance(raws, list | tuple):
        return ()
    found = (clean_tag(str(raw)) for raw in raws if raw is not None)
    return tuple(dict.fromkeys(tag for tag in found if tag))
