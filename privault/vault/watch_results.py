"""What `vault.watches` returns — watches, runs and reminders as one caller may see them —
and `WatchView`, which gates their texts.

Each reply carries the `Privacy` summary of its response. The texts inside — a watch's
target (a URL, a query, a reminder's text), its last error, run summaries, diffs and
errors, a reminder's text — are not sectioned documents with spans stored at write time,
so `WatchView` detects them live (the detector plus the vault's known entities) and gates
them by the caller's policy for the watch's shelf, like a statement never scanned: fail
closed, never shown raw. The raw text is never kept alongside.

The replies hold `GatedWatch`, `GatedRun` and `GatedReminder`: the domain values with
their text fields typed `Gated`, made only by `WatchView` (their `of`), so a reply cannot
carry a watch, run or reminder whose text skipped the gate (mypy checks it; a test keeps
the field types honest).

An agent's view of a failed fetch says only *that* the target was blocked or unreachable,
never why: the reasons (the private address a name resolved to, that it did not resolve, a
refused connection against no route) would let an agent that watches guessed names map the
owner's local network. The owner sees the detail.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from privault.caller import Caller
from privault.jsonform import JsonForm, shown
from privault.privacy.gate import Gated, literal
from privault.privacy.recognizers import find_known_entities
from privault.privacy.url_secrets import without_url_secrets
from privault.store.watches import watch_author
from privault.vault.reading import scope_of
from privault.vault.results import PRIVACY, Privacy
from privault.watches.model import Reminder, Watch, WatchRun

if TYPE_CHECKING:
    from privault.vault.privacy import PrivacyRuntime
    from privault.watches.poll import PollReport  # pulls in httpx; opening a vault should not

FOLDER_FOR_AGENTS = literal("<FOLDER>")  # a path names people and places; agents get the id
# A failed fetch as stored: `FetchError`'s "<reason>: <detail>", prefixed "search backend: "
# when it was the backend (`watches/web.py`). Where the detail describes the owner's network
# (why a target is blocked; how a connection failed: refused, no route, reset), an agent
# reads one fixed text per reason. Other details (a status, a content type) stay.
FOR_AGENTS = {
    "blocked": "blocked: the target is not a reachable public address",
    "connect": "connect: the target could not be reached",
}
_DETAILED = re.compile(r"(search backend: )?(blocked|connect): ")


def error_for_agents(error: str) -> str:
    """A run's error as an agent may read it: one fixed text for each network reason."""
    found = _DETAILED.match(error)
    return error if found is None else (found.group(1) or "") + FOR_AGENTS[found.group(2)]


def _fields(value: object) -> dict[str, Any]:
    return {item.name: getattr(value, item.name) for item in dataclasses.fields(value)}  # type: ignore[arg-type]


@dataclass(frozen=True)
class GatedWatch(Watch):
    """A watch as one caller may see it: its target and last error gated."""

    target: Gated
    last_error: Gated | None

    @classmethod
    def of(cls, watch: Watch, *, target: Gated, last_error: Gated | None) -> GatedWatch:
        """`watch` with its texts replaced by their gated forms."""
        return cls(**{**_fields(watch), "target": target, "last_error": last_error})


@dataclass(frozen=True)
class GatedRun(WatchRun):
    """A run as one caller may see it: its summary, error and diff gated."""

    summary: Gated
    error: Gated | None
    diff: Gated | None

    @classmethod
    def of(
        cls, run: WatchRun, *, summary: Gated, error: Gated | None, diff: Gated | None
    ) -> GatedRun:
        """`run` with its texts replaced by their gated forms."""
        return cls(**{**_fields(run), "summary": summary, "error": error, "diff": diff})


@dataclass(frozen=True)
class GatedReminder(Reminder):
    """A reminder as one caller may see it: its text gated."""

    text: Gated

    @classmethod
    def of(cls, reminder: Reminder, *, text: Gated) -> GatedReminder:
        """`reminder` with its text replaced by its gated form."""
        return cls(**{**_fields(reminder), "text": text})


@dataclass(frozen=True)
class WatchResponse(JsonForm):
    """One watch (added, shown or changed) and, for `show`, its recent runs, newest first."""

    watch: GatedWatch
    runs: tuple[GatedRun, ...] = field(metadata=shown(agents=False))
    privacy: Privacy = field(metadata=PRIVACY)


