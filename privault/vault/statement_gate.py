"""The privacy side of statements: spans found when one is written, the gate when one is read.

Write time: the content is scanned once and its spans stored with the detector version
(`statement_spans`); the short texts around it (source, entity names, metadata keys and
values, a reason given to invalidate) are scanned too and kept by value. Read time: stored
spans plus a live match of the vault's known entities go through the caller's gate — the
same `Gate` the response uses for sections, so `<PERSON_1>` is one person throughout.

A statement never scanned is detected live at read time rather than shown: the gate fails
closed. Under `refuse` the statement is judged as a whole: if any of its texts holds
identifying PII, all of it is replaced by one stub.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from privault.privacy.gate import Gate, Gated, GatedText, literal
from privault.privacy.policy import Policy
from privault.privacy.recognizers import find_known_entities
from privault.spans import Span
from privault.statements import EntityCount, Statement
from privault.store.connection import Connection
from privault.store.statement_spans import StatementScan, load_scans
from privault.vault.detection import SpanDetector
from privault.vault.reading import Reading, scope_of
from privault.vault.statement_results import StatementTexts

# Reasons the statement operations write themselves; they name no one, so are not scanned.
OWN_REASONS = frozenset({"superseded", "revised", "invalidated"})


def metadata_texts(value: Any) -> Iterator[str]:
    """Every key and scalar value inside metadata, as the text the gate sees."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield str(key)
            yield from metadata_texts(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from metadata_texts(item)
    elif value is not None and not isinstance(value, bool):
        yield str(value)


def map_metadata(value: Any, gate_text: Callable[[str], str]) -> Any:
    """Metadata with every key and scalar gated; a number stays a number unless masked."""
    if isinstance(value, Mapping):
        return {gate_text(str(k)): map_metadata(v, gate_text) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [map_metadata(item, gate_text) for item in value]
    if value is None or isinstance(value, bool):
        return value
    text = str(value)
    gated = gate_text(text)
    return value if gated == text else gated


def short_texts(statement: Statement) -> list[str]:
    """The texts of a statement other than its content, each once."""
    texts = [statement.source or "", *statement.entities, *metadata_texts(statement.metadata)]
    reason = statement.invalidation_reason
    if reason and reason not in OWN_REASONS:
        texts.append(reason)
    return [text for text in dict.fromkeys(texts) if text.strip()]


def scan(detector: SpanDetector, content: str, texts: Sequence[str]) -> StatementScan:
    """Detect spans in a statement's content and short texts."""
    return StatementScan(
        content=tuple(detector.detect(content)),
        texts={text: tuple(detector.detect(text)) for text in dict.fromkeys(texts)},
        detector_version=detector.version,
    )


def _texts(gate: Gate, shown: Statement) -> StatementTexts:
    """The texts of a statement that `_one` has gated, as `Gated` (under `off`, or for a
    text `_one` already replaced, the gate passes them through unchanged)."""

    def passed(text: str) -> Gated:
        if isinstance(text, Gated):
            return text
        if gate.policy.mode == "off":
            return gate.apply(text, ()).text
        if text in OWN_REASONS:
            return literal(text)  # "superseded", "revised": the vault's own words
        raise AssertionError("a statement text skipped the gate")  # fail closed, loudly

    reason = shown.invalidation_reason
    return StatementTexts(
        content=passed(shown.content),
        entities=tuple(passed(name) for name in shown.entities),
        source=None if shown.source is None else passed(shown.source),
        invalidation_reason=None if reason is None else passed(reason),
    )


class StatementGate:
    """Gates the statements of one response: each by the caller's policy for its shelf.

    A statement the owner wrote is matched against the vault's known entities and numbered
    in the owner's placeholder scope; one an agent wrote is judged by detection alone and
    numbered in a scope of its own (see `privacy.gate`), so what comes back for an agent's
    own words never depends on what the vault knows.
    """

    def __init__(
        self,
        conn: Connection,
        reading: Reading,
        detector_for: Callable[[str], SpanDetector],
        known_for: Callable[[str], Mapping[str, str]],
    ) -> None:
        self.reading = reading
        self._conn = conn
        self._detector_for = detector_for  # called only when something was never scanned
        self._known_for = known_for

    def detect(self, text: str, author: str = "") -> list[Span]:
        """Live detection plus known entities (for never-scanned texts)."""
        found = self._detector_for(author).detect(text)
        return found + find_known_entities(text, self._known_for(author))

    def entity(self, item: EntityCount) -> EntityCount | None:
        """An entity as the caller may see it (None where its policy withholds the name):
        name and key gated with live detection (and, for the owner's entities, known
        entities) by the strictest of the caller's policies for the shelves whose statements
        name it, so a name a shelf masks in its statements is masked here too."""
        gate = self.reading.gate_for(self.reading.strictest(item.shelves))
        scope = scope_of(item.author, item.key)

        def gated(text: str) -> GatedText:
            spans = () if gate.policy.mode == "off" else self.detect(text, item.author)
            return gate.apply(text, spans, scope=scope)

        name = gated(item.name)
        return None if name.withheld else EntityCount(name.text, gated(item.key).text, item.count)

    def statements(
        self, found: Sequence[Statement]
    ) -> list[tuple[Statement, StatementTexts, bool]]:
        """Each statement as the caller may see it, its texts, and whether it was withheld
        as a stub."""
        gates = [self.reading.gate(statement.shelf) for statement in found]
        scans = self.scans(found) if any(g.policy.mode != "off" for g in gates) else {}
        out = []
        for statement, gate in zip(found, gates, strict=True):
            shown, withheld = self._one(statement, scans.get(statement.id), gate)
            out.append((shown, _texts(gate, shown), withheld))
        return out

    def scans(self, found: Sequence[Statement]) -> dict[str, StatementScan | None]:
        """The stored scans of these statements (None: never scanned), loaded once a
        response however often it gates them."""
        scans: dict[str, StatementScan | None] = self.reading.statement_scans
        missing = [statement.id for statement in found if statement.id not in scans]
        if missing:
            loaded = load_scans(self._conn, missing)
            scans.update({statement_id: loaded.get(statement_id) for statement_id in missing})
        return scans

    def seen(self, statement: Statement, found: StatementScan | None, policy: Policy) -> Statement:
        """A statement as `policy` shows it (a stub if it withholds the statement), through
        a gate of its own: numbered afresh and counted in no response. For matching words
        and names against what a caller sees (`statement_matching.SeenWords`), never for a
        reply."""
        return self._one(statement, found, Gate(policy))[0]

    def _spans(self, text: str, stored: Sequence[Span] | None, author: str) -> list[Span]:
        if stored is None:
            return self.detect(text, author)
        return list(stored) + find_known_entities(text, self._known_for(author))

    def _one(
        self, statement: Statement, found: StatementScan | None, gate: Gate
    ) -> tuple[Statement, bool]:
        if gate.policy.mode == "off":
            return statement, False
        author = statement.author
        scope = scope_of(author, statement.id)
        content = self._spans(statement.content, found.content if found else None, author)
        texts = {
            text: self._spans(text, found.texts.get(text) if found else None, author)
            for text in short_texts(statement)
        }
        if gate.policy.mode == "refuse":
            stub = self._refused(statement, content, texts, gate)
            if stub is not None:
                return stub, True
            # Nothing identifying anywhere in it: each text passes the gate unchanged.

        def gate_text(text: str) -> str:
            if not text.strip():
                return gate.apply(text, (), scope=scope).text
            spans = texts.get(text)
            if spans is None:  # not a text short_texts lists: judge it live
                spans = self.detect(text, author)
            return gate.apply(text, spans, scope=scope).text

        reason = statement.invalidation_reason
        return dataclasses.replace(
            statement,
            content=gate.apply(statement.content, content, scope=scope).text,
            entities=tuple(gate_text(name) for name in statement.entities),
            source=gate_text(statement.source) if statement.source else statement.source,
            metadata=MappingProxyType(map_metadata(dict(statement.metadata), gate_text)),
            invalidation_reason=reason
            if not reason or reason in OWN_REASONS
            else gate_text(reason),
        ), False

    def _refused(
        self,
        statement: Statement,
        content: list[Span],
        texts: dict[str, list[Span]],
        gate: Gate,
    ) -> Statement | None:
        # One stub per statement, not per field: all its texts are gated as one text.
        joined, spans, offset = [statement.content], list(content), len(statement.content) + 1
        for text, found in texts.items():
            joined.append(text)
            spans += [
                dataclasses.replace(s, start=s.start + offset, end=s.end + offset) for s in found
            ]
            offset += len(text) + 1
        gated = gate.apply("\n".join(joined), spans, scope=scope_of(statement.author, statement.id))
        if not gated.withheld:
            return None
        return dataclasses.replace(
            statement,
            content=gated.text,
            entities=(),
            source=None,
            metadata=MappingProxyType({}),
            invalidation_reason=None,
        )
