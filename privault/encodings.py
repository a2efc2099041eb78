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
# Encodings browsers read as a larger one that contains them (the WHATWG Encoding
# Standard): text labelled Latin-1 or ASCII uses windows-1252's 0x80-0x9F quotes, text
# labelled GB2312 holds GBK characters, and so on. By codec name, and by labels no codec has.
_AS_BROWSERS_READ = {
    "ascii": "cp1252",
    "iso8859-1": "cp1252",
    "iso8859-9": "cp1254",
    "iso8859-11": "cp874",
    "tis-620": "cp874",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "euc_kr": "cp949",
    "shift_jis": "cp932",  # with the NEC and IBM characters (①, ㈱), as browsers read it
    "big5": "big5hkscs",
}
_LABELS = {
    # Hebrew and Arabic labelled by the direction they are written in: the same bytes.
    "iso-8859-8-i": "iso8859-8",
    "iso-8859-8-e": "iso8859-8",
    "iso-8859-6-i": "iso8859-6",
    "iso-8859-6-e": "iso8859-6",
    "logical": "iso8859-8",
    "visual": "iso8859-8",
    "windows-874": "cp874",
    "x-sjis": "cp932",
    "windows-31j": "cp932",
    "x-gbk": "gb18030",
    "unicode-1-1-utf-8": "utf-8",
    "x-unicode20utf8": "utf-8",
}


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
    return "utf-8" if (browser_codec(label) or "").startswith("utf-16") else label


def _decode_as(body: bytes, label: str | None) -> str | None:
    """`body` in the encoding `label` names; None when there is no such text encoding."""
    name = browser_codec(label)
    if name is None:
        return None
    try:
        return body.decode(name, errors="replace")
    except (LookupError, ValueError):
        return None  # a codec that is not bytes-to-text (`hex`) or cannot replace (`idna`)


def browser_codec(label: str | None) -> str | None:
    """The codec to decode text labelled `label` with, as browsers do (a label naming a
    smaller encoding read as the one senders really used: `_AS_BROWSERS_READ`); None when
    no codec reads it."""
    if not label:
        return None
    label = label.strip().lower()
    try:
        name = _LABELS.get(label) or codecs.lookup(label).name
    except (LookupError, ValueError):
        return None
    return _AS_BROWSERS_READ.get(name, name)


# Byte order marks a file may start with; UTF-32's first, as UTF-16's starts it.
_FILE_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# A text at least this many letters long whose share of letters above ASCII, read as
# windows-1252, is over MAX_NON_ASCII_LETTERS is not Western text (French or German has a
# few percent; Cyrillic or Greek in its own 8-bit encoding, nearly all): it is refused
# rather than filed as mojibake.
MIN_LETTERS_JUDGED = 20
MAX_NON_ASCII_LETTERS = 0.3
_ASCII_LETTERS = bytes(range(0x41, 0x5B)) + bytes(range(0x61, 0x7B))
_WINDOWS_1252_LETTERS = bytes(
    (0x83, 0x8A, 0x8C, 0x8E, 0x9A, 0x9C, 0x9E, 0x9F, 0xAA, 0xB5, 0xBA)
) + bytes(c for c in range(0xC0, 0x100) if c not in (0xD7, 0xF7))
# Control characters no editor writes into text (whitespace and a DOS end-of-file mark
# at the very end are fine).
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0e-\x1f\x7f]")
# A windows-1252 symbol between two letters ("Za\xbf\xf3\xb3\xe6": Polish in its own
# encoding, whose letters land there as ¿ and ³); Western text does not write them so.
# The acute accent (\xb4) is left out: "don´t" is typed for "don't".
_LETTER = rb"[A-Za-z\xc0-\xd6\xd8-\xf6\xf8-\xff]"
_SYMBOL_IN_WORD = re.compile(
    _LETTER + rb"[\xa1-\xa9\xab-\xb3\xb6\xb8\xb9\xbb-\xbf\xd7\xf7]" + _LETTER
)


def decode_file(data: bytes, *, html: bool = False) -> tuple[str, str] | None:
    """The text of a file's bytes and the encoding read, or None when they are not text.

    A byte order mark decides (UTF-8 read leniently, UTF-16 and UTF-32 strictly); then
    valid UTF-8 (cut at the end mid-character after other UTF-8 beyond ASCII: that
    character lost); then an HTML page's
    `<meta>` charset; then UTF-8 with U+FFFD for a few bad bytes among valid non-ASCII
    ones; then windows-1252 (what Windows editors long saved) when every byte is defined
    there, no control character shows, no symbol sits inside a word and most letters are
    ASCII. A NUL byte outside UTF-16 and UTF-32 is binary content. Every check runs over
    the bytes in C: a 256 MB export costs what decoding it does.
    """
    for bom, encoding in _FILE_BOMS:
        if data.startswith(bom):
            try:
                text = data[len(bom) :].decode(encoding)
            except UnicodeDecodeError:
                return None
            return (text, encoding) if "\x00" not in text else None
    utf8_mark = data.startswith(codecs.BOM_UTF8)
    if utf8_mark:
        data = data[len(codecs.BOM_UTF8) :]
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as exc:
        # Cut mid-character, after other valid UTF-8 beyond ASCII. With nothing beyond
        # ASCII before it, a last byte from À to ô is likelier a windows-1252 letter
        # ("Meeting notes for José" saved with no line end) than a cut: read on.
        if exc.reason == "unexpected end of data" and not data[: exc.start].isascii():
            return data[: exc.start].decode("utf-8", errors="replace") + "\ufffd", "utf-8"
    name = browser_codec(_meta_charset(data)) if html else None
    if name is not None and not name.startswith("utf"):
        declared = _decode_as(data, name)
        if declared is not None:
            return declared, name
    damaged = data.decode("utf-8", errors="replace")
    replaced = damaged.count("\ufffd")
    above_ascii = len(damaged) - len(damaged.encode("ascii", errors="ignore"))
    if utf8_mark or above_ascii > 2 * replaced:
        # UTF-8 with a few bad bytes (a stray byte, a bad copy): its other non-ASCII
        # characters are valid UTF-8, which Western text in windows-1252 practically never
        # is ("Ã©"). Only the bad bytes are lost.
        return damaged, "utf-8"
    return _western(data.removesuffix(b"\x1a"))


def _western(data: bytes) -> tuple[str, str] | None:
    """`data` as windows-1252 if it reads as Western text there (`decode_file`)."""
    try:
        text = data.decode(FALLBACK)
    except UnicodeDecodeError:  # a byte windows-1252 leaves undefined
        return None
    if _CONTROL.search(data) or _SYMBOL_IN_WORD.search(data):
        return None
    ascii_letters = len(data) - len(data.translate(None, _ASCII_LETTERS))
    other_letters = len(data) - len(data.translate(None, _WINDOWS_1252_LETTERS))
    letters = ascii_letters + other_letters
    if letters >= MIN_LETTERS_JUDGED and other_letters > MAX_NON_ASCII_LETTERS * letters:
        return None
    return text, FALLBACK


def decode_export(data: bytes) -> str:
    """A file inside another program's export (a note of a folder of notes): as
    `decode_file` reads it, else as windows-1252 with U+FFFD for undefined bytes, so that
    one odd note does not stop an import of thousands. `ValueError` when it holds a NUL
    byte all the same (binary, or UTF-16 with no mark to read it by): that one is skipped,
    not filed as text full of NULs."""
    decoded = decode_file(data)
    if decoded is not None:
        return decoded[0]
    if b"\x00" in data:
        raise ValueError("contains NUL bytes; is it binary?")
    return data.decode(FALLBACK, errors="replace")
