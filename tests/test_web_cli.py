"""`privault ui`: a one-time login link for the page `privault serve` runs."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from privault.interfaces.cli import app
from privault.interfaces.cli.ui import announce, login_links

runner = CliRunner()


def test_ui_prints_a_link_the_server_accepts_once() -> None:
    result = runner.invoke(app, ["ui", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["url"].startswith("http://127.0.0.1:8765/login?token=")
    assert data["expires_in_seconds"] == 300 and data["server_running"] in (True, False)
    token = data["url"].split("token=", 1)[1]
    links = login_links()
    assert links.consume(token) is True
    assert links.consume(token) is False


def test_ui_links_to_the_running_server(tmp_path: Path) -> None:
    announce("127.0.0.1", 9123)  # this process stands in for `privault serve`
    result = runner.invoke(app, ["ui", "--minutes", "2"])
    assert result.exit_code == 0, result.output
    assert "http://127.0.0.1:9123/login?token=" in result.stdout
    assert "valid 2 min" in result.stdout
    explicit = runner.invoke(app, ["ui", "--port", "9999", "--json"])
    assert json.loads(explicit.stdout)["url"].startswith("http://127.0.0.1:9999/")


def test_ui_refuses_a_link_that_lives_too_long() -> None:
    result = runner.invoke(app, ["ui", "--minutes", "0"])
    assert result.exit_code != 0
    assert "--minutes must be between 1 and 60" in str(result.exception)
