"""The conversation list both chat exports share: one JSON array in `conversations.json`,
read element by element, a conversation the vault holds as it is skipped unparsed. A file
of one conversation (saved on its own, not in a list) is read as a list of that one.

A conversation with a field of a shape its reader does not expect (a number where the
export has a list, a string where it has an object) is reported by its key and position,
and the rest of the export imports: an app's next export format must not stop a whole
import at its first odd field."""

from __future__ import annotations

import dataclasses
import zipfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from privault.imports.items import Bad, Item, Known, Page, Unchanged, of_this_kind, raw_digest
from privault.imports.jsonstream import BrokenElement, iter_array_raw
from privault.imports.sources import (
    UNREADABLE_MEMBER,
    head,
    is_zip,
    open_member,
    open_text,
    zip_member,
)


def read_conversations(
    path: Path,
    kind: str,
    what: str,
    key_of: Callable[[Mapping[str, Any]], str | None],
    parse: Callable[[Any, int], Item],
    known: Known | None,
    *,
    fits: Callable[[Any], bool],
    refusal: str,
) -> Iterator[Item]:
    """Each conversation of `path`'s `conversations.json`, in the file's order: `Bad` for an
    element that does not parse, `Unchanged` for one `known` holds with the same digest, else
    what `parse(data, index)` makes of it (a page carries the element's digest).

    `fits(data)` tells a conversation of this app from another app's: when none of the
    first few does, the export is refused with `refusal` before anything is yielded."""
    with open_text(path, "conversations.json", what) as stream:
        elements = iter_array_raw(stream, what, lone_object=True)
        yield from of_this_kind(_marked(elements, kind, key_of, parse, known, fits), refusal)


def _marked(
    elements: Iterator[tuple[Any, str] | BrokenElement],
    kind: str,
    key_of: Callable[[Mapping[str, Any]], str | None],
    parse: Callable[[Any, int], Item],
    known: Known | None,
    fits: Callable[[Any], bool],
) -> Iterator[tuple[Item, bool | None]]:
    """Each element as an item, beside whether it fits this app (None: unreadable; an
    element the vault holds from this app's export fits)."""
    for index, element in enumerate(elements):
        if isinstance(element, BrokenElement):
            yield Bad(f"conversation {index + 1}", element.reason, label="conversation"), None
            continue
        data, raw = element
        digest = raw_digest(kind, raw)
        key = key_of(data)
        if known is not None and key and known(key, digest):
            yield Unchanged(key, "conversation"), True
            continue
        try:
            found = parse(data, index)
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            where = f"conversation {index + 1}" + (f" ({key})" if key else "")
            reason = f"unreadable conversation ({type(exc).__name__}: {exc})"
            yield Bad(where, reason, key=key or None, label="conversation"), fits(data)
            continue
        if isinstance(found, Page):
            found = dataclasses.replace(found, source_digest=digest)
        yield found, fits(data)


def conversations_start(path: Path, size: int = 65536) -> bytes:
    """The first bytes of the export's `conversations.json` — inside its zip, in its
    unpacked folder, or the file itself — for telling the chat exports apart (b'' when
    there is none)."""
    if is_zip(path):
        with zipfile.ZipFile(path) as archive:
            member = zip_member(archive, "conversations.json")
            if member is None:
                return b""
            try:
                with open_member(archive, member) as raw:
                    return raw.read(size)
            except UNREADABLE_MEMBER:  # encrypted or damaged: not told apart here,
                return b""  # and refused in one line when read as the kind it is named
    if path.is_dir():
        return head(path / "conversations.json", size)
    return head(path, size) if path.is_file() else b""
