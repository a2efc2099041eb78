"""Agents, shelves, the audit log and the stdio MCP server: agents, shelf, audit, mcp."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from privault.errors import AccessDenied, InputError
from privault.interfaces import config
from privault.interfaces.cli.common import (
    JsonOption,
    console,
    emit_json,
    err_console,
    number,
    opened,
    optional_time,
)
from privault.interfaces.cli.terminal import styled
from privault.vault.shelves import Shelf

TOKEN_ENV = "PRIVAULT_AGENT_TOKEN"

agents_app = typer.Typer(help="Register, list and revoke the agents that may use the vault.")
shelf_app = typer.Typer(help="Shelves: named parts of the vault, public or restricted to agents.")
mcp_app = typer.Typer(
    help="Run the MCP server on stdio for one agent, or print a client config snippet.",
    invoke_without_command=True,
)


# ---- agents ------------------------------------------------------------------------


@agents_app.command("add")
def agents_add(
    name: Annotated[str, typer.Argument(help="The agent's name (lowercase, e.g. claude).")],
    shelf: Annotated[
        list[str] | None,
        typer.Option("--shelf", help="Open this restricted shelf to the agent (repeatable)."),
    ] = None,
    read_only: Annotated[
        bool, typer.Option("--read-only", help="No write tools at all (remember, forget, …).")
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """Register an agent and print its token. The token is shown only this once."""
    with opened() as vault:
        token = vault.agents.issue(name, shelves=shelf or [], read_only=read_only)
        agent = vault.agents.get(name)
    assert agent is not None
    if json_out:
        emit_json({**agent.to_dict(), "token": token})
        return
    console.print(
        styled(
            "agent [bold]{name}[/bold] registered{read_only}",
            name=name,
            read_only=" (read-only)" if read_only else "",
        )
    )
    if agent.shelves:
        console.print(f"restricted shelves: {', '.join(agent.shelves)}")
    console.print("token (shown once — store it now):", highlight=False)
    print(token)
    console.print(
        styled(
            "[dim]stdio: {env}=<token> privault mcp --agent {name}   ·   "
            "HTTP: Authorization: Bearer <token>[/dim]",
            env=TOKEN_ENV,
            name=name,
        ),
        highlight=False,
    )


@agents_app.command("list")
def agents_list(json_out: JsonOption = False) -> None:
    """List agents, their restricted shelves and whether they are active."""
    with opened() as vault:
        found = vault.agents.list()
    if json_out:
        emit_json({"agents": [agent.to_dict() for agent in found]})
        return
    table = Table("agent", "status", "read-only", "policy", "restricted shelves", "created")
    for agent in found:
        status = (
            "active" if agent.active else f"revoked {(agent.to_dict()['revoked_at'] or '')[:10]}"
        )
        if agent.active and agent.paused:
            status = "paused"
        table.add_row(
            agent.name,
            status,
            "yes" if agent.read_only else "no",
            agent.policy or "(configuration)",
            ", ".join(agent.shelves),
            (agent.to_dict()["created_at"] or "")[:16],
        )
    console.print(table)


@agents_app.command("revoke")
def agents_revoke(
    name: Annotated[str, typer.Argument(help="The agent whose token stops working now.")],
    json_out: JsonOption = False,
) -> None:
    """Revoke an agent's token (the next call it makes is refused)."""
    with opened() as vault:
        changed = vault.agents.revoke(name)
    if json_out:
        emit_json({"name": name, "revoked": True, "changed": changed})
    else:
        console.print(f"revoked {name}" if changed else f"{name} was already revoked")


def _print_agent(name: str, json_out: bool, line: str) -> None:
    with opened() as vault:
        agent = vault.agents.get(name)
    assert agent is not None  # the change just made found it
    if json_out:
        emit_json(agent.to_dict())
    else:
        console.print(line, highlight=False)


