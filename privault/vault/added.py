"""What a write returns: the outcome of storing a document, and of adding many files.

Apart from `vault.results` (which imports the gate): a write's outcome carries only the
caller's own input (its title, its source) and ids, so capturing a note needs no privacy
code at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from privault.jsonform import JsonForm, shown
from privault.sync.markdown_shelves import ShelfAccess


@dataclass(frozen=True)
class Added(JsonForm):
    """The outcome of writing one document: `added`, `updated` or `unchanged`."""

    doc_id: str
    status: str
    title: str
    sections: int
    source: str | None = field(default=None, metadata=shown(agents=False))


@dataclass(frozen=True)
class SettledShelf(JsonForm):
    """A shelf that added files named, settled before they were written to it."""

    name: str
    outcome: str = field(
        metadata=shown(
            "created: with the export's settings; owner_only: created restricted to the "
            "owner, as no settings came with it; kept: it exists here and keeps its own "
            "settings, which differ from the export's."
        )
    )
    access: ShelfAccess = field(metadata=shown("The shelf's access settings here, now."))
    exported: ShelfAccess | None = field(metadata=shown("What the export carried for it."))
    not_attached: tuple[str, ...] = field(
        default=(), metadata=shown("Agents the export named that are not registered here.")
    )


@dataclass(frozen=True)
class AddReport(JsonForm):
    """The outcome of adding many files: each one added, updated, unchanged or failed."""

    added: tuple[Added, ...] = field(
        metadata=shown(
            key="documents",
            then={
                "added": "added_count",
                "updated": "updated_count",
                "unchanged": "unchanged_count",
            },
        )
    )
    failed: tuple[tuple[str, str], ...] = field(metadata=shown(pairs=("path", "reason")))
    # Shown only when adding settled a shelf: the reply of a plain `add` is as it was.
    shelves: tuple[SettledShelf, ...] = field(
        default=(), metadata=shown(agents=False, when="shelves")
    )

    @property
    def added_count(self) -> int:
        """Files added."""
        return self.count("added")

    @property
    def updated_count(self) -> int:
        """Files updated."""
        return self.count("updated")

    @property
    def unchanged_count(self) -> int:
        """Files unchanged."""
        return self.count("unchanged")

    def count(self, status: str) -> int:
        """How many files ended with this status."""
        return sum(1 for item in self.added if item.status == status)
