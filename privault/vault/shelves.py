"""Shelves: named stores inside the one vault file, each public or restricted to named agents.

A document names its shelf; a shelf only needs a row in `shelves` once it has a policy, a
private flag or an access list. A restricted shelf is visible to the owner and to the
agents on its access list, and to no one else — to them it does not exist at all.

Restriction is fail-closed: taking the last agent off a restricted shelf leaves it visible
to the owner only; only `publish` opens it to every agent. Shelf administration is the
owner's (the CLI); agents only list what they may see.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from privault.caller import OWNER_NAME, Caller
from privault.errors import NotFound
from privault.jsonform import JsonForm, shown
from privault.privacy.policy import Policy
from privault.store import agents, audit
from privault.store import shelves as shelf_store
from privault.store.audit import AuditEntry
from privault.store.connection import Connection, write
from privault.timeutil import now_ms
from privault.vault.context import VaultContext
from privault.vault.ingest import check_shelf

DEFAULT_SHELF = "default"


@dataclass(frozen=True)
class Shelf(JsonForm):
    """A shelf you can see: its name, whether it is restricted, how many documents it holds
    (the owner also sees its policy, private flag and access list)."""

    name: str
    # An agent is not told the policy or which other agents share a shelf.
    policy: str | None = field(metadata=shown(agents=False))
    restricted: bool = field(metadata=shown("True when only some agents (you among them) see it."))
    private: bool = field(metadata=shown(agents=False))
    agents: tuple[str, ...] = field(metadata=shown(agents=False))
    documents: int


def all_shelves(conn: Connection) -> list[Shelf]:
    """Every shelf: those with a row, and those that only exist because a document names them."""
    counts = shelf_store.document_counts(conn)
    found = {
        data["name"]: Shelf(
            name=data["name"],
            policy=data["policy"],
            restricted=bool(data["restricted"]),
            private=bool(data["private"]),
            agents=agents.attached_agents(conn, data["name"]),
            documents=counts.get(data["name"], 0),
        )
        for data in shelf_store.shelf_rows(conn)
    }
    for name, count in counts.items():
        if name not in found:
            found[name] = Shelf(name, None, False, False, (), count)
    if DEFAULT_SHELF not in found:
        found[DEFAULT_SHELF] = Shelf(DEFAULT_SHELF, None, False, False, (), 0)
    return [found[name] for name in sorted(found)]


def at_least_as_strict(new: Policy, old: Policy) -> bool:
    """True when reading under `new` masks everything `old` masks (so the change shows no
    agent more); a change that only renames or reorders counts as strict enough."""
    merged = new.stricter(old)

    def rules(policy: Policy) -> dict[str, Any]:
        found = policy.model_dump(exclude={"name", "description", "thresholds"})
        kinds = set(merged.thresholds) | set(new.thresholds)
        found["thresholds"] = {kind: policy.threshold_for(kind) for kind in kinds}
        return {
            key: frozenset(value) if isinstance(value, (list, tuple)) else value
            for key, value in found.items()
        }

    return rules(merged) == rules(new)


def attach_agent(conn: Connection, shelf: str, agent: str) -> None:
    """Open a shelf to an agent inside the caller's write: restricted to its list from now."""
    shelf_store.ensure_row(conn, check_shelf(shelf), now_ms())
    agents.attach(conn, shelf, agent)
    shelf_store.set_restricted(conn, shelf, True)


