"""Notion's "Markdown & CSV" export: a `.zip` (often a zip of zips) or its unpacked folder.

Notion names every page and database `Name <32-hex id>`, nests a page's children in a
folder of the same name, and writes a database twice: a CSV of its rows (`Name <id>.csv`,
and `Name <id>_all.csv` with the rows every view hides too), and a folder with one page per
row that starts with the row's properties as `Key: Value` lines. Here:

* page names lose the id suffix; the id is the page's key (stable across exports);
* the folders above a page become its breadcrumb (`In: Parent › Child`);
* each database row is one document: its properties (from the CSV) as front matter, then
  the row page's own text; a property named like "Created" dates it (`notion_dates`). A
  row's page is found by its `# heading` (its file name may have lost part of the title) in
  the database's folder, named with or without its id, or beside the CSV;
* links between pages (`[Text](Other%20Page%20<id>.md)`) become `Link`s by id.

An export is read as found, never trusted: a page or table over its size limit (a zip
member can inflate to any size) or that cannot be unpacked (a password, Deflate64) is
reported unread, only the zips at the top of the export are its parts (a zip further down
is a file attached to a page), a part that would inflate past its limits refuses the export
before it is unpacked. In a folder no link is followed: one to a file or folder outside it,
one that leads nowhere (its target gone, or links in a loop) and one to a hidden folder
are reported, each under a key so what the export deleted is still told; a folder of the
export linked again is read once, where it lies.
"""

from __future__ import annotations

import csv
import io
import re
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path, PurePosixPath
from typing import IO, Any
from urllib.parse import unquote

from privault.encodings import decode_export
from privault.imports.items import Bad, Item, Known, Link, NotThisKind, Page, content_key
from privault.imports.notion_dates import row_date, with_orders
from privault.imports.sources import (
    MAX_WHOLE_FILE_BYTES,
    folder_files,
    is_zip,
    left_out,
    open_member,
    read_member,
)

KIND = "notion"
WHAT = "a Notion export (Markdown & CSV, .zip or folder)"
MAX_PAGE_BYTES = 20 * 1024 * 1024
# A part of the export (a zip at the top of its zip) is unpacked to a temporary file before
# it is read. Notion's parts run to hundreds of megabytes and hold pages and files it has
# already compressed, so they compress little again; a run of zeros inflates a thousandfold
# and would fill the disk from a small download. A part is refused past either limit.
MAX_PART_BYTES = 2 * 1024 * 1024 * 1024
MAX_PART_RATIO = 100  # times its size in the export

_ID = re.compile(r"^(.*?)[ _-]?([0-9a-f]{32})$")
_MD_LINK = re.compile(r"\[([^\]\n]*)\]\(([^)\s]+\.(?:md|csv))\)")
_HEADING = re.compile(r"\A\s*#[ \t]+(.+)$", re.MULTILINE)
_PROPERTY = re.compile(r"^([^:\n]{1,80}):[ \t]+(.*)$")


@dataclass(frozen=True)
class Entry:
    """One file of the export, wherever it lives."""

    path: PurePosixPath  # inside the export
    size: int  # as the folder or the zip's directory gives it (a zip reads no further)
    read_bytes: Callable[[], bytes]

    def load(self, limit: int = MAX_PAGE_BYTES) -> bytes:
        """The file's bytes; `OSError`, and nothing read, when it is over `limit`."""
        if self.size > limit:
            raise OSError(f"{self.size} bytes, over the {limit}-byte limit")
        return self.read_bytes()


def split_id(name: str) -> tuple[str, str | None]:
    """('Page name', '32-hex id') of a Notion file or folder name (suffix gone)."""
    match = _ID.match(name)
    if match and match.group(1).strip():
        return match.group(1).strip(), match.group(2)
    return name.strip(), None


def looks_like(path: Path) -> bool:
    """Whether `path` is (probably) a Notion export: its files carry 32-hex id suffixes."""
    if not (path.is_dir() or is_zip(path)):
        return False
    try:
        with exported(path) as (listed, _):
            names = [entry.path for entry in listed[:500]]
    except (OSError, zipfile.BadZipFile, NotThisKind):
        return False
    pages = [p for p in names if p.suffix.lower() == ".md"]
    tagged = [p for p in names if p.suffix.lower() in (".md", ".csv") and split_id(p.stem)[1]]
    return bool(pages) and len(tagged) * 2 >= len(pages)


