"""Who is asking. The policy applied to a read follows from the caller, never from a parameter."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

OWNER_NAME = "owner"


@dataclass(frozen=True)
class Caller:
    """An identity resolved by an interface: the owner at the CLI, or an authenticated agent.

    Interfaces build callers from how they were reached (the CLI user, an agent token); the
    core trusts a `Caller` as given and never accepts a policy from the caller itself: an
    agent's `policy` is the one the owner chose for it in the vault, read from its row with
    its shelves and read-only flag on every call.
    """

    kind: Literal["owner", "agent"]
    name: str
    shelves: frozenset[str] = field(default_factory=frozenset)  # restricted shelves it may see
    read_only: bool = False
    paused: bool = False  # the owner paused the agent: interfaces refuse its calls
    policy: str | None = None  # chosen by the owner in the vault; None: the configuration's

    @classmethod
    def owner(cls) -> Caller:
        """The person who owns the vault, at their own terminal."""
        return cls(kind="owner", name=OWNER_NAME)

    @classmethod
    def agent(
        cls, name: str, shelves: frozenset[str] | set[str] = frozenset(), read_only: bool = False
    ) -> Caller:
        """An agent, as authenticated by an interface."""
        return cls(kind="agent", name=name, shelves=frozenset(shelves), read_only=read_only)

    @property
    def is_owner(self) -> bool:
        """True for the vault's owner."""
        return self.kind == "owner"
