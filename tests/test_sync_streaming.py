"""Bundles are streamed to disk: memory does not grow with the vault, a failed export
leaves nothing half-written, and the file is the one every reader already reads."""

from __future__ import annotations

import hashlib
import json
import zlib
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from privault import Caller
from privault.errors import InputError, VaultError
from privault.store.migrations import known_migrations
from privault.sync import bundle, bundle_reader, bundle_writer, stamping
from privault.sync.rows import Row
from privault.vault import Vault
from tests.helpers import fake_vault, filled_vault, least_peak

OWNER = Caller.owner()
SECRET = "a long passphrase for bundles"


def _plain(data: bytes) -> bytes:
    """A bundle's decrypted, decompressed content (the reader's own steps)."""
    header, head, ciphertext = bundle.read_header(data)
    cost = {name: header["kdf"][name] for name in ("n", "r", "p")}
    salt = bundle.unb64(header["kdf"]["salt"], "salt")
    key = bundle.KeyCache(SECRET).key(salt, cost)
    nonce = bundle.unb64(header["nonce"], "nonce")
    body = AESGCM(key).decrypt(nonce, ciphertext, bundle.MAGIC + head)
    return zlib.decompress(body)


def test_a_streamed_export_is_read_back_whole(tmp_path: Path) -> None:
    source = filled_vault(tmp_path / "a" / "vault.db", 12, 600)
    source.statements.add("Maria Gonzalez is the plumber", caller=OWNER, entities=["Maria"])
    target = fake_vault(tmp_path / "b" / "vault.db")
    try:
        path = tmp_path / "out.pvb"
        report = source.sync.export(path, secret=SECRET, caller=OWNER)
        assert report.bytes == path.stat().st_size
        assert report.rows == 13  # twelve documents and the statement
        content = json.loads(_plain(path.read_bytes()))
        assert content["rows_sha256"] == bundle.rows_digest(content["rows"])
        assert [row[0] for row in content["rows"]].count("document") == 12
        imported = target.sync.import_bundle(path, secret=SECRET, caller=OWNER)
        assert imported.applied == {"document": 12, "statement": 1}
        assert target.sync.dump() == source.sync.dump()
        # Nothing but the bundle is left in its folder: no spool, no temporary file.
        assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b", "out.pvb"]
    finally:
        source.close()
        target.close()


def test_the_streamed_file_matches_the_in_memory_one(tmp_path: Path) -> None:
    """`seal` (rows in memory) and the facade's streamed export write the same rows."""
    with filled_vault(tmp_path / "vault.db", 5, 600) as vault:
        path = tmp_path / "out.pvb"
        vault.sync.export(path, secret=SECRET, caller=OWNER)
        rows = stamping.rows_since(vault.conn, 0)
    schema = known_migrations()[-1].version
    sealed = bundle_writer.seal(
        bundle.Bundle("dev_000000000001", schema, 0, 1, 0, tuple(rows)), bundle.KeyCache(SECRET)
    )
    keys = bundle.KeyCache(SECRET)
    streamed = bundle_reader.open_bundle(path.read_bytes(), keys, schema)
    in_memory = bundle_reader.open_bundle(sealed, keys, schema)
    assert streamed.rows == in_memory.rows == tuple(rows)
    assert len(rows) == 5


def test_rows_with_any_text_survive_the_canonical_form(tmp_path: Path) -> None:
    text = 'Quote " back \\ ünïcode \u2028 line sep, emoji \U0001f389, tab\t, bell \x07 end'
    with fake_vault(tmp_path / "vault.db") as vault:
        vault.note(f"# Odd\n{text}", caller=OWNER, tags=["ünï"])
        path = tmp_path / "out.pvb"
        vault.sync.export(path, secret=SECRET, caller=OWNER)
        rows = tuple(stamping.rows_since(vault.conn, 0))
    schema = known_migrations()[-1].version
    opened = bundle_reader.open_bundle(path.read_bytes(), bundle.KeyCache(SECRET), schema)
    assert opened.rows == rows
    assert opened.rows[0].payload is not None and text in opened.rows[0].payload["body"]
    device = "dev_000000000001"
    empty = bundle_writer.seal(bundle.Bundle(device, 1, 0, 0, 0, ()), bundle.KeyCache(SECRET))
    assert bundle_reader.open_bundle(empty, bundle.KeyCache(SECRET), 1).rows == ()


def test_stamping_in_batches_gives_each_change_its_own_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stamping, "STAMP_BATCH", 3)
    monkeypatch.setattr(stamping, "ROW_BATCH", 2)
    with filled_vault(tmp_path / "vault.db", 8, 600) as vault:
        assert stamping.stamp_changes(vault.conn) == 8
        assert vault.conn.execute("SELECT count(*) FROM sync_dirty").fetchone()[0] == 0
        numbers = [r[0] for r in vault.conn.execute("SELECT seq FROM sync_rows ORDER BY seq")]
        assert numbers == list(range(1, 9))
        clocks = [r[0] for r in vault.conn.execute("SELECT hlc FROM sync_rows ORDER BY seq")]
        assert clocks == sorted(set(clocks))  # every change later than the one before
        assert stamping.stamp_changes(vault.conn) == 0  # nothing changed since
        assert [r.id for r in stamping.rows_since(vault.conn, 3)] == [
            doc_id for (doc_id,) in vault.conn.execute("SELECT id FROM sync_rows WHERE seq > 3")
        ]
        assert len(stamping.rows_since(vault.conn, 3)) == 5


