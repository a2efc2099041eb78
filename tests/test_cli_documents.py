"""The CLI's capture-and-find commands, in-process with typer's CliRunner (fake engines)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from privault.interfaces.cli import app, main
from tests.helpers import FakeEngineRunner

runner = FakeEngineRunner()


def run(*args: str, input: str | None = None):
    return runner.invoke(app, list(args), input=input)


def as_json(*args: str, input: str | None = None):
    result = run(*args, "--json", input=input)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_init_note_search_read_tree(tmp_path: Path) -> None:
    assert as_json("init")["created"] is True
    added = as_json("note", "# Boiler\nService is due in March; call Dr Jane Roe.", "--tag", "home")
    assert added["status"] == "added"
    found = as_json("search", "boiler service")
    hit = found["results"][0]
    assert hit["doc_id"] == added["doc_id"] and "March" in hit["text"]
    assert found["policy"] == "open"
    view = as_json("read", hit["node_id"])
    assert view["text"] == hit["text"]
    tree = as_json("tree", added["doc_id"])
    assert tree["nodes"][0]["node_id"] == hit["node_id"]
    listed = as_json("docs", "--tag", "home")
    assert [d["doc_id"] for d in listed["documents"]] == [added["doc_id"]]


def test_note_from_stdin_and_unchanged() -> None:
    first = as_json("note", "-", "--title", "Groceries", input="oat milk\nrye bread\n")
    again = as_json("note", "-", "--title", "Groceries", input="oat milk\nrye bread\n")
    assert first["title"] == "Groceries"
    assert again["status"] == "unchanged"


def test_context_reports_tokens_and_drops() -> None:
    for i in range(12):
        as_json("note", f"Standup {i}: the release train moved to Thursday, room {i}. " * 4)
    pack = as_json("context", "release train", "--budget", "120")
    assert pack["used_tokens"] <= 120
    assert pack["dropped"] > 0
    assert set(pack) >= {"text", "sections", "used_tokens", "dropped"}


def test_add_folder_summary(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\nalpha")
    (tmp_path / "docs" / "b.txt").write_bytes(b"\x00binary")
    report = as_json("add", str(tmp_path / "docs"))
    assert report["added"] == 1
    assert len(report["failed"]) == 1 and "binary" in report["failed"][0]["reason"]
    human = run("add", str(tmp_path / "docs"))
    assert "unchanged 1, failed 1" in human.stdout


def test_forget_leaves_nothing_searchable() -> None:
    added = as_json("note", "The spare key is under the blue flowerpot")
    assert as_json("forget", added["doc_id"])["forgotten"] is True
    assert as_json("search", "spare key flowerpot")["results"] == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("note", ""), "empty note"),
        (("read", "d000000000000.1"), "no section"),
        (("search", "x", "--since", "2026-01-01T10:00"), "no offset"),
        (("search", "x", "--since", "yesterday"), "unparseable time"),
        (("context", "x", "--budget", "5"), "budget"),
        (("note", "hi", "--shelf", "Bad Shelf"), "bad shelf"),
    ],
)
def test_bad_input_is_one_line_on_stderr(
    args: tuple[str, ...], message: str, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    assert run("init").exit_code == 0
    monkeypatch.setattr("sys.argv", ["privault", *args])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 1
    captured = capsys.readouterr()
    assert message in captured.err
    assert captured.err.strip().count("\n") == 0
    assert captured.out == ""


def test_a_vault_file_that_is_not_a_database(tmp_path: Path, monkeypatch) -> None:
    bogus = tmp_path / "bogus.db"
    bogus.write_text("hello, I am a text file " * 50)
    monkeypatch.setenv("PRIVAULT_VAULT", str(bogus))
    result = run("status")
    assert result.exit_code != 0
    assert "not a database" in str(result.exception)
    assert bogus.read_text().startswith("hello")


def test_every_command_has_help() -> None:
    result = run("--help")
    assert result.exit_code == 0
    for command in (
        "init",
        "note",
        "add",
        "search",
        "context",
        "read",
        "tree",
        "docs",
        "forget",
        "status",
        "models",
    ):
        assert command in result.stdout
        sub = run(command, "--help")
        assert sub.exit_code == 0 and "Usage" in sub.stdout


def test_help_paragraphs_flow_to_the_terminal_s_width() -> None:
    # The docstrings' own line breaks made ragged lines at 80 columns: a paragraph of help
    # is one line of text that the terminal wraps.
    result = runner.invoke(app, ["index", "--help"], terminal_width=80, env={"COLUMNS": "80"})
    assert result.exit_code == 0
    text = " ".join(line.strip(" │") for line in result.stdout.splitlines())
    assert "until it has run, agents see none of that text" in " ".join(text.split())
    lines = [line.rstrip() for line in result.stdout.splitlines() if line.strip()]
    prose = [line for line in lines if line.startswith(" ") and "│" not in line and "╭" not in line]
    # Every prose line but a paragraph's last fills the width within one word.
    pairs = zip(prose, prose[1:], strict=False)
    ragged = [a for a, b in pairs if len(a) < 60 and b[1:2].islower()]
    assert not ragged, ragged


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0 and result.stdout.startswith("privault ")


def test_search_shows_statements_and_superseded_ones_on_request() -> None:
    first = as_json(
        "statement",
        "add",
        "The boiler service company is Flowright",
        "--valid-from",
        "2026-01-01T00:00:00Z",
    )
    as_json(
        "statement",
        "supersede",
        first["statement"]["id"],
        "The boiler service company is Heatwise",
        "--valid-from",
        "2026-06-01T00:00:00Z",
    )
    now = as_json("search", "boiler service company")
    assert [s["content"] for s in now["statements"]] == ["The boiler service company is Heatwise"]
    both = as_json("search", "boiler service company", "--include-superseded")
    labels = {s["content"]: s["label"] for s in both["statements"]}
    assert labels["The boiler service company is Flowright"] == "NOT current"
    human = run("search", "boiler service company", "--include-superseded")
    assert "NOT current" in human.stdout and "Flowright" in human.stdout


def test_init_encrypt_uses_the_key_and_refuses_a_wrong_one(monkeypatch) -> None:
    monkeypatch.setenv("PRIVAULT_KEY", "a long passphrase for the test")
    created = as_json("init", "--encrypt")
    assert created["encrypted"] is True and created["key_source"] == "env"
    as_json("note", "Sealed note about the garden shed")
    assert as_json("search", "garden shed")["results"]
    monkeypatch.setenv("PRIVAULT_KEY", "the wrong passphrase")
    result = run("search", "garden shed")
    assert result.exit_code != 0 and "key is wrong" in str(result.exception)
    again = run("init", "--encrypt")
    assert again.exit_code != 0 and "already exists" in str(again.exception)
