"""Domain values for watches: what a watch is, what one run did, a reminder that is due.

Rows are parsed into these once, at the repository boundary; times stay epoch ms inside
and become ISO 8601 only in `to_dict()`, which the CLI and MCP render as they are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from privault.jsonform import JsonForm, shown

WatchKind = Literal["url", "search", "remind", "folder"]
WATCH_KINDS: tuple[str, ...] = ("url", "search", "remind", "folder")


@dataclass(frozen=True)
class Watch(JsonForm):
    """A standing job: what to look at, how often, where to file what it finds."""

    id: str = field(metadata=shown("Pass to cancel_watch."))
    kind: str = field(metadata=shown("url, search, remind (or folder, the owner's)."))
    target: str = field(metadata=shown("The URL, the search query or the reminder text."))
    schedule: str = field(
        metadata=shown("Interval (1d) or cron; null for a one-off.", blank_is_null=True)
    )
    shelf: str
    status: str = field(metadata=shown("active, paused, cancelled or finished."))
    allow_private: bool
    max_catchup: int
    next_run_at: int | None = field(metadata=shown(iso=True))
    last_run_at: int | None = field(metadata=shown(iso=True))
    last_status: str | None = field(metadata=shown("How the last run went (e.g. changed, error)."))
    last_error: str | None
    runs: int
    failures: int
    skipped: int
    created_at: int = field(metadata=shown(iso=True))
    options: dict[str, Any] = field(default_factory=dict)
    # '' for the owner, else the agent that added it
    author: str = field(default="", metadata=shown(hidden=True))

    @classmethod
    def from_row(cls, data: dict[str, Any]) -> Watch:
        """Build from a `watches` row."""
        return cls(
            id=data["id"],
            kind=data["kind"],
            target=data["target"],
            schedule=data["schedule"],
            shelf=data["shelf"],
            status=data["status"],
            allow_private=bool(data["allow_private"]),
            max_catchup=data["max_catchup"],
            next_run_at=data["next_run_at"],
            last_run_at=data["last_run_at"],
            last_status=data["last_status"],
            last_error=data["last_error"],
            runs=data["runs"],
            failures=data["failures"],
            skipped=data["skipped"],
            created_at=data["created_at"],
            options=json.loads(data["options"]),
            author=data.get("author") or "",
        )


@dataclass(frozen=True)
class WatchRun(JsonForm):
    """One attempt at one planned run of a watch.

    `diff` and `summary` can carry text from the web or a reminder: the facade gates them
    like any other text before they reach an agent.
    """

    id: int
    watch_id: str
    job_id: int | None
    planned_at: int = field(metadata=shown(iso=True))
    started_at: int = field(metadata=shown(iso=True))
    finished_at: int = field(metadata=shown(iso=True))
    attempt: int
    status: str  # changed | unchanged | filed | error | skipped
    summary: str
    error: str | None
    doc_ids: tuple[str, ...]
    diff: str | None

    @classmethod
    def from_row(cls, data: dict[str, Any]) -> WatchRun:
        """Build from a `watch_runs` row."""
        return cls(
            id=data["id"],
            watch_id=data["watch_id"],
            job_id=data["job_id"],
            planned_at=data["planned_at"],
            started_at=data["started_at"],
            finished_at=data["finished_at"],
            attempt=data["attempt"],
            status=data["status"],
            summary=data["summary"],
            error=data["error"],
            doc_ids=tuple(json.loads(data["doc_ids"])),
            diff=data["diff"],
        )


@dataclass(frozen=True)
class Reminder(JsonForm):
    """A reminder that was filed; due until acknowledged."""

    id: str = field(metadata=shown("Pass to ack_reminder."))
    watch_id: str
    doc_id: str
    text: str
    shelf: str
    due_at: int = field(metadata=shown(iso=True))
    acked_at: int | None = field(metadata=shown(iso=True, then={"due": "due"}))
    snoozed_until: int | None = field(default=None, metadata=shown(hidden=True))

    @property
    def due(self) -> bool:
        """True until the owner acknowledges it."""
        return self.acked_at is None

    @classmethod
    def from_row(cls, data: dict[str, Any]) -> Reminder:
        """Build from a `reminders` row."""
        return cls(
            id=data["id"],
            watch_id=data["watch_id"],
            doc_id=data["doc_id"],
            text=data["text"],
            shelf=data["shelf"],
            due_at=data["due_at"],
            acked_at=data["acked_at"],
            snoozed_until=data.get("snoozed_until"),
        )
