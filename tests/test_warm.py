"""The warm searcher: a detached process that answers `privault search` with the vault open.

Real processes on a real vault (notes indexed by the real detector and embedder): the
searcher must answer exactly what an in-process search returns, see writes made after it
started, refuse to answer once anything it loaded has changed, and survive bad requests.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from privault.interfaces import warm
from privault.interfaces.cli.common import open_vault
from privault.interfaces.indexer import ProcessLock
from tests.helpers import run_cli

pytestmark = pytest.mark.real


def _run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env=env, timeout=240)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, models_dir: Path) -> Path:
    """A small vault written and indexed by the real command (once for this module)."""
    home = tmp_path_factory.mktemp("built")
    env = {
        **os.environ,
        "PRIVAULT_HOME": str(home),
        "PRIVAULT_VAULT": str(home / "vault.db"),
        "PRIVAULT_MODELS": str(models_dir),
        "PRIVAULT_INDEXER": "off",
        "PRIVAULT_WARM": "off",
    }
    for text in (
        "Dentist appointment with Dr. Maria Gonzalez on 3 March",
        "# Trip\nBook the train to Lisbon for the conference",
        "Call mum about Sunday lunch",
    ):
        done = _run_cli("note", text, env=env)
        assert done.returncode == 0, done.stderr
    done = _run_cli("index", env=env)
    assert done.returncode == 0, done.stderr
    return home / "vault.db"


@pytest.fixture
def vault(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's copy of the built vault, with warm searchers on and a private folder."""
    path = tmp_path / "home" / "vault.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(built, path)
    runtime = tempfile.mkdtemp(prefix="pv", dir="/tmp")  # short: socket paths are
    monkeypatch.setenv("XDG_RUNTIME_DIR", runtime)
    monkeypatch.delenv("PRIVAULT_WARM")
    yield path.resolve()
    shutil.rmtree(runtime, ignore_errors=True)


def _options(query: str, **changes: Any) -> dict[str, Any]:
    options = {
        "query": query,
        "limit": 5,
        "shelf": None,
        "kind": None,
        "tag": None,
        "since": None,
        "until": None,
        "include_superseded": False,
        "as_agent": None,
    }
    return {**options, **changes}


def _answered(vault: Path, query: str = "dentist", seconds: float = 120) -> warm.Answer:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        answer = warm.ask(vault, _options(query))
        if answer is not None:
            return answer
        time.sleep(0.2)
    raise AssertionError("no warm searcher answered")


