"""Sync bundles are untrusted until authenticated; shelf access merges toward strictness.

A file in a sync folder may come from anyone who can write to that folder: its header is
checked before any key is derived, every refusal is a one-line BundleError, and one bad
file is named and skipped while the others merge. Rows of an authentic bundle are still
checked by type and id shape. A shelf restricted on one device stays restricted when
another device concurrently creates it public; a loosening made after seeing the
restriction travels.
"""

from __future__ import annotations

import json
import os
import struct
import time
from pathlib import Path
from typing import Any

import pytest

from privault import Caller
from privault.errors import BundleError, NotFound
from privault.store.migrations import known_migrations
from privault.sync import bundle, bundle_reader, bundle_writer, folder
from privault.vault import Vault
from tests.helpers import fake_vault

OWNER = Caller.owner()
SECRET = "a long passphrase for bundles"
READER = Caller.agent("reader")


@pytest.fixture
def devices(tmp_path: Path) -> Any:
    a = fake_vault(tmp_path / "a" / "vault.db")
    b = fake_vault(tmp_path / "b" / "vault.db")
    yield a, b
    a.close()
    b.close()


def _sync(vault: Vault, shared: Path) -> Any:
    return vault.sync.sync(shared, secret=SECRET, caller=OWNER)


def _with_header(data: bytes, change: Any) -> bytes:
    header, _, ciphertext = bundle.read_header(data)
    change(header)
    head = json.dumps(header, sort_keys=True).encode()
    return bundle.MAGIC + struct.pack(">I", len(head)) + head + ciphertext


def _drop(shared: Path, data: bytes, device: str = "dev_0123456789ab") -> Path:
    """A file in a peer's folder, as a file-sync tool would deliver it."""
    (shared / device).mkdir(parents=True, exist_ok=True)
    return folder.write_file(shared, device, 1, lambda out: out.write(data))


@pytest.mark.parametrize(
    "cost",
    [
        {"n": 3, "r": 8, "p": 1},  # not a power of two: scrypt itself raises
        {"n": 2**15, "r": 2**20, "p": 1},  # a GiB of memory
        {"n": 2**15, "r": 8, "p": 2**20},  # a day of CPU
        {"n": 2**20, "r": 8, "p": 1},
        {"n": True, "r": 8, "p": 1},
        {"n": "32768", "r": 8, "p": 1},
    ],
)
def test_a_header_naming_any_other_scrypt_cost_is_refused_before_derivation(
    devices: Any, tmp_path: Path, cost: dict[str, Any]
) -> None:
    a, b = devices
    a.note("# Boiler\nService due in March.", caller=OWNER)
    good = tmp_path / "good.pvb"
    a.sync.export(good, secret=SECRET, caller=OWNER)
    poisoned = tmp_path / "poisoned.pvb"
    poisoned.write_bytes(_with_header(good.read_bytes(), lambda h: h["kdf"].update(cost)))
    started = time.process_time()
    with pytest.raises(BundleError, match="key-derivation cost"):
        b.sync.import_bundle(poisoned, secret=SECRET, caller=OWNER)
    assert time.process_time() - started < 1.0
    assert b.docs(caller=OWNER).documents == ()


def test_one_poisoned_file_is_named_and_skipped_the_others_merge(
    devices: Any, tmp_path: Path
) -> None:
    a, b = devices
    shared = tmp_path / "shared"
    added = a.note("# Boiler\nService due in March.", caller=OWNER)
    sealed = tmp_path / "x.pvb"
    a.sync.export(sealed, secret=SECRET, caller=OWNER)
    bad = _drop(shared, _with_header(sealed.read_bytes(), lambda h: h["kdf"].update(n=3)))
    _sync(a, shared)
    report = _sync(b, shared)
    assert [item.device for item in report.imported] == [a.sync.device]
    assert [(path, "key-derivation cost" in why) for path, why in report.refused] == [
        (str(bad), True)
    ]
    assert b.tree(added.doc_id, caller=OWNER).title == "Boiler"
    # The bad file stays refused next round; the merged one is not read again.
    again = _sync(b, shared)
    assert again.imported == () and [path for path, _ in again.refused] == [str(bad)]


@pytest.mark.parametrize(
    "change, reason",
    [
        (lambda h: h.update(device="../../etc"), "device"),
        (lambda h: h.update(since="1"), "since"),
        (lambda h: h.update(size=-1), "size"),
        (lambda h: h["kdf"].update(salt=12), "salt"),
        (lambda h: h["kdf"].update(salt="AAAA"), "salt"),
        (lambda h: h.update(nonce=[1]), "nonce"),
        (lambda h: h.update(key_check="AA=="), "key check"),
        (lambda h: h.update(kdf="scrypt"), "kdf"),
    ],
)
def test_damaged_header_fields_are_one_line_bundle_errors(
    devices: Any, tmp_path: Path, change: Any, reason: str
) -> None:
    a, b = devices
    a.note("# Boiler\nService due in March.", caller=OWNER)
    path = tmp_path / "x.pvb"
    a.sync.export(path, secret=SECRET, caller=OWNER)
    path.write_bytes(_with_header(path.read_bytes(), change))
    with pytest.raises(BundleError, match=reason) as caught:
        b.sync.import_bundle(path, secret=SECRET, caller=OWNER)
    assert "\n" not in str(caught.value)


