"""Owner-only PII operations: scan and redact text, mark and unmark values, re-scan.

These have no agent surface at all: every method refuses any caller but the owner. Marks
and unmarks are stored by document id and value, so they survive re-ingest; a marked value
also becomes a known entity, caught wherever it appears in the vault.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from privault.caller import Caller
from privault.errors import AccessDenied, InputError, NotFound
from privault.privacy.gate import Gate, GatedText
from privault.privacy.overrides import Override
from privault.privacy.spans import Span, normalise_kind
from privault.store import pii

if TYPE_CHECKING:
    from privault.vault import Vault


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


def _owner_only(caller: Caller) -> None:
    if not caller.is_owner:
        raise AccessDenied("PII overrides, scans and policies are the owner's alone")


class VaultPII:
    """The owner's PII tools for one open vault."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault

    def scan(self, text: str, *, caller: Caller) -> list[Span]:
        """Every span the detector finds in `text`."""
        _owner_only(caller)
        return self.vault.privacy.detector.detect(text)

    def redact(self, text: str, *, caller: Caller, policy: str = "standard") -> GatedText:
        """`text` as a caller under the named policy would see it."""
        _owner_only(caller)
        gate = Gate(self.vault.privacy.policies.resolve(policy))
        return gate.apply(text, self.scan(text, caller=caller))

    def _target(self, target: str) -> tuple[str, str | None]:
        """(doc id, node id or None) for a document or node id."""
        conn = self.vault.conn
        if conn.execute("SELECT 1 FROM documents WHERE id = ?", (target,)).fetchone():
            return target, None
        found = conn.execute("SELECT doc_id FROM sections WHERE node_id = ?", (target,)).fetchone()
        if found:
            return found[0], target
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
            self.vault.conn, doc_id, value, action, normalise_kind(kind), node_id
        )
        self.vault.privacy.forget_known()  # a marked value is a known entity from now on
        return override

    def overrides(self, *, caller: Caller, target: str | None = None) -> list[Override]:
        """The owner's overrides, of one document or all."""
        _owner_only(caller)
        doc_ids = [self._target(target)[0]] if target else None
        return pii.list_overrides(self.vault.conn, doc_ids)

    def remove_override(self, override_id: int, *, caller: Caller) -> None:
        """Delete one override by id."""
        _owner_only(caller)
        pii.delete_override(self.vault.conn, override_id)
        self.vault.privacy.forget_known()

    def rescan(self, *, caller: Caller, batch: int = 200) -> Rescan:
        """Re-scan every section and statement whose spans came from another detector."""
        _owner_only(caller)
        sections = statements = 0
        while done := self.vault.privacy.rescan(batch):
            sections += done
        while done := self.vault.statements.rescan(batch):
            statements += done
        return Rescan(sections, statements, self.vault.privacy.detector.version)
