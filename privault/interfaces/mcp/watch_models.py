"""Structured output of the watch tools (mirrors `privault.vault.watch_results` to_dict)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from privault.interfaces.mcp.models import PrivacyFacts


class WatchOut(BaseModel):
    """A standing job: a page to re-read, a web search to re-run, or a reminder."""

    id: str = Field(description="Pass to cancel_watch.")
    kind: str = Field(description="url, search, remind (or folder, the owner's).")
    target: str = Field(description="The URL, the search query or the reminder text.")
    schedule: str | None = Field(description="Interval (1d) or cron; null for a one-off.")
    shelf: str
    status: str = Field(description="active, paused, cancelled or finished.")
    allow_private: bool
    max_catchup: int
    next_run_at: str | None
    last_run_at: str | None
    last_status: str | None = Field(description="How the last run went (e.g. changed, error).")
    last_error: str | None
    runs: int
    failures: int
    skipped: int
    created_at: str | None
    options: dict[str, Any] = Field(default_factory=dict)


class WatchReply(PrivacyFacts):
    """One watch (just added or cancelled)."""

    watch: WatchOut


class WatchesReply(PrivacyFacts):
    """Watches, oldest first."""

    watches: list[WatchOut]


class ReminderOut(BaseModel):
    """A reminder that came due (filed as a note, so memory_search finds it too)."""

    id: str = Field(description="Pass to ack_reminder.")
    watch_id: str
    doc_id: str
    text: str
    shelf: str
    due_at: str | None
    acked_at: str | None
    due: bool = Field(description="True until acknowledged.")


class RemindersReply(PrivacyFacts):
    """Reminders: the due ones oldest first, or all of them newest first."""

    reminders: list[ReminderOut]


class ReminderReply(PrivacyFacts):
    """One reminder (just acknowledged)."""

    reminder: ReminderOut
