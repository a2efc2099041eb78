"""Text out of files and web pages: markdown and text as they are, HTML's main text via
trafilatura (boilerplate removed, headings kept as markdown), PDF via pypdf.

Every failure is an `InputError` naming the file and the reason, so a directory import
can report it and go on.
"""

from __future__ import annotations

import codecs
import html as entities
import logging
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from privault.encodings import decode_file
from privault.errors import InputError
from privault.retrieval.frontmatter import FrontMatter, split_front_matter

if TYPE_CHECKING:
    from lxml.html import HtmlElement

TEXT_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".text"})
HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml"})
PDF_SUFFIXES = frozenset({".pdf"})
SUPPORTED_SUFFIXES = TEXT_SUFFIXES | HTML_SUFFIXES | PDF_SUFFIXES
DEFAULT_MAX_BYTES = 20 * 1024 * 1024


@dataclass(frozen=True)
class Extracted:
    """A document's title and its text as privault stores it."""

    title: str
    text: str
    front: FrontMatter | None = None  # a Markdown file's front matter, when it has one


def decode_text(data: bytes, name: str, *, html: bool = False) -> str:
    """The text of a file (`encodings.decode_file`: UTF-8, UTF-16 or UTF-32 by its mark,
    an HTML page's declared charset, UTF-8, or Western text in windows-1252), or an
    InputError for binary content or text in another encoding."""
    decoded = decode_file(data, html=html)
    if decoded is not None:
        return decoded[0]
    if b"\x00" in data and not data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise InputError(f"{name}: binary content, not text")
    raise InputError(
        f"{name}: not UTF-8 text, nor Western text in windows-1252; convert it to UTF-8 first "
        f"(iconv -f ITS-ENCODING -t UTF-8)"
    )


def html_text(html: str, name: str) -> Extracted:
    """The main text of an HTML page as markdown (headings kept), with its title."""
    import trafilatura
    from trafilatura.utils import load_html

    tree = load_html(html)  # parsed once: the title is read from the tree trafilatura reads
    if tree is None:
        raise InputError(f"{name}: no readable text in the page")
    text = trafilatura.extract(
        tree,
        output_format="markdown",
        include_comments=False,
        include_tables=True,
        favor_recall=True,
    )
    if not text or not text.strip():
        raise InputError(f"{name}: no readable text in the page")
    return Extracted(title=_page_title(tree) or name, text=text)


def _page_title(tree: HtmlElement) -> str:
    """The title a browser shows for the page: the first `<title>` element outside SVG and
    MathML (theirs are tooltips), never one in a script or a comment, which are not elements.

    Its entities are decoded (by the parser, then once more, as trafilatura does for the
    main text): `jdoe&#64;example&#46;com` kept as written is an address to any reader but
    not to the PII scan, and every `&amp;` would show.
    """
    for element in tree.iter("title"):
        if not any(parent.tag in ("svg", "math") for parent in element.iterancestors()):
            return " ".join(entities.unescape(element.text_content()).split())
    return ""


def _pdf_text(path: Path) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    # pypdf logs what it repairs in a damaged file ("EOF marker not found") to stderr; the
    # owner gets privault's own one line for a PDF it cannot read, and nothing for one it can.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(str(path))
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, ValueError, OSError) as exc:
        raise InputError(f"{path}: unreadable PDF ({exc})") from None
    text = "\n\n".join(page.strip() for page in pages if page.strip())
    if not text:
        raise InputError(f"{path}: the PDF has no extractable text (scanned?)")
    return text


def extract_file(path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> Extracted:
    """Read one file into a title and text, or raise InputError saying why not."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise InputError(
            f"{path}: unsupported file type {suffix or '(none)'}; "
            f"privault reads {', '.join(sorted(SUPPORTED_SUFFIXES))}"
        )
    try:
        found = path.stat()
        if not stat.S_ISREG(found.st_mode):  # a pipe waits for a writer; /dev/zero never ends
            raise InputError(f"{path}: not a regular file (a named pipe or a device)")
        size = found.st_size
        if size > max_bytes:
            raise InputError(f"{path}: {size} bytes is over the {max_bytes}-byte limit")
        if suffix in PDF_SUFFIXES:
            return Extracted(title=path.stem, text=_pdf_text(path))
        data = path.read_bytes()
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    text = decode_text(data, str(path), html=suffix in HTML_SUFFIXES)
    if suffix in HTML_SUFFIXES:
        return html_text(text, str(path))
    front = None
    if suffix in (".md", ".markdown"):
        front, text = split_front_matter(text)
    if not text.strip() and (front is None or front.document):
        # An export's own files may be front matter alone (no statements to tabulate).
        raise InputError(f"{path}: empty file")
    heading = re.search(r"^#\s+(.+)$", text, re.MULTILINE)
    title = front.title if front and front.title else None
    return Extracted(
        title=title or (heading.group(1).strip() if heading else path.stem), text=text, front=front
    )
