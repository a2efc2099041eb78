"""What `vault.watches` returns: watches, runs and reminders as one caller may see them.

Each reply carries the `Privacy` summary of its response. The texts inside — a watch's
target (a URL, a query, a reminder's text), its last error, run summaries, diffs and
errors, a reminder's text — have already passed the caller's gate; the raw text is never
kept alongside.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from privault.results import Privacy
from privault.watches.model import Reminder, Watch, WatchRun

if TYPE_CHECKING:  # the poll loop pulls in httpx; opening a vault should not
    from privault.watches.poll import PollReport


@dataclass(frozen=True)
class WatchResponse:
    """One watch (added, shown or changed) and, for `show`, its recent runs, newest first."""

    watch: Watch
    runs: tuple[WatchRun, ...]
    privacy: Privacy

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "watch": self.watch.to_dict(),
            "runs": [run.to_dict() for run in self.runs],
            **self.privacy.to_dict(),
        }


@dataclass(frozen=True)
class WatchList:
    """Watches, oldest first."""

    watches: tuple[Watch, ...]
    privacy: Privacy

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"watches": [watch.to_dict() for watch in self.watches], **self.privacy.to_dict()}


@dataclass(frozen=True)
class RunResponse:
    """One run made now (`watch run ID`); None when another worker took the job."""

    run: WatchRun | None
    privacy: Privacy

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"run": self.run.to_dict() if self.run else None, **self.privacy.to_dict()}


@dataclass(frozen=True)
class PollResponse:
    """What one poll did, its runs gated."""

    report: PollReport
    privacy: Privacy

    def to_dict(self) -> dict[str, Any]:
        """JSON form: the report's keys plus the privacy keys."""
        return {**self.report.to_dict(), **self.privacy.to_dict()}


@dataclass(frozen=True)
class ReminderList:
    """Reminders: the due ones oldest first, or all of them newest first."""

    reminders: tuple[Reminder, ...]
    privacy: Privacy

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "reminders": [reminder.to_dict() for reminder in self.reminders],
            **self.privacy.to_dict(),
        }


@dataclass(frozen=True)
class ReminderResponse:
    """One reminder (just acknowledged)."""

    reminder: Reminder
    privacy: Privacy

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"reminder": self.reminder.to_dict(), **self.privacy.to_dict()}
