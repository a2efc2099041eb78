"""mem0 and OpenMemory exports: memories that become statements.

Read as the tools write them:

* OpenMemory's export `.zip` (or its `memories.json`): `memories` with `content`, `state`,
  `app_id`, `category_ids`, times, beside `apps`, `categories` and `status_history` (when a
  memory was archived or deleted);
* mem0's own `get_all` output (a list, or `{"results": [...]}`) with `memory`, `user_id`,
  `agent_id`, `app_id`, `run_id`, `metadata`, `categories`, times — optionally with each
  memory's `history` (mem0's ADD / UPDATE / DELETE events) inline or as a top-level
  `history` list;
* JSON Lines of either (`memories.jsonl`, `memories.jsonl.gz`).

Each record becomes a `Memory` (`mem0_records`). A JSON file is read as a stream
(`jsonstream`), one memory at a time, however large.
"""

from __future__ import annotations

import dataclasses
import gzip
import io
import json
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import IO, Any

from privault.imports.items import Bad, Item, Known, Memory, NotThisKind, of_this_kind
from privault.imports.jsonstream import (
    TOO_DEEP,
    BrokenElement,
    TrailingJson,
    first_character,
    iter_array,
    iter_members,
)
from privault.imports.mem0_records import memory, memory_text
from privault.imports.sources import (
    MAX_WHOLE_FILE_BYTES,
    head,
    is_zip,
    member_bytes,
    open_member,
    zip_member,
)

KIND = "mem0"
WHAT = "a mem0 or OpenMemory export (JSON or JSON Lines of memories, or the export's .zip)"
_LISTS = ("memories", "results")  # OpenMemory's, mem0's get_all: the first one there is read
_SIDE = ("apps", "categories", "status_history", "history", "user")  # what memories refer to
_Break = tuple[str, BrokenElement | None]  # the member a document breaks in, and why


def looks_like(path: Path) -> bool:
    """Whether `path` is (probably) a mem0 / OpenMemory export."""
    if is_zip(path):
        with zipfile.ZipFile(path) as archive:
            return bool(
                zip_member(archive, "memories.jsonl.gz")
                or (
                    zip_member(archive, "memories.json")
                    and not zip_member(archive, "conversations.json")
                )
            )
    if not path.is_file():
        return False
    if path.name.endswith(".gz"):
        try:
            with gzip.open(path, "rb") as stream:
                start = stream.read(4096)
        except OSError:
            return False
    else:
        start = head(path, 4096)
    return (
        b'"memory"' in start
        or (b'"content"' in start and b'"app' in start)
        or (b'"memories"' in start and b'"chat_messages"' not in start)
    )


def read(path: Path, known: Known | None = None) -> Iterator[Item]:
    """Each memory of the export at `path`."""
    if is_zip(path):
        yield from _zipped(path)
        return
    if not path.is_file():
        raise NotThisKind(f"not {WHAT}: {path} is not a file")
    if path.name.endswith(".gz"):
        yield from _from_records(_gz_lines(path), {}, {}, {})
    elif path.suffix.lower() == ".jsonl":
        yield from _from_records(_file_lines(path), {}, {}, {})
    else:
        yield from _document(partial(path.open, encoding="utf-8-sig", errors="replace"), path.name)


def _zipped(path: Path) -> Iterator[Item]:
    """The memories of OpenMemory's export zip: its memories.json, else its
    memories.jsonl.gz, each read whole (up to `MAX_WHOLE_FILE_BYTES`)."""
    with zipfile.ZipFile(path) as archive:
        member = zip_member(archive, "memories.json")
        if member is not None:
            data = member_bytes(archive, member, MAX_WHOLE_FILE_BYTES)
        else:
            member = zip_member(archive, "memories.jsonl.gz")
            if member is None:
                raise NotThisKind(f"not {WHAT}: no memories.json in {path.name}")
            data = _inflated(archive, member)
    if member.endswith(".gz"):
        yield from _from_records(_json_lines(io.BytesIO(data)), {}, {}, {})
    else:
        yield from _document(
            lambda: io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", errors="replace"),
            "memories.json",
        )


def _inflated(archive: zipfile.ZipFile, member: str) -> bytes:
    """A gzipped member inflated, `OSError` past `MAX_WHOLE_FILE_BYTES`: the size a gzip
    states is a field a hostile file may fake, so inflating stops at the limit instead."""
    with open_member(archive, member) as raw, gzip.open(raw) as stream:
        data = stream.read(MAX_WHOLE_FILE_BYTES + 1)
    if len(data) > MAX_WHOLE_FILE_BYTES:
        name = member.rsplit("/", 1)[-1]
        raise OSError(f"{name} inflates to over the {MAX_WHOLE_FILE_BYTES:,}-byte limit")
    return data


def _file_lines(path: Path) -> Iterator[Any]:
    with path.open("rb") as stream:
        yield from _json_lines(stream)


def _gz_lines(path: Path) -> Iterator[Any]:
    with gzip.open(path, "rb") as stream:
        yield from _json_lines(stream)


def _json_lines(stream: Iterable[bytes | str]) -> Iterator[Any]:
    for number, line in enumerate(stream, start=1):
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except ValueError as exc:
            yield Bad(f"line {number}", f"not valid JSON ({exc})", label="memory")
        except RecursionError:
            yield Bad(f"line {number}", TOO_DEEP, label="memory")


