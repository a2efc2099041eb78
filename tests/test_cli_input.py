"""What the command line and the Python API refuse up front: text that is not UTF-8, a query
past its bound, a port out of range; each with one clear error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer

from privault import Caller, Vault
from privault.ask.pipeline import AskHeldBack, AskReply
from privault.errors import InputError, ModelError
from privault.interfaces.cli import app
from privault.vault.ask import VaultAsk
from tests.helpers import FakeEngineRunner, fake_vault

OWNER = Caller.owner()
NOT_UTF8 = "bad \udcff byte"  # how Python hands over a byte a terminal could not decode
CODE = "import sys; from privault.interfaces.cli import main; sys.argv[0] = 'privault'; main()"


def _cli(
    tmp_path: Path, *args: bytes, stdin: bytes = b"", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PRIVAULT_INDEXER": "off",
        "PRIVAULT_VAULT": str(tmp_path / "v.db"),
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable.encode(), b"-c", CODE.encode(), *args],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("args", "stdin", "said"),
    [
        ((b"note", b"bad \xff byte"), b"", "argument 2 is not UTF-8 text"),
        ((b"search", b"bad \xff byte"), b"", "argument 2 is not UTF-8 text"),
        ((b"note", b"-"), b"\xff\xfe bad \xc3\x28", "standard input is not UTF-8 text"),
    ],
)
def test_the_command_line_refuses_bytes_that_are_not_utf8(
    tmp_path: Path, args: tuple[bytes, ...], stdin: bytes, said: str
) -> None:
    done = _cli(tmp_path, *args, stdin=stdin)
    errors = done.stderr.decode()
    assert done.returncode == 1 and said in errors, errors
    assert "Traceback" not in errors and len(errors.strip().splitlines()) == 1


def test_the_python_api_refuses_text_that_is_not_utf8_and_overlong_queries(
    tmp_path: Path,
) -> None:
    with fake_vault(tmp_path / "v.db") as vault:
        vault.note("Fix the shed roof", caller=OWNER)
        with pytest.raises(InputError, match="not UTF-8"):
            vault.note(NOT_UTF8, caller=OWNER)
        for call in (vault.search, vault.context):
            with pytest.raises(InputError, match="not UTF-8"):
                call(NOT_UTF8, caller=OWNER)
            with pytest.raises(InputError, match="over 2000 characters"):
                call("shed " * 401, caller=OWNER)
            call("shed " * 400, caller=OWNER)  # 2,000 characters: within the bound


@pytest.mark.parametrize("command", [b"serve", b"ui"])
def test_a_port_out_of_range_is_a_usage_error(tmp_path: Path, command: bytes) -> None:
    done = _cli(tmp_path, command, b"--port", b"99999")
    errors = done.stderr.decode()
    assert done.returncode == 2 and "--port" in errors and "Traceback" not in errors, errors


def _whole_number_options() -> list[tuple[str, ...]]:
    """(command words…, option) for every option that takes a whole number without a range."""
    found: list[tuple[str, ...]] = []

    def walk(command: Any, words: tuple[str, ...]) -> None:
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, (*words, name))
        for param in getattr(command, "params", []):
            if param.param_type_name == "option" and param.type.name in ("int", "number"):
                found.append((*words, param.opts[0]))

    walk(typer.main.get_command(app), ())
    return found


@pytest.mark.parametrize("words", _whole_number_options(), ids=" ".join)
def test_a_number_the_vault_cannot_store_is_a_usage_error(words: tuple[str, ...]) -> None:
    # SQLite's integers are 64-bit: a larger count or cursor failed its query.
    for value in ("9" * 30, "-" + "9" * 30):
        done = FakeEngineRunner().invoke(app, [*words, value], env={"COLUMNS": "300"})
        assert done.exit_code == 2 and "out of range" in done.output, (value, done.output)


@pytest.mark.parametrize(
    ("name", "said"),
    [("embeddinggemma-300", "unknown model"), ("smollm2-135m", "chat model, not an embedding")],
)
def test_a_strong_model_setting_that_names_no_embedder_is_an_error(
    tmp_path: Path, name: str, said: str
) -> None:
    with pytest.raises(ModelError, match=f"strong_model: .*{said}"):
        Vault.open(tmp_path / "v.db", models_dir=tmp_path / "models", strong_model=name)
    with Vault.open(tmp_path / "v.db", models_dir=tmp_path / "models") as vault:
        assert vault.strong.coverage().windows == 0  # the default, not installed here: off


def test_models_add_registers_a_chat_model_the_answerer_can_prompt(tmp_path: Path) -> None:
    model = tmp_path / "mine.gguf"
    model.write_bytes(b"GGUF not really")
    env = {"PRIVAULT_MODELS": str(tmp_path / "models")}
    done = _cli(tmp_path, b"models", b"add", b"mine", str(model).encode(), env=env)
    assert done.returncode == 0, done.stderr.decode()
    written = (tmp_path / "models" / "manifests" / "mine.yaml").read_text()
    assert "format: chatml" in written
    bad = _cli(tmp_path, b"models", b"add", b"../evil", str(model).encode(), env=env)
    errors = bad.stderr.decode()
    assert bad.returncode == 1 and "model name" in errors and "Traceback" not in errors, errors


def test_an_ask_without_an_answer_exits_non_zero_and_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    refusal = AskReply("", (), "open", "off", AskHeldBack(), refused="no local model is loaded")
    monkeypatch.setattr(VaultAsk, "ask", lambda *args, **kwargs: refusal)
    runner = FakeEngineRunner()
    said = runner.invoke(app, ["ask", "when is the shed roof fixed"])
    assert said.exit_code == 1 and "refused: no local model is loaded" in said.output
    assert "model none (no answer)" in said.output
    as_json = runner.invoke(app, ["ask", "when is the shed roof fixed", "--json"])
    assert as_json.exit_code == 1 and json.loads(as_json.output)["refused"]


def test_a_key_for_a_plain_vault_says_how_to_open_it(tmp_path: Path) -> None:
    assert _cli(tmp_path, b"init").returncode == 0
    done = _cli(tmp_path, b"docs", env={"PRIVAULT_KEY": "a key for another vault"})
    errors = done.stderr.decode()
    assert done.returncode == 1 and "not encrypted" in errors and "unset PRIVAULT_KEY" in errors
    assert len(errors.strip().splitlines()) == 1 and "another vault" not in errors, errors


def test_a_wrong_key_is_one_line(tmp_path: Path) -> None:
    key = {"PRIVAULT_KEY": "a long passphrase for the test"}
    assert _cli(tmp_path, b"init", b"--encrypt", env=key).returncode == 0
    done = _cli(tmp_path, b"status", env={"PRIVAULT_KEY": "the wrong passphrase"})
    errors = done.stderr.decode()
    assert done.returncode == 1 and "key is wrong" in errors, errors
    assert len(errors.strip().splitlines()) == 1, errors


@pytest.mark.parametrize(
    ("args", "env", "said"),
    [
        ((b"status",), {"PRIVAULT_KEY": "hunter2\udcff"}, "PRIVAULT_KEY is not UTF-8"),
        ((b"search", b"roof"), {"PRIVAULT_KEY": "hunter2\udcff"}, "PRIVAULT_KEY is not UTF-8"),
        ((b"init", b"--encrypt"), {"PRIVAULT_KEY": "hunter2\udcff"}, "PRIVAULT_KEY is not UTF-8"),
        (
            (b"export", b"out.bundle"),
            {"PRIVAULT_SYNC_PASSPHRASE": "hunter2 hunter2 \udcff"},
            "PRIVAULT_SYNC_PASSPHRASE is not UTF-8",
        ),
    ],
)
def test_a_key_that_is_not_utf8_is_one_line(
    tmp_path: Path, args: tuple[bytes, ...], env: dict[str, str], said: str
) -> None:
    # Set from bytes (os.environb): SQLCipher and the bundle take the key as UTF-8.
    done = _cli(tmp_path, *args, env={**env, "PRIVAULT_WARM": "auto"})
    errors = done.stderr.decode()
    assert done.returncode == 1 and said in errors, errors
    assert len(errors.strip().splitlines()) == 1 and "hunter2" not in errors, errors