@dataclass(frozen=True)
class WatchList(JsonForm):
    """Watches, oldest first."""

    watches: tuple[GatedWatch, ...]
    privacy: Privacy = field(metadata=PRIVACY)


@dataclass(frozen=True)
class RunResponse(JsonForm):
    """One run made now (`watch run ID`); None when another worker took the job."""

    run: GatedRun | None
    privacy: Privacy = field(metadata=PRIVACY)


@dataclass(frozen=True)
class PollResponse(JsonForm):
    """What one poll did, its runs gated (`report.runs` holds the same gated runs)."""

    report: PollReport = field(metadata=shown(flatten=True))  # its `runs` replaced by:
    runs: tuple[GatedRun, ...]
    privacy: Privacy = field(metadata=PRIVACY)


@dataclass(frozen=True)
class ReminderList(JsonForm):
    """One list of reminders (due, snoozed, acknowledged or all of them), in its order: at
    most the number asked for, the rest of those the caller may see counted (`more`) and
    reached by `next`, never cut without a word."""

    reminders: tuple[GatedReminder, ...]
    more: int = field(
        metadata=shown("How many more reminders follow these in the same order (0: none).")
    )
    next: str | None = field(
        metadata=shown("Pass as `after` to list the ones that follow (null when none do).")
    )
    privacy: Privacy = field(metadata=PRIVACY)


@dataclass(frozen=True)
class ReminderResponse(JsonForm):
    """One reminder (just acknowledged)."""

    reminder: GatedReminder
    privacy: Privacy = field(metadata=PRIVACY)


class WatchView:
    """Gates the texts of one response about watches for one caller."""

    def __init__(self, runtime: PrivacyRuntime, caller: Caller) -> None:
        self._runtime = runtime
        self.reading = runtime.reading(caller)  # an unknown caller is refused here
        self._owner = caller.is_owner

    def text(self, shelf: str, value: str, author: str = "", scope_id: str = "") -> Gated:
        """One text as the caller may see it, judged by the policy for `shelf`; an agent's
        own text (`author`) without the vault's known entities (see `vault.privacy`). An
        agent never sees a URL's credentials or query values (`url_secrets`)."""
        gate = self.reading.gate(shelf)
        if not self._owner:  # credentials and tokens in URLs are the owner's alone
            value = without_url_secrets(value)
        spans = []
        if gate.policy.mode != "off" and value:
            spans = self._runtime.detector_for(author).detect(value)
            spans += find_known_entities(value, self._runtime.known_for(author))
        return gate.apply(value, spans, scope=scope_of(author, scope_id)).text

    def maybe(
        self, shelf: str, value: str | None, author: str = "", scope_id: str = ""
    ) -> Gated | None:
        """`text()` for a text that may be absent."""
        return None if value is None else self.text(shelf, value, author, scope_id)

    def _error(self, error: str | None) -> str | None:
        """An error text before gating: the owner's whole, an agent's without fetch detail."""
        return error if error is None or self._owner else error_for_agents(error)

    def watch(self, watch: Watch) -> GatedWatch:
        """A watch with its target and last error gated."""
        who, scope = watch.author, watch.id
        if watch.kind == "folder" and not self._owner:
            target = FOLDER_FOR_AGENTS
        else:
            target = self.text(watch.shelf, watch.target, who, scope)
        last_error = self.maybe(watch.shelf, self._error(watch.last_error), who, scope)
        return GatedWatch.of(watch, target=target, last_error=last_error)

    def run(self, run: WatchRun, shelf: str) -> GatedRun:
        """A run with its summary, error and diff gated."""
        who, scope = watch_author(self._runtime.conn, run.watch_id), run.watch_id
        # A failed run's summary is its error (`ActionResult.failed`).
        summary = self._error(run.summary) if run.status == "error" else run.summary
        return GatedRun.of(
            run,
            summary=self.text(shelf, summary or "", who, scope),
            error=self.maybe(shelf, self._error(run.error), who, scope),
            diff=self.maybe(shelf, run.diff, who, scope),
        )

    def reminder(self, reminder: Reminder) -> GatedReminder:
        """A reminder with its text gated."""
        who = watch_author(self._runtime.conn, reminder.watch_id)
        text = self.text(reminder.shelf, reminder.text, who, reminder.watch_id)
        return GatedReminder.of(reminder, text=text)

    @property
    def privacy(self) -> Privacy:
        """What this response was gated by and held back."""
        return self.reading.privacy()
