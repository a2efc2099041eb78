"""What `vault.statements` returns: gated statements and counts, their JSON form derived
from their fields (`privault.jsonform`).

Each reply carries the `Privacy` summary of the response it belongs to. A statement in a
reply has already passed the caller's gate; the raw text is never kept alongside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from privault.jsonform import JsonForm, shown
from privault.privacy.gate import Gated, assembled
from privault.statements import EntityCount, Statement, StatementStats
from privault.timeutil import iso_day
from privault.vault.results import PRIVACY, Privacy


@dataclass(frozen=True)
class StatementTexts(JsonForm):
    """A statement's texts as one caller may see them (only the gate makes `Gated`)."""

    content: Gated
    entities: tuple[Gated, ...]
    source: Gated | None
    invalidation_reason: Gated | None


@dataclass(frozen=True)
class GatedStatement(JsonForm):
    """A statement as one caller may see it; anything but `current` is labelled NOT current.

    Its texts come from `texts`; `statement` carries the same gated texts (the raw text is
    never kept) and the statement's other facts.
    """

    statement: Statement = field(metadata=shown(flatten=True))
    # The gated texts replace the statement's own keys in place; then how to present it.
    texts: StatementTexts = field(metadata=shown(flatten=True, then={"label": "label"}))
    current: bool = field(metadata=shown(hidden=True))  # shown as the statement's `current`
    withheld: bool = False  # True: replaced by a stub naming the kinds withheld

    @property
    def label(self) -> str:
        """`current`, or `NOT current` for superseded, revised, closed and future ones."""
        return "current" if self.current else "NOT current"


@dataclass(frozen=True)
class StatementResponse(JsonForm):
    """One statement (the one written, or asked for) and the privacy facts of the reply."""

    statement: GatedStatement
    privacy: Privacy = field(metadata=PRIVACY)


@dataclass(frozen=True)
class StatementList(JsonForm):
    """Statements (a query, a history, a disputed pair) and the privacy facts of the reply."""

    statements: tuple[GatedStatement, ...]
    privacy: Privacy = field(metadata=PRIVACY)


@dataclass(frozen=True)
class EntityList(JsonForm):
    """Entities with statement counts; names gated (withheld ones are left out and counted)."""

    entities: tuple[EntityCount, ...]
    privacy: Privacy = field(metadata=PRIVACY)


@dataclass(frozen=True)
class StatsResponse(JsonForm):
    """Statement counts (no text) and the policy the caller reads under."""

    stats: StatementStats = field(metadata=shown(flatten=True))
    privacy: Privacy = field(metadata=PRIVACY)


def statements_block(items: Sequence[GatedStatement]) -> Gated:
    """Statements as a context-pack block (empty when there are none).

    Each line says since when it holds and its id; anything not current says so first, so
    a model reading the pack cannot take a superseded fact for the present one.
    """
    if not items:
        return assembled()
    parts = ["## Statements"]
    for item in items:
        found = item.statement
        start = iso_day(found.valid_from)
        end = iso_day(found.valid_to)
        window = f"since {start}" if found.valid_to is None else f"{start} → {end}"
        flag = "" if item.current else f"[NOT current: {found.status}] "
        parts += [f"\n- {flag}", item.texts.content, f" ({window}; {found.id})"]
    return assembled(*parts)
