"""Owner-only PII operations: scan and redact text, mark and unmark values, re-scan.

These have no agent surface at all: every method refuses any caller but the owner. Marks
and unmarks are stored by document id and value, so they survive re-ingest; a marked value
also becomes a known entity, caught wherever it appears in the vault. An unmark names the
kinds the value is not; `unmark_reveals` and `remove_reveals` say, before a change, which
agents would then see which kinds of text (see `vault.reveal`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from privault.caller import Caller
from privault.errors import AccessDenied, InputError, NotFound
from privault.jsonform import JsonForm
from privault.privacy.gate import Gate, GatedText
from privault.privacy.recognizers import find_known_entities
from privault.spans import ANY_KIND, Override, Span, normalise_kind, normalise_value
from privault.store import documents, pii, sections
from privault.vault.agent_masking import AgentMasking, agent_masking
from privault.vault.context import VaultContext
from privault.vault.reveal import Reveal, reveals, same_value
from privault.vault.statements import VaultStatements


@dataclass(frozen=True)
class Rescan(JsonForm):
    """How many texts a re-scan brought up to the current detector version."""

    sections: int
    statements: int
    detector_version: str


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

    def occurrences(self, target: str, value: str, *, caller: Caller) -> int:
        """How often `value` occurs (as a whole word, any case) in a document or node: a
        mark of a value that is not there masks nothing there, and the owner should know."""
        _owner_only(caller)
        doc_id, node_id = self._target(target)
        return sum(
            len(find_known_entities(row.text, {value: "PERSON"}))
            for row in sections.sections_of(self._conn, doc_id)
            if node_id is None or row.node_id == node_id
        )

    def unmark(
        self, target: str, value: str, *, caller: Caller, kind: str | None = None
    ) -> Override:
        """Treat `value` as not PII of `kind` (of any kind when None) in a document (or one
        node). Unmarks of other kinds of the same value add up; an unmark replaces a mark
        of the same value there (`unmark_reveals` says first what that shows)."""
        _owner_only(caller)
        planned = self._planned_unmark(target, value, kind)
        return self._override(target, value, "unmark", caller, planned.kind)

    def unmark_reveals(
        self, target: str, value: str, *, caller: Caller, kind: str | None = None
    ) -> tuple[Reveal, ...]:
        """Which agents would see which kinds of text they do not see now after
        `unmark(target, value, kind=kind)`; nothing is written."""
        _owner_only(caller)
        planned = self._planned_unmark(target, value, kind)

        def edit(overrides: list[Override]) -> list[Override]:
            kept = [
                item
                for item in overrides
                if not (
                    item.doc_id == planned.doc_id
                    and item.node_id == planned.node_id
                    and same_value(item.value, value)
                )
            ]
            return [*kept, planned]

        return reveals(self._context, planned.doc_id, edit)

    def remove_reveals(self, override_id: int, *, caller: Caller) -> tuple[Reveal, ...]:
        """Which agents would see which kinds of text they do not see now after
        `remove_override(override_id)`; nothing is written."""
        _owner_only(caller)
        every = pii.list_overrides(self._conn)
        found = next((item for item in every if item.id == override_id), None)
        if found is None:
            raise NotFound(f"no PII override with id {override_id}")
        forget = None
        if found.action == "mark" and not any(
            item.action == "mark" and item.id != found.id and same_value(item.value, found.value)
            for item in every
        ):
            forget = normalise_value(found.value)  # no longer a known entity anywhere
        return reveals(
            self._context,
            found.doc_id,
            lambda overrides: [item for item in overrides if item.id != override_id],
            forget,
        )

    def masking_for(
        self, doc_id: str, agent: Caller, *, caller: Caller
    ) -> tuple[tuple[MarkedSection, ...], AgentMasking]:
        """A document's sections with their spans, and what `agent`'s gate masks in them
        (one row per value and kind) and lets through ("detected but shown")."""
        marked = self.marked_sections(doc_id, caller=caller)
        spans = {section.node_id: list(section.spans) for section in marked}
        return marked, agent_masking(self._context, doc_id, agent, spans)

    def _planned_unmark(self, target: str, value: str, kind: str | None) -> Override:
        """The override `unmark` would store: its kinds joined with an earlier unmark's."""
        if not value.strip():
            raise InputError("give the value to mark or unmark")
        doc_id, node_id = self._target(target)
        kinds = {ANY_KIND if kind is None else normalise_kind(kind)}
        for item in pii.list_overrides(self._conn, [doc_id]):
            if item.node_id != node_id or not same_value(item.value, value):
                continue
            if item.action == "unmark":  # a mark of it is replaced, as the preview shows
                kinds |= item.kinds
        joined = ANY_KIND if ANY_KIND in kinds else ",".join(sorted(kinds))
        return Override(0, doc_id, node_id, joined, value.strip(), "unmark")

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
        found = next((o for o in pii.list_overrides(self._conn) if o.id == override_id), None)
        pii.delete_override(self._conn, override_id)
        if found is not None:  # as after a mark: every process and the masked index follow
            privacy, embedder = self._context.privacy, self._context.embedder
            privacy.known_changed([found.value], embedder)
            rows = sections.sections_of(self._conn, found.doc_id)
            privacy.remask([row.id for row in rows], embedder)

    def rescan(self, *, caller: Caller, batch: int = 200) -> Rescan:
        """Re-scan every section and statement whose spans came from another detector."""
        _owner_only(caller)
        sections = statements = 0
        while done := self._context.privacy.rescan(batch, self._context.embedder):
            sections += done
        while done := self._statements.rescan(batch):
            statements += done
        return Rescan(sections, statements, self._context.privacy.detector.version)