def _resealed(vault: Vault, tmp_path: Path, edit: Any) -> Path:
    """A bundle of `vault`'s rows, one of them edited, sealed with the known passphrase."""
    path = tmp_path / "plain.pvb"
    vault.sync.export(path, secret=SECRET, caller=OWNER)
    keys = bundle.KeyCache(SECRET)
    opened = bundle_reader.open_bundle(path.read_bytes(), keys, known_migrations()[-1].version)
    listed = [row.as_list() for row in opened.rows]
    edit(listed)
    rows: Any = tuple(_Raw(item) for item in listed)  # sealed as they are, right or wrong
    out = tmp_path / "edited.pvb"
    out.write_bytes(
        bundle_writer.seal(bundle.Bundle(opened.device, opened.schema, 0, 1, 0, rows), keys)
    )
    return out


class _Raw:
    def __init__(self, item: Any) -> None:
        self.item = item

    def as_list(self) -> Any:
        return self.item


_CLOCKED = ("000000000000001.000000.dev_000000000001", "dev_000000000001", None)


def _document(listed: list[list[Any]]) -> list[Any]:
    return next(item for item in listed if item[0] == "document")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are a POSIX thing")
def test_a_named_pipe_in_the_folder_is_refused_not_waited_on(devices: Any, tmp_path: Path) -> None:
    a, b = devices
    shared = tmp_path / "shared"
    added = a.note("# Boiler\nService due in March.", caller=OWNER)
    _sync(a, shared)
    pipe = shared / "dev_0123456789ab" / "000000000001-deadbeef.pvb"
    pipe.parent.mkdir(parents=True)
    os.mkfifo(pipe)  # opening it to read would wait for a writer forever
    report = _sync(b, shared)
    assert [(path, "not a regular file" in why) for path, why in report.refused] == [
        (str(pipe), True)
    ]
    assert b.tree(added.doc_id, caller=OWNER).title == "Boiler"


@pytest.mark.parametrize(
    "edit, says",
    [
        (lambda rows: _document(rows).__setitem__(1, "../../../x"), "id does not have"),
        (lambda rows: _document(rows).__setitem__(1, "/etc/passwd"), "id does not have"),
        (lambda rows: _document(rows)[4].update(title=["a", "b"]), "'title'"),
        (lambda rows: _document(rows)[4].update(sections=[["x"]]), "'sections'"),
        (lambda rows: _document(rows)[4].update(shelf="../up"), "'shelf'"),
        (lambda rows: _document(rows)[4].update(created_at=2**70), "'created_at'"),
        (lambda rows: _document(rows)[4].update(tags="money"), "'tags'"),
        (lambda rows: _document(rows).__setitem__(3, "someone"), "origin"),
        (lambda rows: _document(rows).__setitem__(2, "yesterday"), "clock"),
        (lambda rows: rows.append(["pii_override", "no-separator", *_CLOCKED]), "id does not"),
        (lambda rows: rows.append(["shelf", "a/b", *_CLOCKED]), "id does not have"),
        (lambda rows: rows.append(["closure", "x", *_CLOCKED]), "id does not have"),
        (lambda rows: rows.append("not a row"), "5-item list"),
    ],
)
def test_malformed_rows_of_an_authentic_bundle_are_refused_by_name(
    devices: Any, tmp_path: Path, edit: Any, says: str
) -> None:
    a, b = devices
    a.note("# Boiler\nService due in March.", caller=OWNER)
    path = _resealed(a, tmp_path, edit)
    with pytest.raises(BundleError, match="row") as caught:
        b.sync.import_bundle(path, secret=SECRET, caller=OWNER)
    message = str(caught.value)
    assert says in message and "\n" not in message
    assert b.docs(caller=OWNER).documents == ()


def test_an_authentic_bundle_that_is_not_compressed_json_is_refused(
    devices: Any, tmp_path: Path
) -> None:
    a, b = devices
    a.note("# Boiler\nService due in March.", caller=OWNER)
    keys = bundle.KeyCache(SECRET)
    good = tmp_path / "x.pvb"
    a.sync.export(good, secret=SECRET, caller=OWNER)
    header, _, _ = bundle.read_header(good.read_bytes())
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    for body in (b"not zlib", __import__("zlib").compress(b"[" * 100_000)):
        import base64

        salt = base64.b64decode(header["kdf"]["salt"])
        key = keys.key(salt, bundle.SCRYPT)
        nonce = b"\x00" * 12
        header.update(size=len(body) + 16, nonce=base64.b64encode(nonce).decode())
        head = json.dumps(header, sort_keys=True).encode()
        sealed = AESGCM(key).encrypt(nonce, body, bundle.MAGIC + head)
        path = tmp_path / "odd.pvb"
        path.write_bytes(bundle.MAGIC + struct.pack(">I", len(head)) + head + sealed)
        with pytest.raises(BundleError, match="malformed"):
            b.sync.import_bundle(path, secret=SECRET, caller=OWNER)


