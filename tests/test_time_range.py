"""Times outside the years privault keeps (1000–9999 in UTC) are refused where they come in:
the CLI, the Python API and the MCP tools say so in one line; a date in a file's front
matter or an import is dropped as unreadable. Inside the range, nothing changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privault.caller import Caller
from privault.errors import InputError
from privault.interfaces.cli import app, main
from privault.store import agents
from privault.timeutil import EARLIEST_MS, LATEST_MS, in_range, now_ms, parse_time, to_iso, to_ms
from privault.vault import Vault
from tests import import_samples as samples
from tests.helpers import FakeEngineRunner, examples, mcp_error

runner = FakeEngineRunner()
OWNER = Caller.owner()
RANGE = "give a time from 1000-01-01T00:00:00Z to 9999-12-31T23:59:59Z"
TOO_LATE = "9999-12-31T23:59:59-05:00"  # 10000-01-01T04:59:59Z
TOO_EARLY = "0001-01-01T00:00:00+01:00"  # year 0 in UTC


@pytest.mark.parametrize(
    ("text", "in_utc"),
    [
        (TOO_LATE, "+10000-01-01T04:59:59Z"),
        (TOO_EARLY, "+0000-12-31T23:00:00Z"),
        ("0999-12-31T23:59:59Z", "0999-12-31T23:59:59Z"),
        ("9999-12-31T23:30:00-01:00", "+10000-01-01T00:30:00Z"),
    ],
)
def test_a_time_outside_the_years_kept_is_refused_saying_which(text: str, in_utc: str) -> None:
    with pytest.raises(InputError) as refused:
        parse_time(text)
    assert str(refused.value) == f"time {text!r} ({in_utc} in UTC) is out of range: {RANGE}"


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("1000-01-01T00:00:00Z", EARLIEST_MS),
        ("1000-01-01T01:00:00+01:00", EARLIEST_MS),
        ("9999-12-31T23:59:59.999Z", LATEST_MS),
        ("9999-12-31", LATEST_MS - 86_399_999),
    ],
)
def test_the_ends_of_the_range_are_kept(text: str, ms: int) -> None:
    assert parse_time(text) == ms
    assert to_ms(ms, "valid_from") == ms


@pytest.mark.parametrize("ms", [10**16, -(10**15), LATEST_MS + 1, EARLIEST_MS - 1])
def test_epoch_ms_outside_the_range_is_refused(ms: int) -> None:
    with pytest.raises(InputError, match=f"^valid_from {ms} .* is out of range: {RANGE}$"):
        to_ms(ms, "valid_from")


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(min_value=EARLIEST_MS, max_value=LATEST_MS))
def test_every_time_kept_goes_out_and_back_exactly(ms: int) -> None:
    text = to_iso(ms)
    assert text is not None and parse_time(text) == ms


def test_the_cli_refuses_with_one_line_and_stores_nothing(
    vault: Vault, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for args in (
        ["st", "add", "far future", "--valid-from", TOO_LATE],
        ["st", "add", "long ago", "--valid-from", TOO_EARLY],
        ["watch", "add", "remind", "big", "--at", TOO_LATE],
        ["search", "shed", "--since", TOO_EARLY],
    ):
        monkeypatch.setattr("sys.argv", ["privault", *args])
        with pytest.raises(SystemExit) as exited:
            main()
        assert exited.value.code == 1, args
        captured = capsys.readouterr()
        assert RANGE in captured.err and captured.err.strip().count("\n") == 0, args
        assert captured.out == ""
    counted = "SELECT (SELECT count(*) FROM statements) + (SELECT count(*) FROM watches)"
    assert vault.conn.execute(counted).fetchone()[0] == 0


def test_the_python_api_refuses_epoch_ms_outside_the_range(vault: Vault) -> None:
    for value in (10**16, -(10**15), TOO_LATE):
        with pytest.raises(InputError, match=RANGE):
            vault.statements.add("huge", caller=OWNER, valid_from=value)
        with pytest.raises(InputError, match=RANGE):
            vault.note("A huge date", caller=OWNER, created_at=value)  # type: ignore[arg-type]
        with pytest.raises(InputError, match=RANGE):
            vault.watches.add("remind", "big", caller=OWNER, at=value)
    first = vault.statements.add("kept", caller=OWNER, valid_from=1_000).statement.statement
    with pytest.raises(InputError, match=RANGE):
        vault.statements.invalidate(first.id, caller=OWNER, valid_to=10**16)
    assert vault.conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 0
    assert vault.conn.execute("SELECT count(*) FROM watches").fetchone()[0] == 0


def test_agents_are_told_invalid_input(vault: Vault) -> None:
    agents.issue(vault.conn, "bob")
    refused = mcp_error(vault, "bob", "write_statement", content="x", valid_from=TOO_LATE)
    assert "invalid_input" in refused and RANGE in refused
    refused = mcp_error(vault, "bob", "watch", kind="remind", target="x", at=TOO_LATE)
    assert "invalid_input" in refused and RANGE in refused


@pytest.mark.parametrize("created", [TOO_LATE, TOO_EARLY])
def test_a_front_matter_date_outside_the_range_is_dropped_not_stored(
    created: str, tmp_path: Path
) -> None:
    note = tmp_path / "shed.md"
    note.write_text(f"---\ncreated: {created}\n---\n# Shed\nThe shed door sticks.\n")
    before = now_ms()
    added = runner.invoke(app, ["add", str(note), "--json"])
    assert added.exit_code == 0, added.output
    assert json.loads(added.stdout)["failed"] == []
    docs = runner.invoke(app, ["docs", "--json"])
    assert docs.exit_code == 0, (docs.output, docs.exception)
    [doc] = json.loads(docs.stdout)["documents"]
    assert parse_time(doc["created_at"]) >= before  # dated when added, like an unreadable date
    found = runner.invoke(app, ["search", "shed door"])
    assert found.exit_code == 0 and "The shed door sticks." in found.output


def test_an_imported_date_outside_the_range_is_dropped(vault: Vault, tmp_path: Path) -> None:
    root = samples.obsidian_vault(tmp_path / "Notes")
    (root / "Far.md").write_text(f"---\ncreated: {TOO_LATE}\n---\nThe far future note.\n")
    (root / "Old.md").write_text("---\ndate: 0500-01-01\n---\nThe long ago note.\n")
    report = vault.import_from("obsidian", root, caller=OWNER)
    assert report.failed == ()
    dates = {d.title: d.created_at for d in vault.docs(caller=OWNER, limit=100).documents}
    assert in_range(dates["Far"]) and in_range(dates["Old"])
    assert to_iso(dates["Far"]) != "+10000-01-01T04:59:59Z"
