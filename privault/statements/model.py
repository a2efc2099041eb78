"""The statement value, entity normalisation and input checks shared by every operation."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from privault.errors import InputError
from privault.jsonform import JsonForm, shown
from privault.timeutil import Time, to_iso, to_ms

# Turns texts into vectors (one per text); the retrieval layer's embedder fits this shape.
Embed = Callable[[list[str]], list[list[float]]]

Status = Literal["current", "future", "closed", "superseded", "revised"]
Order = Literal["relevance", "recency", "salience", "composite"]
ORDERS: tuple[str, ...] = ("relevance", "recency", "salience", "composite")


@dataclass(frozen=True)
class NewStatement:
    """What a writer says about a fact: the fields `add`, `supersede` and `revise` take.

    Built once where the words arrive (a CLI command, an MCP tool, a Python call) and
    passed down unchanged to the store, so the fields are spelled in one place. A field
    left None takes its default in `add` (no entities, salience 0.5, confidence 1, open
    window from now) and is inherited from the old version in `supersede` and `revise`
    (confidence excepted in `supersede`: a new fact starts at 1). Times are ISO 8601 text
    with an offset or UTC epoch ms; `parsed()` turns them into ms, refusing bad ones.
    """

    content: str
    entities: tuple[str, ...] | None = None  # `kind:name`, see `split_kind`
    source: str | None = None
    salience: float | None = None  # how much it matters, 0..1
    confidence: float | None = None  # how sure, 0..1
    occurred_at: Time = None  # when it happened
    valid_from: Time = None  # true in the world from (default occurred_at, else now)
    valid_to: Time = None  # true until, exclusive (default: open)
    metadata: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.entities is not None and not isinstance(self.entities, tuple):
            object.__setattr__(self, "entities", tuple(self.entities))

    def times(self) -> tuple[int | None, int | None, int | None]:
        """(occurred_at, valid_from, valid_to) as epoch ms; bad time text is an InputError."""
        return (
            to_ms(self.occurred_at, "occurred_at"),
            to_ms(self.valid_from, "valid_from"),
            to_ms(self.valid_to, "valid_to"),
        )

    def parsed(self) -> NewStatement:
        """The same statement with its times as epoch ms."""
        occurred_at, valid_from, valid_to = self.times()
        return replace(self, occurred_at=occurred_at, valid_from=valid_from, valid_to=valid_to)

    def texts(self) -> list[str | None]:
        """The texts a writer gives that are scanned for PII before the write
        (metadata is flattened by the caller, which knows how it is shown)."""
        return [self.content.strip(), self.source, *(self.entities or ())]


@dataclass(frozen=True)
class Statement(JsonForm):
    """One version of a fact, as the vault saw it at `as_of` (its `known_at`).

    Times are UTC epoch ms. `valid_from`/`valid_to` bound when it is true in the world
    (half-open: `valid_to` itself is outside); `recorded_at`/`invalidated_at` bound when the
    vault believed this wording. Links (`superseded_by`, `revised_by`), the window end,
    attestations and disputes are shown as they stood at `as_of`, so a past view is exact.
    """

    id: str
    chain_id: str
    content: str
    entities: tuple[str, ...]
    source: str | None
    salience: float
    confidence: float = field(metadata=shown(then={"status": "status", "current": "is_current"}))
    occurred_at: int | None = field(metadata=shown(iso=True))
    valid_from: int = field(metadata=shown("When it became true in the world.", iso=True))
    valid_to: int | None = field(
        metadata=shown("When it stopped being true (null: still is).", iso=True)
    )
    recorded_at: int = field(metadata=shown("When the vault learnt it.", iso=True))
    invalidated_at: int | None = field(metadata=shown(iso=True))
    invalidation_reason: str | None
    supersedes: str | None
    superseded_by: str | None
    revises: str | None
    revised_by: str | None
    metadata: Mapping[str, Any] = field(hash=False)  # read-only view; dicts cannot hash
    confirmed_count: int
    last_confirmed_at: int | None = field(metadata=shown(iso=True))
    disputed_with: tuple[str, ...]
    as_of: int = field(metadata=shown(iso=True))
    score: float | None = field(default=None, compare=False)
    shelf: str = field(default="default", metadata=shown("The shelf it lives on."))
    # '' for the owner, else the agent that wrote it
    author: str = field(default="", metadata=shown(hidden=True))
    entity_kinds: tuple[str, ...] = field(
        default=(), metadata=shown("person, org, place or other, one per entity.")
    )

    @property
    def status(self) -> Status:
        """Where the statement stands at `as_of`: `current` is the only one that holds then."""
        if self.invalidated_at is not None:
            return "revised"
        if self.valid_to is not None and self.valid_to <= self.as_of:
            return "superseded" if self.superseded_by else "closed"
        if self.valid_from > self.as_of:
            return "future"
        return "current"

    @property
    def is_current(self) -> bool:
        """True when it holds at `as_of`; anything else must be labelled NOT current."""
        return self.status == "current"

    def holds_at(self, valid_at: int) -> bool:
        """True when the world window contains `valid_at` and the wording is still believed."""
        if self.invalidated_at is not None or self.valid_from > valid_at:
            return False
        return self.valid_to is None or self.valid_to > valid_at


@dataclass(frozen=True)
class EntityCount(JsonForm):
    """An entity the vault knows from statements, with how many statements name it."""

    name: str
    key: str = field(metadata=shown("The normalised form used for matching."))
    count: int
    # set when counted per author
    author: str = field(default="", compare=False, metadata=shown(hidden=True))
    # the shelves of the statements that name it (gating its name takes the strictest)
    shelves: tuple[str, ...] = field(default=(), compare=False, metadata=shown(hidden=True))


def entity_key(name: str) -> str:
    """The form entities are matched by: NFKC, single spaces, casefolded."""
    return " ".join(unicodedata.normalize("NFKC", name).split()).casefold()


# What an entity is. Only people and places identify someone; an organisation or a thing
# ("boiler", "Acme") is not masked under `standard`. A name given without a kind is taken
# as a person: forgetting the prefix must not unmask anyone.
ENTITY_KINDS = ("person", "org", "place", "other")
_KIND_PREFIXES = {
    "person": "person",
    "org": "org",
    "organisation": "org",
    "organization": "org",
    "company": "org",
    "place": "place",
    "location": "place",
    "other": "other",
    "thing": "other",
}


def split_kind(raw: str) -> tuple[str, str]:
    """`org:Acme` → ('org', 'Acme'); a name without a known prefix is a person."""
    head, colon, rest = raw.partition(":")
    kind = _KIND_PREFIXES.get(head.strip().casefold()) if colon else None
    return (kind, rest) if kind else ("person", raw)


def clean_entities(names: Iterable[str]) -> list[tuple[str, str, str]]:
    """(key, display name, kind) triples, first spelling kept, duplicates by key dropped.

    A name may carry its kind as a prefix: `person:`, `org:`, `place:`, `other:`. A name
    holding NUL is refused (`InputError`).
    """
    seen: dict[str, tuple[str, str]] = {}
    for raw in names:
        kind, name = split_kind(raw)
        display = " ".join(unicodedata.normalize("NFKC", name).split())
        if not display:
            raise InputError("an entity name is empty: give a name such as 'Acme Corp'")
        if "\x00" in display:
            # As in any text stored (`ingest.check_text`): no command line carries NUL, and
            # a synced row refuses it (`sync.shapes`), so the statement would never travel.
            raise InputError(f"the entity name {display!r} holds a NUL character")
        seen.setdefault(display.casefold(), (display, kind))
    return [(key, display, kind) for key, (display, kind) in seen.items()]


def clean_content(content: str) -> str:
    """The statement text, stripped; an empty statement is refused."""
    text = content.strip()
    if not text:
        raise InputError("a statement needs content: say what holds, e.g. 'Ana is the contact'")
    return text


def clean_source(source: str | None) -> str | None:
    """Where a statement comes from, as given; a blank one is no source at all (None)."""
    return source if source and source.strip() else None


def check_unit(name: str, value: float) -> float:
    """A salience or confidence, which must lie in 0..1."""
    number = float(value)
    if not 0.0 <= number <= 1.0:
        raise InputError(f"{name} must be between 0 and 1, got {value}")
    return number


def check_window(valid_from: int, valid_to: int | None) -> None:
    """Refuse a world window that ends before it starts."""
    if valid_to is not None and valid_to < valid_from:
        raise InputError(
            f"impossible window: valid_to {to_iso(valid_to)} is before valid_from "
            f"{to_iso(valid_from)}"
        )


def dump_metadata(metadata: Mapping[str, Any] | None) -> str:
    """Metadata as stored: a JSON object, keys sorted so equal metadata compares equal."""
    if metadata is None:
        return "{}"
    if not isinstance(metadata, Mapping):
        raise InputError("metadata must be a JSON object (a mapping of names to values)")
    try:
        return json.dumps(dict(metadata), sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise InputError(f"metadata is not JSON-serialisable: {exc}") from None
