"""Watches through the facade (`vault.watches`): each operation takes a `Caller`.

The domain layer (`privault.watches`) schedules, leases, fetches and records; it knows
nothing of callers or privacy. Here:

* **Who may do what.** Agents may list, show and add watches and reminders, but only
  `url`, `search` and `remind` ones: never `folder` (no filesystem access for agents) and
  never `allow_private` (loopback and LAN reach is the owner's decision). A read-only agent
  changes nothing. An agent may cancel, pause, resume or run only a watch it could have
  created itself, and may acknowledge a reminder it can see. `poll` runs every due watch
  of every shelf, so it is the owner's (the scheduler acts as the owner). Watches and
  reminders on shelves a caller may not see do not exist for it.
* **What comes back.** A watch's target (a URL, a query, a reminder's text), its last
  error, run summaries, diffs and errors, a reminder's text: none of these are sectioned
  documents with spans stored at write time, so each is detected live (the detector plus
  the vault's known entities) and gated by the caller's policy for the watch's shelf,
  like a statement that was never scanned (`WatchView`). Every reply carries the
  `Privacy` summary.
* **Where results go.** `WatchFiler` is the `Filer` the poll loop writes through: the
  document write path, as the owner (see its docstring).

The watches package pulls in httpx (~0.3 s to import); every CLI command opens a vault, so
it is imported only when a watch operation runs.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from privault.caller import Caller
from privault.errors import AccessDenied, InputError, NotFound
from privault.store import watches as watch_store
from privault.timeutil import Time, now_ms, to_ms
from privault.vault.bounds import DEFAULT_REMINDER_LIMIT, MAX_STORED_INT, REMINDER_LIMITS
from privault.vault.context import VaultContext
from privault.vault.results import Privacy
from privault.vault.watch_filer import WatchFiler
from privault.vault.watch_results import (
    PollResponse,
    ReminderList,
    ReminderResponse,
    RunResponse,
    WatchList,
    WatchResponse,
    WatchView,
)
from privault.watches import reminders as reminder_store
from privault.watches.model import Watch, WatchRun

if TYPE_CHECKING:
    from privault.watches.actions import SearchBackend
    from privault.watches.fetcher import Fetcher

AGENT_KINDS = ("url", "search", "remind")


class VaultWatches:
    """Watches and reminders of one vault, for callers (see `privault.watches`).

    The search backend is vault configuration that the interface reads and passes in (here
    or per call); the core never reads a config file. One `Fetcher` (one connection pool)
    serves every run; `close()` releases it.
    """

    def __init__(
        self,
        context: VaultContext,
        *,
        search: SearchBackend | str | None = None,
        fetcher: Fetcher | None = None,
    ) -> None:
        self._context = context
        self._conn = context.conn
        self.filer = WatchFiler(context)
        self.search_backend = search
        self._fetcher = fetcher

    @property
    def fetcher(self) -> Fetcher:
        """The one safe HTTP client, made on first use."""
        if self._fetcher is None:
            from privault.watches.fetcher import Fetcher

            self._fetcher = Fetcher()
        return self._fetcher

    def close(self) -> None:
        """Release the HTTP client (the vault file is the vault's to close)."""
        if self._fetcher is not None:
            self._fetcher.close()
            self._fetcher = None

    # ---- plumbing --------------------------------------------------------------------

    def _backend(self, search: SearchBackend | str | None) -> SearchBackend | None:
        from privault.watches.actions import SearchBackend

        chosen = search if search is not None else self.search_backend
        return SearchBackend(chosen) if isinstance(chosen, str) else chosen

    def _writer(self, caller: Caller) -> WatchView:
        view = WatchView(self._context.privacy, caller)  # unknown callers are refused first
        if caller.read_only:
            raise AccessDenied(f"agent {caller.name} is read-only")
        return view

    def _visible(self, watch_id: str, caller: Caller) -> Watch:
        from privault.watches.manage import get_watch

        watch = get_watch(self._conn, watch_id)
        if watch.shelf in self._context.hidden_shelves(caller):
            raise NotFound(f"no watch {watch_id!r}; `privault watch list` shows the ids")
        return watch

    def _changeable(self, watch_id: str, caller: Caller) -> Watch:
        watch = self._visible(watch_id, caller)
        if not caller.is_owner and (watch.kind not in AGENT_KINDS or watch.allow_private):
            raise AccessDenied(
                f"watch {watch_id} reaches the owner's files or private network; "
                "only the owner can change or run it"
            )
        return watch

    def _one(self, watch: Watch, view: WatchView, runs: tuple[WatchRun, ...] = ()) -> WatchResponse:
        gated = tuple(view.run(run, watch.shelf) for run in runs)
        return WatchResponse(view.watch(watch), gated, view.privacy)

    # ---- watches ---------------------------------------------------------------------

    def add(
        self,
        kind: str,
        target: str,
        *,
        caller: Caller,
        every: str | None = None,
        at: Time = None,
        shelf: str = "default",
        allow_private: bool = False,
        max_catchup: int = 1,
        fetch_pages: bool = False,
    ) -> WatchResponse:
        """Add a watch: `every` an interval (`1h30m`) or cron expression, `at` a first (or
        only) run as ISO 8601 text or epoch ms. `fetch_pages` (search watches) files the
        text of each new result page too."""
        from privault.watches.manage import add_watch

        view = self._writer(caller)
        shelf = self._context.check_shelf_name(caller, shelf)
        if not caller.is_owner and kind == "folder":
            raise AccessDenied("agents cannot watch folders: only the owner gives file access")
        if not caller.is_owner and allow_private:
            raise AccessDenied("only the owner can let a watch reach private or local addresses")
        if fetch_pages and kind != "search":
            raise InputError("fetch_pages applies to search watches only")
        if not caller.is_owner:
            _check_floor(every)
        watch = add_watch(
            self._conn,
            kind,
            target,
            every=every,
            at_ms=to_ms(at, "at"),
            shelf=shelf,
            allow_private=allow_private,
            max_catchup=max_catchup,
            options={"fetch_pages": True} if fetch_pages else {},
            author="" if caller.is_owner else caller.name,
        )
        return self._one(watch, view)

    def show(self, watch_id: str, *, caller: Caller, runs: int = 20) -> WatchResponse:
        """One watch with its most recent runs (errors included), newest first."""
        from privault.watches.manage import watch_runs

        view = WatchView(self._context.privacy, caller)
        watch = self._visible(watch_id, caller)
        return self._one(watch, view, tuple(watch_runs(self._conn, watch.id, limit=runs)))

    def recent(
        self, *, caller: Caller, limit: int = 100, runs: int = 10, include_cancelled: bool = False
    ) -> WatchHistory:
        """The newest `limit` watches, newest first, each with its `runs` most recent runs:
        `show` for many watches in one read (one gate, one query for all their runs)."""
        from privault.watches.manage import list_watches, recent_runs

        if not 1 <= limit <= 1000 or not 0 <= runs <= 100:
            raise InputError("limit must be 1-1000 watches and runs 0-100 per watch")
        view = WatchView(self._context.privacy, caller)
        hidden = set(self._context.hidden_shelves(caller))
        found = list_watches(self._conn, include_cancelled=include_cancelled)
        visible = [watch for watch in found if watch.shelf not in hidden]
        newest = visible[::-1][:limit]
        by_watch = recent_runs(self._conn, [w.id for w in newest], limit=runs) if runs else {}
        gated = [
            (
                view.watch(watch),
                tuple(view.run(run, watch.shelf) for run in by_watch.get(watch.id, ())),
            )
            for watch in newest
        ]
        privacy = view.privacy  # of the whole reply, once every text in it was gated
        shown = tuple(WatchResponse(watch, done, privacy) for watch, done in gated)
        return WatchHistory(shown, len(visible), privacy)

    def cancel(self, watch_id: str, *, caller: Caller) -> WatchResponse:
        """Stop a watch for good; its runs and what it filed are kept."""
        from privault.watches.manage import cancel_watch

        view = self._writer(caller)
        self._changeable(watch_id, caller)
        return self._one(cancel_watch(self._conn, watch_id), view)

    def pause(self, watch_id: str, *, caller: Caller) -> WatchResponse:
        """Stop planning runs until resumed."""
        from privault.watches.manage import pause_watch

        view = self._writer(caller)
        self._changeable(watch_id, caller)
        return self._one(pause_watch(self._conn, watch_id), view)

    def resume(self, watch_id: str, *, caller: Caller) -> WatchResponse:
        """Plan runs again from the next planned time (runs missed while paused are skipped)."""
        from privault.watches.manage import resume_watch

        view = self._writer(caller)
        self._changeable(watch_id, caller)
        return self._one(resume_watch(self._conn, watch_id), view)

    def run(
        self,
        watch_id: str,
        *,
        caller: Caller,
        now: Time = None,
        search: SearchBackend | str | None = None,
    ) -> RunResponse:
        """Run one watch now, outside its schedule (its planned runs are not shifted)."""
        from privault.watches.poll import run_now

        view = self._writer(caller)
        watch = self._changeable(watch_id, caller)
        done = run_now(
            self._conn,
            self.filer,
            self.fetcher,
            watch.id,
            now_ms=to_ms(now, "now"),
            search=self._backend(search),
        )
        return RunResponse(None if done is None else view.run(done, watch.shelf), view.privacy)

    def poll(
        self, *, caller: Caller, now: Time = None, search: SearchBackend | str | None = None
    ) -> PollResponse:
        """Run every due watch once (`privault watch poll`, cron, the scheduler's clock).

        `now` fixes the clock for the whole poll (tests, `--now`); otherwise real time.
        """
        from privault.watches.poll import poll

        view = WatchView(self._context.privacy, caller)
        if not caller.is_owner:
            raise AccessDenied("only the owner (or the scheduler) polls every watch")
        report = poll(
            self._conn,
            self.filer,
            self.fetcher,
            now_ms=to_ms(now, "now"),
            search=self._backend(search),
        )
        shelves = watch_store.shelves_of_watches(self._conn)
        runs = tuple(view.run(run, shelves.get(run.watch_id, "default")) for run in report.runs)
        return PollResponse(dataclasses.replace(report, runs=runs), runs, view.privacy)

    # ---- reminders -------------------------------------------------------------------

    def run_times(self, *, caller: Caller) -> tuple[int | None, int | None]:
        """(when a watch last ran, when the next one is due): the owner's check that the
        scheduler (`privault serve` or a cron `privault watch poll`) is running."""
        if not caller.is_owner:
            raise AccessDenied("the scheduler's state is the owner's")
        return watch_store.run_times(self._conn)

    def reminders(
        self,
        *,
        caller: Caller,
        include_acked: bool = False,
        limit: int = DEFAULT_REMINDER_LIMIT,
        after: str | None = None,
    ) -> ReminderList:
        """Reminders that came due and are neither acknowledged nor snoozed, the longest
        due first; with `include_acked`, all of them, the newest due first. At most `limit`:
        the reply counts the rest (`more`), and its `next` passed back as `after` lists them."""
        low, high = REMINDER_LIMITS
        if not low <= limit <= high:
            raise InputError(f"limit must be {low}-{high} reminders")
        listing = "all" if include_acked else "due"
        return self._listing(caller, listing, limit=limit, after=_read_cursor(after))

    def snoozed(self, *, caller: Caller) -> ReminderList:
        """Every reminder snoozed off the due list for now, the soonest back first: asked
        for as such, so none hides behind a limit on the others."""
        return self._listing(caller, "snoozed")

    def acknowledged(
        self, *, caller: Caller, limit: int = 20, after: tuple[int, str] | None = None
    ) -> ReminderList:
        """Acknowledged reminders, the latest acknowledged first, a page at a time: `after`
        is the (acked_at, id) of the last one of the page before."""
        return self._listing(caller, "acked", limit=limit, after=after)

    def count_acknowledged(self, *, caller: Caller) -> int:
        """How many reminders this caller can see are acknowledged."""
        hidden = self._context.hidden_shelves(caller)
        return reminder_store.count_reminders(self._conn, "acked", hidden=hidden)

    def _listing(
        self,
        caller: Caller,
        listing: str,
        *,
        limit: int | None = None,
        after: tuple[int, str] | None = None,
    ) -> ReminderList:
        """One list of reminders (see `store.watches.LISTINGS`) for `caller`. Shelves it
        may not see are left out by the query, so the rest are counted after the same
        filter as those listed: a count that took them in would tell an agent what they
        hold. One clock for both reads, so a snooze ending between them moves nothing."""
        view = WatchView(self._context.privacy, caller)  # unknown callers are refused first
        hidden, now = self._context.hidden_shelves(caller), now_ms()
        found = reminder_store.list_reminders(
            self._conn, listing, now_ms=now, hidden=hidden, after=after, limit=limit
        )
        more, following = 0, None
        if found and len(found) == limit:  # a full page: there may be more past it
            last = reminder_store.cursor(found[-1], listing)
            more = reminder_store.count_reminders(
                self._conn, listing, now_ms=now, hidden=hidden, after=last
            )
            following = f"{last[0]}.{last[1]}" if more else None
        return ReminderList(tuple(view.reminder(i) for i in found), more, following, view.privacy)

    def ack(self, reminder_id: str, *, caller: Caller) -> ReminderResponse:
        """Acknowledge a reminder so it is no longer due (twice changes nothing)."""
        view = self._writer(caller)
        shelf = watch_store.reminder_shelf(self._conn, reminder_id)
        if shelf is None or shelf in self._context.hidden_shelves(caller):
            raise NotFound(f"no reminder {reminder_id!r}; `privault reminders` lists them")
        acked = reminder_store.ack_reminder(self._conn, reminder_id)
        return ReminderResponse(view.reminder(acked), view.privacy)

    def snooze(
        self,
        reminder_id: str,
        *,
        caller: Caller,
        interval: str | None = None,
        until: Time = None,
    ) -> ReminderResponse:
        """Take a due reminder off the due list for `interval` (`1h`, `1d`, `1w`) or until
        `until`; it comes back due then, unless acknowledged first."""
        from privault.watches.schedule import parse_interval

        view = self._writer(caller)
        if (interval is None) == (until is None):
            raise InputError("snooze a reminder for an interval (e.g. 1d) or until a time")
        now = now_ms()
        end = now + parse_interval(interval) if interval is not None else to_ms(until, "until")
        if end is None or end <= now:
            raise InputError("a reminder can only be snoozed until a later time")
        shelf = watch_store.reminder_shelf(self._conn, reminder_id)
        if shelf is None or shelf in self._context.hidden_shelves(caller):
            raise NotFound(f"no reminder {reminder_id!r}; `privault reminders` lists them")
        snoozed = reminder_store.snooze_reminder(self._conn, reminder_id, end)
        return ReminderResponse(view.reminder(snoozed), view.privacy)

    # Last in the class: below this name, `list` would mean this method to a type checker.
    def list(self, *, caller: Caller, include_cancelled: bool = False) -> WatchList:
        """Watches, oldest first (cancelled ones only when asked for)."""
        from privault.watches.manage import list_watches

        view = WatchView(self._context.privacy, caller)
        hidden = set(self._context.hidden_shelves(caller))
        found = list_watches(self._conn, include_cancelled=include_cancelled)
        shown = tuple(view.watch(watch) for watch in found if watch.shelf not in hidden)
        return WatchList(shown, view.privacy)


@dataclass(frozen=True)
class WatchHistory:
    """The newest watches with their recent runs (`VaultWatches.recent`)."""

    watches: tuple[WatchResponse, ...]  # newest first; each holds its runs, newest first
    total: int  # watches the caller can see, of which these are the newest
    privacy: Privacy


def _read_cursor(text: str | None) -> tuple[int, str] | None:
    """A reminder list's `next` read back as (time, id); anything else is refused, as is a
    time past SQLite's 64-bit integers, which no stored one could be compared with."""
    if text is None:
        return None
    stamp, _, reminder_id = text.partition(".")
    digits = stamp.removeprefix("-")  # a reminder may be due before 1970
    if not (digits.isascii() and digits.isdigit() and 0 < len(reminder_id) <= 64):
        raise InputError("`after` takes the `next` of a reminder listing (time.id)")
    if abs(int(stamp)) > MAX_STORED_INT:
        raise InputError("`after`: that reminder cursor's time is out of range")
    return int(stamp), reminder_id


AGENT_FLOOR_MS = 15 * 60_000  # an agent's watch runs at most every 15 minutes


def _check_floor(every: str | None) -> None:
    """Refuse an agent's schedule that would run more often than `AGENT_FLOOR_MS`."""
    from privault.watches.schedule import Schedule

    gap = Schedule.parse(every).shortest_gap_ms(now_ms())
    if gap is not None and gap < AGENT_FLOOR_MS:
        raise InputError(
            f"schedule {every!r} runs more often than agents may ask for: at most every "
            f"{AGENT_FLOOR_MS // 60_000} minutes (e.g. every=15m)"
        )