# ---- shelves: access settings merge toward the stricter side -----------------------------


def _restrict_health(vault: Vault) -> str:
    vault.shelves.add("health", policy="strict", restricted=True, private=True)
    return vault.note("# Blood test\nResults in March.", caller=OWNER, shelf="health").doc_id


def _health(vault: Vault) -> Any:
    return vault.shelves.get("health")


@pytest.mark.parametrize("restricting_first", [True, False])
def test_a_concurrent_public_create_does_not_publish_a_restricted_shelf(
    devices: Any, tmp_path: Path, restricting_first: bool
) -> None:
    a, b = devices
    shared = tmp_path / "shared"
    if restricting_first:
        doc_id = _restrict_health(a)
        time.sleep(0.01)
        b.shelves.add("health")  # later clock: plain last-writer-wins would pick it
    else:
        b.shelves.add("health")
        time.sleep(0.01)
        doc_id = _restrict_health(a)
    for _ in range(3):
        _sync(a, shared)
        _sync(b, shared)
    for vault in (a, b):
        shelf = _health(vault)
        assert (shelf.restricted, shelf.private, shelf.policy) == (True, True, "strict")
        with pytest.raises(NotFound):
            vault.tree(doc_id, caller=READER)
    assert a.sync.dump()["shelf"] == b.sync.dump()["shelf"]


def test_a_loosening_made_after_seeing_the_restriction_travels(
    devices: Any, tmp_path: Path
) -> None:
    a, b = devices
    shared = tmp_path / "shared"
    doc_id = _restrict_health(a)
    _sync(a, shared)
    _sync(b, shared)
    assert _health(b).restricted
    b.shelves.publish("health")  # the owner, on a device that had seen the restriction
    _sync(b, shared)
    _sync(a, shared)
    for vault in (a, b):
        assert not _health(vault).restricted
        assert vault.tree(doc_id, caller=READER).doc_id == doc_id
    # Policy and private flag were not touched by `publish`: they stay as they were.
    assert (_health(a).policy, _health(a).private) == ("strict", True)


def test_a_stricter_policy_wins_a_concurrent_change(devices: Any, tmp_path: Path) -> None:
    a, b = devices
    shared = tmp_path / "shared"
    a.shelves.add("work", policy="standard")
    _sync(a, shared)
    _sync(b, shared)
    a.conn.execute("UPDATE shelves SET policy = 'strict' WHERE name = 'work'")
    time.sleep(0.01)
    b.conn.execute("UPDATE shelves SET policy = 'open' WHERE name = 'work'")  # later clock
    for _ in range(3):
        _sync(b, shared)
        _sync(a, shared)
    assert _health_policy(a) == _health_policy(b) == "strict"


def _health_policy(vault: Vault) -> str | None:
    return vault.shelves.get("work").policy


def test_a_folder_path_changed_by_another_device_is_not_read_here(
    devices: Any, tmp_path: Path
) -> None:
    a, b = devices
    shared = tmp_path / "shared"
    (tmp_path / "notes").mkdir()
    made = a.watches.add("folder", str(tmp_path / "notes"), caller=OWNER, every="1h").watch
    planned = "SELECT next_run_at FROM watches WHERE id = ?"
    assert a.conn.execute(planned, (made.id,)).fetchone()[0] is not None
    _sync(a, shared)
    _sync(b, shared)
    b.conn.execute("UPDATE watches SET target = '/etc' WHERE id = ?", (made.id,))
    _sync(b, shared)
    _sync(a, shared)
    assert a.conn.execute("SELECT target FROM watches WHERE id = ?", (made.id,)).fetchone() == (
        "/etc",
    )
    assert a.conn.execute(planned, (made.id,)).fetchone()[0] is None


def test_a_note_never_arrives_on_a_restricted_shelf_before_the_shelf(
    devices: Any, tmp_path: Path
) -> None:
    a, b = devices
    a.shelves.add("health", policy="strict", restricted=True, private=True)
    first = a.sync.export(tmp_path / "1.pvb", secret=SECRET, caller=OWNER)
    doc_id = a.note("# Blood test\nResults in March.", caller=OWNER, shelf="health").doc_id
    a.sync.export(tmp_path / "2.pvb", secret=SECRET, caller=OWNER, since=first.cursor)
    b.sync.import_bundle(tmp_path / "2.pvb", secret=SECRET, caller=OWNER)  # 1.pvb is late
    shelf = _health(b)
    assert (shelf.restricted, shelf.private, shelf.policy) == (True, True, "strict")
    with pytest.raises(NotFound):
        b.tree(doc_id, caller=READER)
    b.sync.import_bundle(tmp_path / "1.pvb", secret=SECRET, caller=OWNER)  # changes nothing
    assert a.sync.dump()["shelf"] == b.sync.dump()["shelf"]
