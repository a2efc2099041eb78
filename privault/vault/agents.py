"""Agents and the audit log through the facade (`vault.agents`, `vault.audit`).

Registering agents, revoking them and reading the audit log are the owner's (the CLI);
resolving a token or a name to the agent it belongs to is how every interface learns who
is calling. The values (`Agent`, `AuditEntry`) are the store's frozen rows, re-exported
here so interfaces never import the store.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from privault.store import agents, audit
from privault.store.agents import Agent
from privault.store.audit import AuditEntry
from privault.store.connection import Connection, write
from privault.vault.context import VaultContext
from privault.vault.shelves import attach_agent

__all__ = ["Agent", "AuditEntry", "VaultAgents", "VaultAudit"]


class VaultAgents:
    """Registered agents of one open vault."""

    def __init__(self, context: VaultContext) -> None:
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
        return agents.revoke(self._conn, name)

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
