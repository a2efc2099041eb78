"""A JSON array, or the arrays in a JSON object, read one element at a time, so an export of
any size fits in memory.

ChatGPT and Claude write each export as one top-level array (`conversations.json` runs to
gigabytes for heavy users); OpenMemory writes one object whose `memories` array holds every
memory. `json.load` would hold all of it, and its objects several times over; here the text
is read in blocks and each element is decoded on its own with `JSONDecoder.raw_decode`, so
memory stays near the size of the largest element.

Python's decoder recurses once per level of nesting, so an element nested a thousand deep
(no app writes one; 2 KB of brackets do) cannot be decoded. It is found by counting its
brackets instead, reported, and the elements after it are read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import IO, Any

from privault.imports.items import NotThisKind

BLOCK = 1 << 20  # characters read at a time
_DECODER = json.JSONDecoder()
_SPACE = " \t\r\n"
_BRACKET_OR_QUOTE = re.compile(r'[\[\]{}"]')
_QUOTE_OR_ESCAPE = re.compile(r'["\\]')
TOO_DEEP = "nested too deep to read"  # why a value is not read (the decoder recurses per level)


class BrokenElement(ValueError):
    """One element of the array is not JSON; the stream resumes after it when it can."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(f"element {index}: {reason}")
        self.index = index
        self.reason = reason


class TrailingJson(BrokenElement):
    """More JSON after the value the text was read as: JSON Lines, or two files run together."""


