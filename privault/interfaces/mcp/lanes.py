"""Which vault handle serves which call: reads in parallel, one writer, asks one at a time.

A server holds several `Vault` handles on the one file, all made by `Vault.sibling()`:
each has its own SQLite connection (WAL: readers never wait for the writer) and its own
facades, and all share one `Engines` (embedder, vector mirrors, detectors, chat model),
so nothing heavy is loaded twice. A handle is used by one thread at a time, as the whole
vault was before; only the shared engines meet several threads, and `Engines` says how
each copes with that.

Why handles and not one `Vault` whose context hands each thread its own connection: the
facades keep per-vault caches (known entities, policies, detectors, which masked entries
were checked) and read `context.conn` in many places below this package. A connection per
thread behind one context would make every one of those caches shared mutable state;
a handle per thread keeps each of them single-threaded, and the rule "one thread per
handle" is the same rule the single-lock server already kept.

The lanes:

* **read** — a pool of up to `readers` handles, opened on demand: read tools, token
  checks, caller lookups and the audit rows of calls refused before a body ran. A call
  takes a free handle for its length.
* **write** — one handle: write tools queue on it, and each runs its write and its audit
  row in one `BEGIN IMMEDIATE` transaction. Every writer in the process (readers' audit
  rows, the owner's page, the scheduler) also queues on the file's writer lock before
  SQLite's (`store.connection.write`).
* **ask** — one handle and a bounded queue: one ask runs (the local model answers one at a
  time anyway, under its own lock), up to `ask_queue` wait, and one more is refused at once
  with `LaneBusy` instead of waiting without end. An ask holds its own handle while the
  model writes, never a reader's.
* **primary** — the vault the server was opened with, for the owner's page
  (`in_primary(fn)`, where `fn` closes over that vault), under a lock of its own.

With `readers=0` every lane is the primary under one lock: the single-lock server, kept
for the in-process test server and as the baseline of `benchmarks/mcp.py`.

Every call in every lane is counted in the lanes' `Activity`, which the server's clock
reads: its long background work (the strong model's pass) steps aside while calls run
and for a moment after.
"""

from __future__ import annotations

import math
import queue
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import anyio

from privault.vault import Vault

T = TypeVar("T")
DEFAULT_READERS = 4
DEFAULT_ASK_QUEUE = 4


class LaneBusy(Exception):
    """A lane cannot take the call now (the ask queue is full): retry later."""


