"""Reading an export where the app left it: a file, a folder, or a `.zip` of either.

Also the one place source times are read: apps write epoch seconds (ChatGPT), ISO 8601 with
an offset (Claude), ISO without one (mem0, Notion: taken as UTC, which is what they store),
a date alone, or RFC 2822 (mail, JavaScript's `toUTCString`). A time that cannot be read is
None, never an error: the item still imports. So is a time outside the years privault keeps
(a damaged `1e300`, a year 10000: see `privault.timeutil`): every time kept can be shown.
"""

from __future__ import annotations

import email.utils
import io
import lzma
import os
import re
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from privault.imports.items import NotThisKind
from privault.timeutil import in_range_or_none

# Files of an export read whole, not streamed (Claude's memories.json and projects.json, a
# Notion database's CSV, a mem0 zip's memories), are refused past this before they are read:
# a zip member can inflate to any size. Parsed, JSON holds about four times its size in
# memory, so a file at the limit costs about a gigabyte, which a laptop still has, while the
# text these files hold (memories, project notes, a table's rows) runs to megabytes.
MAX_WHOLE_FILE_BYTES = 256 * 1024 * 1024
# What a damaged zip member raises while it inflates, besides `OSError` (which a broken
# bzip2 stream raises): a deflate or LZMA stream that breaks, a CRC that does not match, a
# member cut short.
BROKEN_MEMBER: tuple[type[Exception], ...] = (
    zipfile.BadZipFile,
    zlib.error,
    lzma.LZMAError,
    EOFError,
)
# What reading a member may raise at all: one it cannot unpack (`open_member`) or damaged.
UNREADABLE_MEMBER: tuple[type[Exception], ...] = (OSError, *BROKEN_MEMBER)
_ENCRYPTED = 0x1  # a zip member's flag bit: packed with a password


def is_zip(path: Path) -> bool:
    """Whether `path` is a zip archive (by its content, not its name)."""
    return path.is_file() and zipfile.is_zipfile(path)


def zip_member(archive: zipfile.ZipFile, name: str) -> str | None:
    """The member whose file name is `name` (at any depth, shallowest first), or None."""
    found = [
        info.filename
        for info in archive.infolist()
        if not info.is_dir()
        and info.filename.rsplit("/", 1)[-1] == name
        and not info.filename.startswith("__MACOSX/")
    ]
    return min(found, key=lambda n: (n.count("/"), n)) if found else None


@contextmanager
def open_text(path: Path, name: str, what: str) -> Iterator[IO[str]]:
    """The text of `name` in an export: the file itself, `name` inside a folder, or the
    member `name` inside a zip. Decoded as UTF-8 (a BOM is dropped); `NotThisKind` when
    it is not there."""
    if path.is_dir():
        inner = path / name
        if not inner.is_file():
            raise NotThisKind(f"not {what}: no {name} in {path}")
        with inner.open(encoding="utf-8-sig", errors="replace") as stream:
            yield stream
        return
    if is_zip(path):
        with zipfile.ZipFile(path) as archive:
            member = zip_member(archive, name)
            if member is None:
                raise NotThisKind(f"not {what}: no {name} in {path.name}")
            with open_member(archive, member) as raw:
                yield io.TextIOWrapper(raw, encoding="utf-8-sig", errors="replace")
        return
    if not path.is_file():
        raise NotThisKind(f"not {what}: {path} is not a file")
    with path.open(encoding="utf-8-sig", errors="replace") as stream:
        yield stream


def optional_text(path: Path, name: str, limit: int) -> bytes | None:
    """A side file of an export (`memories.json`, `projects.json`), or None when it has
    none; `OSError`, nothing read or inflated, when it is over `limit` bytes."""
    if path.is_dir():
        inner = path / name
        return file_bytes(inner, limit) if inner.is_file() else None
    if is_zip(path):
        with zipfile.ZipFile(path) as archive:
            member = zip_member(archive, name)
            return member_bytes(archive, member, limit) if member else None
    sibling = path.parent / name
    return file_bytes(sibling, limit) if path.name != name and sibling.is_file() else None


def member_bytes(archive: zipfile.ZipFile, member: str, limit: int) -> bytes:
    """A zip member's bytes; `OSError`, nothing inflated, when it is over `limit`. The size
    the zip states is checked: reading a member inflates no more than that."""
    size = archive.getinfo(member).file_size
    if size > limit:
        raise OSError(_over(member.rsplit("/", 1)[-1], size, limit))
    return read_member(archive, member)


def open_member(archive: zipfile.ZipFile, member: str | zipfile.ZipInfo) -> IO[bytes]:
    """A zip member opened to read; `OSError` when this Python cannot unpack it: packed
    with a password (none is ever asked for), or by a method it lacks (Deflate64, which
    Windows uses for large zips; PPMd). Raised as `OSError`, what an unreadable file of an
    export raises, so a reader that reports one bad file and goes on does so for this one
    too, instead of the whole import stopping on it."""
    info = member if isinstance(member, zipfile.ZipInfo) else archive.getinfo(member)
    name = info.filename.rsplit("/", 1)[-1]
    if info.flag_bits & _ENCRYPTED:
        raise OSError(f"{name} is encrypted (the zip has a password); not read")
    try:
        return archive.open(info)
    except NotImplementedError as exc:  # an unknown method, strong encryption
        method = f"zip method {info.compress_type}: {exc}"
        raise OSError(f"{name} is packed in a way privault cannot unpack ({method})") from None


