"""Domain values for watches: what a watch is, what one run did, a reminder that is due.

Rows are parsed into these once, at the repository boundary; times stay epoch ms inside
and become ISO 8601 only in `to_dict()`, which the CLI and MCP render as they are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from privault.timeutil import to_iso

WatchKind = Literal["url", "search", "remind", "folder"]
WATCH_KINDS: tuple[str, ...] = ("url", "search", "remind", "folder")


@dataclass(frozen=True)
class Watch:
    """A standing job: what to look at, how often, where to file what it finds."""

    id: str
    kind: str
    target: str
    schedule: str
    shelf: str
    status: str  # active | paused | cancelled | finished
    allow_private: bool
    max_catchup: int
    next_run_at: int | None
    last_run_at: int | None
    last_status: str | None
    last_error: str | None
    runs: int
    failures: int
    skipped: int
    created_at: int
    options: dict[str, Any] = field(default_factory=dict)
    author: str = ""  # '' for the owner, else the agent that added it

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

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form with ISO times."""
        return {
            "id": self.id,
            "kind": self.kind,
            "target": self.target,
            "schedule": self.schedule or None,
            "shelf": self.shelf,
            "status": self.status,
            "allow_private": self.allow_private,
            "max_catchup": self.max_catchup,
            "next_run_at": to_iso(self.next_run_at),
            "last_run_at": to_iso(self.last_run_at),
            "last_status": self.last_status,
            "last_error": self.last_error,
            "runs": self.runs,
            "failures": self.failures,
            "skipped": self.skipped,
            "created_at": to_iso(self.created_at),
            "options": dict(self.options),
        }


@dataclass(frozen=True)
class WatchRun:
    """One attempt at one planned run of a watch.

    `diff` and `summary` can carry text from the web or a reminder: the facade gates them
    like any other text before they reach an agent.
    """

    id: int
    watch_id: str
    job_id: int | None
    planned_at: int
    started_at: int
    finished_at: int
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

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form with ISO times."""
        return {
            "id": self.id,
            "watch_id": self.watch_id,
            "job_id": self.job_id,
            "planned_at": to_iso(self.planned_at),
            "started_at": to_iso(self.started_at),
            "finished_at": to_iso(self.finished_at),
            "attempt": self.attempt,
            "status": self.status,
            "summary": self.summary,
            "error": self.error,
            "doc_ids": list(self.doc_ids),
            "diff": self.diff,
        }


@dataclass(frozen=True)
class Reminder:
    """A reminder that was filed; due until acknowledged."""

    id: str
    watch_id: str
    doc_id: str
    text: str
    shelf: str
    due_at: int
    acked_at: int | None

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
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form with ISO times."""
        return {
            "id": self.id,
            "watch_id": self.watch_id,
            "doc_id": self.doc_id,
            "text": self.text,
            "shelf": self.shelf,
            "due_at": to_iso(self.due_at),
            "acked_at": to_iso(self.acked_at),
            "due": self.due,
        }