@agents_app.command("policy")
def agents_policy(
    name: Annotated[str, typer.Argument(help="The agent.")],
    policy: Annotated[
        str | None, typer.Argument(help="A policy name (`privault policy show` lists them).")
    ] = None,
    clear: Annotated[
        bool, typer.Option("--clear", help="Back to the configuration's policy for it.")
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """Read an agent under POLICY from its next call (shelf policies still tighten it)."""
    if (policy is None) == (not clear):
        raise InputError("give a POLICY, or --clear to use the configuration's again")
    with opened() as vault:
        vault.agents.set_policy(name, None if clear else policy)
    chosen = "the configuration's policy" if clear else f"policy {policy}"
    _print_agent(name, json_out, f"{name} reads under {chosen} from its next call")


@agents_app.command("read-only")
def agents_read_only(
    name: Annotated[str, typer.Argument(help="The agent.")],
    off: Annotated[bool, typer.Option("--off", help="Give its write tools back.")] = False,
    json_out: JsonOption = False,
) -> None:
    """Take an agent's write tools away (or, with --off, give them back) from its next call."""
    with opened() as vault:
        vault.agents.set_read_only(name, not off)
    _print_agent(name, json_out, f"{name} is {'writable' if off else 'read-only'} now")


@agents_app.command("pause")
def agents_pause(
    name: Annotated[str, typer.Argument(help="The agent to stop for now.")],
    json_out: JsonOption = False,
) -> None:
    """Refuse every call of an agent until `agents resume` (its token stays valid)."""
    with opened() as vault:
        changed = vault.agents.pause(name)
    _print_agent(name, json_out, f"paused {name}" if changed else f"{name} was already paused")


@agents_app.command("resume")
def agents_resume(
    name: Annotated[str, typer.Argument(help="The paused agent.")],
    json_out: JsonOption = False,
) -> None:
    """Let a paused agent call again."""
    with opened() as vault:
        changed = vault.agents.resume(name)
    _print_agent(name, json_out, f"resumed {name}" if changed else f"{name} was not paused")


# ---- shelves -----------------------------------------------------------------------


def _print_shelf(shelf: Shelf, json_out: bool, verb: str) -> None:
    if json_out:
        emit_json(shelf.to_dict())
        return
    access = (
        f"restricted to {', '.join(shelf.agents) or 'the owner'}" if shelf.restricted else "public"
    )
    console.print(
        styled(
            "shelf [bold]{name}[/bold] {verb}: {access}", name=shelf.name, verb=verb, access=access
        ),
        highlight=False,
    )


@shelf_app.command("add")
def shelf_add(
    name: Annotated[str, typer.Argument(help="The shelf's name (lowercase).")],
    policy: Annotated[
        str | None, typer.Option("--policy", help="Policy for agents reading it (only stricter).")
    ] = None,
    agent: Annotated[
        list[str] | None,
        typer.Option("--agent", help="Restrict the shelf to this agent (repeatable)."),
    ] = None,
    restricted: Annotated[
        bool, typer.Option("--restricted", help="Restricted even with no agent: owner only.")
    ] = False,
    private: Annotated[
        bool, typer.Option("--private", help="Its text is private: only a local model may answer.")
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """Create a shelf: public, or (with --agent/--restricted) visible only to named agents."""
    with opened() as vault:
        shelf = vault.shelves.add(
            name,
            policy=policy,
            agent_names=agent or [],
            private=private,
            restricted=restricted,
        )
    _print_shelf(shelf, json_out, "added")


@shelf_app.command("attach")
def shelf_attach(
    shelf: Annotated[str, typer.Argument(help="The shelf.")],
    agent: Annotated[str, typer.Argument(help="The agent to let in.")],
    json_out: JsonOption = False,
) -> None:
    """Open a shelf to an agent; the shelf becomes restricted to its access list."""
    with opened() as vault:
        found = vault.shelves.attach(shelf, agent)
    _print_shelf(found, json_out, "attached")


@shelf_app.command("detach")
def shelf_detach(
    shelf: Annotated[str, typer.Argument(help="The shelf.")],
    agent: Annotated[str, typer.Argument(help="The agent to shut out.")],
    json_out: JsonOption = False,
) -> None:
    """Take an agent off a shelf's access list (an empty list leaves it owner-only)."""
    with opened() as vault:
        found = vault.shelves.detach(shelf, agent)
    _print_shelf(found, json_out, "detached")


@shelf_app.command("publish")
def shelf_publish(
    shelf: Annotated[str, typer.Argument(help="The shelf to open to every agent.")],
    json_out: JsonOption = False,
) -> None:
    """Make a shelf public: every agent sees it (its policy still applies)."""
    with opened() as vault:
        found = vault.shelves.publish(shelf)
    _print_shelf(found, json_out, "published")


@shelf_app.command("policy")
def shelf_policy(
    shelf: Annotated[str, typer.Argument(help="The shelf.")],
    policy: Annotated[
        str | None, typer.Argument(help="The policy agents read it under (only stricter).")
    ] = None,
    clear: Annotated[
        bool, typer.Option("--clear", help="No policy of its own: each agent's applies.")
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """Set the policy agents read a shelf under (it only ever makes theirs stricter)."""
    if (policy is None) == (not clear):
        raise InputError("give a POLICY, or --clear to drop the shelf's own policy")
    with opened() as vault:
        found = vault.shelves.set_policy(shelf, None if clear else policy)
    _print_shelf(found, json_out, f"policy {found.policy or 'cleared'}")


@shelf_app.command("list")
def shelf_list(json_out: JsonOption = False) -> None:
    """List shelves with their policy, access and document count."""
    with opened() as vault:
        found = vault.shelves.list()
    if json_out:
        emit_json({"shelves": [shelf.to_dict() for shelf in found]})
        return
    table = Table("shelf", "access", "policy", "private", "documents")
    for shelf in found:
        access = (
            f"restricted: {', '.join(shelf.agents) or 'owner only'}"
            if shelf.restricted
            else "public"
        )
        table.add_row(
            shelf.name,
            access,
            shelf.policy or "-",
            "yes" if shelf.private else "no",
            str(shelf.documents),
        )
    console.print(table)


# ---- audit -------------------------------------------------------------------------


def audit(
    agent: Annotated[str | None, typer.Option("--agent", help="Only this agent.")] = None,
    since: Annotated[
        str | None, typer.Option("--since", help="Only calls at/after this ISO time.")
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", "-n", help="How many rows.", parser=number)
    ] = 100,
    json_out: JsonOption = False,
) -> None:
    """What agents did: every tool call with ids touched, policy and what was held back."""
    with opened() as vault:
        found = vault.audit.entries(agent=agent, since=optional_time(since), limit=limit)
    if json_out:
        emit_json({"entries": [entry.to_dict() for entry in found]})
        return
    table = Table("time", "agent", "tool", "result", "policy", "held back", "ids")
    for entry in found:
        data = entry.to_dict()
        result = "ok" if entry.ok else ("refused" if entry.refused else "error")
        if entry.reason:
            result += f": {entry.reason[:60]}"
        held = ", ".join(f"{kind} ×{count}" for kind, count in entry.held_back.items())
        ids = ", ".join(entry.ids[:3]) + (" …" if len(entry.ids) > 3 else "")
        table.add_row(
            (data["at"] or "")[:19], entry.agent, entry.tool, result, entry.policy or "-", held, ids
        )
    console.print(table)


# ---- MCP ---------------------------------------------------------------------------


@mcp_app.callback()
def mcp(
    ctx: typer.Context,
    agent: Annotated[
        str | None, typer.Option("--agent", help="The registered agent this server acts for.")
    ] = None,
) -> None:
    """Serve MCP on stdio for agent NAME; its token must be in PRIVAULT_AGENT_TOKEN.

    Add it to a client with the snippet from `privault mcp config --agent NAME`.
    """
    if ctx.invoked_subcommand is not None:
        return
    if not agent:
        raise InputError("give --agent NAME (register one with `privault agents add NAME`)")
    token = os.environ.get(TOKEN_ENV)
    if not token:
        raise AccessDenied(f"set {TOKEN_ENV} to the token `privault agents add {agent}` printed")
    from privault.interfaces.agents import authenticate_as
    from privault.interfaces.mcp.server import run_stdio

    with opened() as vault:
        authenticate_as(vault, agent, token)
        run_stdio(vault, agent)


def executable() -> str:
    """The absolute path of the `privault` command clients should launch."""
    found = shutil.which("privault")
    if found:
        return str(Path(found).resolve())
    beside = Path(sys.executable).with_name("privault")
    return str(beside if beside.exists() else Path(sys.argv[0]).resolve())


CLIENTS = {
    "claude": "Claude Desktop: claude_desktop_config.json · Claude Code: .mcp.json",
    "cursor": "Cursor: ~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
}


def client_config(
    agent: str, client: str = "claude", *, vault: Path | None = None
) -> dict[str, object]:
    """The `mcpServers` snippet that makes `client` launch `privault mcp --agent AGENT`.

    The token stays a placeholder: it was shown once by `agents add` and is not kept.
    """
    if client not in CLIENTS:
        raise InputError(f"unknown client {client!r}: use {' or '.join(CLIENTS)}")
    entry: dict[str, object] = {
        "command": executable(),
        "args": ["mcp", "--agent", agent],
        # Clients start servers with little of the user's environment: name every path.
        "env": {
            "PRIVAULT_HOME": str(config.home()),
            "PRIVAULT_VAULT": str(vault or config.vault_path()),
            "PRIVAULT_MODELS": str(config.models_dir()),
            TOKEN_ENV: f"<token from `privault agents add {agent}`>",
        },
    }
    if client == "cursor":
        entry = {"type": "stdio", **entry}
    return {"mcpServers": {"privault": entry}}


@mcp_app.command("config")
def mcp_config(
    agent: Annotated[str, typer.Option("--agent", help="The agent the client acts as.")] = "claude",
    client: Annotated[
        str, typer.Option("--client", help="claude (Desktop/Code) or cursor.")
    ] = "claude",
    json_out: JsonOption = False,
) -> None:
    """Print a ready-to-paste MCP client config for agent NAME (token left as a placeholder)."""
    snippet = client_config(agent, client)
    if json_out:
        emit_json(snippet)
        return
    err_console.print(styled("[dim]paste into {}[/dim]", CLIENTS[client]), highlight=False)
    print(json.dumps(snippet, indent=2))


def register(app: typer.Typer) -> None:
    """Add these commands to the app."""
    app.add_typer(agents_app, name="agents")
    app.add_typer(shelf_app, name="shelf")
    app.add_typer(mcp_app, name="mcp")
    app.command()(audit)
