"""Owner-only PII operations: scan and redact text, mark and unmark values, re-scan.

These have no agent surface at all: every method refuses any caller but the owner. Marks
and unmarks are stored by document id and value, so they survive re-ingest; a marked value
also becomes a known entity, caught wherever it appears in the vault.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from privault.caller import Caller
from privault.errors import AccessDenied, InputError, NotFound
from privault.privacy.gate import Gate, GatedText
from privault.spans import Override, Span, normalise_kind
from privault.store import documents, pii, sections
from privault.vault.context import VaultContext
from privault.vault.statements import VaultStatements


@dataclass(frozen=True)
class Rescan:
    """How many texts a re-scan brought up to the current detector version."""

    sections: int
    statements: int
    detector_version: str

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "sections": self.sections,
            "statements": self.statements,
            "detector_version": self.detector_version,
        }


@dataclass(frozen=True)
class MarkedSection:
    """A section as stored, with the spans every gated read of it applies: the detector's,
    the vault's known entities and the owner's overrides (offsets into `text`)."""

    node_id: str
    parent: str | None
    depth: int
    heading: str
    text: str
    spans: tuple[Span, ...]


def _owner_only(caller: Caller) -> None:
    if not caller.is_owner:
        raise AccessDenied("PII overrides, scans and policies are the owner's alone")


class VaultPII:
    """The owner's PII tools for one open vault."""

    def __init__(self, context: VaultContext, statements: VaultStatements) -> None:
        self._context = context
        self._conn = context.conn
        self._statements = statements  # statements are re-scanned with the sections

    def scan(self, text: str, *, caller: Caller) -> list[Span]:
        """Every span the detector finds in `text`."""
        _owner_only(caller)
        return self._context.privacy.detector.detect(text)

    def redact(self, text: str, *, caller: Caller, policy: str = "standard") -> GatedText:
        """`text` as a caller under the named policy would see it."""
        _owner_only(caller)
        gate = Gate(self._context.privacy.policies.resolve(policy))
        return gate.apply(text, self.scan(text, caller=caller))

    def marked_sections(self, doc_id: str, *, caller: Caller) -> tuple[MarkedSection, ...]:
        """A document's sections in order with the PII spans reads apply, for the owner to
        check what was detected and fix it with `mark` / `unmark`."""
        _owner_only(caller)
        found = sections.sections_of(self._conn, doc_id)
        if not found:
            raise NotFound(f"no document {doc_id!r}")
        reading = self._context.privacy.reading(caller)
        reading.prefetch(found)
        return tuple(
            MarkedSection(
                s.node_id, s.parent_node, s.depth, s.heading, s.text, tuple(reading.spans(s))
            )
            for s in found
        )

    def _target(self, target: str) -> tuple[str, str | None]:
        """(doc id, node id or None) for a document or node id."""
        if documents.exists(self._conn, target):
            return target, None
        found = sections.document_of_node(self._conn, target)
        if found:
            return found, target
        raise NotFound(f"no document or section {target!r}")

    def mark(self, target: str, value: str, *, caller: Caller, kind: str = "PERSON") -> Override:
        """Treat `value` as PII of `kind` in a document (or one node of it)."""
        return self._override(target, value, "mark", caller, kind)

    def unmark(self, target: str, value: str, *, caller: Caller) -> Override:
        """Treat `value` as not PII in a document (or one node); a mark still wins."""
        return self._override(target, value, "unmark", caller, "PERSON")

    def _override(
        self,
        target: str,
        value: str,
        action: Literal["mark", "unmark"],
        caller: Caller,
        kind: str,
    ) -> Override:
        _owner_only(caller)
        if not value.strip():
            raise InputError("give the value to mark or unmark")
        doc_id, node_id = self._target(target)
        override = pii.add_override(
            self._conn, doc_id, value, action, normalise_kind(kind), node_id
        )
        # A marked value is a known entity from now on, in every process; the index
        # windows that hold it get masked entries (or lose them, for an unmark).
        privacy, embedder = self._context.privacy, self._context.embedder
        privacy.known_changed([value], embedder)
        privacy.remask([row.id for row in sections.sections_of(self._conn, doc_id)], embedder)
        return override

    def overrides(self, *, caller: Caller, target: str | None = None) -> list[Override]:
        """The owner's overrides, of one document or all."""
        _owner_only(caller)
        doc_ids = [self._target(target)[0]] if target else None
        return pii.list_overrides(self._conn, doc_ids)

    def remove_override(self, override_id: int, *, caller: Caller) -> None:
        """Delete one override by id (undo a mark or an unmark)."""
        _owner_only(caller)
        pii.delete_override(self._conn, override_id)
        self._context.privacy.forget_known()

    def rescan(self, *, caller: Caller, batch: int = 200) -> Rescan:
        """Re-scan every section and statement whose spans came from another detector."""
        _owner_only(caller)
        sections = statements = 0
        while done := self._context.privacy.rescan(batch, self._context.embedder):
            sections += done
        while done := self._statements.rescan(batch):
            statements += done
        return Rescan(sections, statements, self._context.privacy.detector.version)
