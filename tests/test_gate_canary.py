"""A canary in every field the owner can write, and every reply an agent can get scanned.

The canary is a name the vault knows (an owner's statement entity), put into a title, a
tag, a heading, metadata, a watch target, a reminder's text, a statement's content, source,
entities and metadata. Then every `--as` CLI command and every MCP tool is called as an
agent, and none of their output may hold it in any case.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from privault import Caller, Vault
from privault.ask.fakes import LeakyStubChat
from privault.interfaces.cli import app
from privault.store import agents
from tests.helpers import FakeEngineRunner, mcp_session

CANARY = "Zorbulon"
OWNER = Caller.owner()
runner = FakeEngineRunner()


@pytest.fixture
def vault(vault: Vault) -> Vault:
    agents.issue(vault.conn, "claude")
    vault.statements.add(
        f"{CANARY} is the caretaker, says {CANARY}",
        caller=OWNER,
        entities=[f"person:{CANARY}", "org:Caretaking Ltd"],
        source=f"told by {CANARY}",
        metadata={"who": CANARY, CANARY.lower(): "key"},
    )
    added = vault.note(
        f"# Call {CANARY} about the caretaking\n\n## {CANARY} and the keys\n\n"
        "The caretaking keys are in the drawer.",
        caller=OWNER,
        tags=[CANARY.lower(), f"who:{CANARY.lower()}"],
        metadata={"contact": CANARY},
    )
    vault.note(
        f"Caretaking rota: the long first line mentions that {CANARY} will come on Monday "
        "and again on Thursday morning with the spare keys",
        caller=OWNER,
    )
    vault.watches.add(
        "remind",
        f"Ring {CANARY} about the caretaking",
        caller=OWNER,
        every="1d",
        at="2030-01-01T08:00:00Z",
    )
    vault.watches.add(
        "url", f"https://example.org/{CANARY.lower()}/caretaking", caller=OWNER, every="1d"
    )
    vault.watches.poll(caller=OWNER, now="2030-01-01T08:00:30Z")
    vault.doc_id = added.doc_id  # type: ignore[attr-defined]
    return vault


def _cli(*args: str) -> Any:
    result = runner.invoke(app, [*args, "--as", "claude", "--json"])
    assert result.exit_code == 0, (args, result.output, result.exception)
    return json.loads(result.stdout)


def test_no_cli_view_of_an_agent_holds_the_canary(vault: Vault) -> None:
    found = _cli("search", "caretaking keys")
    node = found["results"][0]["node_id"]
    doc = vault.doc_id  # type: ignore[attr-defined]
    statement = found["statements"][0]["id"] if found["statements"] else None
    replies = [
        found,
        _cli("context", "caretaking keys"),
        _cli("read", node),
        _cli("tree", doc),
        _cli("tree"),
        _cli("docs"),
        _cli("st", "query", "caretaker"),
        _cli("st", "entities"),
        _cli("st", "stats"),
        _cli("watch", "list"),
        _cli("reminders"),
    ]
    if statement:
        replies += [_cli("st", "show", statement), _cli("st", "history", statement)]
    watches = replies[9]["watches"]
    replies += [_cli("watch", "show", w["id"]) for w in watches]
    seen = json.dumps(replies, ensure_ascii=False).lower()
    assert CANARY.lower() not in seen
    assert "caretaking" in seen  # the rest of the text is there


def test_no_mcp_tool_gives_an_agent_the_canary(vault: Vault) -> None:
    from privault.vault.ask import VaultAsk

    vault.asking = VaultAsk(vault.shared, chat=LeakyStubChat(targets=[CANARY]))
    doc = vault.doc_id  # type: ignore[attr-defined]

    async def everything(client: Any) -> list[Any]:
        async def call(tool: str, **arguments: Any) -> Any:
            result = await client.call_tool(tool, arguments)
            return [item.text for item in result.content if hasattr(item, "text")] + [
                result.structured_content
            ]

        found = await client.call_tool("memory_search", {"query": "caretaking keys"})
        data = found.structured_content
        node = data["results"][0]["node_id"]
        replies: list[Any] = [data]
        replies.append(await call("memory_read", node_id=node))
        replies.append(await call("memory_tree"))
        replies.append(await call("memory_tree", doc_id=doc))
        replies.append(await call("memory_context", query="caretaking keys"))
        replies.append(await call("list_shelves"))
        replies.append(await call("ask_memory", question="who has the caretaking keys"))
        replies.append(await call("query_statements", text="caretaker"))
        replies.append(await call("query_statements"))
        replies.append(await call("list_entities"))
        replies.append(await call("list_watches"))
        replies.append(await call("list_reminders"))
        replies.append(await call("remember", text="The caretaking keys moved to the shelf"))
        replies.append(
            await call(
                "write_statement", content="caretaking keys moved", entities=["org:Caretaking Ltd"]
            )
        )
        statements = data.get("statements") or []
        if statements:
            replies.append(await call("statement_history", statement_id=statements[0]["id"]))
        return replies

    replies = mcp_session(vault, "claude", everything)
    seen = json.dumps(replies, ensure_ascii=False, default=str).lower()
    assert CANARY.lower() not in seen
    assert "caretaking" in seen
