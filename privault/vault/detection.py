"""What the facade needs of a detector, and what a scan of one document found.

`SpanDetector` is the narrow interface every detector (presidio + spaCy, or the fake)
offers the facade; `Scan` holds one document's spans before it is written; the owner's
statement entities become the detector's known entities here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from privault.privacy.detector import DetectorConfig
from privault.spans import Span
from privault.statements import known_entity_names
from privault.store.connection import Connection


class SpanDetector(Protocol):
    """What the runtime needs from a detector (real or fake)."""

    version: str

    def detect(self, text: str) -> list[Span]:
        """Spans in one text."""
        ...

    def detect_many(self, texts: Sequence[str]) -> list[list[Span]]:
        """Spans in each of many texts (one batch)."""
        ...

    def rereads(self, text: str, version: str | None) -> bool:
        """Whether a text scanned by `version` (None: never) must be scanned again."""
        ...


@dataclass(frozen=True)
class Scan:
    """Spans found in one document before it is written: per section, and per label."""

    sections: tuple[tuple[Span, ...], ...]
    labels: dict[str, tuple[Span, ...]]
    detector_version: str


DetectorFactory = Callable[[DetectorConfig], SpanDetector]


# What an owner's statement entity of each kind is to the detector ("other": nothing).
ENTITY_KINDS = {"person": "PERSON", "place": "LOCATION", "org": "ORGANIZATION"}


def statement_known_entities(conn: Connection) -> dict[str, str]:
    """The owner's statement entities as known entities: name → kind (PERSON, LOCATION,
    ORGANIZATION; a policy decides which of those it masks)."""
    return {
        name: ENTITY_KINDS[kind]
        for name, kind in known_entity_names(conn).items()
        if kind in ENTITY_KINDS
    }
