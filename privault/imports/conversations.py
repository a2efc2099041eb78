"""The conversation list both chat exports share: one JSON array in `conversations.json`,
read element by element, a conversation the vault holds as it is skipped unparsed."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from privault.imports.items import Bad, Item, Known, Page, Unchanged, raw_digest
from privault.imports.jsonstream import BrokenElement, iter_array_raw
from privault.imports.sources import open_text


def read_conversations(
    path: Path,
    kind: str,
    what: str,
    key_of: Callable[[Mapping[str, Any]], str | None],
    parse: Callable[[Any, int], Item],
    known: Known | None,
) -> Iterator[Item]:
    """Each conversation of `path`'s `conversations.json`, in the file's order: `Bad` for an
    element that does not parse, `Unchanged` for one `known` holds with the same digest, else
    what `parse(data, index)` makes of it (a page carries the element's digest)."""
    with open_text(path, "conversations.json", what) as stream:
        for index, element in enumerate(iter_array_raw(stream, what)):
            if isinstance(element, BrokenElement):
                yield Bad(f"conversation {index + 1}", element.reason, label="conversation")
                continue
            data, raw = element
            digest = raw_digest(kind, raw)
            key = key_of(data)
            if known is not None and key and known(key, digest):
                yield Unchanged(key, "conversation")
                continue
            found = parse(data, index)
            yield (
                dataclasses.replace(found, source_digest=digest)
                if isinstance(found, Page)
                else found
            )
