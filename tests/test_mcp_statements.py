"""The statement tools through the in-process MCP client (registered when the vault has them)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client

from privault.interfaces.mcp.server import for_agent
from privault.store import agents, audit
from privault.vault import Vault

STATEMENT_TOOLS = {
    "write_statement",
    "query_statements",
    "supersede_statement",
    "revise_statement",
    "confirm_statement",
    "dispute_statements",
    "invalidate_statement",
    "statement_history",
    "list_entities",
}


@pytest.fixture
def vault(vault: Vault) -> Vault:
    agents.issue(vault.conn, "bob")
    agents.issue(vault.conn, "reader", read_only=True)
    return vault


def test_statement_lifecycle(vault: Vault) -> None:
    async def scenario(client: Client) -> dict[str, Any]:
        out: dict[str, Any] = {}
        names = {tool.name for tool in (await client.list_tools()).tools}
        out["names"] = names

        async def ok(tool: str, **arguments: Any) -> dict[str, Any]:
            result = await client.call_tool(tool, arguments)
            assert not result.is_error, (tool, result.content)
            return result.structured_content

        first = (
            await ok(
                "write_statement",
                content="The office is in Berlin",
                entities=["Acme"],
                valid_from="2024-01-01",
            )
        )["statement"]
        newer = await ok(
            "supersede_statement",
            statement_id=first["id"],
            content="The office is in Hamburg",
            valid_from="2025-06-01",
        )
        out["history"] = await ok("statement_history", statement_id=first["id"])
        out["now"] = await ok("query_statements", text="office")
        out["past"] = await ok("query_statements", text="office", valid_at="2024-06-01T00:00:00Z")
        revised = await ok(
            "revise_statement",
            statement_id=newer["statement"]["id"],
            content="The office is in Hamburg harbour",
        )
        await ok("confirm_statement", statement_id=revised["statement"]["id"])
        other = (await ok("write_statement", content="The office is in Munich"))["statement"]
        out["dispute"] = await ok(
            "dispute_statements",
            statement_id=revised["statement"]["id"],
            other_id=other["id"],
            reason="two sources disagree",
        )
        out["closed"] = await ok("invalidate_statement", statement_id=other["id"], reason="wrong")
        out["entities"] = await ok("list_entities")
        out["bad"] = await client.call_tool(
            "supersede_statement", {"statement_id": "nope", "content": "x"}
        )
        return out

    async def main() -> dict[str, Any]:
        async with Client(for_agent(vault, "bob")) as client:
            return await scenario(client)

    out = anyio.run(main)
    assert out["names"] >= STATEMENT_TOOLS
    assert [s["label"] != "current" for s in out["history"]["statements"]] == [True, False]
    assert [s["content"] for s in out["now"]["statements"]] == ["The office is in Hamburg"]
    assert [s["content"] for s in out["past"]["statements"]] == ["The office is in Berlin"]
    assert len(out["dispute"]["statements"]) == 2
    assert out["closed"]["statement"]["valid_to"] is not None
    assert out["bad"].is_error and "not_found" in out["bad"].content[0].text
    tools = {row.tool for row in audit.entries(vault.conn, agent="bob")}
    assert tools >= STATEMENT_TOOLS


def test_read_only_agents_get_only_statement_reads(vault: Vault) -> None:
    async def main() -> set[str]:
        async with Client(for_agent(vault, "reader")) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    names = anyio.run(main)
    assert {"query_statements", "statement_history", "list_entities"} <= names
    assert not names & {"write_statement", "supersede_statement", "invalidate_statement"}
