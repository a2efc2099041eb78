"""The clock inside `privault serve`: due watches are polled, stale PII spans re-scanned,
deferred writes indexed, index windows given the strong model's vectors, and (with
`--sync DIR`) the vault is synced through a shared folder.

APScheduler drives interval jobs in a background thread. They run on a vault opened
just for them (its own SQLite connection; WAL lets it write beside the server's), so the
clock never shares a connection with request handlers. A job that fails is logged and
tried again at the next tick: one bad watch or one bad section never stops the clock.

The strong model's pass is the one long CPU-bound job (about an hour for 10,000 windows
on two cores). It runs in steps of a few windows and ends its tick at the first step that
finds the server busy (`busy`: a call is being served, or one ended a moment ago), so
agents' calls never share the cores with it; the next tick tries again.

The indexer (`interfaces.indexer`) runs on a vault of its own too, so a long batch never
holds up a poll. While serve runs it holds the vault's indexer lock: a CLI command that
queues work then leaves it to the server instead of starting a worker. If a worker was
already running when serve started, the clock takes the lock once that worker is done.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from privault.caller import Caller
from privault.interfaces.indexer import IndexerLock, run_until_idle
from privault.vault import Vault

log = logging.getLogger("privault.scheduler")
POLL_SECONDS = 60
RESCAN_SECONDS = 30
RESCAN_BATCH = 50
INDEX_SECONDS = 2  # deferred writes wait at most about this long for the server's indexer
STRONG_SECONDS = 20
STRONG_BATCH = 64  # at most this many windows a tick of the strong model's pass
STRONG_STEP = 8  # windows a step (seconds on 1 thread): a call shares the cores for one at most
STRONG_TICK_SECONDS = 15  # no new step after this, so a tick ends before the next is due


@dataclass(frozen=True)
class SyncJob:
    """Sync through `folder` every `seconds`, with the bundle secret."""

    folder: Path
    secret: str
    seconds: int


class Clock:
    """Background jobs for one vault file; `start()` then `stop()`."""

    def __init__(
        self,
        open_vault: Callable[[], Vault],
        sync: SyncJob | None = None,
        *,
        poll_seconds: float = POLL_SECONDS,
        busy: Callable[[], bool] | None = None,
    ):
        self._open_vault = open_vault
        self._sync = sync
        self._poll_seconds = poll_seconds
        self._busy = busy or (lambda: False)
        self._vault: Vault | None = None
        self._strong_paused: str | None = None  # the last reason the strong pass stopped
        self._indexing_vault: Vault | None = None
        self._lock: IndexerLock | None = None
        self._indexing = threading.Lock()  # one indexing run at a time, whoever calls it
        self._stopping = False
        self._scheduler: Any = None

    def start(self) -> None:
        """Open the clock's vault and start polling and re-scanning."""
        from apscheduler.schedulers.background import BackgroundScheduler

        self._vault = self._open_vault()
        scheduler = BackgroundScheduler(timezone="UTC")
        scheduler.add_job(
            self.poll,
            "interval",
            seconds=self._poll_seconds,
            max_instances=1,
            coalesce=True,
            id="poll",
        )
        self._lock = IndexerLock(self._vault.path)
        scheduler.add_job(
            self.index,
            "interval",
            seconds=INDEX_SECONDS,
            max_instances=1,
            coalesce=True,
            id="index",
            next_run_time=datetime.now(UTC),  # work queued before serve started: now
        )
        scheduler.add_job(
            self.rescan,
            "interval",
            seconds=RESCAN_SECONDS,
            max_instances=1,
            coalesce=True,
            id="rescan",
        )
        scheduler.add_job(
            self.strong_index,
            "interval",
            seconds=STRONG_SECONDS,
            max_instances=1,
            coalesce=True,
            id="strong",
        )
        if self._sync is not None:
            scheduler.add_job(
                self.sync,
                "interval",
                seconds=self._sync.seconds,
                max_instances=1,
                coalesce=True,
                id="sync",
            )
        scheduler.start()
        self._scheduler = scheduler

    def sync(self) -> None:
        """One sync round through the shared folder."""
        assert self._vault is not None and self._sync is not None
        try:
            report = self._vault.sync.sync(
                self._sync.folder, secret=self._sync.secret, caller=Caller.owner()
            )
            for path, reason in report.refused:
                log.warning("sync: refused %s: %s", path, reason)
            if report.written or report.imported:
                log.info(
                    "synced: wrote %s, read %d file(s)", bool(report.written), len(report.imported)
                )
        except Exception:
            log.exception("sync failed")

    def poll(self) -> None:
        """Run every due watch once."""
        assert self._vault is not None
        try:
            report = self._vault.watches.poll(caller=Caller.owner()).report
            if report.runs:
                log.info("polled %d watch runs", len(report.runs))
        except Exception:  # keep the clock alive; the next tick tries again
            log.exception("watch poll failed")

    def rescan(self) -> None:
        """Bring a batch of sections and statements up to the current detector."""
        assert self._vault is not None
        try:
            done = self._vault.privacy.rescan(RESCAN_BATCH)
            done += self._vault.statements.rescan(RESCAN_BATCH)
            if done:
                log.info("re-scanned %d texts for PII", done)
        except Exception:
            log.exception("PII re-scan failed")

    def strong_index(self) -> None:
        """Give up to `STRONG_BATCH` index windows their strong vectors, a step at a time
        while the server is idle (nothing without the model)."""
        assert self._vault is not None
        deadline = time.monotonic() + STRONG_TICK_SECONDS

        def stop() -> bool:
            return self._stopping or self._busy() or time.monotonic() > deadline

        try:
            report = self._vault.strong.index(
                caller=Caller.owner(), limit=STRONG_BATCH, stop=stop, round_windows=STRONG_STEP
            )
            if report.windows:
                log.info("strong vectors: %d windows, %d left", report.windows, report.remaining)
            if report.stopped and report.stopped != self._strong_paused:
                log.warning("strong vectors paused: %s", report.stopped)  # once per cause
            self._strong_paused = report.stopped
        except Exception:
            log.exception("strong indexing failed")

    def index(self) -> None:
        """Finish what deferred writes left in the index queue (see the module docstring)."""
        assert self._lock is not None
        with self._indexing:  # one run at a time: a direct call waits for the scheduled one
            if not self._lock.acquire():
                return  # a worker started before serve still runs; it will be done soon
            try:
                if self._indexing_vault is None:
                    self._indexing_vault = self._open_vault()
                done = run_until_idle(self._indexing_vault, stop=lambda: self._stopping)
                if done:
                    log.info("indexed %d sections and titles", done)
            except Exception:
                log.exception("indexing failed")

    def stop(self) -> None:
        """Stop the jobs (waiting for a running one) and close the clock's vaults."""
        self._stopping = True  # a long indexing run ends after its current batch
        if self._scheduler is not None:
            self._scheduler.shutdown(wait=True)
        for vault in (self._vault, self._indexing_vault):
            if vault is not None:
                vault.close()
        if self._lock is not None:
            self._lock.release()
