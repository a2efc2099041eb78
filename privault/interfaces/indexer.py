"""The background indexer: who finishes deferred writes, and how only one does at a time.

`privault note` and `privault add` store text at once and leave the PII scan and embedding
in the vault's index queue (`vault.indexing`). Something must then run it:

* `privault serve` does, in its clock (`scheduler.Clock`), for as long as it runs;
* otherwise the CLI starts a worker — this module run as `python -m
  privault.interfaces.indexer` — detached from the terminal, after any command that finds
  work queued and no indexer running;
* `privault index` runs it in the foreground, with a progress bar.

One indexer per vault file at a time holds an advisory lock on `VAULT.indexer.lock`
(released by the OS when its process dies, even by SIGKILL). The queue's own leases make
a second indexer harmless, the lock only saves loading the models twice. A worker that
finds the queue empty releases the lock, then looks once more: work queued between its
last look and the release would otherwise wait for the next command.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

log = logging.getLogger("privault.indexer")

IDLE_POLL_SECONDS = 1.0  # how often a running indexer looks for new work when idle
LOG_BYTES = 1_000_000  # the worker's log is started afresh beyond this


def lock_path(vault: Path) -> Path:
    """The lock file of a vault's indexer (beside the vault file)."""
    return vault.with_name(vault.name + ".indexer.lock")


class ProcessLock:
    """An advisory lock on a file that says one process does a job (the OS drops it when
    the holder dies, even by SIGKILL)."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._file: IO[str] | None = None

    def acquire(self) -> bool:
        """Take the lock if nobody holds it; True when this process holds it now."""
        if self._file is not None:
            return True
        try:
            import fcntl
        except ImportError:  # no flock (Windows): the queue's leases still keep work single
            return True
        handle = open(self._path, "a+")  # noqa: SIM115 - held for as long as the lock
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            return False
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._file = handle
        return True

    def release(self) -> None:
        """Let another process take over (closing the file drops the lock)."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def held_elsewhere(self) -> bool:
        """Whether another process holds the lock."""
        if self._file is not None:
            return False
        if not self.acquire():
            return True
        self.release()
        return False


class IndexerLock(ProcessLock):
    """The lock that says an indexer runs for one vault file."""

    def __init__(self, vault: Path) -> None:
        super().__init__(lock_path(vault))


def kick(vault: Path, has_work: bool) -> bool:
    """Start a detached worker for `vault` when it `has_work` and no indexer runs; return
    whether one was started."""
    if not has_work or IndexerLock(vault).held_elsewhere():
        return False
    log_file = vault.with_name(vault.name + ".indexer.log")
    spawn_detached("privault.interfaces.indexer", vault, log_file)
    return True


def spawn_detached(module: str, vault: Path, log_file: Path) -> None:
    """Run `python -m MODULE VAULT` detached from the terminal (closing it does not stop
    the work), its output appended to `log_file` (started afresh beyond LOG_BYTES)."""
    with contextlib.suppress(OSError):
        if log_file.stat().st_size > LOG_BYTES:
            log_file.unlink()
    with open(log_file, "ab") as output:
        subprocess.Popen(
            [sys.executable, "-m", module, str(vault)],
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
            start_new_session=True,
            close_fds=True,
            env={**os.environ, "PRIVAULT_VAULT": str(vault)},
        )


def run_until_idle(vault: Any, *, stop: Any = None) -> int:
    """Run the vault's indexer until it has nothing to do (or `stop()` says so); return
    the sections and label sets finished. A failing batch ends the run (it is retried
    after its backoff)."""
    from privault.caller import Caller

    owner, done = Caller.owner(), 0
    while stop is None or not stop():
        step = vault.indexing.step(caller=owner)
        if step.error:
            log.warning("indexing batch failed (retried later): %s", step.error)
            break
        if step.idle:
            break
        done += step.done
    return done


@contextlib.contextmanager
def _logging() -> Iterator[None]:
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s indexer[%(process)d] %(levelname)s %(message)s"
    )
    yield


def main(argv: list[str] | None = None) -> int:
    """The detached worker: index `argv[0]` (a vault file) until its queue is empty."""
    from privault.interfaces.cli.common import open_vault

    args = sys.argv[1:] if argv is None else argv
    vault_file = Path(args[0]) if args else None
    with _logging():
        from privault.interfaces import config

        path = vault_file or config.vault_path()
        lock = IndexerLock(path)
        if not lock.acquire():
            return 0  # another indexer runs for this vault
        started = time.monotonic()
        done = 0
        with contextlib.closing(open_vault()) as vault:
            while True:
                done += run_until_idle(vault)
                lock.release()
                # Work queued after the last look and before the release found the lock
                # held and started nobody: look again, and carry on if it is there.
                if not vault.indexing.has_work() or not lock.acquire():
                    break
        log.info("indexed %d sections and label sets in %.1f s", done, time.monotonic() - started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
