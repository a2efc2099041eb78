"""`NewStatement`: one value carries a statement's fields from the interface to the store.

Each interface offers the fields under its own spelling (a CLI option, an MCP parameter, a
Python keyword); the lists below fail when a field is added to the value and not offered,
or offered and not carried.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import pytest

from privault.caller import Caller
from privault.errors import InputError
from privault.interfaces.cli.statements import statement_app
from privault.statements import NewStatement
from privault.vault import Vault
from privault.vault.statements import VaultStatements
from tests.helpers import mcp_session

OWNER = Caller.owner()
FIELDS = {field.name for field in dataclasses.fields(NewStatement)}
TIMES = {"occurred_at", "valid_from", "valid_to"}
# What differs between two statements written alike: who they are and when they were written.
OWN = {"id", "chain_id", "recorded_at", "as_of"}


def _as_written(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data["statement"].items() if key not in OWN}


def _keywords(method: Any) -> set[str]:
    found = inspect.signature(method).parameters
    return {name for name, parameter in found.items() if parameter.kind is parameter.KEYWORD_ONLY}


def test_a_new_statement_and_the_keywords_record_the_same_fact(vault: Vault) -> None:
    by_keywords = vault.statements.add(
        "Ana leads the Berlin office",
        caller=OWNER,
        entities=["Ana", "org:Acme"],
        source="crm",
        salience=0.8,
        confidence=0.7,
        occurred_at="2026-03-01T09:00:00+01:00",
        valid_to="2027-01-01T00:00:00Z",
        metadata={"channel": "email"},
    )
    by_value = vault.statements.add(
        NewStatement(
            "Ana leads the Berlin office",
            ("Ana", "org:Acme"),
            "crm",
            0.8,
            0.7,
            "2026-03-01T09:00:00+01:00",
            None,
            "2027-01-01T00:00:00Z",
            {"channel": "email"},
        ),
        caller=OWNER,
    )
    written = _as_written(by_value.to_dict())
    assert written == _as_written(by_keywords.to_dict())
    assert written["valid_from"] == "2026-03-01T08:00:00Z"  # from occurred_at
    assert written["salience"] == 0.8 and written["confidence"] == 0.7
    assert written["metadata"] == {"channel": "email"}


def test_fields_given_twice_are_refused_and_nothing_is_written(vault: Vault) -> None:
    with pytest.raises(InputError, match="not both"):
        vault.statements.add(NewStatement("Bo is the contact"), caller=OWNER, source="crm")
    first = vault.statements.add("Bo is the contact", caller=OWNER).statement.statement
    with pytest.raises(InputError, match="not both"):
        vault.statements.supersede(first.id, NewStatement("Cy"), caller=OWNER, entities=["Cy"])
    with pytest.raises(InputError, match="not both"):
        vault.statements.revise(first.id, NewStatement("Bo"), caller=OWNER, salience=0.2)
    assert vault.statements.stats(caller=OWNER).to_dict()["total"] == 1


def test_a_revision_given_a_window_is_refused(vault: Vault) -> None:
    first = vault.statements.add("Bo is the contact", caller=OWNER).statement.statement
    changed = NewStatement("Bo is the main contact", valid_from="2026-01-01T00:00:00Z")
    with pytest.raises(InputError, match="supersede"):
        vault.statements.revise(first.id, changed, caller=OWNER)
    history = vault.statements.history(first.id, caller=OWNER).to_dict()["statements"]
    assert [item["content"] for item in history] == ["Bo is the contact"]


def test_a_bad_time_refuses_the_write(vault: Vault) -> None:
    with pytest.raises(InputError):
        vault.statements.add(NewStatement("Bo is the contact", valid_to="soon"), caller=OWNER)
    with pytest.raises(InputError):
        vault.statements.add(NewStatement("Bo is the contact", valid_to=True), caller=OWNER)  # type: ignore[arg-type]
    assert vault.statements.stats(caller=OWNER).to_dict()["total"] == 0


def test_what_a_new_version_leaves_out_is_inherited(vault: Vault) -> None:
    first = vault.statements.add(
        NewStatement("Bo is the contact", ("Bo", "org:Acme"), "crm", 0.9, 0.6), caller=OWNER
    ).statement.statement
    newer = vault.statements.supersede(first.id, NewStatement("Cy is the contact"), caller=OWNER)
    data = newer.to_dict()["statement"]
    assert data["entities"] == ["Bo", "Acme"] and data["salience"] == 0.9
    assert data["confidence"] == 1.0 and data["source"] is None  # not inherited
    cleared = vault.statements.revise(
        data["id"], NewStatement("Cy Young is the contact", entities=()), caller=OWNER
    )
    revised = cleared.to_dict()["statement"]
    assert revised["entities"] == [] and revised["salience"] == 0.9
    assert revised["valid_from"] == data["valid_from"]


def test_the_value_holds_entities_as_a_tuple() -> None:
    statement = NewStatement("x", ["Ana", "Bo"])  # type: ignore[arg-type]
    assert statement.entities == ("Ana", "Bo")
    assert NewStatement("x", valid_from=5).parsed() == NewStatement("x", valid_from=5)
    parsed = NewStatement("x", valid_from="1970-01-01T00:00:01Z").parsed()
    assert parsed.valid_from == 1000


def test_the_python_keywords_are_the_fields() -> None:
    assert _keywords(VaultStatements.add) - {"caller", "shelf"} == FIELDS - {"content"}
    assert _keywords(VaultStatements.supersede) - {"caller"} == FIELDS - {"content"}
    assert _keywords(VaultStatements.revise) - {"caller"} == FIELDS - {"content"} - TIMES


def test_the_cli_options_are_the_fields() -> None:
    spelled = {"content": "content", "entity": "entities", "meta": "metadata"}
    commands = {command.name: command.callback for command in statement_app.registered_commands}

    def offered(name: str) -> set[str]:
        found = inspect.signature(commands[name]).parameters
        return {spelled.get(key, key) for key in found} - {"json_out", "shelf", "statement_id"}

    assert offered("add") == FIELDS
    assert offered("supersede") == FIELDS
    assert offered("revise") == FIELDS - TIMES


def test_the_mcp_parameters_are_the_fields(vault: Vault) -> None:
    vault.agents.issue("claude")
    listed = mcp_session(vault, "claude", lambda client: client.list_tools())
    offered = {
        tool.name: set(tool.input_schema["properties"]) - {"shelf", "statement_id"}
        for tool in listed.tools
    }
    # An agent's metadata is the vault's own (who wrote it); the rest is the agent's word.
    assert offered["write_statement"] == FIELDS - {"metadata"}
    assert offered["supersede_statement"] <= FIELDS
    assert offered["revise_statement"] <= FIELDS - TIMES
