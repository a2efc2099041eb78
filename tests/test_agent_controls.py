"""What the owner changes about an agent after registering it — its policy, its write
tools, pausing it — and a shelf's policy and a reminder's snooze: through the facade (the
CLI and the page call the same methods), checked by what the agent then gets over MCP."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from privault.caller import Caller
from privault.errors import AccessDenied, Conflict, InputError, NotFound, PolicyError
from privault.interfaces.agents import known_caller
from privault.interfaces.cli import app
from privault.store import agents, audit
from privault.timeutil import now_ms
from privault.vault import Vault
from tests.helpers import mcp_call, mcp_error, mcp_ok, mcp_session

OWNER = Caller.owner()
EMAIL = "jane@example.com"
runner = CliRunner()


@pytest.fixture
def vault(vault: Vault) -> Vault:
    agents.issue(vault.conn, "bob")
    vault.note(f"# Trip\n\nWrite to {EMAIL} about the budget.", caller=OWNER)
    return vault


def bob_reads(vault: Vault) -> str:
    found = mcp_ok(vault, "bob", "memory_search", query="budget")
    return " ".join(hit["text"] for hit in found["results"])


def owner_rows(vault: Vault) -> list[tuple[str, dict[str, Any]]]:
    return [(row.tool, row.arguments) for row in audit.entries(vault.conn, agent="owner")]


def test_an_agents_policy_changes_what_it_reads_from_its_next_call(vault: Vault) -> None:
    assert EMAIL not in bob_reads(vault)  # standard masks e-mail addresses
    assert vault.agents.policy_loosens("bob", "open")
    assert not vault.agents.policy_loosens("bob", "strict")
    changed = vault.agents.set_policy("bob", "open")
    assert changed.policy == "open"
    assert EMAIL in bob_reads(vault)
    assert vault.privacy.base_policy(known_caller(vault, "bob")).name == "open"
    vault.agents.set_policy("bob", None)  # back to the configuration's
    assert EMAIL not in bob_reads(vault) and vault.agents.get("bob").policy is None  # type: ignore[union-attr]
    assert owner_rows(vault)[:2] == [
        ("agent_policy", {"agent": "bob", "policy": "(configuration)"}),
        ("agent_policy", {"agent": "bob", "policy": "open"}),
    ]


def test_a_bad_policy_change_is_refused_and_changes_nothing(vault: Vault) -> None:
    with pytest.raises(PolicyError):
        vault.agents.set_policy("bob", "no-such-policy")
    with pytest.raises(NotFound):
        vault.agents.set_policy("nobody", "open")
    vault.agents.revoke("bob")
    with pytest.raises(Conflict, match="revoked"):
        vault.agents.set_policy("bob", "open")
    with pytest.raises(Conflict, match="revoked"):
        vault.agents.pause("bob")
    assert vault.agents.get("bob").policy is None  # type: ignore[union-attr]
    assert [tool for tool, _ in owner_rows(vault)] == ["agent_revoke"]


def test_read_only_and_writable_take_effect_on_the_next_call(vault: Vault) -> None:
    assert mcp_ok(vault, "bob", "remember", text="The bins go out on Tuesday.")
    vault.agents.set_read_only("bob", True)
    assert mcp_error(vault, "bob", "remember", text="sneaky") == "Unknown tool: remember"
    listed = mcp_session(vault, "bob", lambda client: client.list_tools())
    assert "remember" not in {tool.name for tool in listed.tools}
    vault.agents.set_read_only("bob", False)
    assert mcp_ok(vault, "bob", "remember", text="The recycling goes out on Friday.")
    assert [tool for tool, _ in owner_rows(vault)] == ["agent_read_only", "agent_read_only"]


def test_a_paused_agent_is_refused_with_a_reason_and_audited(vault: Vault) -> None:
    assert vault.agents.pause("bob") is True
    assert vault.agents.pause("bob") is False
    refused = mcp_error(vault, "bob", "memory_search", query="budget")
    assert refused.startswith("access_denied: agent bob is paused by the vault's owner")
    assert EMAIL not in refused
    row = audit.entries(vault.conn, agent="bob")[0]
    assert (row.tool, row.ok, row.refused) == ("memory_search", False, True)
    assert "paused" in (row.reason or "") and row.arguments == {"query": "budget"}
    writes = mcp_call(vault, "bob", "remember", text="while paused")
    assert writes.is_error and vault.documents.count(caller=OWNER) == 1
    assert vault.agents.resume("bob") is True and vault.agents.resume("bob") is False
    assert "budget" in bob_reads(vault)


def test_a_shelf_policy_only_tightens_and_a_looser_one_is_known_as_such(vault: Vault) -> None:
    vault.agents.set_policy("bob", "open")
    vault.note(f"# Desk\n\nThe desk budget goes to {EMAIL}.", caller=OWNER, shelf="work")
    assert EMAIL in bob_reads(vault)
    assert not vault.shelves.policy_loosens("work", "standard")  # none yet: nothing to loosen
    assert vault.shelves.set_policy("work", "standard").policy == "standard"
    texts = [hit["text"] for hit in mcp_ok(vault, "bob", "memory_search", query="desk")["results"]]
    assert texts and all(EMAIL not in text for text in texts)
    assert vault.shelves.policy_loosens("work", None)
    assert vault.shelves.policy_loosens("work", "open")
    assert not vault.shelves.policy_loosens("work", "strict")
    with pytest.raises(PolicyError):
        vault.shelves.set_policy("work", "no-such-policy")
    with pytest.raises(NotFound):
        vault.shelves.set_policy("nowhere", "strict")
    assert vault.shelves.get("work").policy == "standard"
    assert ("shelf_policy", {"shelf": "work", "policy": "standard"}) in owner_rows(vault)


def test_a_snoozed_reminder_is_off_the_due_list_until_then(vault: Vault) -> None:
    vault.watches.add("remind", "Pay the plumber", caller=OWNER, at=now_ms() - 60_000)
    vault.watches.poll(caller=OWNER, now=now_ms() + 1000)
    [due] = vault.watches.reminders(caller=OWNER).reminders
    with pytest.raises(InputError):
        vault.watches.snooze(due.id, caller=OWNER, interval="soon")
    with pytest.raises(InputError):
        vault.watches.snooze(due.id, caller=OWNER, until=now_ms() - 1)
    with pytest.raises(NotFound):
        vault.watches.snooze("r-nope", caller=OWNER, interval="1d")
    vault.watches.snooze(due.id, caller=OWNER, interval="1h")
    assert vault.watches.reminders(caller=OWNER).reminders == ()
    assert len(vault.watches.reminders(caller=OWNER, include_acked=True).reminders) == 1
    vault.conn.execute("UPDATE reminders SET snoozed_until = ?", (now_ms() - 1,))
    [back] = vault.watches.reminders(caller=OWNER).reminders
    assert back.id == due.id
    agents.set_read_only(vault.conn, "bob", True)
    with pytest.raises(AccessDenied, match="read-only"):
        vault.watches.snooze(due.id, caller=known_caller(vault, "bob"), interval="1d")


def run(*args: str) -> Any:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_the_cli_commands_share_the_facade(vault: Vault) -> None:
    assert run("agents", "policy", "bob", "strict")["policy"] == "strict"
    assert run("agents", "policy", "bob", "--clear")["policy"] is None
    assert run("agents", "read-only", "bob")["read_only"] is True
    assert run("agents", "read-only", "bob", "--off")["read_only"] is False
    assert run("agents", "pause", "bob")["paused"] is True
    assert run("agents", "resume", "bob")["paused"] is False
    vault.note("Shelved.", caller=OWNER, shelf="work")
    assert run("shelf", "policy", "work", "strict")["policy"] == "strict"
    assert run("shelf", "policy", "work", "--clear")["policy"] is None
    bad = runner.invoke(app, ["agents", "policy", "bob", "no-such-policy"])
    assert bad.exit_code != 0 and "no-such-policy" in str(bad.exception)
    neither = runner.invoke(app, ["agents", "policy", "bob"])
    assert neither.exit_code != 0 and "--clear" in str(neither.exception)
    tools = [tool for tool, _ in owner_rows(vault)]
    assert tools.count("agent_policy") == 2 and tools.count("shelf_policy") == 2