@contextmanager
def exported(path: Path) -> Iterator[tuple[list[Entry], list[Bad]]]:
    """Every file of the export, readable while the block runs: a folder walked, a zip
    (and the zips Notion puts inside it) kept open. An inner zip is spooled to a temporary
    file, not memory. Beside them, a report of each link in a folder that is not followed
    (`sources.left_out`); a zip holds no links."""
    if path.is_dir():
        files, linked = folder_files(path)
        listed: list[Entry] = []
        unfollowed: list[Bad] = []
        for file in [*files, *linked]:
            rel = PurePosixPath(file.relative_to(path).as_posix())
            why = left_out(path, file, "export")
            if why is None:
                if file.is_file():  # not a named pipe: reading one waits for a writer
                    listed.append(_folder_entry(file, rel))
            elif rel.suffix.lower() == ".md":
                # Listed, never read: reading it reports it under the page's key, or as
                # its row's page, so the row keeps the key it has always had.
                listed.append(Entry(rel, 0, partial(_refuse, why)))
            else:  # a folder's pages or a database's rows, not known: its path is its key
                label = "folder" if file.is_dir() else "link"
                unfollowed.append(Bad(str(rel), why, key=rel.as_posix(), label=label))
        yield listed, unfollowed
        return
    if not is_zip(path):
        raise NotThisKind(f"not {WHAT}: {path.name} is neither a folder nor a .zip")
    with ExitStack() as stack:
        archive = stack.enter_context(zipfile.ZipFile(path))
        yield list(_zip_entries(archive, stack, outer=True)), []


def _folder_entry(file: Path, rel: PurePosixPath) -> Entry:
    try:
        size = file.stat().st_size
    except OSError:
        size = 0  # reading it says why it cannot be read
    return Entry(rel, size, file.read_bytes)


def _refuse(reason: str) -> bytes:
    raise OSError(reason)


def _zip_entries(archive: zipfile.ZipFile, stack: ExitStack, *, outer: bool) -> Iterator[Entry]:
    for info in sorted(archive.infolist(), key=lambda i: i.filename):
        if info.is_dir() or info.filename.startswith("__MACOSX/"):
            continue
        name = PurePosixPath(info.filename)
        if outer and name.suffix.lower() == ".zip" and len(name.parts) == 1:
            # Notion splits a big export into zips at the top of its zip, one level deep.
            inner = stack.enter_context(zipfile.ZipFile(_spooled(archive, info, stack)))
            yield from _zip_entries(inner, stack, outer=False)
            continue
        yield Entry(name, info.file_size, partial(read_member, archive, info))


def _spooled(archive: zipfile.ZipFile, info: zipfile.ZipInfo, stack: ExitStack) -> IO[bytes]:
    """A part of the export unpacked to a temporary file; `OSError`, before anything is
    unpacked, when the size it states is over `MAX_PART_BYTES` or `MAX_PART_RATIO` times its
    packed size, and where the bytes it inflates to run past the limit all the same."""
    limit = min(MAX_PART_BYTES, MAX_PART_RATIO * max(info.compress_size, 1))
    over = f"{info.filename}, a part of the export, would unpack to over {limit:,} bytes"
    if info.file_size > limit:
        raise OSError(f"{over} ({info.file_size:,})")
    spool = stack.enter_context(tempfile.TemporaryFile())  # noqa: SIM115 - closed by the stack
    with open_member(archive, info) as raw:
        while block := raw.read(1 << 20):
            if spool.tell() + len(block) > limit:
                raise OSError(over)
            spool.write(block)
    spool.seek(0)
    return spool


