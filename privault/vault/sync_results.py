"""What export, import and sync report back: plain values with a JSON form."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from privault.jsonform import JsonForm


@dataclass(frozen=True)
class ExportReport(JsonForm):
    """A bundle written: where, how many rows, up to which local change number."""

    path: str
    rows: int
    since: int
    cursor: int
    bytes: int


@dataclass(frozen=True)
class ImportReport(JsonForm):
    """What one bundle did to the vault."""

    path: str
    device: str
    rows: int
    applied: dict[str, int]
    unchanged: int
    forgotten: int
    waiting: int
    # Shelves whose access settings stayed stricter than this bundle's concurrent version.
    kept_stricter: tuple[str, ...] = ()


@dataclass(frozen=True)
class SyncReport:
    """One sync round: the file written (if any) and each peer file read or refused."""

    device: str
    written: ExportReport | None
    imported: tuple[ImportReport, ...]
    refused: tuple[tuple[str, str], ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "device": self.device,
            "written": self.written.to_dict() if self.written else None,
            "imported": [item.to_dict() for item in self.imported],
            "refused": [{"path": path, "reason": why} for path, why in self.refused],
        }
