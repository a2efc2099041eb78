"""Structured output of the statement tools (mirrors `privault.vault.statement_results` to_dict)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from privault.interfaces.mcp.models import PrivacyFacts


class StatementOut(BaseModel):
    """A fact the vault holds, with when it was true and when the vault believed it."""

    id: str
    chain_id: str
    content: str
    entities: list[str]
    source: str | None
    salience: float
    confidence: float
    status: str = Field(description="current, closed, superseded, revised or future.")
    current: bool
    label: str = Field(description="How to present it; anything not current says so.")
    withheld: bool
    occurred_at: str | None
    valid_from: str | None = Field(description="When it became true in the world.")
    valid_to: str | None = Field(description="When it stopped being true (null: still is).")
    recorded_at: str | None = Field(description="When the vault learnt it.")
    invalidated_at: str | None
    invalidation_reason: str | None
    supersedes: str | None
    superseded_by: str | None
    revises: str | None
    revised_by: str | None
    metadata: dict[str, Any] = Field(default_factory=dict)
    confirmed_count: int
    last_confirmed_at: str | None
    disputed_with: list[str]
    as_of: str | None
    score: float | None = None
    shelf: str = Field("default", description="The shelf it lives on.")
    entity_kinds: list[str] = Field(
        default_factory=list, description="person, org, place or other, one per entity."
    )


class StatementReply(PrivacyFacts):
    """One statement (the one written, or asked for)."""

    statement: StatementOut


class StatementsReply(PrivacyFacts):
    """Statements: a query result, a history (oldest first), or a disputed pair."""

    statements: list[StatementOut]


class EntityOut(BaseModel):
    """An entity named by statements."""

    name: str
    key: str = Field(description="The normalised form used for matching.")
    count: int


class EntitiesReply(PrivacyFacts):
    """Entities, most named first (names withheld by policy are left out)."""

    entities: list[EntityOut]
