"""What an import returns: per kind of item how many were added, updated and skipped,
which items failed and why, and what the source no longer has.

Like `vault.added`, it carries only the owner's own input (the export's item names and
keys) and ids: importing is the owner's act, and nothing here goes to an agent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from privault.jsonform import JsonForm

STATUSES = ("added", "updated", "skipped")


def source_of(kind: str, key: str) -> str:
    """The `source` of an item imported from `kind` with this key (`chatgpt:<id>`): how
    a document is found again, and what a link to it names."""
    return f"{kind}:{key}"


@dataclass
class ImportCounts:
    """Running counts of one import, per item label ('conversation', 'message', …)."""

    by_label: dict[str, dict[str, int]] = field(default_factory=dict)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (which item, why)

    def count(self, label: str, status: str) -> None:
        """One more item of `label` ended as `status` (added, updated or skipped)."""
        counts = self.by_label.setdefault(label, dict.fromkeys(STATUSES, 0))
        counts[status] += 1

    def total(self, status: str) -> int:
        """Items of every label that ended as `status`."""
        return sum(counts[status] for counts in self.by_label.values())

    @property
    def done(self) -> int:
        """Items handled so far, failed ones included."""
        return sum(self.total(status) for status in STATUSES) + len(self.failed)


@dataclass(frozen=True)
class GoneItem(JsonForm):
    """An item imported before that the source no longer has."""

    key: str
    doc_id: str | None
    statement_id: str | None


@dataclass(frozen=True)
class ImportReport:
    """The outcome of one `import_from`."""

    kind: str
    path: str
    dry_run: bool
    counts: dict[str, dict[str, int]]
    failed: tuple[tuple[str, str], ...]
    gone: tuple[GoneItem, ...]  # deleted at the source
    pruned: int  # of those, deleted here too (`prune`)

    def total(self, status: str) -> int:
        """Items of every label that ended as `status`."""
        return sum(counts.get(status, 0) for counts in self.counts.values())

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "kind": self.kind,
            "path": self.path,
            "dry_run": self.dry_run,
            **{status: self.total(status) for status in STATUSES},
            "by_item": self.counts,
            "failed": [{"item": item, "reason": reason} for item, reason in self.failed],
            "deleted_at_source": [gone.to_dict() for gone in self.gone],
            "pruned": self.pruned,
        }