def test_a_failed_export_leaves_the_old_bundle_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with filled_vault(tmp_path / "vault" / "vault.db", 3, 600) as vault:
        out = tmp_path / "out"
        out.mkdir()
        path = out / "bundle.pvb"
        path.write_bytes(b"the previous bundle")

        def broken(self: object, row: Row) -> None:
            raise VaultError("the vault is locked by another writer; try again")

        monkeypatch.setattr(bundle_writer.BundleWriter, "add", broken)
        with pytest.raises(VaultError):
            vault.sync.export(path, secret=SECRET, caller=OWNER)
        assert [p.name for p in out.iterdir()] == ["bundle.pvb"]
        assert path.read_bytes() == b"the previous bundle"
        monkeypatch.undo()
        # The transaction that read the rows was rolled back: the next export sends them.
        assert vault.sync.export(path, secret=SECRET, caller=OWNER).rows == 3


def test_an_export_to_a_place_that_cannot_be_written_fails_at_once(tmp_path: Path) -> None:
    with filled_vault(tmp_path / "vault.db", 2, 600) as vault:
        with pytest.raises(InputError, match="cannot write"):
            vault.sync.export(tmp_path / "missing" / "b.pvb", secret=SECRET, caller=OWNER)
        (tmp_path / "folder").mkdir()
        with pytest.raises(InputError, match="is a folder"):
            vault.sync.export(tmp_path / "folder", secret=SECRET, caller=OWNER)
        # Refused before anything was read: the next export still sends every row.
        assert vault.sync.export(tmp_path / "b.pvb", secret=SECRET, caller=OWNER).rows == 2


def test_sync_streams_its_change_file_and_writes_none_without_changes(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    first = filled_vault(tmp_path / "a" / "vault.db", 4, 600)
    second = fake_vault(tmp_path / "b" / "vault.db")
    try:
        report = first.sync.sync(shared, secret=SECRET, caller=OWNER)
        assert report.written is not None and report.written.rows == 4
        assert report.written.bytes == Path(report.written.path).stat().st_size
        again = first.sync.sync(shared, secret=SECRET, caller=OWNER)
        assert again.written is None
        assert [p.name for p in shared.iterdir()] == [first.sync.device]  # no spool left
        assert [p.name for p in (shared / first.sync.device).iterdir()] == [
            Path(report.written.path).name
        ]
        got = second.sync.sync(shared, secret=SECRET, caller=OWNER)
        assert [r.applied for r in got.imported] == [{"document": 4}]
        assert second.sync.dump() == first.sync.dump()
    finally:
        first.close()
        second.close()


# ---- memory stays bounded -----------------------------------------------------------


def _peak_exporting(vault: Vault, path: Path) -> int:
    """The peak of Python allocations while every row is stamped and exported."""

    def mark_all() -> None:
        # Every document marked changed again, as after a large import: stamping reads all.
        vault.conn.execute(
            "INSERT OR REPLACE INTO sync_dirty (kind, id, at)"
            " SELECT 'document', id, 1 FROM documents"
        )

    return least_peak(lambda: vault.sync.export(path, secret=SECRET, caller=OWNER), before=mark_all)


def test_exporting_streams_memory_does_not_grow_with_the_vault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Batches and blocks small, so both vaults are many of each long.
    monkeypatch.setattr(stamping, "STAMP_BATCH", 10)
    monkeypatch.setattr(stamping, "ROW_BATCH", 10)
    monkeypatch.setattr(bundle_writer, "BLOCK", 16 * 1024)
    peaks, plain = {}, {}
    for count in (30, 240):
        with filled_vault(tmp_path / str(count) / "vault.db", count, 600) as vault:
            path = tmp_path / f"{count}.pvb"
            peaks[count] = _peak_exporting(vault, path)
            plain[count] = len(_plain(path.read_bytes()))
            assert vault.sync.export(path, secret=SECRET, caller=OWNER).rows == count
    assert plain[240] > 240 * 10_000  # eight times the rows, each ~10 kB of text
    # Eight times the vault, not eight times the memory: one row (and a batch of ids)
    # is held at a time, never the rows or their JSON.
    assert peaks[240] < peaks[30] * 1.5, peaks
    assert peaks[240] < plain[240] / 4, (peaks, plain)


@pytest.mark.parametrize(
    "rows",
    [
        [],
        [["shelf", "work", "h", "dev", None]],
        [["a", {"b": 1, "a": [1.5, None, True]}, "ünï \u2028 \x07"], [2, "x"]],
        {"not": "a list"},
    ],
)
def test_the_rows_digest_taken_row_by_row_is_the_whole_lists(rows: object) -> None:
    whole = json.dumps(rows, sort_keys=True, separators=(",", ":")).encode()
    assert bundle.rows_digest(rows) == hashlib.sha256(whole).hexdigest()  # type: ignore[arg-type]