def read(path: Path, known: Known | None = None) -> Iterator[Item]:
    """Each link of a folder not followed (reported), then each database row, then each
    page, of the export at `path`."""
    with exported(path) as (listed, unfollowed):
        pages = {e.path: e for e in listed if e.path.suffix.lower() == ".md"}
        if not pages and not any(e.path.suffix.lower() == ".csv" for e in listed):
            raise NotThisKind(f"not {WHAT}: no Markdown or CSV file in {path.name}")
        yield from unfollowed
        used: set[PurePosixPath] = set()
        for table in _databases(listed):
            yield from _rows(table, pages, used)
        for rel, entry in pages.items():
            if rel in used:
                continue
            try:
                raw = entry.load()
            except (OSError, zipfile.BadZipFile) as exc:
                # Still at the source (its key known): not reported as deleted there.
                key = split_id(rel.stem)[1] or rel.as_posix()
                yield Bad(str(rel), f"cannot read ({exc})", key=key, label="page")
                continue
            yield _page(rel, raw)


def _databases(listed: list[Entry]) -> list[Entry]:
    """One CSV per database: `_all.csv` (every row) where the export has it."""
    csvs = {e.path: e for e in listed if e.path.suffix.lower() == ".csv"}
    chosen = []
    for rel, entry in csvs.items():
        if rel.stem.endswith("_all") or rel.with_name(f"{rel.stem}_all.csv") not in csvs:
            chosen.append(entry)
    return chosen


def _breadcrumb(rel: PurePosixPath) -> list[str]:
    parts = [split_id(part)[0] for part in rel.parent.parts]
    if parts and re.match(r"^Export-[0-9a-f-]+$", rel.parts[0]):
        parts = parts[1:]
    return parts


def _rows(
    table: Entry, pages: dict[PurePosixPath, Entry], used: set[PurePosixPath]
) -> Iterator[Item]:
    stem = table.path.stem[: -len("_all")] if table.path.stem.endswith("_all") else table.path.stem
    name, table_id = split_id(stem)
    try:
        reader = csv.reader(
            io.StringIO(decode_export(table.load(MAX_WHOLE_FILE_BYTES)), newline="")
        )
        header = next(reader, None)
    except (OSError, ValueError, csv.Error, zipfile.BadZipFile) as exc:  # ValueError: not text
        yield Bad(str(table.path), f"unreadable database ({exc})", label="row")
        return
    if not header:
        return
    found = _row_candidates(table.path.parent, stem, name, pages, used, header[1:])
    row_pages = _RowPages(found, pages)
    crumb = [*_breadcrumb(table.path), name]
    for number, (values, orders) in enumerate(with_orders(header, _safe_rows(reader)), start=1):
        if isinstance(values, Bad):
            yield values
            return
        if not any(v.strip() for v in values):
            continue
        properties = dict(zip(header, values, strict=False))
        title = (values[0] if values else "").strip() or "Untitled"
        page = row_pages.take(title, used)
        body = ""
        key = content_key(table_id or stem, title, str(number))
        if page is not None:
            used.add(page)
            key = split_id(page.stem)[1] or key
            try:
                body = _row_body(decode_export(pages[page].load()), title)
            except (OSError, ValueError, zipfile.BadZipFile) as exc:  # ValueError: not text
                yield Bad(f"{name} row {title!r}", f"cannot read ({exc})", key=key, label="row")
                continue
        front = "\n".join(f"{k}: {_one_line(v)}" for k, v in properties.items() if v.strip())
        text = f"---\n{front}\n---\n\n# {title}\n\n" + (f"In: {' › '.join(crumb)}\n\n") + body
        yield Page(
            key=key,
            label="row",
            title=title,
            text=text.rstrip() + "\n",
            created_at=row_date(properties, orders),
            metadata={
                "source_app": "Notion",
                "database": name,
                "breadcrumb": crumb,
                "properties": properties,
            },
            links=tuple(_links(body)),
        )


def _row_candidates(
    parent: PurePosixPath,
    stem: str,
    name: str,
    pages: dict[PurePosixPath, Entry],
    used: set[PurePosixPath],
    columns: list[str],
) -> list[PurePosixPath]:
    """The pages that may be a database's rows, in file order. Notion puts them in a folder
    named like the CSV: with its id in older exports (`Tasks <id>/`), without in newer ones
    (`Tasks/`); with "Create folders for subpages" off they lie beside the CSV. Beside it
    is looked only when there is no such folder; there any page could share a row's title,
    so pages that open with a property line of the database (`Status: Done`) come first (a
    row of a title-only database, or with its properties empty, has none).
    """
    folders = {parent / stem, parent / name}
    found = [rel for rel in pages if rel.parent in folders and rel not in used]
    if found:
        return found
    beside = [rel for rel in pages if rel.parent == parent and rel not in used]
    return sorted(beside, key=lambda rel: not _holds_properties(pages[rel], columns))


