"""Agents and the audit log through the facade (`vault.agents`, `vault.audit`).

Registering agents, changing what they may do (policy, read-only, paused), revoking them
and reading the audit log are the owner's (the CLI and the page, through these same
methods); each change is a row in the audit log under the name `owner`. Resolving a token
or a name to the agent it belongs to is how every interface learns who is calling. The
values (`Agent`, `AuditEntry`) are the store's frozen rows, re-exported here so interfaces
never import the store.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from privault.caller import OWNER_NAME, Caller
from privault.errors import Conflict, NotFound
from privault.store import agents, audit
from privault.store.agents import Agent
from privault.store.audit import AuditEntry
from privault.store.connection import Connection, write
from privault.vault.context import VaultContext
from privault.vault.shelves import at_least_as_strict, attach_agent

__all__ = ["Agent", "AuditEntry", "VaultAgents", "VaultAudit"]


def agent_caller(agent: Agent) -> Caller:
    """The caller a registered agent reads as (what interfaces resolve its token to)."""
    return Caller(
        kind="agent",
        name=agent.name,
        shelves=frozenset(agent.shelves),
        read_only=agent.read_only,
        paused=agent.paused,
        policy=agent.policy,
    )


class VaultAgents:
    """Registered agents of one open vault."""

    def __init__(self, context: VaultContext) -> None:
        self._context = context
        self._conn = context.conn

    def issue(self, name: str, *, shelves: Sequence[str] = (), read_only: bool = False) -> str:
        """Register an agent, open the named restricted shelves to it, and return its token
        (shown this once). One transaction: a bad shelf leaves no agent behind."""
        with write(self._conn):
            token = agents.issue(self._conn, name, read_only=read_only)
            for shelf in shelves:
                attach_agent(self._conn, shelf, name)
        return token

    def get(self, name: str) -> Agent | None:
        """The agent called `name` (revoked or not), or None."""
        return agents.get(self._conn, name)

    def by_token(self, token: str) -> Agent | None:
        """The active agent holding `token`, or None (unknown and revoked look the same)."""
        return agents.by_token(self._conn, token)

    def revoked_holder(self, token: str) -> str | None:
        """The revoked agent this token belonged to, or None: who to name in the audit row
        of a refused request."""
        return agents.revoked_holder(self._conn, token)

    def revoke(self, name: str) -> bool:
        """Revoke an agent's token; False if it was already revoked."""
        with write(self._conn):
            changed = agents.revoke(self._conn, name)
            self._owner_did("agent_revoke", name, {})
        return changed

    def set_policy(self, name: str, policy: str | None) -> Agent:
        """Read agent `name` under `policy` from its next call, on every shelf (a shelf's
        own policy still makes it stricter); None returns it to the configuration's entry.
        An unknown policy is refused before anything changes."""
        if policy is not None:
            self._context.privacy.policies.resolve(policy)  # PolicyError now, not on a read
        with write(self._conn):
            agents.set_policy(self._conn, name, policy)
            self._owner_did("agent_policy", name, {"policy": policy or "(configuration)"})
        return self._found(name)

    def policy_loosens(self, name: str, policy: str | None) -> bool:
        """Whether reading agent `name` under `policy` (None: the configuration's) could
        show it more than its policy now does: for the page's confirmation."""
        privacy = self._context.privacy
        found = self._found_active(name)
        caller = agent_caller(found)
        current = privacy.base_policy(caller)
        if policy is None:
            access = privacy.access
            if access.refuses(name):
                return False  # back to the configuration means refused: nothing shown
            policy = access.agents.get(name, access.agent_default)
        return not at_least_as_strict(privacy.policies.resolve(policy), current)

    def set_read_only(self, name: str, read_only: bool) -> Agent:
        """Take the agent's write tools away (or give them back) from its next call."""
        with write(self._conn):
            agents.set_read_only(self._conn, name, read_only)
            self._owner_did("agent_read_only", name, {"read_only": read_only})
        return self._found(name)

    def pause(self, name: str) -> bool:
        """Refuse every call of the agent, with a reason, until `resume`; its token, shelves
        and policy stay as they are. False if it was already paused."""
        with write(self._conn):
            changed = agents.set_paused(self._conn, name, True)
            self._owner_did("agent_pause", name, {})
        return changed

    def resume(self, name: str) -> bool:
        """Let a paused agent call again; False if it was not paused."""
        with write(self._conn):
            changed = agents.set_paused(self._conn, name, False)
            self._owner_did("agent_resume", name, {})
        return changed

    def _found_active(self, name: str) -> Agent:
        found = agents.get(self._conn, name)
        if found is None:
            raise NotFound(f"no agent {name!r} (see `privault agents list`)")
        if not found.active:
            raise Conflict(f"agent {name!r} is revoked: register a new one instead")
        return found

    def _found(self, name: str) -> Agent:
        found = agents.get(self._conn, name)
        assert found is not None  # the change above checked it exists
        return found

    def _owner_did(self, tool: str, name: str, arguments: dict[str, object]) -> None:
        entry = AuditEntry(
            agent=OWNER_NAME, tool=tool, ok=True, arguments={"agent": name, **arguments}
        )
        audit.record(self._conn, entry)

    # Last in the class: below this name, `list` would mean this method to a type checker.
    def list(self) -> list[Agent]:
        """Every agent, by name."""
        return agents.list_agents(self._conn)


class VaultAudit:
    """The audit log of one open vault: what every agent call did."""

    def __init__(self, context: VaultContext) -> None:
        self._conn: Connection = context.conn

    def record(self, entry: AuditEntry) -> int:
        """Append one row (inside the current transaction, if one is open)."""
        return audit.record(self._conn, entry)

    def entries(
        self,
        *,
        agent: str | None = None,
        since: int | None = None,
        tool: str | None = None,
        outcome: str | None = None,
        limit: int = 200,
        until: int | None = None,
        before: tuple[int, int] | None = None,
    ) -> list[AuditEntry]:
        """Rows newest first, optionally of one agent, in a time window, of one tool, with
        one outcome (`ok`, `refused` or `error`); `before` is the (at, id) of the last row
        of the previous page."""
        return audit.entries(
            self._conn,
            agent=agent,
            since=since,
            tools=[tool] if tool else None,
            outcome=outcome,
            limit=limit,
            until=until,
            before=before,
        )

    def count(
        self,
        *,
        agent: str | None = None,
        since: int | None = None,
        tool: str | None = None,
        outcome: str | None = None,
        until: int | None = None,
    ) -> int:
        """How many rows `entries` with these filters lists in all."""
        chosen = audit.AuditFilter(agent, since, [tool] if tool else None, outcome, until)
        return audit.count_entries(self._conn, chosen)

    def last_calls(self) -> dict[str, tuple[int, int, int]]:
        """Agent -> (time of its last call, how many calls, how many refused or failed)."""
        return audit.last_calls(self._conn)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction: a tool's write and its audit row land together or not at
        all."""
        with write(self._conn):
            yield
