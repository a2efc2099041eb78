"""Faults of the vault file and the disk under it are said as what to do, not as a bug:
a damaged file, a full disk (here a file-size limit), a file this user may only read, a
folder that cannot be made. What was stored before is kept."""

from __future__ import annotations

import os
import resource
import subprocess
from pathlib import Path

import pytest

from privault import Caller, Vault
from privault.errors import VaultError, storage_fault
from privault.store import connection
from tests.helpers import fake_vault, run_cli

OWNER = Caller.owner()


def _cli(vault: Path, *args: str, limit: int | None = None) -> subprocess.CompletedProcess[str]:
    def limited() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = {"PRIVAULT_VAULT": str(vault), "PRIVAULT_INDEXER": "off"}
    return run_cli(*args, env=env, timeout=300, preexec_fn=limited)


def _notes(vault: Path, count: int) -> None:
    with fake_vault(vault) as opened:
        notes = [{"text": f"# Note {i}\nParagraph {i} about the garden."} for i in range(count)]
        opened.documents.note_many(notes, caller=OWNER)


def test_a_damaged_vault_file_is_named_with_what_to_do(tmp_path: Path) -> None:
    vault = tmp_path / "v.db"
    _notes(vault, 400)
    data = bytearray(vault.read_bytes())  # closed: the log is checkpointed into the file
    pages = len(data) // 4096
    for page in range(pages // 3, pages):  # the schema's first pages are left whole
        data[page * 4096 + 100 : page * 4096 + 4000] = os.urandom(3900)
    vault.write_bytes(bytes(data))
    for command in (["docs"], ["note", "written into a damaged vault"]):
        done = _cli(vault, *command)
        assert done.returncode == 1, done.stderr
        assert done.stderr.startswith("error: the vault file is damaged"), done.stderr
        assert "privault export" in done.stderr and "internal error" not in done.stderr


def test_a_full_disk_keeps_what_was_stored_and_says_so(tmp_path: Path) -> None:
    vault = tmp_path / "v.db"
    _notes(vault, 1)
    before = vault.stat().st_size
    folder = tmp_path / "notes"
    folder.mkdir()
    for i in range(600):
        (folder / f"n{i}.md").write_text(f"# Page {i}\n\n" + f"Words of page {i}. " * 80)
    done = _cli(vault, "add", str(folder), limit=before + 256 * 1024)
    assert done.returncode == 1, done.stderr
    assert "error: the vault could not be written" in done.stderr, done.stderr
    assert "free disk space" in done.stderr and "internal error" not in done.stderr
    with fake_vault(vault) as opened:  # the note from before is there, and the file reads
        assert "Note 0" in [doc.title for doc in opened.docs(caller=OWNER, limit=1000).documents]


def test_a_file_this_user_may_only_read_is_read_and_writes_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "v.db"
    _notes(vault, 3)
    real = os.access

    def read_only(path: object, mode: int, **kwargs: object) -> bool:
        if Path(str(path)) == vault and mode & os.W_OK:
            return False  # as for another user's file (the tests run as root, who may)
        return real(path, mode, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(connection.os, "access", read_only)
    with fake_vault(vault) as opened:
        assert len(opened.search("garden paragraph", caller=OWNER).results) == 3
        with pytest.raises(VaultError, match="read-only for this user: make the file"):
            opened.note("one more", caller=OWNER)
    monkeypatch.undo()
    with fake_vault(vault) as opened:
        assert len(opened.docs(caller=OWNER).documents) == 3


def test_a_vault_whose_folder_cannot_be_made_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(VaultError, match="cannot make the folder of vault"):
        Vault.open(blocker / "v.db", models_dir=tmp_path / "models")


def test_storage_faults_are_told_by_sqlites_code_not_by_words_in_the_message() -> None:
    from sqlcipher3 import dbapi2 as sqlite

    conn = sqlite.connect(":memory:")
    for sql, said in (
        ("SELECT json_each('{malformed JSON')", None),  # a bug's words: "malformed"
        ("SELECT fullname FROM sqlite_master", None),  # "no such column: fullname"
        ("SELECT readonly_flag FROM sqlite_master", None),
    ):
        with pytest.raises(sqlite.DatabaseError) as raised:
            conn.execute(sql).fetchall()
        assert storage_fault(raised.value) is said, raised.value
    full = sqlite.OperationalError("database or disk is full")
    full.sqlite_errorname = "SQLITE_FULL"  # as the driver sets it
    assert "free disk space" in (storage_fault(full) or "")
    assert storage_fault(OSError("disk I/O error")) is None  # not the driver's


def test_a_read_only_vault_opens_whatever_its_path_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Opened read-only, the file is named by a URI, which reads "#", "?" and "%" itself:
    # "H#1/v.db" opened (and made) "H" instead.
    vault = tmp_path / "H#1 50%?" / "v.db"
    _notes(vault, 2)
    real = os.access

    def read_only(path: object, mode: int, **kwargs: object) -> bool:
        if str(path).startswith(str(vault)) and mode & os.W_OK:
            return False
        return real(path, mode, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(connection.os, "access", read_only)
    with fake_vault(vault) as opened:
        assert len(opened.docs(caller=OWNER).documents) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["H#1 50%?"]


def test_a_vault_whose_log_files_this_user_may_only_read_opens_for_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A read by another user left -wal and -shm with the file's mode: the file made
    # writable again, every write failed with the same advice.
    vault = tmp_path / "v.db"
    _notes(vault, 1)
    Path(f"{vault}-shm").write_bytes(b"")
    real = os.access

    def read_only(path: object, mode: int, **kwargs: object) -> bool:
        if str(path) == f"{vault}-shm" and mode & os.W_OK:
            return False
        return real(path, mode, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(connection.os, "access", read_only)
    with fake_vault(vault) as opened, pytest.raises(VaultError, match="-wal and -shm files"):
        opened.note("one more", caller=OWNER)


def test_the_owners_page_says_a_storage_fault_as_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sqlcipher3 import dbapi2 as sqlite
    from starlette.testclient import TestClient

    from privault.interfaces.web.app import build_web_app
    from privault.interfaces.web.auth import LoginLinks

    full = sqlite.OperationalError("database or disk is full")
    full.sqlite_errorname = "SQLITE_FULL"

    def failing(*args: object, **kwargs: object) -> None:
        raise full

    with fake_vault(tmp_path / "v.db") as vault:
        links = LoginLinks(tmp_path / "logins")
        app = build_web_app(vault, links=links, hosts=["testserver"])
        client = TestClient(app, raise_server_exceptions=False)
        client.get(f"/login?token={links.issue()}")
        monkeypatch.setattr(vault, "docs", failing)
        reply = client.get("/docs")
    assert reply.status_code == 500
    assert "the vault could not be written" in reply.text and "free disk space" in reply.text
