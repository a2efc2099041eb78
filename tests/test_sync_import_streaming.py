"""Importing streams its bundle: authenticated whole before anything is read, checked whole
before anything is written, merged in batches; memory does not grow with the bundle."""

from __future__ import annotations

import base64
import json
import random
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from privault import Caller
from privault.errors import BundleError
from privault.store.migrations import known_migrations
from privault.sync import bundle, bundle_reader, row_stream, stamping
from privault.sync.row_stream import RowList
from privault.vault import Vault
from privault.vault import sync as vault_sync
from tests.helpers import fake_vault, filled_vault, least_peak, note_text

OWNER = Caller.owner()
SECRET = "a long passphrase for bundles"


def _varied(path: Path) -> Vault:
    """A vault with every kind of row that points at another: page versions, a forgotten
    document, statements superseded and revised (rows pointing at each other), closures,
    attestations, a dispute, an owner mark, a shelf and a watch."""
    vault = fake_vault(path)
    rng = random.Random(7)
    vault.shelves.add("work", policy="strict")
    ids = [
        vault.note(f"# Note {n}\n{note_text(rng, 80)}", caller=OWNER, shelf="work").doc_id
        for n in range(12)
    ]
    for _ in range(3):  # one file, changed twice: a chain of versions
        item = {"text": note_text(rng, 40), "source": "/notes/a.md", "kind": "file", "title": "a"}
        vault.note_many([item], caller=OWNER)
    vault.forget(ids[3], caller=OWNER)
    first = vault.statements.add("Dana is the plumber", caller=OWNER, entities=["Dana"])
    old = first.statement.statement.id
    new = vault.statements.supersede(old, "Lee is the plumber", caller=OWNER)
    newer = vault.statements.revise(
        new.statement.statement.id, "Lee Park is the plumber", caller=OWNER
    )
    other = vault.statements.add("The boiler is serviced in March", caller=OWNER)
    vault.statements.confirm(other.statement.statement.id, caller=OWNER)
    vault.statements.dispute(
        newer.statement.statement.id, other.statement.statement.id, caller=OWNER
    )
    vault.pii.mark(ids[0], "Acme", caller=OWNER)
    vault.watches.add("remind", "check the boiler", caller=OWNER, every="1d")
    return vault


def test_a_bundle_merged_in_many_small_batches_ends_in_the_same_vault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _varied(tmp_path / "a" / "vault.db")
    whole = fake_vault(tmp_path / "b" / "vault.db")
    batched = fake_vault(tmp_path / "c" / "vault.db")
    try:
        path = tmp_path / "all.pvb"
        rows = source.sync.export(path, secret=SECRET, caller=OWNER).rows
        assert rows > 20
        at_once = whole.sync.import_bundle(path, secret=SECRET, caller=OWNER)
        monkeypatch.setattr(vault_sync, "IMPORT_BATCH_ROWS", 2)
        in_pieces = batched.sync.import_bundle(path, secret=SECRET, caller=OWNER)
        assert in_pieces.rows == at_once.rows == rows
        assert in_pieces.waiting == at_once.waiting == 0
        assert in_pieces.applied == at_once.applied
        assert sum(at_once.applied.values()) + at_once.forgotten + at_once.unchanged >= rows
        assert batched.sync.dump() == whole.sync.dump() == source.sync.dump()
        # Derived data too: every section scanned, statements searchable by the owner.
        for vault in (whole, batched):
            unscanned = vault.conn.execute(
                "SELECT count(*) FROM sections s LEFT JOIN pii_scans p ON p.section_id = s.id"
                " WHERE p.section_id IS NULL"
            ).fetchone()[0]
            assert unscanned == 0
            assert vault.status().index.healthy
        again = batched.sync.import_bundle(path, secret=SECRET, caller=OWNER)
        assert again.applied == {} and again.unchanged == rows
    finally:
        for vault in (source, whole, batched):
            vault.close()


def test_an_import_stopped_between_batches_keeps_them_and_completes_when_run_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _varied(tmp_path / "a" / "vault.db")
    target = fake_vault(tmp_path / "b" / "vault.db")
    try:
        path = tmp_path / "all.pvb"
        source.sync.export(path, secret=SECRET, caller=OWNER)
        monkeypatch.setattr(vault_sync, "IMPORT_BATCH_ROWS", 3)
        real_merge = vault_sync.merge
        calls = []

        def stopping(*args: Any, **kwargs: Any) -> Any:
            calls.append(1)
            if len(calls) == 4:
                raise KeyboardInterrupt  # the owner pressed ^C during the fourth batch
            return real_merge(*args, **kwargs)

        monkeypatch.setattr(vault_sync, "merge", stopping)
        with pytest.raises(KeyboardInterrupt):
            target.sync.import_bundle(path, secret=SECRET, caller=OWNER)
        partial = target.sync.dump()
        assert (
            0
            < sum(len(rows) for rows in partial.values())
            < sum(len(rows) for rows in source.sync.dump().values())
        )
        monkeypatch.setattr(vault_sync, "merge", real_merge)
        target.sync.import_bundle(path, secret=SECRET, caller=OWNER)
        assert target.sync.dump() == source.sync.dump()
    finally:
        source.close()
        target.close()


