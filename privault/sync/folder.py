"""A sync folder: one sub-folder per device, each holding that device's change files.

A file-sync tool (Syncthing, a cloud drive, a mounted bucket) keeps the folder the same
on every device; privault never touches the live vault file there. A device only writes
into its own sub-folder, so two devices never write the same file. Files are written
under a hidden temporary name and renamed when complete; a file that is still arriving
fails its checks and is tried again at the next sync. A file is named by the local change
number it runs up to, plus a random tail so a restored vault never reuses a name.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from privault.errors import InputError

SUFFIX = ".pvb"
_NAME = re.compile(r"^(\d{12})-[0-9a-f]{8}\.pvb\Z")
_DEVICE = re.compile(r"^dev_[0-9a-f]{12}\Z")


@dataclass(frozen=True)
class ChangeFile:
    """One device's change file in the folder."""

    device: str
    name: str
    path: Path


def open_file(path: Path) -> IO[bytes]:
    """`path` opened for reading, when it is a regular file (OSError otherwise). Anyone who
    can write to a sync folder can leave a named pipe there, and opening one waits for a
    writer forever: it is opened without waiting, and refused."""
    handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            raise OSError(f"{path.name} is not a regular file")
        os.set_blocking(handle, True)
        return os.fdopen(handle, "rb")
    except BaseException:
        os.close(handle)
        raise


def check_folder(folder: Path) -> Path:
    """The folder, created if missing; InputError when it cannot be used."""
    target = folder.expanduser()
    if target.exists() and not target.is_dir():
        raise InputError(f"{target} is not a folder")
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot use sync folder {target}: {exc.strerror or exc}") from None
    return target


def written_up_to(folder: Path, device: str) -> int:
    """The highest local change number this device has written into the folder (0: none)."""
    own = folder / device
    if not own.is_dir():
        return 0
    numbers = [int(m.group(1)) for p in own.iterdir() if (m := _NAME.match(p.name))]
    return max(numbers, default=0)


@contextmanager
def atomic_file(path: Path) -> Iterator[IO[bytes]]:
    """A file written under a hidden temporary name beside `path`: synced to disk and
    renamed to `path` when the block ends, removed if it raises. A reader never sees a
    half-written file, and a failed write leaves what was at `path` as it was."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.part")
    try:
        with open(temporary, "xb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        temporary.replace(path)
    finally:
        temporary.unlink(missing_ok=True)


def write_file(folder: Path, device: str, cursor: int, fill: Callable[[IO[bytes]], object]) -> Path:
    """Write one change file atomically, its bytes written by `fill`; returns its path."""
    own = folder / device
    own.mkdir(exist_ok=True)
    name = f"{cursor:012d}-{secrets.token_hex(4)}{SUFFIX}"
    with atomic_file(own / name) as handle:
        fill(handle)
    return own / name


def devices(folder: Path) -> list[str]:
    """Device ids that have a sub-folder here."""
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and _DEVICE.match(p.name))


def peer_files(folder: Path, device: str) -> list[ChangeFile]:
    """Every other device's change files, oldest first per device."""
    found = []
    for peer in devices(folder):
        if peer == device:
            continue
        for path in sorted((folder / peer).iterdir()):
            if _NAME.match(path.name):
                found.append(ChangeFile(peer, path.name, path))
    return found
