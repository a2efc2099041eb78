"""The watch tools through the in-process MCP client: agents add, list and cancel watches
and read reminders, gated and audited; folders and owner-only options stay out of reach."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from privault.caller import Caller
from privault.interfaces.mcp.server import for_agent
from privault.store import agents, audit
from privault.timeutil import now_ms
from privault.vault import Vault
from tests.helpers import examples, mcp_error, mcp_ok, mcp_session

OWNER = Caller.owner()
WATCH_TOOLS = {"watch", "list_watches", "cancel_watch", "list_reminders", "ack_reminder"}
WRITE_TOOLS = {"watch", "cancel_watch", "ack_reminder"}
OWNER_ONLY = {"allow_private", "policy", "pii", "model", "override", "caller", "agent", "mode"}


@pytest.fixture
def vault(vault: Vault) -> Vault:
    agents.issue(vault.conn, "bob")
    agents.issue(vault.conn, "alice")
    agents.issue(vault.conn, "reader", read_only=True)
    vault.shelves.add("health", agent_names=["alice"])
    return vault


def watch_count(vault: Vault) -> int:
    return vault.conn.execute("SELECT count(*) FROM watches").fetchone()[0]


def test_watch_tools_are_listed_with_hints_and_no_owner_arguments(vault: Vault) -> None:
    tools = {tool.name: tool for tool in mcp_session(vault, "bob", lambda c: c.list_tools()).tools}
    assert set(tools) >= WATCH_TOOLS
    for name in WATCH_TOOLS:
        tool = tools[name]
        assert tool.description and len(tool.description) > 60, name
        assert tool.output_schema is not None, name
        assert not OWNER_ONLY & set(tool.input_schema.get("properties", {})), name
        assert tool.annotations.read_only_hint is (name not in WRITE_TOOLS), name
    kinds = tools["watch"].input_schema["properties"]["kind"]
    assert set(kinds["enum"]) == {"url", "search", "remind"}


def test_create_list_and_cancel_a_reminder(vault: Vault) -> None:
    added = mcp_ok(
        vault, "bob", "watch", kind="remind", target="Renew the passport", at="2027-01-15T09:00:00Z"
    )
    watch = added["watch"]
    assert (watch["kind"], watch["status"], watch["target"]) == (
        "remind",
        "active",
        "Renew the passport",
    )
    assert watch["next_run_at"] == "2027-01-15T09:00:00Z"
    assert watch["allow_private"] is False and added["policy"]

    listed = mcp_ok(vault, "bob", "list_watches")["watches"]
    assert [item["id"] for item in listed] == [watch["id"]]

    cancelled = mcp_ok(vault, "bob", "cancel_watch", watch_id=watch["id"])
    assert cancelled["watch"]["status"] == "cancelled"
    assert mcp_ok(vault, "bob", "list_watches")["watches"] == []
    everything = mcp_ok(vault, "bob", "list_watches", include_cancelled=True)["watches"]
    assert [item["status"] for item in everything] == ["cancelled"]

    rows = audit.entries(vault.conn, agent="bob")
    assert [(r.tool, r.ok) for r in rows] == [
        ("list_watches", True),
        ("list_watches", True),
        ("cancel_watch", True),
        ("list_watches", True),
        ("watch", True),
    ]
    assert list(rows[-1].ids) == [watch["id"]]


def test_folder_kind_and_bad_schedules_are_refused_without_a_write(vault: Vault) -> None:
    refused = mcp_error(vault, "bob", "watch", kind="folder", target="/home", every="1h")
    assert "validation error" in refused
    assert "invalid_input" in mcp_error(vault, "bob", "watch", kind="remind", target="x", at="soon")
    assert "invalid_input" in mcp_error(
        vault, "bob", "watch", kind="remind", target="x", every="1s"
    )
    assert "invalid_input" in mcp_error(vault, "bob", "watch", kind="remind", target="x")
    assert watch_count(vault) == 0
    assert all(not row.ok for row in audit.entries(vault.conn, agent="bob"))


def test_an_allow_private_argument_is_ignored(vault: Vault) -> None:
    added = mcp_ok(
        vault,
        "bob",
        "watch",
        kind="url",
        target="http://x.example/",
        every="1h",
        allow_private=True,
    )
    assert added["watch"]["allow_private"] is False
    stored = vault.conn.execute("SELECT allow_private FROM watches").fetchone()[0]
    assert stored == 0
    loopback = mcp_error(
        vault, "bob", "watch", kind="url", target="http://127.0.0.1:8080/", every="1h"
    )
    assert "invalid_input" in loopback and watch_count(vault) == 1


def test_agents_cannot_touch_the_owners_folder_watches(vault: Vault, tmp_path: Path) -> None:
    folder = vault.watches.add("folder", str(tmp_path), caller=OWNER, every="1h")
    listed = mcp_ok(vault, "bob", "list_watches")["watches"]
    assert [item["target"] for item in listed] == ["<FOLDER>"]
    refused = mcp_error(vault, "bob", "cancel_watch", watch_id=folder.watch.id)
    assert "access_denied" in refused
    assert audit.entries(vault.conn, agent="bob")[0].refused


def test_hidden_shelves_look_missing(vault: Vault) -> None:
    hidden = mcp_error(
        vault, "bob", "watch", kind="remind", target="x", at="2027-01-01", shelf="health"
    )
    missing = mcp_error(
        vault, "bob", "watch", kind="remind", target="x", at="2027-01-01", shelf="nope"
    )
    assert hidden == missing.replace("nope", "health") and "not_found" in hidden
    added = mcp_ok(
        vault, "alice", "watch", kind="remind", target="Pills", at="2027-01-01", shelf="health"
    )
    assert mcp_ok(vault, "bob", "list_watches")["watches"] == []
    gone = mcp_error(vault, "bob", "cancel_watch", watch_id=added["watch"]["id"])
    assert gone == mcp_error(vault, "bob", "cancel_watch", watch_id="wdeadbeef").replace(
        "wdeadbeef", added["watch"]["id"]
    )


def test_read_only_agent_sees_no_write_tools(vault: Vault) -> None:
    names = {tool.name for tool in mcp_session(vault, "reader", lambda c: c.list_tools()).tools}
    assert {"list_watches", "list_reminders"} <= names
    assert not WRITE_TOOLS & names
    assert mcp_error(vault, "reader", "watch", kind="remind", target="x", at="2027-01-01") == (
        "Unknown tool: watch"
    )
    assert watch_count(vault) == 0


def test_agent_sees_redacted_reminder_text_and_acks_it(vault: Vault) -> None:
    text = "Call Dr. Jane Roe at jane.roe@example.com about the results"
    vault.watches.add("remind", text, caller=OWNER, at=now_ms() - 5_000)
    vault.watches.poll(caller=OWNER)
    assert [r.text for r in vault.watches.reminders(caller=OWNER).reminders] == [text]

    due = mcp_ok(vault, "bob", "list_reminders")
    [reminder] = due["reminders"]
    assert "Jane Roe" not in reminder["text"] and "jane.roe@example.com" not in reminder["text"]
    assert "<EMAIL_ADDRESS_1>" in reminder["text"] and reminder["due"] is True
    assert due["mode"] == "redact" and due["held_back"]
    listed = mcp_ok(vault, "bob", "list_watches")["watches"]
    assert "jane.roe@example.com" not in listed[0]["target"]

    row = audit.entries(vault.conn, agent="bob", tools=["list_reminders"])[0]
    assert list(row.ids) == [reminder["id"]] and row.held_back == due["held_back"]

    acked = mcp_ok(vault, "bob", "ack_reminder", reminder_id=reminder["id"])
    assert acked["reminder"]["due"] is False
    assert mcp_ok(vault, "bob", "list_reminders")["reminders"] == []
    assert len(mcp_ok(vault, "bob", "list_reminders", include_acked=True)["reminders"]) == 1
    assert "not_found" in mcp_error(vault, "bob", "ack_reminder", reminder_id="rnope")


def test_a_listing_cut_at_its_limit_counts_only_what_the_agent_may_see(vault: Vault) -> None:
    # bob is refused "health"; alice may read it. The rest of a cut list is counted after
    # the same filter as the list: a count that took in health's reminders would tell bob
    # how many it holds.
    start = now_ms() - 100 * 3_600_000
    for text, shelf, count in (("Take the pills", "health", 6), ("Stretch", "default", 3)):
        added = vault.watches.add(
            "remind", text, caller=OWNER, at=start, every="1h", shelf=shelf, max_catchup=count
        )
        vault.watches.poll(caller=OWNER, now=start + (count - 1) * 3_600_000)
        vault.watches.cancel(added.watch.id, caller=OWNER)
    cut = mcp_ok(vault, "bob", "list_reminders", limit=2)
    assert [r["text"] for r in cut["reminders"]] == ["Stretch"] * 2
    assert cut["more"] == 1 and cut["next"]
    rest = mcp_ok(vault, "bob", "list_reminders", limit=2, after=cut["next"])
    assert [r["text"] for r in rest["reminders"]] == ["Stretch"]
    assert (rest["more"], rest["next"]) == (0, None)
    assert mcp_ok(vault, "alice", "list_reminders", limit=2)["more"] == 7
    newest = mcp_ok(vault, "bob", "list_reminders", include_acked=True, limit=1)
    assert newest["more"] == 2
    assert "invalid_input" in mcp_error(vault, "bob", "list_reminders", after="w1")


WATCH_ARGUMENTS = {
    "watch": ["kind", "target", "every", "at", "shelf"],
    "list_watches": ["include_cancelled"],
    "cancel_watch": ["watch_id"],
    "list_reminders": ["include_acked", "limit", "after"],
    "ack_reminder": ["reminder_id"],
}
odd_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.text(max_size=40),
    st.sampled_from(
        ["url", "search", "remind", "folder", "1s", "99999w", "* * * * *", "61 * * * *"]
    ),
    st.sampled_from(["yesterday", "2026-13-45", "2026-01-01T10:00", "9999-12-31T23:59:59Z", ""]),
    st.sampled_from(["http://127.0.0.1/", "file:///etc/passwd", "ftp://x", "wdeadbeef", "\x00"]),
    st.builds(lambda n: "x" * n, st.integers(min_value=1_000, max_value=10_000)),
)


@st.composite
def watch_calls(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    tool = draw(st.sampled_from(sorted(WATCH_ARGUMENTS)))
    keys = draw(st.lists(st.sampled_from([*WATCH_ARGUMENTS[tool], "allow_private"]), max_size=5))
    return tool, {key: draw(odd_values) for key in keys}


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(calls=st.lists(watch_calls(), min_size=1, max_size=4))
def test_malformed_watch_arguments_give_structured_errors(
    vault: Vault, calls: list[tuple[str, dict[str, Any]]]
) -> None:
    before = len(audit.entries(vault.conn, limit=100_000))

    async def main() -> list[Any]:
        async with Client(for_agent(vault, "bob")) as client:
            return [await client.call_tool(tool, arguments) for tool, arguments in calls]

    for (tool, _arguments), result in zip(calls, anyio.run(main), strict=True):
        if result.is_error:
            text = result.content[0].text
            assert text and text != f"Error executing tool {tool}", text
        else:
            assert result.structured_content is not None
    assert not vault.conn.execute("SELECT count(*) FROM watches WHERE allow_private").fetchone()[0]
    assert not vault.conn.execute("SELECT count(*) FROM watches WHERE kind = 'folder'").fetchone()[
        0
    ]
    assert len(audit.entries(vault.conn, limit=100_000)) == before + len(calls)
    assert not vault.conn.in_transaction
