"""A vault that already holds a time outside the years privault keeps (written by an older
version, before times were checked) still lists, searches, exports and serves: the time is
shown exactly, in ISO 8601's expanded-year form, and stays as it was stored."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from privault.caller import Caller
from privault.interfaces.cli import app
from privault.interfaces.web.app import build_web_app
from privault.interfaces.web.auth import LoginLinks
from privault.retrieval.strong import strong_input
from privault.store import agents
from privault.timeutil import iso_day, iso_minute, local_day, to_iso
from privault.vault import Vault
from tests.helpers import FakeEngineRunner, examples, mcp_ok

runner = FakeEngineRunner()
OWNER = Caller.owner()
YEAR_10000 = 253_402_318_799_000  # 9999-12-31T23:59:59-05:00, as an older version stored it
LONG_AGO, FAR_AHEAD = -(10**15), 10**16
SHOWN = {
    YEAR_10000: "+10000-01-01T04:59:59Z",
    LONG_AGO: "-29719-04-05T22:13:20Z",
    FAR_AHEAD: "+318857-05-20T17:46:40Z",
}


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        *SHOWN.items(),
        (-62_135_596_800_001, "+0000-12-31T23:59:59.999Z"),  # the last moment of 1 BC
        (2**63 - 1, "+292278994-08-17T07:12:55.807Z"),
        (95_413_638_330_327, "4993-07-15T12:25:30.327Z"),  # exact: no float rounding
    ],
)
def test_a_time_outside_the_calendar_is_shown_exactly(ms: int, text: str) -> None:
    assert to_iso(ms) == text
    assert iso_day(ms) == text.partition("T")[0]
    assert iso_minute(text) == text[: text.index("T") + 6]


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_showing_any_stored_time_never_fails(ms: int) -> None:
    text = to_iso(ms)
    assert text is not None and text.endswith("Z")
    local_day(ms)
    assert strong_input("a line", ms)


@dataclass(frozen=True)
class Seeded:
    ahead: str  # a statement that opens in year 10000
    always: str  # a statement from year -29719 to year 318857: it holds now
    note: str
    watch: str


@pytest.fixture
def seeded(vault: Vault) -> Seeded:
    """The CLI's vault, with out-of-range times written in with SQL."""
    agents.issue(vault.conn, "bob")
    ahead = vault.statements.add("The shed gets a roof", caller=OWNER, entities=["other:Shed"])
    always = vault.statements.add("The shed is red", caller=OWNER, entities=["other:Shed"])
    note = vault.note("# Shed\nThe shed door sticks.", caller=OWNER)
    watch = vault.watches.add("remind", "Oil the shed door", caller=OWNER, every="1w")
    ids = Seeded(
        ahead.statement.statement.id, always.statement.statement.id, note.doc_id, watch.watch.id
    )
    while not (step := vault.indexing.step(caller=OWNER)).idle:  # scanned: agents see it
        assert step.error is None, step.error
    conn = vault.conn
    conn.execute("UPDATE statements SET valid_from = ? WHERE id = ?", (YEAR_10000, ids.ahead))
    conn.execute(
        "UPDATE statements SET valid_from = ?, valid_to = ? WHERE id = ?",
        (LONG_AGO, FAR_AHEAD, ids.always),
    )
    conn.execute(  # as `invalidate` writes an end: the window as the vault learned it
        "INSERT INTO statement_closures (statement_id, valid_to, recorded_at)"
        " SELECT id, valid_to, recorded_at FROM statements WHERE id = ?",
        (ids.always,),
    )
    conn.execute("UPDATE documents SET created_at = ? WHERE id = ?", (YEAR_10000, ids.note))
    conn.execute(
        "UPDATE watches SET next_run_at = ?, schedule = '1000000w' WHERE id = ?",
        (FAR_AHEAD, ids.watch),
    )
    return ids