def read_member(archive: zipfile.ZipFile, member: str | zipfile.ZipInfo) -> bytes:
    """A zip member's bytes, whole; `OSError` when it cannot be unpacked (`open_member`)
    or is damaged (`BROKEN_MEMBER`). The caller checks its size first."""
    try:
        with open_member(archive, member) as raw:
            return raw.read()
    except BROKEN_MEMBER as exc:
        name = member.filename if isinstance(member, zipfile.ZipInfo) else member
        raise OSError(f"{name.rsplit('/', 1)[-1]} is damaged ({exc})") from None


def file_bytes(file: Path, limit: int) -> bytes:
    """A file's bytes; `OSError`, nothing read, when it is over `limit`."""
    size = file.stat().st_size
    if size > limit:
        raise OSError(_over(file.name, size, limit))
    return file.read_bytes()


def _over(name: str, size: int, limit: int) -> str:
    return f"{name} is {size:,} bytes, over the {limit:,}-byte limit"


def inside(root: Path, file: Path) -> bool:
    """Whether `file`, its links followed, lies within the folder `root`. A link in an
    export's folder that leads out of it is not part of the export, and reading it would
    import whatever file it names."""
    try:
        return file.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # a loop of links
        return False


LEADS_NOWHERE = "a link that leads nowhere (its target is gone, or links loop); not read"


def folder_files(root: Path) -> tuple[list[Path], list[Path]]:
    """The files in the folder `root` and the folders under it, hidden folders left out, in
    path order (links to files among them: the reader checks each with `left_out`); and the
    links met on the way that are not walked: to folders, and those that lead nowhere (the
    walk would list one as a file). No link to a folder is walked into: one inside `root`
    holds files read where they lie (and may lead round in a loop), one outside it is no
    part of the export. A link under a hidden name is left out as a hidden folder is."""
    found: list[Path] = []
    linked: list[Path] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        linked += [Path(folder) / d for d in dirs if (Path(folder) / d).is_symlink()]
        for name in sorted(files):
            file = Path(folder) / name
            if not file.is_symlink() or file.exists():
                found.append(file)
            elif not name.startswith("."):
                linked.append(file)
    return found, linked


def left_out(root: Path, path: Path, name: str) -> str | None:
    """Why the file or folder `path`, met in the folder `root` (named `name` in the reason:
    'vault', 'export'), is not read, or None when it is read where it lies. Nothing outside
    `root` is read: a link out of it would import whatever file it names. A link that
    leads nowhere, or to a hidden folder of `root` (never walked), is said to be so, not
    passed over: the owner learns what the import could not bring in."""
    if not path.exists():  # False for a loop of links too
        return LEADS_NOWHERE
    what = "folder" if path.is_dir() else "file"
    if not inside(root, path):
        return f"a link to a {what} outside the {name} folder; not read"
    within = path.resolve().relative_to(root.resolve())
    # A file the walk met lies in no hidden folder: only a link can lead into one (`.trash`).
    folders = within.parts if what == "folder" else within.parts[:-1]
    if not any(part.startswith(".") for part in folders):
        return None
    if what == "folder":
        return f"a link to a hidden folder of the {name}; not read"
    return f"a link to a file in a hidden folder of the {name}; not read"


def head(path: Path, size: int = 4096) -> bytes:
    """The first bytes of a file (what kind detection looks at); none of a named pipe or a
    device, whose reading waits for a writer or never ends."""
    if not path.is_file():
        return b""
    try:
        with path.open("rb") as stream:
            return stream.read(size)
    except OSError:
        return b""


_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


def time_in_formats(text: str, forms: Iterable[str]) -> int | None:
    """`text` read by the first of the strptime `forms` that fits it, as epoch ms UTC (a
    zone-less time taken as UTC); None when none does."""
    for form in forms:
        try:
            moment = datetime.strptime(text, form).replace(tzinfo=UTC)
        except ValueError:
            continue
        return in_range_or_none(int(moment.timestamp() * 1000))
    return None


def source_time(value: Any) -> int | None:
    """A source's time as epoch ms UTC, or None when absent or unreadable.

    Numbers are epoch seconds (ms when they are too large to be seconds); text is ISO 8601
    (a zone-less one taken as UTC) or RFC 2822."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        seconds = float(value)
        if abs(seconds) > 1e11:  # milliseconds
            seconds /= 1000
        try:
            datetime.fromtimestamp(seconds, tz=UTC)  # a day of the calendar, or no time
        except (OverflowError, ValueError, OSError):
            return None
        return in_range_or_none(int(round(seconds * 1000)))
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if _NUMBER.match(text):
        return source_time(float(text))
    try:
        parsed = datetime.fromisoformat(text.replace("z", "Z").replace(" UTC", "+00:00"))
    except ValueError:
        try:
            parsed = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return in_range_or_none(int(parsed.timestamp() * 1000))


def when(ms: int | None) -> str:
    """A time as the reader sees it in an imported text: `2024-05-01 14:03 UTC`."""
    if ms is None:
        return ""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")
