"""The bodies of a mail's attachments that are not text, emptied before it is parsed.

A mail's page names such attachments and never reads their bytes, but the standard
library's parser reads every body a line at a time and keeps it whole: a 25 MB attachment
took ~10 times its size in memory, and base64 bodies were most of a mailbox's parse. A
body is emptied only where the mail's own structure says plainly whose it is (see
`unread_bodies_emptied`); anything else is parsed as it came, so a page is the same.
"""

from __future__ import annotations

import re
from email import policy
from email.parser import BytesHeaderParser

# Read as the mail's parser reads them (compat32: a type it cannot read is text/plain).
_HEADERS = BytesHeaderParser(policy=policy.compat32)
EMPTIED_FROM = 64 * 1024  # a smaller mail is parsed as it came
_HEADERS_SOUGHT = 1 << 20  # how far before a body its part's headers are looked for
_BLANK_LINE = re.compile(rb"\n\r?\n")
_BASE64_LINE = re.compile(rb"[A-Za-z0-9+/]{16,}={0,2}\r?\n")
_BASE64_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/= \t\r\n"
_BOUNDARY = re.compile(rb"""boundary\s*=\s*(?:"([^"\r\n]{1,200})"|([^\s;"]{1,200}))""", re.I)


def unread_bodies_emptied(raw: bytes) -> bytes:
    """`raw` with the base64 body of each part whose own headers (read by the same parser)
    say it is neither text, a multipart nor a message emptied. Only a body that fills its
    part (headers, blank line, base64 lines up to a boundary line of this mail or the end)
    is emptied; anything else is left as it came, so what a page shows is the same."""
    if len(raw) < EMPTIED_FROM:
        return raw
    delimiters = _delimiters(raw)
    kept, done = [], 0
    for blank in _BLANK_LINE.finditer(raw):
        body = blank.end()
        if body < done or not _BASE64_LINE.match(raw, body):
            continue
        ends = [found for d in delimiters if (found := raw.find(d, body)) >= 0]
        end = min(ends, default=len(raw))
        if raw[body:end].translate(None, _BASE64_BYTES):
            continue  # not base64 alone
        start = max(0, blank.start() - _HEADERS_SOUGHT)
        headers = _headers_before(raw[start : blank.start()], delimiters, whole=start == 0)
        if headers is None:
            continue
        maintype = _HEADERS.parsebytes(headers + b"\n\n").get_content_maintype()
        if maintype not in ("text", "multipart", "message"):
            kept.append(raw[done:body])
            done = end
    return b"".join([*kept, raw[done:]]) if kept else raw


def _delimiters(raw: bytes) -> set[bytes]:
    """Each boundary line this mail declares, as `\\n--boundary` (found through a lower-cased
    copy: a case-blind pattern over a whole mail of attachments is slow)."""
    lowered, found = raw.lower(), set[bytes]()
    at = lowered.find(b"boundary")
    while at >= 0:
        if declared := _BOUNDARY.match(raw, at):
            found.add(b"\n--" + (declared.group(1) or declared.group(2)))
        at = lowered.find(b"boundary", at + 8)
    return found


def _headers_before(head: bytes, delimiters: set[bytes], *, whole: bool) -> bytes | None:
    """The header block that ends `head`: the lines after its last boundary line, or all
    of `head` when it holds neither a boundary line nor a blank one and is the mail's start
    (`whole`: the mail's own headers); None when a blank line comes between (the run is
    not a part's body) or the block's start was not found."""
    found = max((head.rfind(delimiter) for delimiter in delimiters), default=-1)
    if found < 0:
        block: bytes | None = head if whole else None
    else:
        line_end = head.find(b"\n", found + 1)
        block = head[line_end + 1 :] if line_end >= 0 else None
    if block is None or b"\n\n" in block or b"\n\r\n" in block:
        return None
    return block
