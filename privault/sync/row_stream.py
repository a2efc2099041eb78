"""A bundle's content read as a stream: `{"rows": [row, ...], "rows_sha256": "..."}`, one
row at a time, so a bundle of any size is read in the memory of its largest row.

The text arrives in pieces (decrypted and inflated a block at a time). Each row is decoded
by the standard library's JSON decoder (`raw_decode`) from a buffer that holds the rest of
the current piece; a row cut by the end of the buffer fails to decode (or, for a bare
number, ends at the buffer's end) and is decoded again once more text has been read, the
buffer at least doubling each time, so a large row costs linear work. Any JSON layout is
read (spaces, key order), not just the canonical one this privault writes: older versions
wrote the same object with other spacing and unsorted keys.

This module only reads the structure; what a row must contain is `privault.sync.rows`'s
business, and whether the content may be believed at all is the caller's (a bundle is
authenticated before its content is read).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from privault.errors import BundleError

MAX_VALUE = 2**30  # characters of one row: the most any reader would hold at once
_WHITESPACE = " \t\n\r"
_DECODER = json.JSONDecoder()
_KEYS = ("rows", "rows_sha256")


def _malformed(what: str) -> BundleError:
    return BundleError(f"the bundle's content is malformed ({what})")


class _Text:
    """The content's text, read in pieces, with a cursor."""

    def __init__(self, pieces: Iterator[str]) -> None:
        self._pieces = pieces
        self.buffer = ""
        self.at = 0
        self.ended = False

    def _more(self) -> bool:
        """Append the next piece (dropping what was read); False once there is none."""
        for piece in self._pieces:
            if piece:
                self.buffer = self.buffer[self.at :] + piece
                self.at = 0
                return True
        self.ended = True
        return False

    def peek(self) -> str:
        """The next character after whitespace ('' at the end of the text)."""
        while True:
            while self.at < len(self.buffer) and self.buffer[self.at] in _WHITESPACE:
                self.at += 1
            if self.at < len(self.buffer) or not self._more():
                return self.buffer[self.at] if self.at < len(self.buffer) else ""

    def expect(self, character: str) -> None:
        """Step over `character`, the next one after whitespace, or refuse the content."""
        if self.peek() != character:
            raise _malformed("not a row list")
        self.at += 1

    def value(self) -> tuple[Any, int]:
        """The next JSON value and the characters it took."""
        self.peek()
        wanted = 0  # characters to hold before decoding again
        while True:
            held = len(self.buffer) - self.at
            if held >= wanted or self.ended:
                try:
                    found, end = _DECODER.raw_decode(self.buffer, self.at)
                except json.JSONDecodeError:
                    if self.ended:
                        raise _malformed("not compressed JSON") from None
                except RecursionError:
                    raise _malformed("not compressed JSON") from None
                else:
                    # A value that ends where the buffer ends may go on (a number cut in two).
                    if end < len(self.buffer) or self.ended:
                        size = end - self.at
                        self.at = end
                        return found, size
            if held > MAX_VALUE:
                raise _malformed("a row is too large")
            wanted = max(2 * held, 1)
            while len(self.buffer) - self.at < wanted and self._more():
                pass


class RowList:
    """The rows of a bundle's content, read once, in order (`rows()`); after the last one,
    `declared` holds the digest the content names for them."""

    def __init__(self, pieces: Iterator[str]) -> None:
        self._text = _Text(pieces)
        self.declared: Any = None

    def rows(self) -> Iterator[tuple[Any, int]]:
        """Each row as decoded JSON, with the characters it took; BundleError for content
        that is not exactly the object of rows and their digest."""
        text = self._text
        text.expect("{")
        seen: set[str] = set()
        while True:
            key, _ = text.value()
            if not isinstance(key, str) or key not in _KEYS or key in seen:
                raise _malformed("not a row list")
            seen.add(key)
            text.expect(":")
            if key == "rows_sha256":
                self.declared, _ = text.value()
            elif text.peek() != "[":
                raise _malformed("rows")
            else:
                yield from self._list(text)
            following = text.peek()
            text.expect("," if following == "," else "}")
            if following != ",":
                break
        if len(seen) != len(_KEYS) or text.peek() != "":
            raise _malformed("not a row list")

    @staticmethod
    def _list(text: _Text) -> Iterator[tuple[Any, int]]:
        text.expect("[")
        if text.peek() == "]":
            text.at += 1
            return
        while True:
            yield text.value()
            following = text.peek()
            text.expect("," if following == "," else "]")
            if following != ",":
                return
