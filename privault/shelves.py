"""Shelves: named stores inside the one vault file, each public or restricted to named agents.

A document names its shelf; a shelf only needs a row in `shelves` once it has a policy, a
private flag or an access list. A restricted shelf is visible to the owner and to the
agents on its access list, and to no one else — to them it does not exist at all.

Restriction is fail-closed: taking the last agent off a restricted shelf leaves it visible
to the owner only; only `publish` opens it to every agent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from privault import ingest
from privault.caller import Caller
from privault.errors import Conflict, NotFound
from privault.privacy.policy import PolicySet
from privault.store import agents
from privault.store.connection import Connection, rows, write
from privault.timeutil import now_ms

DEFAULT_SHELF = "default"


@dataclass(frozen=True)
class Shelf:
    """A shelf as the owner sees it."""

    name: str
    policy: str | None
    restricted: bool
    private: bool
    agents: tuple[str, ...]
    documents: int

    def to_dict(self, *, for_owner: bool = True) -> dict[str, Any]:
        """JSON form; an agent is not told the policy or which other agents share a shelf."""
        data: dict[str, Any] = {
            "name": self.name,
            "restricted": self.restricted,
            "documents": self.documents,
        }
        if for_owner:
            data.update(policy=self.policy, private=self.private, agents=list(self.agents))
        return data


def _document_counts(conn: Connection) -> dict[str, int]:
    return {
        shelf: count
        for shelf, count in conn.execute(
            "SELECT shelf, count(*) FROM documents WHERE current = 1 GROUP BY shelf"
        )
    }


def all_shelves(conn: Connection) -> list[Shelf]:
    """Every shelf: those with a row, and those that only exist because a document names them."""
    counts = _document_counts(conn)
    found = {
        data["name"]: Shelf(
            name=data["name"],
            policy=data["policy"],
            restricted=bool(data["restricted"]),
            private=bool(data["private"]),
            agents=agents.attached_agents(conn, data["name"]),
            documents=counts.get(data["name"], 0),
        )
        for data in rows(conn, "SELECT * FROM shelves")
    }
    for name, count in counts.items():
        if name not in found:
            found[name] = Shelf(name, None, False, False, (), count)
    if DEFAULT_SHELF not in found:
        found[DEFAULT_SHELF] = Shelf(DEFAULT_SHELF, None, False, False, (), 0)
    return [found[name] for name in sorted(found)]


def visible(conn: Connection, caller: Caller) -> list[Shelf]:
    """The shelves `caller` may know of (all of them for the owner)."""
    if caller.is_owner:
        return all_shelves(conn)
    return [
        shelf for shelf in all_shelves(conn) if not shelf.restricted or shelf.name in caller.shelves
    ]


def get(conn: Connection, name: str) -> Shelf:
    """One shelf (owner view); NotFound if nothing names it."""
    for shelf in all_shelves(conn):
        if shelf.name == name:
            return shelf
    raise NotFound(f"no shelf {name!r}")


def _ensure_row(conn: Connection, name: str) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO shelves (name, created_at) VALUES (?, ?)",
        (ingest.check_shelf(name), now_ms()),
    )


def add(
    conn: Connection,
    name: str,
    *,
    policies: PolicySet,
    policy: str | None = None,
    agent_names: Sequence[str] = (),
    private: bool = False,
    restricted: bool = False,
) -> Shelf:
    """Create a shelf. Naming agents restricts it to them; `restricted` with no agents
    makes it the owner's alone. An unknown policy or agent refuses the whole shelf."""
    ingest.check_shelf(name)
    if policy is not None:
        policies.resolve(policy)  # PolicyError now, not on the first read
    with write(conn):
        if conn.execute("SELECT 1 FROM shelves WHERE name = ?", (name,)).fetchone():
            raise Conflict(f"shelf {name!r} already exists")
        conn.execute(
            "INSERT INTO shelves (name, policy, restricted, private, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (name, policy, int(restricted or bool(agent_names)), int(private), now_ms()),
        )
        for agent in agent_names:
            agents.attach(conn, name, agent)
    return get(conn, name)


def attach(conn: Connection, shelf: str, agent: str) -> Shelf:
    """Open a shelf to an agent. The shelf becomes (or stays) restricted to its list."""
    with write(conn):
        _ensure_row(conn, shelf)
        agents.attach(conn, shelf, agent)
        conn.execute("UPDATE shelves SET restricted = 1 WHERE name = ?", (shelf,))
    return get(conn, shelf)


def detach(conn: Connection, shelf: str, agent: str) -> Shelf:
    """Take an agent off a shelf's list; the shelf stays restricted (owner-only when empty)."""
    with write(conn):
        if not agents.detach(conn, shelf, agent):
            raise NotFound(f"agent {agent!r} is not on shelf {shelf!r}")
    return get(conn, shelf)


def publish(conn: Connection, shelf: str) -> Shelf:
    """Make a shelf public: every agent sees it (its own policy still applies)."""
    with write(conn):
        _ensure_row(conn, shelf)
        conn.execute("UPDATE shelves SET restricted = 0 WHERE name = ?", (shelf,))
    return get(conn, shelf)
