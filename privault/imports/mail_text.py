"""The text of a mail's parts: bytes decoded by their charset, HTML and text/enriched made
plain.

A charset is read as browsers read it (`encodings.browser_codec`): mailers label
windows-1252 text "iso-8859-1" or "us-ascii" and GBK text "gb2312", and Hebrew mail says
"iso-8859-8-i"; taken literally, those store control characters or mojibake.

Each reader can also read as the readers before did (`first=True`: labels taken literally,
CRLF kept, fewer HTML blocks). Only a mail's identity (`mbox._page`) is formed from that
reading, so a mail imported before is still recognised as itself when it is read better.
"""

from __future__ import annotations

import codecs
import re
from email.errors import HeaderParseError
from email.header import Header, decode_header
from html.parser import HTMLParser
from typing import Any

from privault.encodings import browser_codec


def part_text(payload: bytes, charset: str | None, *, first: bool = False) -> str:
    """A text part's bytes decoded by its charset (as browsers read it); an unknown or
    lying charset falls back to UTF-8, then Latin-1, so no mail is lost to its encoding.
    Lines end in LF (a CRLF mailbox's 8-bit bodies keep their CRs otherwise)."""
    declared = charset or "utf-8"
    labels = (declared if first else browser_codec(declared), "utf-8")
    if not first and _is_ascii_label(declared):  # ASCII never holds these bytes: UTF-8 may
        labels = ("utf-8", "cp1252")
    for label in labels:
        try:
            text = payload.decode(label or declared)
            break
        except (LookupError, UnicodeDecodeError):
            continue
    else:
        text = payload.decode("latin-1")
    return text if first else text.replace("\r\n", "\n")


def _word_text(data: bytes, charset: str, *, first: bool = False) -> str:
    """An encoded word's bytes (RFC 2047) in its charset as browsers read it; LookupError
    or UnicodeDecodeError when no codec reads them so."""
    codec = charset if first else browser_codec(charset)
    if codec is None:
        raise LookupError(charset)
    if not first and _is_ascii_label(charset):  # ASCII never holds these bytes: UTF-8 may
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    return data.decode(codec)


def _is_ascii_label(charset: str) -> bool:
    """Whether a label says ASCII: such text holding bytes over 0x7F was read as UTF-8
    (decoding as ASCII failed), and still is. Latin-1 text can read as UTF-8 ("NESCAFÉ®"
    is valid UTF-8): a Latin-1 or Windows-1252 label is never second-guessed so."""
    try:
        return codecs.lookup(charset).name == "ascii"
    except (LookupError, ValueError):
        return False


def label_changes(charset: str | None, payload: bytes) -> bool:
    """Whether `payload` may read otherwise than as first read (a label read as a larger
    encoding, or CRs dropped)."""
    if b"\r" in payload:
        return True
    if payload.isascii():
        return False
    try:
        literal: str | None = codecs.lookup(charset or "utf-8").name
    except (LookupError, ValueError):
        literal = None  # first read as UTF-8, or Latin-1: a browser's codec reads otherwise
    return browser_codec(charset) != literal


def header_text(value: Any, *, first: bool = False) -> str:
    """RFC 2047 words decoded (their charsets as browsers read them; `first`: as labelled);
    raw 8-bit bytes (old mailers) read as UTF-8, else Latin-1; a charset nobody knows
    leaves the header as it came."""
    pieces = []
    try:
        for chunk, charset in decode_header(value if isinstance(value, Header) else str(value)):
            if isinstance(chunk, str):
                pieces.append(_unescaped(chunk))
            elif charset in (None, "unknown-8bit"):
                pieces.append(_bytes_text(chunk))
            else:
                try:
                    pieces.append(_word_text(chunk, charset, first=first))
                except (LookupError, UnicodeDecodeError):
                    pieces.append(_bytes_text(chunk))
    except (HeaderParseError, ValueError, UnicodeError):
        pieces = [_unescaped(str(value))]
    return " ".join("".join(pieces).split())


def _unescaped(text: str) -> str:
    """Text whose undecodable bytes the parser kept as surrogates, decoded properly."""
    if not any("\udc80" <= ch <= "\udcff" for ch in text):
        return text
    return _bytes_text(text.encode("ascii", errors="surrogateescape"))


def _bytes_text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


_ENRICHED_PARAM = re.compile(r"<param>.*?</param>", re.IGNORECASE | re.DOTALL)
_ENRICHED_MARK = re.compile(r"<<|</?[A-Za-z0-9-]{1,60}>")  # a literal "<", or a command
_ENRICHED_BREAKS = re.compile(r"(?:\r?\n)+")


def enriched_text(text: str) -> str:
    """`text/enriched` (RFC 1896) as plain text: formatting commands and their parameters
    dropped, "<<" a "<", a lone line break a space and n breaks n - 1."""
    text = _ENRICHED_MARK.sub(
        lambda found: "<" if found.group() == "<<" else "", _ENRICHED_PARAM.sub("", text)
    )
    return _ENRICHED_BREAKS.sub(lambda found: "\n" * (found.group().count("\n") - 1) or " ", text)


_FIRST_BLOCKS = frozenset({"p", "div", "br", "tr", "li", "table"} | {f"h{n}" for n in range(1, 7)})
_BLOCKS = _FIRST_BLOCKS | {
    *("thead", "tbody", "tfoot", "caption", "ul", "ol", "dl", "dt", "dd", "blockquote"),
    *("hr", "pre", "address", "center", "section", "article", "header", "footer", "nav"),
    *("main", "aside", "figure", "figcaption", "form", "fieldset", "details", "summary"),
}
# Table cells are words apart, not lines: "<td>Item</td><td>Price</td>" is "Item Price".
_CELLS = frozenset({"td", "th"})
# A tag the first reading did not separate at: where an HTML part reads otherwise now.
_NEWER_TAGS = "|".join(sorted((_BLOCKS - _FIRST_BLOCKS) | _CELLS))
_NEWER_SEPARATORS = re.compile(rf"<(?:{_NEWER_TAGS})[\s/>]", re.IGNORECASE)


class _TextOnly(HTMLParser):
    """HTML reduced to its text: scripts and styles dropped, blocks on their own lines."""

    def __init__(self, blocks: frozenset[str], cells: frozenset[str]) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks, self.cells = blocks, cells
        self.out: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in ("script", "style", "head"):
            self.skip += 1
        else:
            self._separate(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "head") and self.skip:
            self.skip -= 1
        else:
            self._separate(tag)

    def _separate(self, tag: str) -> None:
        if tag in self.blocks:
            self.out.append("\n")
        elif tag in self.cells:
            self.out.append(" ")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.out.append(data)


def html_text(html: str, *, first: bool = False) -> str:
    """The text of an HTML mail body."""
    parser = _TextOnly(_FIRST_BLOCKS, frozenset()) if first else _TextOnly(_BLOCKS, _CELLS)
    parser.feed(html)
    parser.close()
    text = "".join(parser.out)
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def html_changes(html: str) -> bool:
    """Whether an HTML part may read otherwise than as first read (`html_text`)."""
    return _NEWER_SEPARATORS.search(html) is not None
