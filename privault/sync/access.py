"""How two versions of a shelf's access settings merge: toward the stricter side.

Last-writer-wins is wrong for access settings. Device A restricts `health`; device B, not
having seen that yet, creates `health` as a public shelf a second later; plain LWW makes
B's row win everywhere and publishes A's notes. So a shelf's `restricted`, `private` and
`policy` only loosen through a merge when the loosening version causally follows the
stricter one: it was written on a device that had already seen it.

Causality is tracked per shelf with a small version vector, the payload's `seen`: for
each device, the highest clock of its versions of this shelf that the writer had seen
when it wrote this version. A version's history is its `seen` plus its own (origin,
clock). Version X follows version Y when X's history covers Y's (every device's entry at
least as high). Then:

- the incoming version is already covered by the held one: nothing to do;
- the incoming version follows the held one: it is taken as it is (a deliberate
  loosening travels);
- otherwise they are concurrent: the newer clock wins as usual, but each access field is
  the stricter of the two (restricted and private if either is; the policy that gates
  more). When that changed the winner, the result is a new local change of this device
  whose history covers both, so the other devices take it as following theirs.

A history is what the writer claims, and a device can check one claim: what it wrote
itself. An incoming version that claims to have seen a version of this device's shelf
later than any the held version knows of is not believed (`believed`): a bundle's writer
could otherwise claim a clock this device has not reached, and so cover its restrictions
to come. The two versions are then taken as concurrent, and the stricter settings stay;
when the claim was forged about another device, that device keeps its own settings
strict the same way, and its merged version brings every device back. A vault restored
from a backup meets its own lost versions so too: they merge as concurrent (the stricter
side wins, so a loosening made elsewhere after one of them is undone once).

Access lists (which agents may read a restricted shelf) never travel: agents and their
tokens are local to each device.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ACCESS_FIELDS = ("restricted", "private", "policy")

PolicyRank = Callable[[str | None], int]  # higher: stricter; None means no policy of its own


@dataclass(frozen=True)
class ShelfVersion:
    """One version of a shelf row: its clock, the device that wrote it, its payload."""

    hlc: str
    origin: str
    payload: dict[str, Any] | None

    @property
    def history(self) -> dict[str, str]:
        """Per device, the highest clock of its versions this one had seen (itself too)."""
        seen = dict((self.payload or {}).get("seen") or {})
        if seen.get(self.origin, "") < self.hlc:
            seen[self.origin] = self.hlc
        return seen


@dataclass(frozen=True)
class Outcome:
    """What the merge of one incoming shelf version does.

    `action`: `keep` (the held version stands), `take` (the incoming one is written as it
    came) or `merge` (`payload` is written, a new local change of this device)."""

    action: str
    payload: dict[str, Any] | None = None


def covers(later: dict[str, str], earlier: dict[str, str]) -> bool:
    """Whether a history includes every version another one includes."""
    return all(later.get(device, "") >= clock for device, clock in earlier.items())


def _loosest() -> dict[str, Any]:
    return {"restricted": 0, "private": 0, "policy": None}


def stricter_policy(a: str | None, b: str | None, rank: PolicyRank) -> str | None:
    """The policy that gates more; between two as strict, the same one on every device."""
    if a == b:
        return a
    if a is None or b is None:
        return a if b is None else b
    return max(a, b, key=lambda name: (rank(name), name))


def believed(claimed: dict[str, str], held: dict[str, str], me: str) -> dict[str, str] | None:
    """An incoming history as far as this device (`me`) can trust it; None when it claims
    a version of this device's later than any the held history knows of (forged, or
    written before this vault was restored from a backup): then neither version can be
    shown to follow the other."""
    return claimed if claimed.get(me, "") <= held.get(me, "") else None


def merge_shelf(
    held: ShelfVersion | None, incoming: ShelfVersion, rank: PolicyRank, me: str
) -> Outcome:
    """Decide between the held version of a shelf and an incoming one, on device `me`
    (see the module)."""
    if held is None:
        return Outcome("take")
    claimed = believed(incoming.history, held.history, me)
    if claimed is not None and covers(held.history, claimed):
        return Outcome("keep")
    if claimed is not None and covers(claimed, held.history):
        return Outcome("take")
    winner, other = (incoming, held) if incoming.hlc > held.hlc else (held, incoming)
    base = winner.payload if winner.payload is not None else other.payload
    if base is None:  # neither has a row: nothing to be strict about
        return Outcome("take" if winner is incoming else "keep")
    mine = {**_loosest(), **(held.payload or {})}
    theirs = {**_loosest(), **(incoming.payload or {})}
    strict = {
        "restricted": max(int(mine["restricted"]), int(theirs["restricted"])),
        "private": max(int(mine["private"]), int(theirs["private"])),
        "policy": stricter_policy(mine["policy"], theirs["policy"], rank),
    }
    result = {**base, **strict}
    if winner.payload is not None and all(
        _same(result[name], winner.payload[name]) for name in ACCESS_FIELDS
    ):
        return Outcome("take" if winner is incoming else "keep")
    seen = dict(held.history)
    for device, clock in (claimed or {}).items():
        if seen.get(device, "") < clock:
            seen[device] = clock
    result["seen"] = dict(sorted(seen.items()))
    return Outcome("merge", result)


def _same(a: Any, b: Any) -> bool:
    return (
        (int(a) == int(b)) if isinstance(a, (bool, int)) and isinstance(b, (bool, int)) else a == b
    )
