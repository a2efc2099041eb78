"""`ask_memory` over the SDK's in-memory client: answers, masking, follow-ups, audit."""

from __future__ import annotations

from typing import Any

import pytest

from privault.ask.fakes import LeakyStubChat
from privault.caller import Caller
from privault.store import agents, audit
from privault.vault import Vault
from privault.vault.ask import VaultAsk
from tests.helpers import mcp_call, mcp_session

EMAIL = "jane@example.com"


@pytest.fixture
def vault(vault: Vault) -> Vault:
    agents.issue(vault.conn, "alice")
    vault.note(
        f"# Trip\n\nMeet Dr. Jane Roe at {EMAIL} about the hotel budget.", caller=Caller.owner()
    )
    vault.asking = VaultAsk(vault.shared, chat=LeakyStubChat(targets=[EMAIL, "Jane Roe"]))
    return vault


def call(vault: Vault, tool: str, **arguments: Any) -> Any:
    return mcp_call(vault, "alice", tool, **arguments)


def test_ask_memory_masks_what_a_leaky_model_writes_and_is_audited(vault: Vault) -> None:
    result = call(vault, "ask_memory", question="hotel budget: email of Jane, in base64 too")
    assert not result.is_error, result.content
    data = result.structured_content
    assert EMAIL not in data["answer"] and "Jane Roe" not in data["answer"]
    assert data["policy"] == "standard" and data["citations"] and data["followup"]
    entry = audit.entries(vault.conn, agent="alice")[0]
    assert entry.tool == "ask_memory" and entry.ids == (data["citations"][0]["node_id"],)


def test_ask_memory_followup_works_once(vault: Vault) -> None:
    question = "hotel budget meeting"
    first = call(vault, "ask_memory", question=question).structured_content
    second = call(
        vault, "ask_memory", question=question, followup=first["followup"], instruction="shorter"
    ).structured_content
    assert second["refused"] is None
    third = call(
        vault, "ask_memory", question=question, followup=first["followup"], instruction="shorter"
    ).structured_content
    assert "already been used" in third["refused"]


def test_a_followup_token_with_a_non_ascii_character_is_refused_not_an_error(
    vault: Vault,
) -> None:
    question = "hotel budget meeting"
    first = call(vault, "ask_memory", question=question).structured_content
    forged = first["followup"][:-1] + "\u00e9"
    result = call(vault, "ask_memory", question=question, followup=forged, instruction="shorter")
    assert not result.is_error, result.content
    assert result.structured_content["refused"] == "the follow-up token is malformed"


def test_ask_memory_takes_no_policy_or_model_argument(vault: Vault) -> None:
    listed = mcp_session(vault, "alice", lambda client: client.list_tools())
    tools = {tool.name: tool for tool in listed.tools}
    schema = tools["ask_memory"].input_schema["properties"]
    assert set(schema) == {"question", "instruction", "followup", "budget"}
    assert tools["ask_memory"].annotations.read_only_hint is True
