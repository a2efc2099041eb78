"""Every MCP tool through the SDK's in-process client, for agents with different rights."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from privault.caller import Caller
from privault.filters import Filters
from privault.store import agents, audit
from privault.vault import Vault
from tests.helpers import mcp_call, mcp_error, mcp_ok, mcp_session

OWNER = Caller.owner()
WRITE_TOOLS = {"remember", "memory_forget"}
FORBIDDEN_ARGUMENTS = {"policy", "pii", "model", "override", "caller", "agent", "mode"}


@pytest.fixture
def vault(vault: Vault) -> Vault:
    for name in ("alice", "bob"):
        agents.issue(vault.conn, name)
    agents.issue(vault.conn, "reader", read_only=True)
    vault.shelves.add("health", agent_names=["alice"])
    vault.note(
        "# Trip\n\nMeet Dr. Jane Roe at jane@example.com about the budget.\n\n"
        "## Hotel\n\nThe hotel is booked for three nights.",
        caller=OWNER,
        tags=["travel"],
    )
    vault.note("Blood pressure budget log: 120/80 in March.", caller=OWNER, shelf="health")
    return vault


def test_tools_are_listed_with_hints_and_no_policy_arguments(vault: Vault) -> None:
    tools = mcp_session(vault, "bob", lambda c: c.list_tools()).tools
    names = {tool.name for tool in tools}
    assert {
        "memory_search",
        "memory_read",
        "memory_tree",
        "memory_context",
        "remember",
        "memory_forget",
        "list_shelves",
    } <= names
    for tool in tools:
        assert tool.description and len(tool.description) > 60, tool.name
        assert tool.output_schema is not None, tool.name
        assert not FORBIDDEN_ARGUMENTS & set(tool.input_schema.get("properties", {})), tool.name
        is_write = tool.name in WRITE_TOOLS or tool.annotations.read_only_hint is False
        assert tool.annotations.read_only_hint is (not is_write), tool.name


def test_read_only_agents_have_no_write_tools(vault: Vault) -> None:
    tools = mcp_session(vault, "reader", lambda c: c.list_tools()).tools
    assert all(tool.annotations.read_only_hint for tool in tools)
    assert not WRITE_TOOLS & {tool.name for tool in tools}
    before = vault.conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    assert mcp_error(vault, "reader", "remember", text="sneaky") == "Unknown tool: remember"
    assert vault.conn.execute("SELECT count(*) FROM documents").fetchone()[0] == before
    assert audit.entries(vault.conn, agent="reader")[0].reason == "read-only agent"
    assert mcp_ok(vault, "reader", "list_shelves")["can_write"] is False


def test_search_is_gated_and_audited(vault: Vault) -> None:
    found = mcp_ok(vault, "bob", "memory_search", query="budget")
    texts = [hit["text"] for hit in found["results"]]
    assert texts and all("jane@example.com" not in t and "Jane Roe" not in t for t in texts)
    assert found["mode"] == "redact" and found["held_back"]
    assert all(hit["shelf"] != "health" for hit in found["results"])
    row = audit.entries(vault.conn, agent="bob")[0]
    assert (row.tool, row.ok, row.policy) == ("memory_search", True, found["policy"])
    assert list(row.ids) == [hit["node_id"] for hit in found["results"]]
    assert row.held_back == found["held_back"]
    alice = mcp_ok(vault, "alice", "memory_search", query="blood pressure", shelf="health")
    assert [hit["shelf"] for hit in alice["results"]] == ["health"]
    assert (
        mcp_ok(vault, "bob", "memory_search", query="blood pressure", shelf="health")["results"]
        == []
    )


def test_hidden_nodes_look_missing(vault: Vault) -> None:
    hidden = vault.search("blood pressure", caller=OWNER, filters=Filters(shelf="health")).results[
        0
    ]
    missing = mcp_error(vault, "bob", "memory_read", node_id="dffffffffffff.0")
    guessed = mcp_error(vault, "bob", "memory_read", node_id=hidden.node_id)
    assert guessed == missing.replace("dffffffffffff.0", hidden.node_id)
    assert "not_found" in guessed
    doc_missing = mcp_error(vault, "bob", "memory_tree", doc_id="dffffffffffff")
    doc_guessed = mcp_error(vault, "bob", "memory_tree", doc_id=hidden.doc_id)
    assert doc_guessed == doc_missing.replace("dffffffffffff", hidden.doc_id)
    assert mcp_error(vault, "bob", "memory_forget", doc_id=hidden.doc_id) == mcp_error(
        vault, "bob", "memory_forget", doc_id="dffffffffffff"
    ).replace("dffffffffffff", hidden.doc_id)
    assert mcp_ok(vault, "alice", "memory_read", node_id=hidden.node_id)["shelf"] == "health"
    shelf_names = [s["name"] for s in mcp_ok(vault, "bob", "list_shelves")["shelves"]]
    assert shelf_names == ["default"]
    assert "health" in [s["name"] for s in mcp_ok(vault, "alice", "list_shelves")["shelves"]]


def test_read_tree_and_context(vault: Vault) -> None:
    hit = mcp_ok(vault, "bob", "memory_search", query="hotel nights")["results"][0]
    section = mcp_ok(vault, "bob", "memory_read", node_id=hit["node_id"])
    assert "three nights" in section["text"] and section["breadcrumb"][-1] == "Hotel"
    listing = mcp_ok(vault, "bob", "memory_tree")
    assert [d["title"] for d in listing["documents"]] == ["Trip"]
    assert listing["document"] is None
    outline = mcp_ok(vault, "bob", "memory_tree", doc_id=hit["doc_id"])["document"]
    assert [n["heading"] for n in outline["nodes"]][-1] == "Hotel"
    pack = mcp_ok(vault, "bob", "memory_context", query="budget hotel", budget=60)
    assert pack["used_tokens"] <= 60 and pack["budget"] == 60
    assert "jane@example.com" not in pack["text"]
    assert "invalid_input" in mcp_error(vault, "bob", "memory_search", query="x", since="yesterday")


def test_remember_then_forget(vault: Vault) -> None:
    added = mcp_ok(
        vault, "bob", "remember", text="The wifi password is on the fridge.", tags=["home"]
    )
    assert added["status"] == "added"
    assert (
        mcp_ok(vault, "bob", "remember", text="The wifi password is on the fridge.", tags=["home"])[
            "status"
        ]
        == "unchanged"
    )
    hits = mcp_ok(vault, "alice", "memory_search", query="wifi fridge")["results"]
    assert hits[0]["doc_id"] == added["doc_id"]
    stored = vault.conn.execute(
        "SELECT metadata FROM documents WHERE id = ?", (added["doc_id"],)
    ).fetchone()[0]
    assert '"written_by": "bob"' in stored
    assert mcp_ok(vault, "bob", "memory_forget", doc_id=added["doc_id"])["forgotten"] is True
    assert "not_found" in mcp_error(vault, "bob", "memory_read", node_id=hits[0]["node_id"])
    tools = [
        row.tool
        for row in audit.entries(vault.conn, agent="bob", tools=["remember", "memory_forget"])
    ]
    assert tools == ["memory_forget", "remember", "remember"]


def test_remember_cannot_probe_hidden_shelves(vault: Vault) -> None:
    hidden = mcp_error(vault, "bob", "remember", text="hi", shelf="health")
    missing = mcp_error(vault, "bob", "remember", text="hi", shelf="nosuch")
    assert hidden == missing.replace("nosuch", "health")
    assert mcp_ok(vault, "alice", "remember", text="Pulse 60.", shelf="health")["status"] == "added"


def test_a_failed_audit_rolls_the_write_back(vault: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    real = vault.audit.record

    def failing(entry: audit.AuditEntry) -> int:
        if entry.ok:
            raise RuntimeError("disk full")
        return real(entry)

    monkeypatch.setattr(vault.audit, "record", failing)
    before = vault.conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    result = mcp_call(vault, "bob", "remember", text="This must not be half-written.")
    assert result.is_error and "disk full" not in result.content[0].text
    assert vault.conn.execute("SELECT count(*) FROM documents").fetchone()[0] == before
    assert (
        vault.conn.execute(
            "SELECT count(*) FROM sections s LEFT JOIN documents d "
            "ON d.id = s.doc_id WHERE d.id IS NULL"
        ).fetchone()[0]
        == 0
    )
    assert audit.entries(vault.conn, agent="bob")[0].reason == "internal error"


def test_revoked_agent_is_refused_on_the_next_call(vault: Vault) -> None:
    async def scenario(client: Client) -> tuple[Any, Any]:
        first = await client.call_tool("list_shelves", {})
        agents.revoke(vault.conn, "bob")
        second = await client.call_tool("list_shelves", {})
        return first, second

    first, second = mcp_session(vault, "bob", scenario)
    assert not first.is_error
    assert second.is_error and "access_denied" in second.content[0].text


def test_unknown_tools_and_bad_arguments_are_audited(vault: Vault) -> None:
    assert mcp_error(vault, "bob", "set_policy", policy="open").startswith("Unknown tool")
    assert "validation error" in mcp_error(vault, "bob", "memory_search", query=42)
    rows = audit.entries(vault.conn, agent="bob")
    assert [(r.tool, r.ok) for r in rows[:2]] == [("memory_search", False), ("set_policy", False)]


def test_no_tool_exports_imports_or_syncs(vault: Vault) -> None:
    """Bundles hold the whole vault in clear once opened: owner only, no MCP surface."""
    tools = mcp_session(vault, "bob", lambda c: c.list_tools()).tools
    words = ("export", "import", "sync", "bundle", "markdown")
    assert [t.name for t in tools if any(word in t.name for word in words)] == []
