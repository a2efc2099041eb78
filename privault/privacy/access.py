"""Which policy applies to a read: decided by who is asking and which shelf is read.

Rule (documented for `privault policy show`):

* the owner gets `config.owner` (default `open`, i.e. off) on every shelf — shelf policies
  are there to protect the owner's data from agents, not from the owner;
* an agent gets its own entry in `config.agents`, else `config.agent_default` (`standard`);
  with `config.unlisted_agents: false`, an agent without an entry is refused;
* a shelf policy applies to agents and can only make things stricter: the result is
  `Policy.stricter(agent_policy, shelf_policy)` — higher mode, union of kinds, lower
  thresholds — so a lax shelf never loosens an agent's policy;
* any other caller is refused (`AccessDenied`), and any unknown policy name for a
  caller is a `PolicyError`: there is no default to fall back to. A shelf's policy this
  device does not know (synced from one that has it) reads as the strictest of all
  (`PolicySet.for_shelf`).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from privault.caller import Caller
from privault.errors import AccessDenied
from privault.privacy.policy import Policy, PolicySet


class AccessConfig(BaseModel):
    """The caller -> policy part of the vault configuration."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    owner: str = Field("open", description="Policy for the owner at their terminal.")
    agent_default: str = Field("standard", description="Policy for agents without an entry.")
    agents: dict[str, str] = Field(default_factory=dict, description="Agent name -> policy.")
    unlisted_agents: bool = Field(
        True, description="Whether agents without an entry in `agents` may read at all."
    )

    def refuses(self, agent: str) -> bool:
        """Whether the agent named `agent` may not read at all: it has no entry and
        agents without one are refused."""
        return agent not in self.agents and not self.unlisted_agents


def policy_for(
    caller: Caller, shelf_policy: str | None, config: AccessConfig, policies: PolicySet
) -> Policy:
    """The policy applied when `caller` reads a shelf whose own policy is `shelf_policy`."""
    if caller.kind == "owner" and caller.is_owner:
        return policies.resolve(config.owner)
    if caller.kind != "agent" or not caller.name:
        raise AccessDenied("unknown caller: only the owner and registered agents may read")
    if config.refuses(caller.name):
        raise AccessDenied(f"agent {caller.name!r} has no policy in the vault configuration")
    policy = policies.resolve(config.agents.get(caller.name, config.agent_default))
    if shelf_policy:
        policy = policy.stricter(policies.for_shelf(shelf_policy))
    return policy
