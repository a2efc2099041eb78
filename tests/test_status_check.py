"""`privault status --check` (`Vault.check`): every page of the file read, every document
whole; a fault is said with what to do, and the command exits 1."""

from __future__ import annotations

import json
import os
from pathlib import Path

from privault import Caller
from privault.interfaces.cli import app
from tests.helpers import FakeEngineRunner, fake_vault

OWNER = Caller.owner()
runner = FakeEngineRunner()
PAGE = 4096


def _write_notes(count: int) -> Path:
    path = Path(os.environ["PRIVAULT_VAULT"])
    with fake_vault(path) as vault:
        for n in range(count):
            vault.note(f"Note {n}\n" + "The garden shed needs oil. " * 200, caller=OWNER)
        vault.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


def test_a_whole_vault_passes() -> None:
    _write_notes(2)
    result = runner.invoke(app, ["status", "--check"])
    assert result.exit_code == 0, result.output
    assert "every page read, no fault" in result.output and "every one whole" in result.output
    data = json.loads(runner.invoke(app, ["status", "--check", "--json"]).stdout)
    assert data["check"] == {"file": "ok", "half_written": {}, "healthy": True}


def test_a_damaged_page_is_found_and_said_with_what_to_do() -> None:
    path = _write_notes(40)
    pages = path.stat().st_size // PAGE
    with open(path, "r+b") as file:  # one page in the middle overwritten, as a bad disk does
        file.seek(PAGE * (pages // 2))
        file.write(b"\x07" * PAGE)
    result = runner.invoke(app, ["status", "--check"])
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert "file: DAMAGED (" in said and "restore a `privault export` bundle" in said
    data = json.loads(runner.invoke(app, ["status", "--check", "--json"]).stdout)
    assert not data["check"]["healthy"] and "page" in data["check"]["file"]


def test_a_half_written_document_is_found_and_reindex_repairs_it() -> None:
    path = _write_notes(1)
    with fake_vault(path) as vault:
        (chunk,) = vault.conn.execute("SELECT min(id) FROM chunks").fetchone()
        vault.conn.execute("DELETE FROM chunks_fts WHERE rowid = ?", (chunk,))
    result = runner.invoke(app, ["status", "--check"])
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert "1 rows break 'windows without keyword row'" in said and "privault reindex" in said
    assert runner.invoke(app, ["reindex"]).exit_code == 0
    assert runner.invoke(app, ["status", "--check"]).exit_code == 0