def _document(opened: Callable[[], IO[str]], name: str) -> Iterator[Item]:
    """The memories of a JSON document, streamed: a list of them in one pass, an object in
    two. The first reads what the memories refer to (apps, categories, status history, which
    OpenMemory writes after them), the second the memories one at a time. A document cut
    short keeps the memories before the cut."""
    with opened() as stream:
        start = first_character(stream)
    if start == "[":
        with opened() as stream:
            yield from _from_records(_records(iter_array(stream, WHAT)), {}, {}, {})
        return
    if start != "{":
        raise NotThisKind(f"not {WHAT}: {name} is not a JSON list or object")
    with opened() as stream:
        side, lists, (broken_in, broken) = _survey(stream)
    listed = next((kind for kind in _LISTS if kind in lists), None)
    if listed is None:
        if isinstance(broken, TrailingJson):  # JSON Lines under another name
            with opened() as stream:
                yield from _from_records(_json_lines(stream), {}, {}, {})
            return
        if broken is not None:
            raise NotThisKind(f"not {WHAT}: {name} is not valid JSON ({broken.reason})")
        raise NotThisKind(f"not {WHAT}: no list of memories in {name}")
    apps: dict[str, str] = {}
    categories: dict[str, str] = {}
    scope = None
    if listed == "memories":
        apps, categories = _names(side.get("apps")), _names(side.get("categories"))
        history = _grouped(side.get("status_history"), "memory_id")
        user = side.get("user")
        scope = str(user.get("user_id") or "") if isinstance(user, dict) else ""
    else:
        history = _grouped(side.get("history"), "memory_id")
    with opened() as stream:
        yield from _from_records(_listed(stream, listed), apps, categories, history, scope)
    if broken is not None and broken_in != listed:  # a break among the memories is one
        yield Bad(f"{name} after its {listed}", broken.reason, label="memory")


def _survey(stream: IO[str]) -> tuple[dict[str, Any], set[str], _Break]:
    """A JSON object of memories read past its memories (each decoded and dropped): what
    they refer to, whole; the names of its lists of memories; where it breaks, if it does."""
    side: dict[str, Any] = {}
    lists: set[str] = set()
    for name, value in iter_members(stream, WHAT):
        if isinstance(value, BrokenElement):
            return side, lists, (name, value)
        if name in _LISTS and isinstance(value, Iterator):
            lists.add(name)
        elif name in _SIDE and isinstance(value, Iterator):
            side[name] = kept = []
            for element in value:
                if isinstance(element, BrokenElement):
                    return side, lists, (name, element)
                kept.append(element)
        elif name in _SIDE:
            side[name] = value
    return side, lists, ("", None)


def _listed(stream: IO[str], name: str) -> Iterator[Any]:
    """The records of the object's first list named `name`."""
    for member, value in iter_members(stream, WHAT):
        if member == name and isinstance(value, Iterator):
            yield from _records(value)
            return


def _records(elements: Iterable[Any]) -> Iterator[Any]:
    """Each element of a list of memories; one that does not decode as a `Bad` memory."""
    for element in elements:
        if isinstance(element, BrokenElement):
            yield Bad(f"memory {element.index + 1}", element.reason, label="memory")
        else:
            yield element


def _names(entries: Any) -> dict[str, str]:
    """OpenMemory's apps or categories: each one's name by its id."""
    listed = entries if isinstance(entries, list) else ()
    return {str(e.get("id")): str(e.get("name") or "") for e in listed if isinstance(e, dict)}


def _grouped(events: Any, key: str) -> dict[str, list[Mapping[str, Any]]]:
    found: dict[str, list[Mapping[str, Any]]] = {}
    for event in events if isinstance(events, list) else ():
        if isinstance(event, dict) and event.get(key):
            found.setdefault(str(event[key]), []).append(event)
    return found


def _from_records(
    records: Iterator[Any],
    apps: Mapping[str, str],
    categories: Mapping[str, str],
    history: Mapping[str, list[Mapping[str, Any]]],
    scope: str | None = None,
) -> Iterator[Item]:
    """Memories of `scope` (the user they belong to; None: each record's `user_id`)."""
    marked = _marked(records, apps, categories, history, scope)
    yield from of_this_kind(marked, f"not {WHAT}: its entries have no memory text")


def _marked(
    records: Iterator[Any],
    apps: Mapping[str, str],
    categories: Mapping[str, str],
    history: Mapping[str, list[Mapping[str, Any]]],
    scope: str | None,
) -> Iterator[tuple[Item, bool | None]]:
    """Each record as an item, beside whether it has a memory's text (None: a line that
    is not JSON says nothing of the file's kind)."""
    for number, record in enumerate(records, start=1):
        if isinstance(record, Bad):
            yield record, None
            continue
        fits = isinstance(record, dict) and memory_text(record) is not None
        try:
            found = memory(record, number, apps, categories, history)
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            # A field of a shape no export of this kind has: this memory is reported, the
            # others import.
            key = str(record.get("id") or "") or None
            reason = f"unreadable memory ({type(exc).__name__}: {exc})"
            yield Bad(f"memory {key or number}", reason, key=key, label="memory"), fits
            continue
        if isinstance(found, Memory):
            owner = scope if scope is not None else str(record.get("user_id") or "")
            found = dataclasses.replace(found, scope=owner)
        yield found, fits
