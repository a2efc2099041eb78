"""What export, import and sync report back: plain values with a JSON form."""

from __future__ import annotations

from dataclasses import dataclass, field

from privault.jsonform import JsonForm, shown


@dataclass(frozen=True)
class ExportReport(JsonForm):
    """A bundle written: where, how many rows, up to which local change number."""

    path: str
    rows: int
    since: int
    cursor: int
    bytes: int
    # How far this device's clock is ahead of its time (0: not). Over an hour, the other
    # devices hold the rows it writes until their time reaches them (`sync.merge`).
    clock_ahead_ms: int = 0


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
    # Rows refused on their own (outside a local write's bounds), one line each; the rest
    # of the bundle was merged.
    refused_rows: tuple[str, ...] = ()
    # Of `waiting`, the rows whose clock is more than an hour ahead of this device's time:
    # they merge at an import after it (a wrong clock on one of the two devices).
    ahead: int = 0


@dataclass(frozen=True)
class SyncReport(JsonForm):
    """One sync round: the file written (if any) and each peer file read or refused."""

    device: str
    written: ExportReport | None
    imported: tuple[ImportReport, ...]
    refused: tuple[tuple[str, str], ...] = field(
        default=(), metadata=shown(pairs=("path", "reason"))
    )
