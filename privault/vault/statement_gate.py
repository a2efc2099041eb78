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

from privault.privacy.gate import CleanQuery, Gate, GatedText
from privault.privacy.recognizers import find_known_entities
from privault.privacy.spans import Span
from privault.statements import Statement
from privault.store.connection import Connection
from privault.store.statement_spans import StatementScan, load_scans
from privault.vault.privacy import SpanDetector

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


class StatementGate:
    """Gates the statements of one response through one policy's gate."""

    def __init__(
        self,
        conn: Connection,
        gate: Gate,
        detector: Callable[[], SpanDetector],
        known: Mapping[str, str],
    ) -> None:
        self.gate = gate
        self._conn = conn
        self._detector = detector  # called only when something was never scanned
        self._known = known

    @property
    def mode(self) -> str:
        """The policy mode: off, redact or refuse."""
        return self.gate.policy.mode

    def detect(self, text: str) -> list[Span]:
        """Live detection plus known entities (for queries and never-scanned texts)."""
        return self._detector().detect(text) + find_known_entities(text, self._known)

    def query(self, text: str) -> CleanQuery:
        """A caller's query or filter value with identifying values cut out."""
        return self.gate.query(text, self)

    def text(self, text: str) -> GatedText:
        """One short text (an entity name), gated with known entities and live detection."""
        if self.mode == "off":
            return self.gate.apply(text, ())
        return self.gate.apply(text, self.detect(text))

    def statements(self, found: Sequence[Statement]) -> list[tuple[Statement, bool]]:
        """Each statement as the caller may see it, and whether it was withheld as a stub."""
        if self.mode == "off":
            return [(statement, False) for statement in found]
        scans = load_scans(self._conn, [statement.id for statement in found])
        return [self._one(statement, scans.get(statement.id)) for statement in found]

    def _spans(self, text: str, stored: Sequence[Span] | None) -> list[Span]:
        if stored is None:
            return self.detect(text)
        return list(stored) + find_known_entities(text, self._known)

    def _one(self, statement: Statement, found: StatementScan | None) -> tuple[Statement, bool]:
        content = self._spans(statement.content, found.content if found else None)
        texts = {
            text: self._spans(text, found.texts.get(text) if found else None)
            for text in short_texts(statement)
        }
        if self.mode == "refuse":
            return self._refused(statement, content, texts)

        def gate_text(text: str) -> str:
            if not text.strip():
                return text
            spans = texts.get(text)
            if spans is None:  # not a text short_texts lists: judge it live
                spans = self.detect(text)
            return self.gate.apply(text, spans).text

        reason = statement.invalidation_reason
        return dataclasses.replace(
            statement,
            content=self.gate.apply(statement.content, content).text,
            entities=tuple(gate_text(name) for name in statement.entities),
            source=gate_text(statement.source) if statement.source else statement.source,
            metadata=MappingProxyType(map_metadata(dict(statement.metadata), gate_text)),
            invalidation_reason=reason
            if not reason or reason in OWN_REASONS
            else gate_text(reason),
        ), False

    def _refused(
        self, statement: Statement, content: list[Span], texts: dict[str, list[Span]]
    ) -> tuple[Statement, bool]:
        # One stub per statement, not per field: all its texts are gated as one text.
        joined, spans, offset = [statement.content], list(content), len(statement.content) + 1
        for text, found in texts.items():
            joined.append(text)
            spans += [
                dataclasses.replace(s, start=s.start + offset, end=s.end + offset) for s in found
            ]
            offset += len(text) + 1
        gated = self.gate.apply("\n".join(joined), spans)
        if not gated.withheld:
            return statement, False
        return dataclasses.replace(
            statement,
            content=gated.text,
            entities=(),
            source=None,
            metadata=MappingProxyType({}),
            invalidation_reason=None,
        ), True
