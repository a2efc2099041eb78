"""A JSON array read one element at a time, so an export of any size fits in memory.

ChatGPT and Claude write each export as one top-level array (`conversations.json` runs to
gigabytes for heavy users). `json.load` would hold all of it, and its objects several
times over; here the text is read in blocks and each element is decoded on its own with
`JSONDecoder.raw_decode`, so memory stays near the size of the largest element.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import IO, Any

from privault.imports.items import NotThisKind

BLOCK = 1 << 20  # characters read at a time
_DECODER = json.JSONDecoder()
_SPACE = " \t\r\n"


class BrokenElement(ValueError):
    """One element of the array is not JSON; the stream resumes after it when it can."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(f"element {index}: {reason}")
        self.index = index
        self.reason = reason


def iter_array(stream: IO[str], what: str) -> Iterator[Any | BrokenElement]:
    """Each element of the JSON array in `stream`; an element that does not decode comes
    as a `BrokenElement`. A stream that is not an array raises `NotThisKind` naming `what`.
    """
    for element in iter_array_raw(stream, what):
        yield element if isinstance(element, BrokenElement) else element[0]


def iter_array_raw(
    stream: IO[str], what: str, *, lone_object: bool = False
) -> Iterator[tuple[Any, str] | BrokenElement]:
    """Like `iter_array`, each element with its JSON text as it stands in the file. With
    `lone_object`, a file of one object is read as an array of that one (an export of a
    single conversation); anything after the object is reported, not dropped."""
    buffer = ""
    position = 0
    done = False

    def fill() -> bool:
        nonlocal buffer, position, done
        if done:
            return False
        block = stream.read(BLOCK)
        if not block:
            done = True
            return False
        buffer = buffer[position:] + block
        position = 0
        return True

    def skip_space() -> bool:
        nonlocal position
        while True:
            while position < len(buffer) and buffer[position] in _SPACE:
                position += 1
            if position < len(buffer):
                return True
            if not fill():
                return False

    def decode(index: int) -> tuple[Any, str] | BrokenElement:
        nonlocal position
        while True:
            try:
                value, end = _DECODER.raw_decode(buffer, position)
            except json.JSONDecodeError as exc:
                if _may_run_on(exc, len(buffer)) and fill():
                    continue  # the element runs on past what was read so far
                return BrokenElement(index, f"not valid JSON ({exc.msg}); the rest is unread")
            if end == len(buffer) and fill():
                continue  # a number at the buffer's end may go on; decode it whole
            raw = buffer[position:end]
            position = end
            return value, raw

    if skip_space() and buffer[position] == "\ufeff":
        position += 1
    if lone_object and skip_space() and buffer[position] == "{":
        found = decode(0)
        yield found
        if not isinstance(found, BrokenElement) and skip_space():
            yield BrokenElement(1, "more JSON after the object; the rest is unread")
        return
    if not skip_space() or buffer[position] != "[":
        raise NotThisKind(f"not {what}: the file is not a JSON array")
    position += 1
    index = 0
    while True:
        if not skip_space():
            yield BrokenElement(index, "the file ends inside the array (truncated?)")
            return
        if buffer[position] == "]":
            return
        if index:
            if buffer[position] != ",":
                yield BrokenElement(index, "expected ',' between elements; the rest is unread")
                return
            position += 1
            if not skip_space():
                yield BrokenElement(index, "the file ends inside the array (truncated?)")
                return
        found = decode(index)
        yield found
        if isinstance(found, BrokenElement):
            return
        index += 1
        if position > BLOCK:
            buffer, position = buffer[position:], 0


def _may_run_on(exc: json.JSONDecodeError, length: int) -> bool:
    """Whether a decode error may only mean the element is not wholly read yet."""
    return exc.msg.startswith("Unterminated string") or exc.pos >= length - 16
