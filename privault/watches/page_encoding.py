"""Which character encoding a fetched body is in, decided as a browser would.

Many pages carry no charset in their Content-Type (old sites, static hosting) and declare
it in the HTML instead, or not at all. Decoding those as UTF-8 with replacement characters
would file `������` and lose the text for good, so the HTML standard's order is followed,
simplified: a byte order mark (it cannot be wrong), the HTTP charset, a `<meta>` charset
near the top of an HTML page, UTF-8 when the bytes are valid UTF-8, and otherwise
windows-1252, which browsers assume for an undeclared Western page.
"""

from __future__ import annotations

import codecs
import re

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
META_SCAN_BYTES = 4096  # a <meta charset> further down is not looked for
FALLBACK = "cp1252"

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# Both `<meta charset="x">` and `<meta http-equiv="Content-Type" content="...; charset=x">`.
_META_CHARSET = re.compile(rb"<meta\b[^>]*?charset\s*=\s*[\"']?\s*([a-z0-9_.:-]+)", re.I)
# Labels browsers read as windows-1252: pages labelled Latin-1 use its 0x80-0x9F quotes.
_AS_WINDOWS_1252 = frozenset({"ascii", "iso8859-1"})


def decode_body(body: bytes, charset: str | None, media: str) -> str:
    """The text of a body whose HTTP Content-Type said `charset` (or nothing) and `media`."""
    for bom, encoding in _BOMS:
        if body.startswith(bom):
            return body[len(bom) :].decode(encoding, errors="replace")
    for label in (charset, _meta_charset(body) if media in HTML_TYPES else None):
        text = _decode_as(body, label)
        if text is not None:
            return text
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return body.decode(FALLBACK, errors="replace")


def _meta_charset(body: bytes) -> str | None:
    found = _META_CHARSET.search(body[:META_SCAN_BYTES])
    if found is None:
        return None
    label = found.group(1).decode("ascii")
    # The tag was just read as ASCII, so the page is not UTF-16 whatever it says.
    return "utf-8" if (_codec_name(label) or "").startswith("utf-16") else label


def _decode_as(body: bytes, label: str | None) -> str | None:
    """`body` in the encoding `label` names; None when there is no such text encoding."""
    name = _codec_name(label)
    if name is None:
        return None
    try:
        return body.decode(FALLBACK if name in _AS_WINDOWS_1252 else name, errors="replace")
    except (LookupError, ValueError):
        return None  # a codec that is not bytes-to-text (`hex`) or cannot replace (`idna`)


def _codec_name(label: str | None) -> str | None:
    if not label:
        return None
    try:
        return codecs.lookup(label.strip()).name
    except (LookupError, ValueError):
        return None