def first_character(stream: IO[str]) -> str:
    """The first character of the JSON text in `stream`, spaces and a BOM aside: `[` for an
    array, `{` for an object ('' for no text)."""
    return _Text(stream).first()


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
    single conversation). Anything after the array or the object is reported (a
    `TrailingJson` last), not dropped without a word."""
    text = _Text(stream)
    start = text.first()
    if lone_object and start == "{":
        found = text.decode(0)
        yield found
        if not isinstance(found, BrokenElement) and text.peek():
            yield TrailingJson(1, "more JSON after the object; the rest is unread")
        return
    if start != "[":
        raise NotThisKind(f"not {what}: the file is not a JSON array")
    text.position += 1
    count = 0
    for count, element in enumerate(text.elements(), start=1):  # noqa: B007 - counted
        yield element
    if not text.is_broken and text.peek():  # two arrays run together: say so, drop nothing silently
        yield TrailingJson(count, "more JSON after the array; the rest is unread")


def iter_members(stream: IO[str], what: str) -> Iterator[tuple[str, Any]]:
    """Each member of the JSON object in `stream` as (name, value), in the file's order.

    An array comes as an iterator of its elements (as `iter_array` yields them), read from
    the stream as they are asked for; what is left of it is read past (and dropped) when
    the next member is asked for. Where the text breaks, the members end with (the name of
    the member it breaks in, or '', `BrokenElement`): a break in an array's elements comes
    once, where it is met. More JSON after the object ends them with a `TrailingJson`. A
    stream that is not an object raises `NotThisKind` naming `what`."""
    text = _Text(stream)
    if text.first() != "{":
        raise NotThisKind(f"not {what}: the file is not a JSON object")
    text.position += 1
    index = 0
    while True:
        following = text.peek()
        if not following:
            yield "", text.broken(index, "the file ends inside the object (truncated?)")
            return
        if following == "}":
            text.position += 1
            if text.peek():
                yield "", TrailingJson(index, "more JSON after the object; the rest is unread")
            return
        if index:
            if following != ",":
                yield "", text.broken(index, "expected ',' between members; the rest is unread")
                return
            text.position += 1
        name = text.decode(index)
        if isinstance(name, BrokenElement):
            yield "", name
            return
        if not isinstance(name[0], str):
            yield "", text.broken(index, "a member's name is not a string; the rest is unread")
            return
        key = name[0]
        if text.peek() != ":":
            yield key, text.broken(index, "expected ':' after a name; the rest is unread")
            return
        text.position += 1
        if text.peek() == "[":
            text.position += 1
            elements = text.elements()
            yield key, (e if isinstance(e, BrokenElement) else e[0] for e in elements)
            for left in elements:
                if text.is_broken:  # a deep element passed over is dropped with the rest
                    yield key, left
                    return
            if text.is_broken:  # met by the caller among the elements
                return
        else:
            value = text.decode(index)
            yield key, value if isinstance(value, BrokenElement) else value[0]
            if text.is_broken:
                return
        index += 1
        text.forget_read()


class _Text:
    """The JSON text of a stream, read a block at a time and decoded a value at a time."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.buffer = ""
        self.position = 0
        self.done = False
        self.is_broken = False  # a value did not decode: where the text goes on is unknown

    def fill(self) -> bool:
        if self.done:
            return False
        block = self.stream.read(BLOCK)
        if not block:
            self.done = True
            return False
        self.buffer = self.buffer[self.position :] + block
        self.position = 0
        return True

    def peek(self) -> str:
        """The next character that is not space, left unread ('' at the end of the text)."""
        while True:
            while self.position < len(self.buffer) and self.buffer[self.position] in _SPACE:
                self.position += 1
            if self.position < len(self.buffer):
                return self.buffer[self.position]
            if not self.fill():
                return ""

    def first(self) -> str:
        """The text's first character, a BOM passed over."""
        if self.peek() == "\ufeff":
            self.position += 1
        return self.peek()

    def forget_read(self) -> None:
        if self.position > BLOCK:
            self.buffer, self.position = self.buffer[self.position :], 0

    def broken(self, index: int, reason: str) -> BrokenElement:
        self.is_broken = True
        return BrokenElement(index, reason)

    def decode(self, index: int) -> tuple[Any, str] | BrokenElement:
        """The value that starts at the next character that is not space, with its text."""
        self.peek()  # raw_decode takes no space before the value
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buffer, self.position)
            except json.JSONDecodeError as exc:
                if _may_run_on(exc, len(self.buffer)) and self.fill():
                    continue  # the value runs on past what was read so far
                return self.broken(index, f"not valid JSON ({exc.msg}); the rest is unread")
            except RecursionError:
                if not self.skip_nested():
                    return self.broken(index, "the file ends inside the element (truncated?)")
                return BrokenElement(index, TOO_DEEP)  # the elements after it are read
            if end == len(self.buffer) and self.fill():
                continue  # a number at the buffer's end may go on; decode it whole
            raw = self.buffer[self.position : end]
            self.position = end
            return value, raw

    def skip_nested(self) -> bool:
        """Read past the array or object that starts here by counting its brackets (strings
        passed over whole), without the decoder's recursion; False when the text ends first."""
        depth, quoted, at = 0, False, self.position
        while True:
            found = (_QUOTE_OR_ESCAPE if quoted else _BRACKET_OR_QUOTE).search(self.buffer, at)
            if found is None or found.end() == len(self.buffer) and found.group() == "\\":
                # The text read so far ends first (or between an escape and its character).
                at = (found.start() if found else len(self.buffer)) - self.position
                if not self.fill():
                    return False
                at += self.position
                continue
            at = found.end()
            mark = found.group()
            if mark == "\\":
                at += 1  # the escaped character, a quote maybe
            elif mark == '"':
                quoted = not quoted
            elif mark in "[{":
                depth += 1
            else:
                depth -= 1
                if depth <= 0:
                    self.position = at
                    return True

    def elements(self) -> Iterator[tuple[Any, str] | BrokenElement]:
        """The elements of the array whose `[` was just read, up to and with its `]`."""
        index = 0
        while True:
            following = self.peek()
            if not following:
                yield self.broken(index, "the file ends inside the array (truncated?)")
                return
            if following == "]":
                self.position += 1
                return
            if index:
                if following != ",":
                    yield self.broken(index, "expected ',' between elements; the rest is unread")
                    return
                self.position += 1
                if not self.peek():
                    yield self.broken(index, "the file ends inside the array (truncated?)")
                    return
            found = self.decode(index)
            yield found
            if self.is_broken:
                return
            index += 1
            self.forget_read()


def _may_run_on(exc: json.JSONDecodeError, length: int) -> bool:
    """Whether a decode error may only mean the element is not wholly read yet."""
    return exc.msg.startswith("Unterminated string") or exc.pos >= length - 16