class Activity:
    """Whether a server is serving calls, across its lanes: busy while any call runs and
    for `quiet` seconds after the last one ended (an agent's next call is usually that
    close behind its last)."""

    def __init__(self, quiet: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.quiet = quiet
        self._clock = clock
        self._lock = threading.Lock()
        self._calls = 0
        self._ended = -math.inf  # when the last call ended, by `clock`

    @contextmanager
    def call(self) -> Iterator[None]:
        """Count a call for as long as the block runs."""
        with self._lock:
            self._calls += 1
        try:
            yield
        finally:
            with self._lock:
                self._calls -= 1
                self._ended = self._clock()

    def busy(self) -> bool:
        """True while a call runs, or one ended less than `quiet` seconds ago."""
        with self._lock:
            return self._calls > 0 or self._clock() - self._ended < self.quiet


class Lanes:
    """The handles of one server and the lanes calls run in (see the module docstring)."""

    def __init__(
        self,
        primary: Vault,
        *,
        readers: int = DEFAULT_READERS,
        ask_queue: int = DEFAULT_ASK_QUEUE,
        open_handle: Callable[[], Vault] | None = None,
        activity: Activity | None = None,
    ) -> None:
        if readers < 0 or ask_queue < 0:
            raise ValueError("readers and ask_queue cannot be negative")
        self.primary = primary
        self.readers = readers
        self.ask_queue = ask_queue
        self._open_handle = open_handle or primary.sibling
        self.activity = activity or Activity()
        self._primary_lock = threading.Lock()
        self._guard = threading.Lock()  # the handle list and counts below
        self._free: queue.LifoQueue[Vault] = queue.LifoQueue()  # warm handles first
        self._opened: list[Vault] = []
        self._reader_count = 0
        self._writer: Vault | None = None
        self._writer_lock = threading.Lock()
        self._asker: Vault | None = None
        self._asker_lock = threading.Lock()
        self._asks = 0  # running + waiting

    @property
    def asks(self) -> int:
        """Asks running or waiting now."""
        with self._guard:
            return self._asks

    @property
    def single(self) -> bool:
        """True when every call shares the primary handle under one lock."""
        return self.readers == 0

    # ---- the lanes ---------------------------------------------------------------------

    async def in_primary(self, fn: Callable[[], T]) -> T:
        """Run `fn` on a worker thread with the primary vault to itself."""
        return await anyio.to_thread.run_sync(self._on_primary, lambda _vault: fn())

    async def read(self, fn: Callable[[Vault], T]) -> T:
        """Run `fn(handle)` on a worker thread with a reader handle to itself."""
        if self.single:
            return await anyio.to_thread.run_sync(self._on_primary, fn)
        return await anyio.to_thread.run_sync(self._on_reader, fn)

    async def write(self, fn: Callable[[Vault], T]) -> T:
        """Run `fn(handle)` on a worker thread on the writer handle, after earlier writes."""
        if self.single:
            return await anyio.to_thread.run_sync(self._on_primary, fn)
        return await anyio.to_thread.run_sync(self._on_writer, fn)

    async def ask(self, fn: Callable[[Vault], T]) -> T:
        """Run `fn(handle)` on the ask handle once the asks before it are done; `LaneBusy`
        at once when one runs and `ask_queue` more already wait."""
        with self._guard:
            if self._asks > self.ask_queue:
                raise LaneBusy(
                    f"{self._asks} questions are being answered or waiting; retry in a few seconds"
                )
            self._asks += 1
        try:
            run = self._on_primary if self.single else self._on_asker
            return await anyio.to_thread.run_sync(run, fn)
        finally:
            with self._guard:
                self._asks -= 1

    # ---- on the worker thread ----------------------------------------------------------

    def _on_primary(self, fn: Callable[[Vault], T]) -> T:
        with self.activity.call(), self._primary_lock:
            return fn(self.primary)

    def _on_reader(self, fn: Callable[[Vault], T]) -> T:
        with self.activity.call():
            return self._with_reader(fn)

    def _with_reader(self, fn: Callable[[Vault], T]) -> T:
        handle = self._take_reader()
        try:
            return fn(handle)
        finally:
            with self._guard:
                current = any(handle is kept for kept in self._opened)
            if current:  # not from before a `close()`
                self._free.put(handle)

    def _take_reader(self) -> Vault:
        try:
            return self._free.get_nowait()
        except queue.Empty:
            pass
        with self._guard:
            may_open = self._reader_count < self.readers
            if may_open:
                self._reader_count += 1
        if not may_open:
            return self._free.get()  # every reader is busy: wait for the first one back
        try:
            return self._open()
        except BaseException:
            with self._guard:
                self._reader_count -= 1
            raise

    def _on_writer(self, fn: Callable[[Vault], T]) -> T:
        with self.activity.call(), self._writer_lock:
            if self._writer is None:
                self._writer = self._open()
            return fn(self._writer)

    def _on_asker(self, fn: Callable[[Vault], T]) -> T:
        with self.activity.call(), self._asker_lock:
            if self._asker is None:
                self._asker = self._open()
            return fn(self._asker)

    def _open(self) -> Vault:
        handle = self._open_handle()
        with self._guard:
            self._opened.append(handle)
        return handle

    # ---- lifecycle ---------------------------------------------------------------------

    def close(self) -> None:
        """Close every handle this opened (not the primary), once no call is in flight;
        later calls open new ones."""
        with self._writer_lock, self._asker_lock, self._guard:
            opened, self._opened = self._opened, []
            self._writer = self._asker = None
            self._reader_count = 0
            self._free = queue.LifoQueue()
        for handle in opened:
            handle.close()
