"""`privault watch …` and `privault reminders` in-process, with the fake engines and
pages served from 127.0.0.1 by the test."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from test_watches_support import LocalServer, html_page, send, serve

from privault.errors import AccessDenied, InputError, NotFound
from privault.interfaces import config
from privault.interfaces.cli import app, main
from privault.interfaces.cli.watches import add_app, register, watch_app
from privault.store import agents
from privault.store.connection import connect
from privault.store.migrations import migrate
from privault.timeutil import now_ms, to_iso
from tests.helpers import FakeEngineRunner

runner = FakeEngineRunner()
HOUR = 3_600_000
PAGE = {"text": "The ferry leaves at nine."}


def _search(handler: BaseHTTPRequestHandler) -> None:
    base = f"http://127.0.0.1:{handler.server.server_address[1]}"
    results = [{"url": f"{base}/r1", "title": "Tide tables", "content": "spring tides"}]
    send(handler, json.dumps({"results": results}), content_type="application/json")


ROUTES = {
    "/page": lambda h: send(h, html_page("Ferry", PAGE["text"])),
    "/search": _search,
}


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with serve(ROUTES) as running:
        yield running


@pytest.fixture(autouse=True)
def _registered() -> None:
    if not any(group.name == "watch" for group in app.registered_groups):
        register(app)  # until the lead adds the module to the CLI's registration list


def run(*args: str) -> Any:
    """Run `privault ARGS --json` and return the parsed JSON."""
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, (result.output, result.exception)
    return json.loads(result.output)


def fails(*args: str) -> BaseException | None:
    result = runner.invoke(app, list(args))
    assert result.exit_code != 0
    return result.exception


def test_every_command_has_help() -> None:
    groups = {"watch": watch_app, "watch add": add_app}
    for prefix, group in groups.items():
        for command in group.registered_commands:
            assert command.name
            result = runner.invoke(app, [*prefix.split(), command.name, "--help"])
            assert result.exit_code == 0 and "--json" in result.output, command.name
    for args in (["reminders", "--help"], ["reminders", "ack", "--help"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0 and "--json" in result.output


def test_a_reminder_comes_due_and_is_listed_until_acked() -> None:
    at = to_iso(now_ms() - 5_000)
    assert at is not None
    added = run("watch", "add", "remind", "Renew the passport", "--at", at)
    assert added["watch"]["kind"] == "remind" and added["policy"] == "open"
    assert run("reminders")["reminders"] == []

    polled = run("watch", "poll")
    assert polled["ran"] == 1 and polled["runs"][0]["status"] == "filed"
    [due] = run("reminders")["reminders"]
    assert due["text"] == "Renew the passport" and due["due"] is True

    human = runner.invoke(app, ["reminders"])
    assert human.exit_code == 0 and "Renew the passport" in human.output

    acked = run("reminders", "ack", due["id"])
    assert acked["reminder"]["due"] is False
    assert run("reminders")["reminders"] == []
    assert len(run("reminders", "--all")["reminders"]) == 1


def test_a_listing_cut_at_its_limit_says_how_many_more_and_how_to_list_them() -> None:
    start = now_ms() - 10 * HOUR
    at = to_iso(start)
    assert at is not None
    run("watch", "add", "remind", "Stretch", "--at", at, "--every", "1h", "--max-catchup", "20")
    run("watch", "poll", "--now", str(to_iso(start + 4 * HOUR)))
    cut = run("reminders", "--limit", "2")
    assert len(cut["reminders"]) == 2 and cut["more"] == 3
    human = runner.invoke(app, ["reminders", "--limit", "2"])
    assert human.exit_code == 0
    assert f"… and 3 more: privault reminders --after {cut['next']}" in human.output
    rest = run("reminders", "--limit", "2", "--after", cut["next"])
    assert len(rest["reminders"]) == 2 and rest["more"] == 1
    last = run("reminders", "--after", rest["next"])
    assert len(last["reminders"]) == 1 and (last["more"], last["next"]) == (0, None)
    assert "more:" not in runner.invoke(app, ["reminders"]).output  # nothing left out
    every = runner.invoke(app, ["reminders", "--all", "--limit", "4"]).output
    assert re.search(r"\n… and 1 more: privault reminders --all --after \S+ \(or a larger", every)
    assert isinstance(fails("reminders", "--after", "soon"), InputError)


def test_url_watch_changes_between_polls_and_shows_the_diff(server: LocalServer) -> None:
    start = now_ms()
    added = run("watch", "add", "url", server.url("/page"), "--every", "1h", "--allow-private")
    watch_id = added["watch"]["id"]
    first = run("watch", "poll", "--now", str(to_iso(start + 1000)))
    assert [r["status"] for r in first["runs"]] == ["changed"]

    PAGE["text"] = "The ferry leaves at ten."
    try:
        second = runner.invoke(app, ["watch", "poll", "--now", str(to_iso(start + HOUR + 1000))])
    finally:
        PAGE["text"] = "The ferry leaves at nine."
    assert second.exit_code == 0, second.output
    assert "changed" in second.output
    assert "-The ferry leaves at nine." in second.output
    assert "+The ferry leaves at ten." in second.output

    shown = run("watch", "show", watch_id)
    assert [r["status"] for r in shown["runs"]] == ["changed", "changed"]
    assert shown["watch"]["runs"] == 2
    listed = run("watch", "list")
    assert [w["id"] for w in listed["watches"]] == [watch_id]


def test_search_watch_uses_the_configured_backend(server: LocalServer) -> None:
    home = config.home()
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(f"search_backend: {server.url('/search')}\n")
    run("watch", "add", "search", "tides", "--every", "1d")
    polled = run("watch", "poll", "--now", str(to_iso(now_ms() + 1000)))
    [result] = polled["runs"]
    assert result["status"] == "filed" and len(result["doc_ids"]) == 1
    again = run("watch", "poll", "--now", str(to_iso(now_ms() + 25 * HOUR)))
    assert [r["status"] for r in again["runs"]] == ["unchanged"]


def test_folder_watch_and_the_lifecycle_commands(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\nThe shed key is under the blue pot.\n")
    watch_id = run("watch", "add", "folder", str(folder), "--every", "1h")["watch"]["id"]
    ran = run("watch", "run", watch_id)
    assert ran["run"]["status"] == "changed" and len(ran["run"]["doc_ids"]) == 1
    assert run("watch", "pause", watch_id)["watch"]["status"] == "paused"
    assert run("watch", "resume", watch_id)["watch"]["status"] == "active"
    assert run("watch", "cancel", watch_id)["watch"]["status"] == "cancelled"
    assert run("watch", "list")["watches"] == []
    assert [w["id"] for w in run("watch", "list", "--all")["watches"]] == [watch_id]


def test_as_agent_previews_the_redacted_view() -> None:
    path = config.vault_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = connect(path)
    try:
        migrate(conn)
        agents.issue(conn, "helper")
    finally:
        conn.close()
    text = "Ask Dr. Maria Gonzalez for the results"
    run("watch", "add", "remind", text, "--at", str(to_iso(now_ms() - 1000)))
    run("watch", "poll")
    [mine] = run("reminders")["reminders"]
    [theirs] = run("reminders", "--as", "helper")["reminders"]
    assert mine["text"] == text
    assert theirs["text"] == "Ask <PERSON_1> for the results"
    listed = run("watch", "list", "--as", "helper")
    assert "Gonzalez" not in json.dumps(listed) and listed["policy"] == "standard"


def test_errors_are_privault_errors() -> None:
    assert isinstance(fails("watch", "show", "wnothere"), NotFound)
    assert isinstance(fails("watch", "add", "remind", "x"), InputError)  # no --at / --every
    assert isinstance(
        fails("watch", "add", "url", "http://127.0.0.1:9/", "--every", "1h"), InputError
    )
    assert isinstance(fails("reminders", "ack", "rnothere"), NotFound)
    assert isinstance(fails("watch", "list", "--as", "nobody"), AccessDenied)


def test_an_error_is_one_line_on_stderr(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["privault", "watch", "show", "wnothere"])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "no watch 'wnothere'" in err and "\n" not in err
