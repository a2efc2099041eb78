"""One set of bounds for every interface: what the facade refuses is what the MCP tools
publish, and the CLI's defaults are the facade's."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from privault import Caller
from privault.errors import InputError
from privault.interfaces.cli.ask import ask as cli_ask
from privault.interfaces.cli.documents import context as cli_context
from privault.interfaces.cli.documents import docs as cli_docs
from privault.interfaces.cli.documents import search as cli_search
from privault.interfaces.config import Config
from privault.vault import Vault
from privault.vault import bounds as b
from privault.vault.ask import VaultAsk
from tests.helpers import mcp_call, mcp_session

OWNER = Caller.owner()


@pytest.fixture
def vault(vault: Vault) -> Vault:
    vault.agents.issue("claude")
    vault.note("# Boiler\nThe boiler was serviced in March.", caller=OWNER)
    return vault


def _schemas(vault: Vault) -> dict[str, dict[str, Any]]:
    listed = mcp_session(vault, "claude", lambda client: client.list_tools())
    return {tool.name: tool.input_schema["properties"] for tool in listed.tools}


def test_the_mcp_tools_publish_the_facades_bounds(vault: Vault) -> None:
    schemas = _schemas(vault)
    search, context = schemas["memory_search"], schemas["memory_context"]
    ask = schemas["ask_memory"]
    assert (search["limit"]["minimum"], search["limit"]["maximum"]) == b.SEARCH_LIMITS
    assert search["limit"]["default"] == b.DEFAULT_SEARCH_LIMIT
    assert search["query"]["maxLength"] == b.MAX_QUERY_CHARS
    assert (context["budget"]["minimum"], context["budget"]["maximum"]) == b.CONTEXT_BUDGETS
    assert context["budget"]["default"] == b.DEFAULT_CONTEXT_BUDGET
    assert (ask["budget"]["minimum"], ask["budget"]["maximum"]) == b.ASK_BUDGETS
    assert ask["budget"]["default"] == b.DEFAULT_ASK_BUDGET
    assert ask["question"]["maxLength"] == b.MAX_QUERY_CHARS
    tree, remember = schemas["memory_tree"], schemas["remember"]
    assert (tree["limit"]["minimum"], tree["limit"]["maximum"]) == b.LIST_LIMITS
    assert tree["limit"]["default"] == b.DEFAULT_LIST_LIMIT
    assert remember["text"]["maxLength"] == b.MAX_NOTE_BYTES


def test_an_agent_lists_up_to_the_list_bound_and_no_further(vault: Vault) -> None:
    low, high = b.LIST_LIMITS
    for limit in (low, high):
        assert not mcp_call(vault, "claude", "memory_tree", limit=limit).is_error
    for limit in (low - 1, high + 1):
        assert mcp_call(vault, "claude", "memory_tree", limit=limit).is_error


def test_a_listing_of_fewer_than_one_document_is_refused(vault: Vault) -> None:
    assert len(vault.docs(caller=OWNER, limit=b.LIST_LIMITS[0]).documents) == 1
    for limit in (0, -1):
        with pytest.raises(InputError, match="at least 1"):
            vault.docs(caller=OWNER, limit=limit)


def test_a_note_past_the_default_size_is_refused_by_the_vault_and_the_tool(vault: Vault) -> None:
    # One byte over: the facade refuses it under the default setting, and the tool's
    # schema refuses the same text (as characters) before the vault sees it.
    text = "# Big\n" + "a" * (b.MAX_NOTE_BYTES - 5)
    assert len(text.encode()) == len(text) == b.MAX_NOTE_BYTES + 1
    with pytest.raises(InputError):
        vault.note(text, caller=OWNER)
    assert mcp_call(vault, "claude", "remember", text=text).is_error
    assert vault.documents.count(caller=OWNER) == 1  # only the fixture's note


def test_the_facade_refuses_just_past_each_bound_and_takes_each_bound(vault: Vault) -> None:
    low, high = b.SEARCH_LIMITS
    assert vault.search("boiler", caller=OWNER, limit=high).results
    for limit in (low - 1, high + 1):
        with pytest.raises(InputError, match=f"between {low} and {high}"):
            vault.search("boiler", caller=OWNER, limit=limit)
    low, high = b.CONTEXT_BUDGETS
    assert vault.context("boiler", caller=OWNER, budget=low).budget == low
    for budget in (low - 1, high + 1):
        with pytest.raises(InputError, match=f"between {low} and {high}"):
            vault.context("boiler", caller=OWNER, budget=budget)
    vault.asking = VaultAsk(vault.shared, chat=None)
    with pytest.raises(InputError, match=str(b.MAX_QUERY_CHARS)):
        vault.ask("x" * (b.MAX_QUERY_CHARS + 1), caller=OWNER)
    low, high = b.ASK_BUDGETS
    for budget in (low - 1, high + 1):
        with pytest.raises(InputError, match=f"between {low} and {high}"):
            vault.ask("boiler?", caller=OWNER, budget=budget)


def test_the_cli_defaults_are_the_facades() -> None:
    def default(command: Any, name: str) -> Any:
        return inspect.signature(command).parameters[name].default

    assert default(cli_search, "limit") == b.DEFAULT_SEARCH_LIMIT
    assert default(cli_context, "budget") == b.DEFAULT_CONTEXT_BUDGET
    assert default(cli_ask, "budget") == b.DEFAULT_ASK_BUDGET
    assert default(Vault.ask, "budget") == b.DEFAULT_ASK_BUDGET
    assert default(cli_docs, "limit") == b.DEFAULT_LIST_LIMIT


def test_the_note_size_and_list_defaults_are_the_bounds(vault: Vault) -> None:
    assert Config().max_note_bytes == vault.shared.settings.max_note_bytes == b.MAX_NOTE_BYTES
    assert inspect.signature(vault.docs).parameters["limit"].default == b.DEFAULT_LIST_LIMIT
