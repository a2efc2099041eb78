"""Instant capture from the command line: what `privault note` loads, who indexes it.

The real-engine tests start the installed command as a real process, as a user would:
the note returns before any model is loaded, and a detached worker (or `privault serve`'s
clock) finishes it in the background.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from privault.caller import Caller
from privault.interfaces import cli, indexer
from privault.interfaces.scheduler import Clock
from privault.vault.capture import Capture
from tests.helpers import fake_vault

OWNER = Caller.owner()
AGENT = Caller.agent("claude")
HEAVY = (
    "spacy",
    "presidio_analyzer",
    "onnx",  # only while the embedder's optimised copy is prepared
    "onnxruntime",
    "llama_cpp",
    "mcp",
    "starlette",
    "trafilatura",
    "numpy",
    "httpx",
    "apscheduler",
    "keyring",
    "pydantic",  # a quarter of a second to import: not for a note (config is read by hand)
    "privault.privacy",
)


def _run_cli(
    *args: str, env: dict[str, str], importtime: bool = False
) -> subprocess.CompletedProcess:
    code = "import sys; from privault.interfaces.cli import main; sys.argv[0] = 'privault'; main()"
    flags = ["-X", "importtime"] if importtime else []
    return subprocess.run(
        [sys.executable, *flags, "-c", code, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_note_loads_no_model_and_no_heavy_library(tmp_path: Path) -> None:
    env = {**os.environ, "PRIVAULT_INDEXER": "off"}
    done = _run_cli("note", "Call mum about Sunday", "--json", env=env, importtime=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "added"
    imported = {
        line.rsplit("|", 1)[-1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }
    loaded = sorted(
        name for name in imported if any(name == h or name.startswith(h + ".") for h in HEAVY)
    )
    assert loaded == []


def test_the_command_table_names_what_each_module_registers() -> None:
    for module in cli.MODULES:
        built = cli.build_app(next(c for c, m in cli.COMMANDS.items() if m == module))
        names = {c.name or c.callback.__name__ for c in built.registered_commands}  # type: ignore[union-attr]
        names |= {group.name for group in built.registered_groups}
        assert names == {c for c, m in cli.COMMANDS.items() if m == module}, module
    every = cli.build_app()
    assert len(every.registered_commands) + len(every.registered_groups) == len(cli.COMMANDS)


def test_the_serve_clock_indexes_deferred_writes_and_holds_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    with Capture.open(path) as capture:
        added = capture.note("Remember the milk and the bread", caller=OWNER)
    clock = Clock(lambda: fake_vault(path, privacy={"agent_default": "standard"}))
    clock.start()
    try:
        clock.index()
        # While serve runs its clock holds the lock: a CLI command leaves the work to it.
        assert indexer.IndexerLock(path).held_elsewhere()
        assert indexer.kick(path, has_work=True) is False
    finally:
        clock.stop()
    with fake_vault(path, privacy={"agent_default": "standard"}) as vault:
        assert vault.status().indexing.sections == 0
        hits = vault.search("milk", caller=AGENT).results
        assert [hit.doc_id for hit in hits] == [added.doc_id]


def test_one_indexer_lock_per_vault_across_processes(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from privault.interfaces.indexer "
            "import IndexerLock; lock = IndexerLock(Path(sys.argv[1])); "
            "assert lock.acquire(); print('held', flush=True); time.sleep(60)",
            str(path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert indexer.IndexerLock(path).held_elsewhere()
        assert indexer.kick(path, has_work=True) is False  # someone indexes it already
    finally:
        holder.kill()
        holder.wait()
    assert not indexer.IndexerLock(path).held_elsewhere()  # the OS dropped a killed holder's


def _wait_indexed(path: Path, seconds: float) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with Capture.open(path) as capture:
            if not capture.has_work() and not indexer.IndexerLock(path).held_elsewhere():
                break
        time.sleep(0.5)
    with fake_vault(path) as vault:
        return vault.status().indexing.sections


@pytest.mark.real
def test_a_detached_worker_finishes_a_note_from_the_command_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PRIVAULT_INDEXER"}
    started = time.monotonic()
    done = _run_cli("note", "Dentist with Dr. Maria Gonzalez on 3 March", "--json", env=env)
    returned = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    doc_id = json.loads(done.stdout)["doc_id"]
    path = Path(os.environ["PRIVAULT_VAULT"])
    assert _wait_indexed(path, 240) == 0
    with fake_vault(path, privacy={"agent_default": "standard"}) as vault:
        spans = vault.conn.execute("SELECT kind FROM pii_spans").fetchall()
        assert ("PERSON",) in spans  # the real detector ran, in the worker
        text = vault.read(f"{doc_id}.0", caller=AGENT).text
        assert "Gonzalez" not in text and "Dentist" in text
    log = path.with_name(path.name + ".indexer.log").read_text()
    assert "indexed 2 sections and label sets" in log, log
    assert returned < 60  # the command did not wait for the models