def cli(*args: str) -> str:
    """A command's output, on a terminal wide enough that no cell of a table wraps."""
    result = runner.invoke(app, list(args), env={"COLUMNS": "240"})
    assert result.exit_code == 0, (args, result.output, result.exception)
    return str(result.stdout)


def test_the_cli_lists_searches_and_exports(seeded: Seeded, tmp_path: Path) -> None:
    found = json.loads(cli("search", "shed", "--json"))
    assert SHOWN[FAR_AHEAD] in json.dumps(found) and "The shed door sticks." in json.dumps(found)
    assert "The shed is red" in cli("search", "shed")
    held = json.loads(cli("st", "query", "--entity", "Shed", "--json"))["statements"]
    assert [(s["valid_from"], s["valid_to"]) for s in held] == [(SHOWN[LONG_AGO], SHOWN[FAR_AHEAD])]
    assert "-29719-04-05T22:13 → +318857-05-20T17:46" in cli("st", "query", "--entity", "Shed")
    shown = json.loads(cli("st", "show", seeded.ahead, "--json"))
    assert shown["statement"]["valid_from"] == SHOWN[YEAR_10000]
    assert SHOWN[YEAR_10000] in cli("st", "history", seeded.ahead, "--json")
    assert "(+10000-01-01;" in cli("context", "shed door")
    [doc] = [d for d in json.loads(cli("docs", "--json"))["documents"] if d["title"] == "Shed"]
    assert doc["created_at"] == SHOWN[YEAR_10000]
    assert "+10000-01-01T04:59" in cli("docs")
    listed = json.loads(cli("watch", "list", "--json"))["watches"]
    assert [w["next_run_at"] for w in listed] == [SHOWN[FAR_AHEAD]]
    assert "+318857-05-20T17:46" in cli("watch", "list")
    assert SHOWN[FAR_AHEAD] in cli("watch", "show", seeded.watch)
    cli("export", "--markdown", str(tmp_path / "out"))
    exported = "".join(p.read_text() for p in (tmp_path / "out").rglob("*.md"))
    assert all(text in exported for text in SHOWN.values())


def test_agents_get_answers_not_internal_errors(vault: Vault, seeded: Seeded) -> None:
    found = mcp_ok(vault, "bob", "memory_search", query="shed")
    assert SHOWN[FAR_AHEAD] in json.dumps(found)
    held = mcp_ok(vault, "bob", "query_statements", text="shed")["statements"]
    assert [s["valid_to"] for s in held] == [SHOWN[FAR_AHEAD]]
    listed = mcp_ok(vault, "bob", "list_watches")["watches"]
    assert [w["next_run_at"] for w in listed] == [SHOWN[FAR_AHEAD]]


def test_the_owners_pages_render(vault: Vault, seeded: Seeded, tmp_path: Path) -> None:
    links = LoginLinks(tmp_path / "logins")
    client = TestClient(build_web_app(vault, links=links, hosts=["testserver"]))
    assert client.get(f"/login?token={links.issue()}").status_code == 200
    for path, params, shown in (
        ("/statements", {"entity": "Shed"}, "-29719-04-05"),
        ("/watches", {}, "+318857-05-20 17:46"),
        ("/docs", {}, "+10000-01-01 04:59"),
    ):
        page = client.get(path, params=params)
        assert page.status_code == 200, (path, page.text[-500:])
        assert shown in page.text, path


def test_nothing_stored_is_changed(vault: Vault, seeded: Seeded, tmp_path: Path) -> None:
    cli("watch", "list")
    cli("st", "query")
    cli("export", "--markdown", str(tmp_path / "out"))
    row = "SELECT valid_from, valid_to FROM statements WHERE id = ?"
    assert vault.conn.execute(row, (seeded.always,)).fetchone() == (LONG_AGO, FAR_AHEAD)
    assert vault.conn.execute(row, (seeded.ahead,)).fetchone() == (YEAR_10000, None)
    created = "SELECT created_at FROM documents WHERE id = ?"
    assert vault.conn.execute(created, (seeded.note,)).fetchone() == (YEAR_10000,)
