"""What an import returns: per kind of item how many were added, updated and skipped,
which items failed and why, and what the source no longer has.

Like `vault.added`, it carries only the owner's own input (the export's item names and
keys) and ids: importing is the owner's act, and nothing here goes to an agent.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from privault.jsonform import JsonForm, shown

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
class ImportReport(JsonForm):
    """The outcome of one `import_from`."""

    kind: str
    path: str
    dry_run: bool = field(
        metadata=shown(then={"added": "added", "updated": "updated", "skipped": "skipped"})
    )
    counts: dict[str, dict[str, int]] = field(metadata=shown(key="by_item"))
    failed: tuple[tuple[str, str], ...] = field(metadata=shown(pairs=("item", "reason")))
    # deleted at the source
    gone: tuple[GoneItem, ...] = field(metadata=shown(key="deleted_at_source"))
    pruned: int  # of those, deleted here too (`prune`)
    # Why what the source deleted could not be told (then `gone` is empty, nothing pruned):
    # some items of the export could not be identified, or it broke off.
    deletions_unknown: str | None = None

    @property
    def added(self) -> int:
        """Items added, of every label."""
        return self.total("added")

    @property
    def updated(self) -> int:
        """Items updated, of every label."""
        return self.total("updated")

    @property
    def skipped(self) -> int:
        """Items skipped (unchanged), of every label."""
        return self.total("skipped")

    def total(self, status: str) -> int:
        """Items of every label that ended as `status`."""
        return sum(counts.get(status, 0) for counts in self.counts.values())
