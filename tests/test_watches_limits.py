"""A watch's schedule stays in the years privault keeps: an interval over ten years or a
time past year 9999 is refused at every door (CLI, API, MCP) with one line, and a
schedule already stored that would plan past year 9999 ends instead of planning there."""

from __future__ import annotations

import json
import re

import pytest

from privault.caller import Caller
from privault.errors import InputError
from privault.interfaces.cli import app, main
from privault.store import agents
from privault.timeutil import LATEST_MS, now_ms, to_iso
from privault.vault import Vault
from privault.watches.manage import add_watch
from tests.helpers import FakeEngineRunner, mcp_error

runner = FakeEngineRunner()
OWNER = Caller.owner()
TOO_LONG = "longer than ten years: give at most 3653d"


def watch_count(vault: Vault) -> int:
    return int(vault.conn.execute("SELECT count(*) FROM watches").fetchone()[0])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--every", "1000000w"], TOO_LONG),
        (["--every", "99999999999999999999w"], TOO_LONG),  # was an OverflowError traceback
        (["--at", "9999-12-31T23:59:59-05:00"], "is out of range: give a time from 1000-01-01"),
    ],
)
def test_the_cli_refuses_with_one_line_and_stores_nothing(
    args: list[str],
    message: str,
    vault: Vault,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("sys.argv", ["privault", "watch", "add", "remind", "big", *args])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 1
    captured = capsys.readouterr()
    assert message in captured.err and captured.err.strip().count("\n") == 0
    assert "Traceback" not in captured.err and captured.out == ""
    assert watch_count(vault) == 0


def test_agents_are_told_invalid_input(vault: Vault) -> None:
    agents.issue(vault.conn, "bob")
    for every in ("1000000w", "99999999999999999999w"):
        refused = mcp_error(vault, "bob", "watch", kind="remind", target="x", every=every)
        assert "invalid_input" in refused and TOO_LONG in refused
    assert watch_count(vault) == 0


def test_a_snooze_over_ten_years_is_refused(vault: Vault) -> None:
    with pytest.raises(InputError, match=re.escape(TOO_LONG)):
        vault.watches.snooze("r_any", caller=OWNER, interval="1000000w")


def test_a_first_run_past_year_9999_is_refused(vault: Vault) -> None:
    with pytest.raises(InputError, match="the first run .* is out of range"):
        add_watch(vault.conn, "remind", "late", every="1w", now_ms=LATEST_MS - 86_400_000)
    assert watch_count(vault) == 0


@pytest.mark.parametrize("schedule", ["1000000w", "99999999999999999999w", "1" + "0" * 5000 + "w"])
def test_a_stored_schedule_longer_than_allowed_runs_then_ends(vault: Vault, schedule: str) -> None:
    """Written by an older version: the poll still runs it, the other watches too, and
    the next time, past year 9999, is never planned."""
    long = vault.watches.add("remind", "long", caller=OWNER, at=now_ms() - 5_000, every="1w")
    weekly = vault.watches.add("remind", "weekly", caller=OWNER, at=now_ms() - 5_000, every="1w")
    update = "UPDATE watches SET schedule = ? WHERE id = ?"
    vault.conn.execute(update, (schedule, long.watch.id))
    polled = runner.invoke(app, ["watch", "poll", "--json"])
    assert polled.exit_code == 0, (polled.output, polled.exception)
    assert json.loads(polled.stdout)["ran"] == 2
    listed = runner.invoke(app, ["watch", "list", "--all", "--json"])
    assert listed.exit_code == 0, (listed.output, listed.exception)
    found = {item["target"]: item for item in json.loads(listed.stdout)["watches"]}
    assert (found["long"]["status"], found["long"]["next_run_at"]) == ("finished", None)
    assert found["weekly"]["status"] == "active"
    assert found["weekly"]["next_run_at"] == to_iso(weekly.watch.next_run_at + 7 * 86_400_000)


@pytest.mark.parametrize("content_type", ["text/plain", "text/html"])
def test_a_page_s_text_is_filed_up_to_its_limit_cut_at_a_line(content_type: str) -> None:
    from privault.watches import web
    from privault.watches.fetcher import FetchResult

    lines = "l\n" * 300_000  # a page of one-letter lines: a word every two characters
    body = (
        lines if content_type == "text/plain" else f"<html><body><pre>{lines}</pre></body></html>"
    )
    page = FetchResult("http://127.0.0.1/lines", 200, content_type, body, "127.0.0.1")
    text = web.extract_text(page)[1]
    assert len(text) <= web.MAX_PAGE_TEXT + 100
    kept, _, note = text.rpartition("\n\n")
    assert set(kept.split("\n")) == {"l"}  # whole lines only
    assert re.fullmatch(r"\[[\d,]+ more characters of the page are not kept\]", note)
