"""`privault statement …` in-process through typer's CliRunner, with the fake engines."""

from __future__ import annotations

import json
from typing import Any

import pytest

from privault.errors import AccessDenied, InputError, NotFound
from privault.interfaces import config
from privault.interfaces.cli import app
from privault.interfaces.cli.statements import register, statement_app
from privault.store import agents
from privault.store.connection import connect
from privault.store.migrations import migrate
from tests.helpers import FakeEngineRunner

runner = FakeEngineRunner()
COMMANDS = [command.name for command in statement_app.registered_commands]


@pytest.fixture(autouse=True)
def _registered() -> None:
    if not any(group.name == "statement" for group in app.registered_groups):
        register(app)  # until the lead adds the module to the CLI's registration list


@pytest.fixture
def helper() -> None:
    """Register the agent `helper` (policy: the default, `standard`) in the CLI's vault."""
    path = config.vault_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = connect(path)
    try:
        migrate(conn)
        agents.issue(conn, "helper")
    finally:
        conn.close()


def run(*args: str) -> Any:
    """Run `privault statement ARGS --json` and return the parsed JSON."""
    result = runner.invoke(app, ["statement", *args, "--json"])
    assert result.exit_code == 0, (result.output, result.exception)
    return json.loads(result.output)


def add(content: str, *args: str) -> str:
    return str(run("add", content, *args)["statement"]["id"])


def test_add_normalises_times_and_takes_every_option() -> None:
    data = run(
        "add",
        "Ana Lima is the billing contact",
        "--entity", "Ana Lima", "-e", "Billing",
        "--source", "crm",
        "--salience", "0.8",
        "--confidence", "0.9",
        "--occurred-at", "2026-03-01T09:00:00+01:00",
        "--valid-to", "2026-12-31T00:00:00Z",
        "--meta", "channel=email", "--meta", "priority=2",
    )  # fmt: skip
    item = data["statement"]
    assert item["content"] == "Ana Lima is the billing contact"
    assert item["entities"] == ["Ana Lima", "Billing"]
    assert item["occurred_at"] == item["valid_from"] == "2026-03-01T08:00:00Z"
    assert item["valid_to"] == "2026-12-31T00:00:00Z"
    assert item["metadata"] == {"channel": "email", "priority": 2}
    assert (item["salience"], item["confidence"], item["source"]) == (0.8, 0.9, "crm")
    assert data["mode"] == "off"


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--valid-from", "2026-03-01T09:00:00", "no offset"),
        ("--occurred-at", "yesterday", "unparseable"),
        ("--salience", "1.5", "between 0 and 1"),
        ("--meta", "novalue", "KEY=VALUE"),
    ],
)
def test_bad_input_is_refused(option: str, value: str, message: str) -> None:
    result = runner.invoke(app, ["statement", "add", "x holds", option, value])
    assert result.exit_code != 0
    assert isinstance(result.exception, InputError) and message in str(result.exception)
    assert run("stats")["total"] == 0


def test_supersede_query_all_and_history() -> None:
    old = add("The office is in Porto", "--valid-from", "2025-01-01T00:00:00Z")
    new = run("supersede", old, "The office is in Lisbon", "--valid-from", "2025-06-01")
    new_id = new["statement"]["id"]
    assert new["statement"]["supersedes"] == old
    now = run("query")["statements"]
    assert [item["id"] for item in now] == [new_id]
    everything = {item["id"]: item for item in run("query", "--all")["statements"]}
    assert everything[old]["label"] == "NOT current"
    assert everything[new_id]["label"] == "current"
    then = run("query", "--valid-at", "2025-03-01T00:00:00Z")["statements"]
    assert [item["id"] for item in then] == [old]
    chain = run("history", new_id)["statements"]
    assert [item["id"] for item in chain] == [old, new_id]
    assert run("query", "office Lisbon", "--order", "composite", "--limit", "1")["statements"]


def test_confirm_dispute_invalidate_revise_entities_stats() -> None:
    first = add("Ana lives in Lisbn", "--entity", "Ana Lima", "--valid-from", "2025-01-01")
    second = add("Ana lives in Porto", "--entity", "Ana Lima", "--valid-from", "2025-02-01")
    revised = run("revise", first, "Ana lives in Lisbon")["statement"]
    assert revised["revises"] == first and revised["entities"] == ["Ana Lima"]
    assert run("confirm", second, "--source", "phone")["statement"]["confirmed_count"] == 1
    pair = run("dispute", revised["id"], second, "--reason", "one city only")["statements"]
    assert all(item["disputed_with"] for item in pair)
    assert [i["id"] for i in run("query", "--disputed")["statements"]] != []
    closed = run("invalidate", second, "--reason", "moved", "--valid-to", "2025-06-01")
    assert closed["statement"]["label"] == "NOT current"
    assert run("query", "--disputed")["statements"] == []
    assert run("entities")["entities"] == [{"name": "Ana Lima", "key": "ana lima", "count": 1}]
    assert run("entities", "--all", "--min", "3")["entities"] == [
        {"name": "Ana Lima", "key": "ana lima", "count": 3}
    ]
    stats = run("stats")
    assert (stats["total"], stats["open"], stats["revised"], stats["disputed"]) == (3, 1, 1, 0)
    shown = run("show", revised["id"])["statement"]
    assert shown["content"] == "Ana lives in Lisbon"


@pytest.mark.usefixtures("helper")
def test_as_agent_previews_the_gated_view() -> None:
    sid = add("Invoices go to ana@example.com", "--entity", "Ana Lima")
    agent = run("show", sid, "--as", "helper")
    assert agent["statement"]["content"] == "Invoices go to <EMAIL_ADDRESS_1>"
    assert agent["statement"]["entities"] == ["<PERSON_1>"] and agent["mode"] == "redact"
    listed = run("query", "--as", "helper")
    assert "ana@" not in json.dumps(listed) and "Ana" not in json.dumps(listed)
    assert run("entities", "--as", "helper")["entities"][0]["name"] == "<PERSON_1>"
    assert run("stats", "--as", "helper")["policy"] == "standard"
    refused = runner.invoke(app, ["statement", "query", "--as", "ghost", "--json"])
    assert isinstance(refused.exception, AccessDenied)


def test_st_alias_and_human_output() -> None:
    result = runner.invoke(
        app, ["st", "add", "The door code changed", "--valid-from", "2025-01-01"]
    )
    assert result.exit_code == 0 and "added s_" in result.output
    sid = result.output.split("added ", 1)[1].split()[0]
    run("supersede", sid, "The door code changed again")
    listed = runner.invoke(app, ["st", "query", "--all"])
    assert listed.exit_code == 0 and "NOT current" in listed.output
    assert "policy open" in listed.output
    for command in (["history", sid], ["entities"], ["stats"], ["show", sid]):
        shown = runner.invoke(app, ["statement", *command])
        assert shown.exit_code == 0, shown.output
    missing = runner.invoke(app, ["statement", "show", "s_0000000000"])
    assert isinstance(missing.exception, NotFound)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_and_json(command: str) -> None:
    result = runner.invoke(app, ["statement", command, "--help"])
    assert result.exit_code == 0
    assert "--json" in result.output
    described = next(c for c in statement_app.registered_commands if c.name == command)
    assert described.callback is not None and (described.callback.__doc__ or "").strip()


def test_group_help_lists_every_command() -> None:
    for group in ("statement", "st"):
        result = runner.invoke(app, [group, "--help"])
        assert result.exit_code == 0
        assert all(command in result.output for command in COMMANDS if command)
