"""Which character encoding a fetched page or a file is in.

A fetched body's is decided as a browser would. Many pages carry no charset in their
Content-Type (old sites, static hosting) and declare it in the HTML instead, or not at
all. Decoding those as UTF-8 with replacement characters would file `������` and lose the
text for good, so the HTML standard's order is followed, simplified: a byte order mark (it
cannot be wrong), the HTTP charset, a `<meta>` charset near the top of an HTML page, UTF-8
when the bytes are valid UTF-8, and otherwise windows-1252, which browsers assume for an
undeclared Western page.

A file has no HTTP header, and is held to more (`decode_file`): it is read as
windows-1252 only when it reads as Western text there, and otherwise refused, so a file in
another legacy encoding is not filed as mojibake.
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


# A file of bytes this share of whose letters are not ASCII, decoded as windows-1252, is
# not Western text (a French or German text has a few percent; Cyrillic or Greek in its
# own 8-bit encoding, nearly all) and is refused rather than filed as mojibake.
MAX_NON_ASCII_LETTERS = 0.3
_CONTROL = frozenset(chr(c) for c in (*range(0x20), 0x7F)) - set("\t\n\r\f")


def decode_file(data: bytes, *, html: bool = False) -> tuple[str, str] | None:
    """The text of a file's bytes and the encoding read, or None when they are not text.

    A byte order mark decides (UTF-8, UTF-16); then an HTML page's `<meta>` charset; then
    UTF-8 (with U+FFFD for a few bad bytes among valid ones); then windows-1252 (what
    Windows editors long saved) when every byte is defined there, no control character
    but whitespace shows and most letters are ASCII. A NUL byte outside UTF-16 is binary
    content.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(encoding), encoding
            except UnicodeDecodeError:
                return None
    if b"\x00" in data:
        return None
    name = _codec_name(_meta_charset(data)) if html else None
    if name is not None and not name.startswith("utf"):
        text = _decode_as(data, name)
        if text is not None:
            return text, name
    damaged = data.decode("utf-8", errors="replace")
    replaced = damaged.count("\ufffd")
    if not replaced or sum(not c.isascii() for c in damaged) > 2 * replaced:
        # UTF-8, or UTF-8 with a few bad bytes (a file cut mid-character, a stray byte):
        # its other non-ASCII characters are valid UTF-8, which Western text in
        # windows-1252 practically never is ("Ã©"). Only the bad bytes are lost.
        return damaged, "utf-8"
    try:
        text = data.decode(FALLBACK)
    except UnicodeDecodeError:  # a byte windows-1252 leaves undefined
        return None
    letters = [c for c in text if c.isalpha()]
    foreign = sum(not c.isascii() for c in letters)
    if any(c in _CONTROL for c in text) or foreign > MAX_NON_ASCII_LETTERS * len(letters):
        return None
    return text, FALLBACK


def decode_export(data: bytes) -> str:
    """A file inside another program's export (a note of a folder of notes): as
    `decode_file` reads it, else as windows-1252 with U+FFFD for undefined bytes, so that
    one odd note does not stop an import of thousands."""
    decoded = decode_file(data)
    return decoded[0] if decoded is not None else data.decode(FALLBACK, errors="replace")
