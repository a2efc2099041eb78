"""Agents, shelves and the audit log: the store, identity resolution and the CLI commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer

from privault.caller import Caller
from privault.errors import AccessDenied, Conflict, InputError, NotFound, PolicyError
from privault.interfaces.agents import authenticate, authenticate_as, known_caller
from privault.interfaces.cli import agents as agents_cli
from privault.interfaces.cli import documents as documents_cli
from privault.interfaces.cli import serve as serve_cli
from privault.store import agents, audit
from privault.store.audit import AuditEntry
from privault.vault import Vault
from tests.helpers import FakeEngineRunner


def test_tokens_are_stored_hashed_and_resolve_to_callers(vault: Vault) -> None:
    token = agents.issue(vault.conn, "claude")
    stored = vault.conn.execute("SELECT token_hash FROM agents").fetchone()[0]
    assert token not in stored and stored == agents.hash_token(token)
    caller = authenticate(vault, token)
    assert caller == Caller.agent("claude")
    assert known_caller(vault, "claude") == caller
    assert authenticate_as(vault, "claude", token) == caller
    with pytest.raises(AccessDenied):
        authenticate_as(vault, "other", token)
    for bad in ("", None, token + "x", "pv_guess"):
        with pytest.raises(AccessDenied, match="unknown or revoked token"):
            authenticate(vault, bad)
    with pytest.raises(Conflict):
        agents.issue(vault.conn, "claude")
    with pytest.raises(InputError):
        agents.issue(vault.conn, "Bad Name")
    with pytest.raises(InputError):
        agents.issue(vault.conn, "owner")


def test_revoked_agents_are_unknown(vault: Vault) -> None:
    token = agents.issue(vault.conn, "cursor", read_only=True)
    assert known_caller(vault, "cursor").read_only
    assert agents.revoke(vault.conn, "cursor") is True
    assert agents.revoke(vault.conn, "cursor") is False
    with pytest.raises(AccessDenied):
        authenticate(vault, token)
    with pytest.raises(AccessDenied, match="unknown agent"):
        known_caller(vault, "cursor")
    with pytest.raises(AccessDenied, match="unknown agent"):
        known_caller(vault, "never-registered")
    with pytest.raises(NotFound):
        agents.revoke(vault.conn, "never-registered")


def test_a_token_of_any_characters_is_simply_unknown(vault: Vault) -> None:
    # Tokens are hashed before the constant-time compare, so it only ever sees hex digits.
    token = agents.issue(vault.conn, "cursor")
    agents.revoke(vault.conn, "cursor")
    for odd in ("caf\u00e9", token[:-1] + "\u00e9", "\U0001f511", token + "\udcff"):
        with pytest.raises(AccessDenied, match="unknown or revoked"):
            authenticate(vault, odd)
        assert agents.revoked_holder(vault.conn, odd) is None


def test_restricted_shelves_are_invisible_to_other_agents(vault: Vault) -> None:
    agents.issue(vault.conn, "alice")
    agents.issue(vault.conn, "bob")
    vault.shelves.add("health", agent_names=["alice"])
    vault.note("Blood pressure log for March.", caller=Caller.owner(), shelf="health")
    vault.note("Shopping list: bread.", caller=Caller.owner())
    alice, bob = known_caller(vault, "alice"), known_caller(vault, "bob")
    assert alice.shelves == {"health"}
    assert [s.name for s in vault.shelves.visible(alice)] == ["default", "health"]
    assert [s.name for s in vault.shelves.visible(bob)] == ["default"]
    assert vault.search("blood pressure", caller=alice).results
    assert all(h.shelf != "health" for h in vault.search("blood pressure", caller=bob).results)
    # detach leaves it owner-only (fail closed); publish opens it to everyone
    vault.shelves.detach("health", "alice")
    assert [s.name for s in vault.shelves.visible(known_caller(vault, "alice"))] == ["default"]
    assert vault.shelves.get("health").restricted
    vault.shelves.publish("health")
    assert "health" in [s.name for s in vault.shelves.visible(bob)]
    # attach restricts again
    vault.shelves.attach("health", "bob")
    assert [s.name for s in vault.shelves.visible(known_caller(vault, "alice"))] == ["default"]
    with pytest.raises(NotFound):
        vault.shelves.detach("health", "alice")
    with pytest.raises(NotFound):
        vault.shelves.attach("health", "nobody")


def test_shelf_add_refuses_unknown_policy_agent_and_duplicates(vault: Vault) -> None:
    with pytest.raises(PolicyError):
        vault.shelves.add("x", policy="no-such-policy")
    with pytest.raises(NotFound):
        vault.shelves.add("x", agent_names=["ghost"])
    assert vault.conn.execute("SELECT count(*) FROM shelves").fetchone()[0] == 0  # all or none
    vault.shelves.add("x", policy="strict", private=True)
    with pytest.raises(Conflict):
        vault.shelves.add("x")
    owner_only = vault.shelves.add("mine", restricted=True)
    assert owner_only.restricted and owner_only.agents == ()


def test_audit_rows_filter_and_join_transactions(vault: Vault) -> None:
    audit.record(
        vault.conn, AuditEntry("a", "memory_search", True, ("n1",), "standard", {"PERSON": 2})
    )
    audit.record(vault.conn, AuditEntry("b", "remember", False, reason="x" * 5000))
    rows = audit.entries(vault.conn)
    assert [r.agent for r in rows] == ["b", "a"]
    assert len(rows[0].reason or "") <= audit.MAX_REASON_CHARS
    assert audit.entries(vault.conn, agent="a")[0].held_back == {"PERSON": 2}
    assert audit.entries(vault.conn, since=rows[0].at + 10**6) == []


# ---- CLI -----------------------------------------------------------------------------

runner = FakeEngineRunner()


@pytest.fixture
def cli() -> typer.Typer:
    app = typer.Typer()
    documents_cli.register(app)
    agents_cli.register(app)
    serve_cli.register(app)
    return app


def as_json(app: typer.Typer, *args: str) -> dict:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_cli_agents_shelves_audit(cli: typer.Typer) -> None:
    added = as_json(cli, "agents", "add", "claude")
    assert added["token"].startswith("pv_") and added["active"]
    as_json(cli, "agents", "add", "reader", "--read-only")
    shelf = as_json(cli, "shelf", "add", "work", "--agent", "claude", "--policy", "strict")
    assert shelf == {
        "name": "work",
        "restricted": True,
        "documents": 0,
        "policy": "strict",
        "private": False,
        "agents": ["claude"],
    }
    assert as_json(cli, "shelf", "attach", "work", "reader")["agents"] == ["claude", "reader"]
    assert as_json(cli, "shelf", "detach", "work", "reader")["agents"] == ["claude"]
    assert as_json(cli, "shelf", "publish", "work")["restricted"] is False
    names = [s["name"] for s in as_json(cli, "shelf", "list")["shelves"]]
    assert names == ["default", "work"]
    listed = as_json(cli, "agents", "list")["agents"]
    assert [(a["name"], a["read_only"], a["shelves"]) for a in listed] == [
        ("claude", False, ["work"]),
        ("reader", True, []),
    ]
    assert "token" not in json.dumps(listed)
    assert as_json(cli, "agents", "revoke", "reader")["changed"] is True
    # --as previews a registered agent, and refuses an unknown one
    assert runner.invoke(cli, ["search", "x", "--as", "claude"]).exit_code == 0
    refused = runner.invoke(cli, ["search", "x", "--as", "ghost"])
    assert refused.exit_code != 0
    # The owner's revoke is the only row: agents made no call.
    logged = as_json(cli, "audit")["entries"]
    assert [(row["agent"], row["tool"], row["arguments"]) for row in logged] == [
        ("owner", "agent_revoke", {"agent": "reader"})
    ]
    assert as_json(cli, "audit", "--agent", "claude", "--since", "2020-01-01")["entries"] == []
    human = runner.invoke(cli, ["audit"])
    assert human.exit_code == 0


def test_cli_mcp_config_and_guards(cli: typer.Typer, monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = as_json(cli, "mcp", "config", "--agent", "claude")
    entry = snippet["mcpServers"]["privault"]
    assert Path(entry["command"]).is_absolute()
    assert entry["args"] == ["mcp", "--agent", "claude"]
    assert set(entry["env"]) == {
        "PRIVAULT_HOME",
        "PRIVAULT_VAULT",
        "PRIVAULT_MODELS",
        "PRIVAULT_AGENT_TOKEN",
    }
    cursor = as_json(cli, "mcp", "config", "--client", "cursor")["mcpServers"]["privault"]
    assert cursor["type"] == "stdio"
    assert runner.invoke(cli, ["mcp", "config", "--client", "vim"]).exit_code != 0
    monkeypatch.delenv("PRIVAULT_AGENT_TOKEN", raising=False)
    assert runner.invoke(cli, ["mcp"]).exit_code != 0  # no --agent
    assert runner.invoke(cli, ["mcp", "--agent", "claude"]).exit_code != 0  # no token
    monkeypatch.setenv("PRIVAULT_AGENT_TOKEN", "pv_wrong")
    assert runner.invoke(cli, ["mcp", "--agent", "claude"]).exit_code != 0
    refused = runner.invoke(cli, ["serve", "--host", "0.0.0.0"])
    assert refused.exit_code != 0 and "--allow-remote" in str(refused.exception)


def test_every_command_has_help(cli: typer.Typer) -> None:
    for args in (
        ["agents"],
        ["agents", "add"],
        ["shelf"],
        ["shelf", "add"],
        ["audit"],
        ["mcp"],
        ["mcp", "config"],
        ["serve"],
    ):
        result = runner.invoke(cli, [*args, "--help"])
        assert result.exit_code == 0 and len(result.output) > 100, args


def test_shelves_count_current_documents_only(vault: Vault) -> None:
    owner = Caller.owner()
    first = vault.note("A page as it was.", caller=owner, shelf="web").doc_id
    vault.note("A page as it is.", caller=owner, shelf="web")
    vault.note("Elsewhere.", caller=owner)
    counts = {shelf.name: shelf.documents for shelf in vault.shelves.list()}
    assert counts == {"default": 1, "web": 2}
    # An older version of a page stays in the file but is not counted.
    vault.conn.execute("UPDATE documents SET current = 0 WHERE id = ?", (first,))
    counts = {shelf.name: shelf.documents for shelf in vault.shelves.list()}
    assert counts == {"default": 1, "web": 1}
