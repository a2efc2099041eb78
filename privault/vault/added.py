"""What a write returns: the outcome of storing a document, and of adding many files.

Apart from `vault.results` (which imports the gate): a write's outcome carries only the
caller's own input (its title, its source) and ids, so capturing a note needs no privacy
code at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from privault.jsonform import JsonForm, shown


@dataclass(frozen=True)
class Added(JsonForm):
    """The outcome of writing one document: `added`, `updated` or `unchanged`."""

    doc_id: str
    status: str
    title: str
    sections: int
    source: str | None = field(default=None, metadata=shown(agents=False))


@dataclass(frozen=True)
class AddReport:
    """The outcome of adding many files: each one added, updated, unchanged or failed."""

    added: tuple[Added, ...]
    failed: tuple[tuple[str, str], ...]  # (path, reason)

    def count(self, status: str) -> int:
        """How many files ended with this status."""
        return sum(1 for item in self.added if item.status == status)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "added": self.count("added"),
            "updated": self.count("updated"),
            "unchanged": self.count("unchanged"),
            "failed": [{"path": path, "reason": reason} for path, reason in self.failed],
            "documents": [item.to_dict() for item in self.added],
        }
