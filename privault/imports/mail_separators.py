"""Which lines of an mbox file begin a message, and where privault once cut messages.

mbox marks no lengths: a message runs until a line starting "From " begins the next.
Writers should quote a body line that starts so (">From "), and many do not (mboxo
writers, exporters that never quote), so "From what I heard, ..." in a mail would start a
message of its own, cutting the mail in two. A "From " line is judged by its shape, as mail
programs that read mbox judge it:

* a postmark, "From sender date" (`begins_message`), begins a message wherever it stands,
  as does a bare "From" (the standard library's `mailbox.mbox` cuts at every "From "
  line, and some exporters write no more). Neither is asked for a blank line before it
  or headers after it: mail cut there is cut as before, byte for byte (a vault's digests
  of earlier imports hold), and asking merged real messages of less common mailboxes (a
  header written "Subject : x");
* "From sender" with no date, as some exporters write it, begins one only where a
  separator stands: after a blank line, before header lines (`begins_message_here`);
* any other line starting "From " is text.

The date is read leniently: asctime's "Mon Jan  1 00:00:00 2024", with a zone before or
after the year, Gmail's "Wed Mar 06 08:30:00 +0000 2019", RFC 2822's "Mon, 1 Jan 2024
00:00:00 +0000", an old "remote from host" after it; a month and a time are required.

Until privault told body lines from separators it cut at every "From " line: a mail split
so by an earlier import is still identified as that import cut it (`as_first_cut`), so
reading it whole updates it instead of keeping a second copy.
"""

from __future__ import annotations

import re
from typing import BinaryIO

SEPARATOR_BYTES = 4096  # read around a "From sender" line: it, and the lines after it
_MONTH = rb"(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
_TIME = rb"\d{1,2}:\d{2}(?::\d{2})?"
_DATE_WORD = (
    rb"(?:(?i:mon|tue|wed|thu|fri|sat|sun),?|" + _MONTH + rb",?"
    rb"|\d{1,4},?"  # the day, the year
    rb"|" + _TIME + rb"|[+-]\d{4}|\(?[A-Z]{1,5}\)?)"  # the time; the zone: +0100, UTC, (CEST)
)
# Words of a date only (a line of other words fails at its first), as one pattern: the
# date is judged for every message of a mailbox.
_DATE = re.compile(_DATE_WORD + rb"(?:[ \t]+" + _DATE_WORD + rb")*(?:[ \t]+remote from \S+)?\s*")
_MONTH_IN = re.compile(rb"(?<!\S)" + _MONTH + rb"(?![^\s,])")
_TIME_IN = re.compile(rb"(?<!\S)" + _TIME + rb"(?!\S)")
# A header field's name, then its colon (some mailers write "Subject : x").
_HEADER_LINE = re.compile(rb"[!-9;-~]+[ \t]*:")


def begins_message(line: bytes) -> bool | None:
    """Whether the "From " line `line` begins a message by its shape alone: a postmark or a
    bare "From" does, other words do not; None for "From sender" with no date, which what
    stands around it decides (`begins_message_here`)."""
    words = line.split(None, 2)
    if len(words) == 1:
        return True
    if len(words) == 2:
        return None
    date = words[2]  # after "From" and the sender ("-", MAILER-DAEMON, an address)
    return bool(_DATE.fullmatch(date) and _MONTH_IN.search(date) and _TIME_IN.search(date))


def begins_message_here(window: bytes, at: int) -> bool:
    """Whether the "From " line at `at` in `window` (bytes of the file: three or more before
    the line, when the file has them, and `SEPARATOR_BYTES` from it) begins a message: by
    its shape (`begins_message`), else by a blank line before it and two header lines (or a
    header and its folded rest) after it."""
    lines = [*window[at:].split(b"\n", 3)[:3], b"", b""]
    by_shape = begins_message(lines[0])
    if by_shape is not None:
        return by_shape
    blank_before = window.endswith(b"\n\n", 0, at) or window.endswith(b"\n\r\n", 0, at)
    header, after = lines[1], lines[2]
    return bool(
        blank_before
        and _HEADER_LINE.match(header)
        and (_HEADER_LINE.match(after) or after[:1] in (b" ", b"\t"))
    )


def begins_message_at(stream: BinaryIO, start: int) -> bool:
    """`begins_message_here` for the "From " line at `start` in the file `stream`, read
    with the bytes around it (the file's start read as after a line break)."""
    before = min(start, 3)
    stream.seek(start - before)
    window = stream.read(before + SEPARATOR_BYTES)
    if before < 3:
        window, before = b"\n" + window, before + 1
    return begins_message_here(window, before)


def as_first_cut(raw: bytes) -> bytes | None:
    """A message's bytes (without its separator line) as privault cut them when every line
    starting "From " began a message: up to its first such line, less the blank line
    before it, as `mailbox.mbox` cuts. None when that is the whole message."""
    at = (b"\n" + raw).find(b"\nFrom ")
    if at < 0:
        return None
    cut = raw[:at]
    return cut[:-1] if (b"\n" + cut).endswith(b"\n\n") else cut
