"""Resolving agent identities for the interfaces (CLI --as, MCP over stdio and HTTP).

An agent is who its token says it is: the stdio server is launched with `--agent NAME` and
the token in PRIVAULT_AGENT_TOKEN, the HTTP server reads `Authorization: Bearer`. Either
way the resulting `Caller` carries the restricted shelves the agent is attached to and its
read-only flag, read from the vault on every resolution so a revoke or a detach takes
effect on the next call.
"""

from __future__ import annotations

from privault.caller import Caller
from privault.errors import AccessDenied
from privault.vault import Vault
from privault.vault.agents import Agent, agent_caller


def caller_of(agent: Agent) -> Caller:
    """The `Caller` for a registered agent."""
    return agent_caller(agent)


def known_caller(vault: Vault, name: str) -> Caller:
    """The agent called `name` as the vault knows it; AccessDenied if unknown or revoked."""
    found = vault.agents.get(name)
    if found is None or not found.active:
        raise AccessDenied(f"unknown agent {name!r} (see `privault agents list`)")
    return caller_of(found)


def authenticate(vault: Vault, token: str | None) -> Caller:
    """The agent holding `token`; AccessDenied (saying nothing more) for anything else."""
    found = vault.agents.by_token(token) if token else None
    if found is None:
        raise AccessDenied("unknown or revoked token")
    return caller_of(found)


def authenticate_as(vault: Vault, name: str, token: str | None) -> Caller:
    """The agent `name`, if `token` is its current token (how `privault mcp` starts)."""
    caller = authenticate(vault, token)
    if caller.name != name:
        raise AccessDenied("unknown or revoked token")
    return caller