def test_what_is_merged_is_what_was_authenticated_even_if_the_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rows are read again from the private copy, never from the file: a file swapped
    for another bundle (or garbage) after its check changes nothing that is merged."""
    source = fake_vault(tmp_path / "a" / "vault.db")
    other = fake_vault(tmp_path / "o" / "vault.db")
    target = fake_vault(tmp_path / "b" / "vault.db")
    try:
        source.note("# Boiler\nService due in March.", caller=OWNER)
        other.note("# Intruder\nNot from the checked file.", caller=OWNER)
        path, swap = tmp_path / "x.pvb", tmp_path / "swap.pvb"
        source.sync.export(path, secret=SECRET, caller=OWNER)
        other.sync.export(swap, secret=SECRET, caller=OWNER)
        real_open = bundle_reader.open_file

        def then_swapped(*args: Any, **kwargs: Any) -> Any:
            opened = real_open(*args, **kwargs)
            path.write_bytes(swap.read_bytes())
            return opened

        monkeypatch.setattr(bundle_reader, "open_file", then_swapped)
        target.sync.import_bundle(path, secret=SECRET, caller=OWNER)
        assert target.sync.dump() == source.sync.dump()
    finally:
        for vault in (source, other, target):
            vault.close()


def test_nothing_decrypted_is_read_before_the_tag_has_passed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with fake_vault(tmp_path / "a" / "vault.db") as source:
        source.note("# Boiler\nService due in March.", caller=OWNER)
        path = tmp_path / "x.pvb"
        source.sync.export(path, secret=SECRET, caller=OWNER)
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x01  # the tag
    path.write_bytes(bytes(data))

    def inflating(*args: Any) -> Any:
        raise AssertionError("decompressed before the tag was checked")

    monkeypatch.setattr(bundle_reader.zlib, "decompressobj", inflating)
    with fake_vault(tmp_path / "b" / "vault.db") as target:
        with pytest.raises(BundleError, match="changed or damaged"):
            target.sync.import_bundle(path, secret=SECRET, caller=OWNER)
        assert target.sync.dump()["document"] == {}


def _sealed_plain(plain: bytes, tmp_path: Path, header_from: Path) -> Path:
    """`plain` compressed and sealed under the known passphrase, as any writer would."""
    header, _, _ = bundle.read_header(header_from.read_bytes())
    salt = base64.b64decode(header["kdf"]["salt"])
    key = bundle.KeyCache(SECRET).key(salt, bundle.SCRYPT)
    nonce = b"\x01" * 12
    body = zlib.compress(plain)
    header.update(size=len(body) + 16, nonce=base64.b64encode(nonce).decode())
    head = json.dumps(header, sort_keys=True).encode()
    sealed = AESGCM(key).encrypt(nonce, body, bundle.MAGIC + head)
    out = tmp_path / "resealed.pvb"
    out.write_bytes(bundle.MAGIC + struct.pack(">I", len(head)) + head + sealed)
    return out


@pytest.mark.parametrize("layout", ["older writer", "spaced, digest first"])
def test_a_bundle_in_any_json_layout_imports_the_same(tmp_path: Path, layout: str) -> None:
    """Older privault wrote unsorted keys; any spacing or key order is still the same rows."""
    with _varied(tmp_path / "a" / "vault.db") as source:
        path = tmp_path / "x.pvb"
        source.sync.export(path, secret=SECRET, caller=OWNER)
        rows = [row.as_list() for row in stamping.rows_since(source.conn, 0)]
        expected = source.sync.dump()
    digest = bundle.rows_digest(rows)
    if layout == "older writer":
        plain = json.dumps({"rows": rows, "rows_sha256": digest}, separators=(",", ":"))
    else:
        plain = json.dumps({"rows_sha256": digest, "rows": rows}, indent=3)
    resealed = _sealed_plain(plain.encode(), tmp_path, path)
    with fake_vault(tmp_path / "b" / "vault.db") as target:
        assert target.sync.import_bundle(resealed, secret=SECRET, caller=OWNER).rows == len(rows)
        assert target.sync.dump() == expected


@pytest.mark.parametrize(
    "plain, says",
    [
        (b'{"rows":[],"rows_sha256":"x","extra":1}', "not a row list"),
        (b'{"rows":[],"rows":[],"rows_sha256":"x"}', "not a row list"),
        (b'{"rows":[]}', "not a row list"),
        (b'{"rows":[],"rows_sha256":"x"} trailing', "not a row list"),
        (b'{"rows":{},"rows_sha256":"x"}', "rows"),
        (b'{"rows":[] 2,"rows_sha256":"x"}', "not a row list"),
        (b'{"rows":[[1,2', "not compressed JSON"),
        (b'{"rows":' + b"[" * 100_000, "not compressed JSON"),
        (b'{"rows":["\xff"],"rows_sha256":"x"}', "not compressed JSON"),
        (b'{"rows":[],"rows_sha256":"x"}', "do not match their hash"),
    ],
)
def test_authentic_content_that_is_not_the_row_list_is_refused_in_one_line(
    tmp_path: Path, plain: bytes, says: str
) -> None:
    with fake_vault(tmp_path / "a" / "vault.db") as source:
        source.note("# Boiler\nService due in March.", caller=OWNER)
        path = tmp_path / "x.pvb"
        source.sync.export(path, secret=SECRET, caller=OWNER)
    resealed = _sealed_plain(plain, tmp_path, path)
    with fake_vault(tmp_path / "b" / "vault.db") as target:
        with pytest.raises(BundleError, match=says) as caught:
            target.sync.import_bundle(resealed, secret=SECRET, caller=OWNER)
        assert "\n" not in str(caught.value)
        assert target.sync.dump()["document"] == {}


# ---- the row reader on its own -----------------------------------------------------------


def _pieces(text: str, size: int) -> Any:
    return iter([text[i : i + size] for i in range(0, len(text), size)])


ROWS: list[Any] = [
    ["shelf", "work", "h", "dev", None],
    [12345678901234567890, -1.5e-7, True, None, 'ünï \u2028 \\ " ,]}'],
    {"nested": [[{"deep": [1, [2, [3]]]}]], "n": 0},
    "x" * 5000,
    7,
]


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, 10_000])
@pytest.mark.parametrize("indent", [None, 2])
def test_rows_cut_anywhere_between_pieces_are_read_whole(size: int, indent: int | None) -> None:
    text = json.dumps({"rows": ROWS, "rows_sha256": "abc"}, indent=indent)
    listed = RowList(_pieces(text, size))
    found = list(listed.rows())
    assert [item for item, _ in found] == ROWS
    assert listed.declared == "abc"
    if indent is None:  # the characters each row took, as written
        assert [chars for _, chars in found] == [len(json.dumps(row)) for row in ROWS]


def test_a_number_at_the_end_of_a_piece_is_not_taken_for_a_shorter_one() -> None:
    text = '{"rows":[123456,7],"rows_sha256":"d"}'
    for cut in range(len(text)):
        found = list(RowList(iter([text[:cut], text[cut:]])).rows())
        assert [item for item, _ in found] == [123456, 7]


def test_an_empty_row_list_and_a_row_larger_than_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert list(RowList(iter(['{"rows":[ ],"rows_sha256":""}'])).rows()) == []
    monkeypatch.setattr(row_stream, "MAX_VALUE", 100)
    text = json.dumps({"rows": ["x" * 1000], "rows_sha256": ""})
    with pytest.raises(BundleError, match="too large"):
        list(RowList(_pieces(text, 10)).rows())


# ---- memory stays bounded -----------------------------------------------------------


def _peak_importing(path: Path, count: int, folder: Path) -> int:
    """The peak of Python allocations while the bundle is imported into an empty vault."""
    targets: list[Vault] = []

    def fresh() -> None:
        # Each reading imports into an empty vault, so the whole bundle is merged.
        for old in targets:
            old.close()
        targets.append(fake_vault(folder / str(len(targets)) / "vault.db"))

    def importing() -> None:
        report = targets[-1].sync.import_bundle(path, secret=SECRET, caller=OWNER)
        assert report.applied == {"document": count}

    try:
        return least_peak(importing, before=fresh)
    finally:
        targets[-1].close()


def test_importing_streams_memory_does_not_grow_with_the_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Batches and blocks small, so both bundles are many of each long.
    monkeypatch.setattr(vault_sync, "IMPORT_BATCH_ROWS", 10)
    monkeypatch.setattr(bundle_reader, "READ_BLOCK", 16 * 1024)
    peaks, plain = {}, {}
    for count in (16, 96):
        path = tmp_path / f"{count}.pvb"
        with filled_vault(tmp_path / str(count) / "vault.db", count, 300) as source:
            source.sync.export(path, secret=SECRET, caller=OWNER)
        opened = bundle_reader.open_bundle(
            path.read_bytes(), bundle.KeyCache(SECRET), known_migrations()[-1].version
        )
        plain[count] = sum(len(json.dumps(row.as_list())) for row in opened.rows)
        peaks[count] = _peak_importing(path, count, tmp_path / f"t{count}")
    assert plain[96] > 96 * 10_000  # six times the rows, each ~14 kB of JSON
    # Six times the bundle, not six times the memory: a block, a batch of rows and their
    # derived index entries are held at a time, never the rows or their JSON.
    assert peaks[96] < peaks[16] * 1.5, (peaks, plain)
    assert peaks[96] - peaks[16] < (plain[96] - plain[16]) / 10, (peaks, plain)
