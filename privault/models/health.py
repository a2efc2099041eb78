"""The model workers' states, kept beside the vault file so every process can show them.

`privault serve` runs the workers, but the owner asks `privault status` from another
process: each process that supervises workers writes their `Health` here
(`VAULT.models.json`), keyed by model and process, and drops its rows when it exits. A row
whose process is gone is not shown. The file holds no private text — names, states and the
reason a worker stopped (a signal, a timeout) — and is written whole (a temporary file,
then a rename) under an advisory lock, so readers never see half of it.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from privault.models.supervisor import Health


def board_path(vault: Path) -> Path:
    """The state file of a vault's model workers (beside the vault file)."""
    return vault.with_name(vault.name + ".models.json")


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


_BOARDS: dict[Path, HealthBoard] = {}
_BOARDS_LOCK = threading.Lock()


def board_for(vault: Path) -> HealthBoard:
    """The one board of this process for a vault file."""
    path = board_path(vault.resolve())
    with _BOARDS_LOCK:
        found = _BOARDS.get(path)
        if found is None:
            found = _BOARDS[path] = HealthBoard(path)
        return found


class HealthBoard:
    """This process's rows of the state file (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._mine: set[str] = set()
        atexit.register(self.clear)

    def record(self, health: Health) -> None:
        """Write one worker's state (called by its `ModelProcess` on every change)."""
        key = f"{health.name}@{os.getpid()}"
        row = health.to_dict() | {"process": os.getpid(), "updated_at": int(time.time() * 1000)}
        with self._lock, self._locked():
            rows = _read(self.path)
            rows[key] = row
            self._mine.add(key)
            _write(self.path, rows)

    def clear(self) -> None:
        """Drop this process's rows (at exit: its workers end with it)."""
        with self._lock:
            if not self._mine:
                return
            with contextlib.suppress(OSError), self._locked():
                rows = _read(self.path)
                for key in self._mine:
                    rows.pop(key, None)
                _write(self.path, rows)
            self._mine.clear()

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            import fcntl
        except ImportError:  # no flock: writers in one process are still serialised
            yield
            return
        with open(self.path.with_name(self.path.name + ".lock"), "a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def read_board(path: Path) -> list[dict[str, Any]]:
    """The rows of live processes, by model name."""
    rows = _read(path)
    live = [row for row in rows.values() if _alive(int(row.get("process", 0)))]
    return sorted(live, key=lambda row: (str(row.get("name")), int(row.get("process", 0))))


def _read(path: Path) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(path: Path, rows: dict[str, dict[str, Any]]) -> None:
    handle, scratch = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(rows, out, indent=1, sort_keys=True)
        os.replace(scratch, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(scratch)
        raise