def _holds_properties(entry: Entry, columns: list[str]) -> bool:
    """Whether a page opens (after its heading) with a `Key: Value` line of one of these
    database columns, as a row's page does."""
    named = {column.strip() for column in columns if column.strip()}
    try:
        lines = decode_export(entry.load()).splitlines()[1:12]
    except (OSError, ValueError, zipfile.BadZipFile):
        return False
    return any(line.split(":", 1)[0].strip() in named for line in lines if ":" in line)


class _RowPages:
    """A database's row pages, found by the title of the row they hold.

    A page's file name is no proof of its title: Notion leaves `/ : ?` out of it and cuts a
    long title short. Its first `# heading` is the title as written; the file name is the
    fallback for a page without one. Pages of the same title are taken in file order, as
    the rows of that title come (two rows may share a title).
    """

    def __init__(self, found: list[PurePosixPath], pages: dict[PurePosixPath, Entry]) -> None:
        self._by_heading: dict[str, list[PurePosixPath]] = {}
        self._by_name: dict[str, list[PurePosixPath]] = {}
        for rel in found:
            heading = _heading(pages[rel])
            if heading:
                self._by_heading.setdefault(heading, []).append(rel)
            self._by_name.setdefault(_one_line(split_id(rel.stem)[0]), []).append(rel)

    def take(self, title: str, used: set[PurePosixPath]) -> PurePosixPath | None:
        """The first page not yet used whose heading, else whose name, is `title`; marked
        used (a page taken by its heading stays listed under its name)."""
        for index in (self._by_heading, self._by_name):
            queue = index.get(_one_line(title), [])
            while queue and queue[0] in used:
                queue.pop(0)
            if queue:
                used.add(queue[0])
                return queue.pop(0)
        return None


def _heading(entry: Entry) -> str | None:
    """A page's first `# heading`; None when it has none or cannot be read (reading it for
    the row then says why)."""
    try:
        text = decode_export(entry.load())
    except (OSError, ValueError, zipfile.BadZipFile):
        return None
    heading = _HEADING.match(text)
    return _one_line(heading.group(1)) if heading else None


def _safe_rows(reader: Any) -> Iterator[list[str] | Bad]:
    try:
        yield from reader
    except csv.Error as exc:
        yield Bad(f"database row {reader.line_num}", f"malformed CSV ({exc})", label="row")


def _row_body(text: str, title: str) -> str:
    """A row page's text after its `# Title` and its `Key: Value` property lines."""
    lines = text.splitlines()
    at = 0
    if lines and lines[0].lstrip("# ").strip() == title.strip():
        at = 1
    while at < len(lines) and not lines[at].strip():
        at += 1
    while at < len(lines) and _PROPERTY.match(lines[at]):
        at += 1
    return "\n".join(lines[at:]).strip()


def _page(rel: PurePosixPath, raw: bytes) -> Item:
    name, page_id = split_id(rel.stem)
    key = page_id or rel.as_posix()
    if b"\x00" in raw:
        return Bad(str(rel), "contains NUL bytes; is it binary?", key=key, label="page")
    text = decode_export(raw)
    heading = _HEADING.match(text)
    title = heading.group(1).strip() if heading else name
    crumb = _breadcrumb(rel)
    if crumb:
        lead = f"In: {' › '.join(crumb)}\n\n"
        text = (
            text[: heading.end()] + "\n\n" + lead + text[heading.end() :].lstrip("\n")
            if heading
            else lead + text
        )
    return Page(
        key=key,
        label="page",
        title=title,
        text=text,
        metadata={"source_app": "Notion", "breadcrumb": crumb, "path": rel.as_posix()},
        links=tuple(_links(text)),
    )


def _links(text: str) -> Iterator[Link]:
    for label, target in _MD_LINK.findall(text):
        _, target_id = split_id(PurePosixPath(unquote(target)).stem)
        if target_id:
            yield Link(label=label.strip() or target_id, key=target_id)


def _one_line(value: str) -> str:
    return " ".join(value.split())