@pytest.fixture
def searcher(vault: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A warm searcher for this test's vault, answering; stopped afterwards."""
    process = subprocess.Popen(
        [sys.executable, "-m", "privault.interfaces.warm", str(vault), "120"],
        env=dict(os.environ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _answered(vault)
        yield process
    finally:
        process.kill()
        process.wait()


def _in_process(options: dict[str, Any]) -> dict[str, Any]:
    vault = open_vault()
    try:
        return warm.run_search(vault, options)
    finally:
        vault.close()


def test_it_answers_what_an_in_process_search_returns(vault: Path, searcher: Any) -> None:
    for query in ("dentist appointment", "train to Lisbon", "mum", "something else entirely"):
        answer = warm.ask(vault, _options(query))
        assert answer is not None
        assert answer.data == _in_process(_options(query))
    hits = warm.ask(vault, _options("train to Lisbon"))
    assert hits is not None and "Lisbon" in hits.data["results"][0]["text"]
    path = warm.socket_path(vault)
    assert path is not None and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_it_sees_a_note_written_after_it_started(vault: Path, searcher: Any) -> None:
    before = warm.ask(vault, _options("aubergine"))
    assert before is not None and not any("aubergine" in r["text"] for r in before.data["results"])
    env = {**os.environ, "PRIVAULT_INDEXER": "off"}
    assert _run_cli("note", "Buy an aubergine for Friday", env=env).returncode == 0
    after = warm.ask(vault, _options("aubergine"))
    assert after is not None
    assert any("aubergine" in r["text"] for r in after.data["results"])
    assert after.has_work  # the note waits for its scan and embedding: the CLI kicks an indexer


def test_an_error_is_left_to_the_in_process_search(vault: Path, searcher: Any) -> None:
    assert warm.ask(vault, _options("dentist", as_agent="nobody")) is None
    assert warm.ask(vault, _options("dentist", limit=0)) is None
    assert searcher.poll() is None and warm.ask(vault, _options("dentist")) is not None
    done = _run_cli("search", "dentist", "--as", "nobody")
    assert done.returncode == 1 and "unknown agent 'nobody'" in done.stderr


def _send(path: Path, payload: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(10)
        conn.connect(str(path))
        conn.sendall(payload)
        with contextlib.suppress(OSError):
            conn.shutdown(socket.SHUT_WR)
        return conn.recv(1024)


def test_bad_requests_get_no_answer_and_do_not_stop_it(vault: Path, searcher: Any) -> None:
    path = warm.socket_path(vault)
    assert path is not None
    good = {"identity": warm._identity(vault), "op": "search", "options": _options("mum")}
    for payload in (
        b"not json\n",
        b"",
        b"[1, 2]\n",
        json.dumps({**good, "op": "forget"}).encode() + b"\n",
        json.dumps({**good, "options": {**_options("mum"), "limit": "5"}}).encode() + b"\n",
        json.dumps({**good, "options": {**_options("mum"), "extra": 1}}).encode() + b"\n",
        json.dumps({**good, "options": {**_options("mum"), "limit": True}}).encode() + b"\n",
        b"x" * (warm.MAX_REQUEST_BYTES + 10),
    ):
        assert _send(path, payload) == b""
    assert searcher.poll() is None
    assert warm.ask(vault, _options("mum")) is not None


@pytest.mark.parametrize("change", ["config", "models folder", "vault file"])
def test_a_change_makes_it_stale_and_it_exits(
    change: str, vault: Path, searcher: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    if change == "config":
        (vault.parent / "config.yaml").write_text("max_note_bytes: 4096\n")
    elif change == "models folder":
        other = tmp_path / "models"
        other.mkdir()
        monkeypatch.setenv("PRIVAULT_MODELS", str(other))
    else:  # replaced by another file at the same path (a restore, an import)
        shutil.copy(vault, vault.with_name("copy.db"))
        os.replace(vault.with_name("copy.db"), vault)
    assert warm.ask(vault, _options("dentist")) is None
    assert searcher.wait(30) == 0
    path = warm.socket_path(vault)
    assert path is not None and not path.exists()


def test_it_exits_when_idle_or_when_its_vault_is_gone(vault: Path) -> None:
    def started(idle: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-m", "privault.interfaces.warm", str(vault), idle],
            env=dict(os.environ),
        )

    idle = started("1")
    try:
        _answered(vault)
        assert idle.wait(60) == 0
    finally:
        idle.kill()
    kept = started("300")
    try:
        _answered(vault)
        for suffix in ("", "-wal", "-shm"):
            vault.with_name(vault.name + suffix).unlink(missing_ok=True)
        assert kept.wait(30) == 0
    finally:
        kept.kill()


def test_the_command_starts_one_and_the_next_search_uses_it(vault: Path) -> None:
    first = _run_cli("search", "train to Lisbon", "--json")
    assert first.returncode == 0, first.stderr
    path = warm.socket_path(vault)
    assert path is not None
    try:
        _answered(vault)
        lock = ProcessLock(path.with_suffix(".lock"))
        assert lock.held_elsewhere()
        assert warm.start(vault) is False  # one per vault
        second = _run_cli("search", "train to Lisbon", "--json")
        assert second.returncode == 0, second.stderr
        assert json.loads(second.stdout) == json.loads(first.stdout)
    finally:
        pid = int(path.with_suffix(".lock").read_text())
        os.kill(pid, 9)


def test_no_searcher_where_the_folder_is_not_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    folder = tmp_path / f"privault-{os.getuid()}"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    assert warm.socket_path(tmp_path / "vault.db") is None
    assert warm.start(tmp_path / "vault.db") is False
    folder.chmod(0o700)
    assert warm.socket_path(tmp_path / "vault.db") == folder / (
        warm._name(tmp_path / "vault.db") + ".sock"
    )
    monkeypatch.setenv("PRIVAULT_WARM", "off")
    assert not warm.enabled() and warm.ask(tmp_path / "vault.db", _options("x")) is None
