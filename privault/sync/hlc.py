"""Hybrid logical clocks: wall time in ms, a counter, and the device that ticked.

A clock value orders changes so that (a) a change made after seeing another is always
later, whatever the two machines' wall clocks say, and (b) otherwise the real time of
the change decides. Ties between devices are broken by device id, so any two values are
ordered the same way everywhere. Values are written as fixed-width text, so comparing
the strings compares the clocks (and SQLite can index them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from privault.errors import InputError

_FORMAT = re.compile(r"^(\d{15})\.(\d{6})\.([A-Za-z0-9_-]{1,40})\Z")
MAX_COUNTER = 999_999


@dataclass(frozen=True, order=True)
class Stamp:
    """One clock value: compare with <, >, ==."""

    wall: int
    counter: int
    device: str

    def text(self) -> str:
        """The sortable text form, e.g. `001767225600000.000003.dev_a1b2`."""
        return f"{self.wall:015d}.{self.counter:06d}.{self.device}"

    @classmethod
    def parse(cls, text: str) -> Stamp:
        """A stamp from its text form; InputError for anything else."""
        match = _FORMAT.match(text or "")
        if not match:
            raise InputError(f"not a clock value: {text!r}")
        return cls(int(match.group(1)), int(match.group(2)), match.group(3))


def tick(last: Stamp | None, wall: int, device: str) -> Stamp:
    """The stamp of a local change made at `wall` ms, after `last` (the device's clock).

    The standard HLC send rule: the wall part never goes back; when it does not move on,
    the counter does.
    """
    if last is None or wall > last.wall:
        return Stamp(wall, 0, device)
    return _bump(last.wall, last.counter, device)


def receive(last: Stamp | None, remote: Stamp, device: str) -> Stamp:
    """The device's clock after seeing `remote`: never behind anything it has seen."""
    if last is None or remote.wall > last.wall:
        return Stamp(remote.wall, remote.counter, device)
    if remote.wall == last.wall:
        return Stamp(last.wall, max(last.counter, remote.counter), device)
    return last


def _bump(wall: int, counter: int, device: str) -> Stamp:
    # A counter overflow (a million changes in one ms) moves into the next millisecond.
    if counter >= MAX_COUNTER:
        return Stamp(wall + 1, 0, device)
    return Stamp(wall, counter + 1, device)
