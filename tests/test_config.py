"""`$PRIVAULT_HOME/config.yaml`: settings read by every command; a broken file is refused
with one line that names the setting, never ignored."""

from __future__ import annotations

from pathlib import Path

import pytest

from privault import Vault
from privault.errors import InputError
from privault.interfaces import config
from privault.interfaces.cli import main


def _write(text: str) -> Path:
    path = config.home() / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_no_file_gives_the_defaults() -> None:
    loaded = config.load_config()
    assert loaded == config.Config()
    assert loaded.max_note_bytes == 1024 * 1024
    assert loaded.strong_model == "embeddinggemma-300m"
    assert loaded.chat_unload_after == 300


def test_a_file_sets_what_it_names_and_keeps_the_rest() -> None:
    _write(
        "max_note_bytes: 2048\npolicies_dir: ~/my-policies\nstrong_model: null\n"
        "chat_unload_after: null\n"
        "privacy:\n  agents:\n    auditor: strict\n"
        "remote_chat: {url: 'http://127.0.0.1:8080/v1', model: m}\n"
    )
    loaded = config.load_config()
    assert loaded.max_note_bytes == 2048
    assert loaded.policies_dir == Path("~/my-policies").expanduser()
    assert loaded.strong_model is None
    assert loaded.chat_unload_after is None
    assert loaded.privacy == {"agents": {"auditor": "strict"}}
    assert loaded.remote_chat == {"url": "http://127.0.0.1:8080/v1", "model": "m"}
    assert loaded.max_file_bytes == config.Config().max_file_bytes


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("max_note_bytes: 0\n", "max_note_bytes: must be a positive integer, not 0"),
        ("max_note_bytes: -5\n", "max_note_bytes: must be a positive integer"),
        ("max_file_bytes: lots\n", "max_file_bytes: must be a positive integer, not 'lots'"),
        ("max_note_bytes: true\n", "max_note_bytes: must be a positive integer, not True"),
        ("max_note_bytes: 1.5\n", "max_note_bytes: must be a positive integer"),
        ("privacy: strict\n", "privacy: must be caller/shelf policies (a mapping)"),
        ("chat_model: [a, b]\n", "chat_model: must be the local answerer"),
        ("remote_chat: 3\n", "remote_chat: must be an OpenAI-compatible backend"),
        ("chat_unload_after: 0\n", "chat_unload_after: must be the seconds without a question"),
        ("chat_unload_after: 5m\n", "chat_unload_after: must be the seconds"),
        ("chat_unload_after: 604801\n", "chat_unload_after: must be at most 604,800, not 604801"),
        ("ask_timeout: " + "9" * 400 + "\n", "ask_timeout: must be at most 86,400, not 9999"),
        ("max_file_bytes: 1099511627777\n", "max_file_bytes: must be at most 1,099,511,627,776"),
        ("max_notes_bytes: 10\n", "max_notes_bytes: unknown setting (known: privacy, "),
        ("- just\n- a list\n", "the file must be a mapping of settings"),
        ("max_note_bytes: [1\n", "is not valid YAML"),
    ],
)
def test_a_broken_file_is_refused_with_the_setting_named(text: str, message: str) -> None:
    path = _write(text)
    with pytest.raises(InputError) as raised:
        config.load_config()
    assert message in str(raised.value)
    assert str(path) in str(raised.value)


def test_the_cli_says_what_is_wrong_in_one_line_and_stores_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _write("max_note_bytes: nope\n")
    monkeypatch.setattr("sys.argv", ["privault", "note", "a thought that must not vanish"])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 1
    captured = capsys.readouterr()
    assert "max_note_bytes: must be a positive integer, not 'nope'" in captured.err
    assert captured.err.strip().count("\n") == 0
    assert not config.vault_path().exists()


@pytest.mark.parametrize(
    ("setting", "said"),
    [
        ({"ask_timeout": 10**400}, "ask_timeout must be at most 86,400, not 1000"),
        ({"chat_unload_after": 0}, "chat_unload_after must be a positive number, not 0"),
        ({"max_note_bytes": -1}, "max_note_bytes must be a positive number"),
        ({"max_file_bytes": 2**41}, "max_file_bytes must be at most 1,099,511,627,776"),
    ],
)
def test_a_program_opening_a_vault_meets_the_bounds_of_the_config_file(
    tmp_path: Path, setting: dict[str, int], said: str
) -> None:
    with pytest.raises(InputError, match=said):
        Vault.open(tmp_path / "v.db", models_dir=tmp_path / "models", **setting)