class VaultShelves:
    """Shelf administration and listing for one open vault (`vault.shelves`)."""

    def __init__(self, context: VaultContext) -> None:
        self._context = context
        self._conn = context.conn

    def visible(self, caller: Caller) -> list[Shelf]:
        """The shelves `caller` may know of (all of them for the owner)."""
        found = all_shelves(self._conn)
        if caller.is_owner:
            return found
        return [shelf for shelf in found if not shelf.restricted or shelf.name in caller.shelves]

    def get(self, name: str) -> Shelf:
        """One shelf (owner view); NotFound if nothing names it."""
        for shelf in all_shelves(self._conn):
            if shelf.name == name:
                return shelf
        raise NotFound(f"no shelf {name!r}")

    def add(
        self,
        name: str,
        *,
        policy: str | None = None,
        agent_names: Sequence[str] = (),
        private: bool = False,
        restricted: bool = False,
    ) -> Shelf:
        """Create a shelf. Naming agents restricts it to them; `restricted` with no agents
        makes it the owner's alone. An unknown policy or agent refuses the whole shelf."""
        check_shelf(name)
        if policy is not None:
            self._context.privacy.policies.resolve(policy)  # PolicyError now, not on a read
        with write(self._conn):
            shelf_store.insert(
                self._conn, name, policy, restricted or bool(agent_names), private, now_ms()
            )
            for agent in agent_names:
                agents.attach(self._conn, name, agent)
        return self.get(name)

    def attach(self, shelf: str, agent: str) -> Shelf:
        """Open a shelf to an agent. The shelf becomes (or stays) restricted to its list."""
        with write(self._conn):
            attach_agent(self._conn, shelf, agent)
        return self.get(shelf)

    def detach(self, shelf: str, agent: str) -> Shelf:
        """Take an agent off a shelf's list; the shelf stays restricted (owner-only when
        empty)."""
        with write(self._conn):
            if not agents.detach(self._conn, shelf, agent):
                raise NotFound(f"agent {agent!r} is not on shelf {shelf!r}")
        return self.get(shelf)

    def publish(self, shelf: str) -> Shelf:
        """Make a shelf public: every agent sees it (its own policy still applies)."""
        with write(self._conn):
            shelf_store.ensure_row(self._conn, check_shelf(shelf), now_ms())
            shelf_store.set_restricted(self._conn, shelf, False)
        return self.get(shelf)

    def restrict(self, shelf: str) -> Shelf:
        """Close a public shelf to every agent not on its access list (the owner's alone
        when the list is empty); agents lose it from their next call."""
        with write(self._conn):
            shelf_store.ensure_row(self._conn, check_shelf(shelf), now_ms())
            shelf_store.set_restricted(self._conn, shelf, True)
        return self.get(shelf)

    def set_policy(self, shelf: str, policy: str | None) -> Shelf:
        """Agents read the shelf under `policy` (only ever stricter than their own) from
        their next call; None leaves each agent's own policy. An unknown policy or shelf is
        refused before anything changes. Recorded in the audit log as the owner's."""
        if policy is not None:
            self._context.privacy.policies.resolve(policy)  # PolicyError now, not on a read
        self.get(shelf)  # NotFound for a shelf nothing names
        with write(self._conn):
            shelf_store.ensure_row(self._conn, check_shelf(shelf), now_ms())
            shelf_store.set_policy(self._conn, shelf, policy)
            entry = AuditEntry(
                agent=OWNER_NAME,
                tool="shelf_policy",
                ok=True,
                arguments={"shelf": shelf, "policy": policy or "(each agent's own)"},
            )
            audit.record(self._conn, entry)
        return self.get(shelf)

    def policy_loosens(self, shelf: str, policy: str | None) -> bool:
        """Whether giving `shelf` the policy `policy` could show agents more than now (its
        current policy masks something the new one does not, or the new one is none)."""
        current = shelf_store.policy_of(self._conn, shelf)
        if current is None:
            return False
        if policy is None:
            return True
        policies = self._context.privacy.policies
        return not at_least_as_strict(policies.resolve(policy), policies.resolve(current))

    def names(self) -> list[str]:
        """Every shelf name (owner view), without counting documents: for a filter list."""
        return shelf_store.named_shelves(self._conn)

    def policies(self, caller: Caller) -> dict[str, str]:
        """The policy `caller` reads each shelf it can see under, by shelf name."""
        hidden = set(self._context.hidden_shelves(caller))
        return {
            shelf: self._context.privacy.policy_for(caller, shelf).name
            for shelf in shelf_store.named_shelves(self._conn)
            if shelf not in hidden
        }

    # Last in the class: below this name, `list` would mean this method to a type checker.
    def list(self) -> list[Shelf]:
        """Every shelf (owner view)."""
        return all_shelves(self._conn)
