"""Bundles: encrypted (no note text in the bytes), keyed, versioned, refused whole when bad."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from privault import Caller
from privault.errors import AccessDenied, BundleError
from privault.store.migrations import known_migrations
from privault.sync import bundle, bundle_writer, stamping
from privault.sync.rows import Row
from privault.timeutil import parse_time
from privault.vault import Vault
from tests.helpers import fake_vault

OWNER = Caller.owner()
SECRET = "a long passphrase for bundles"
SECRET_TEXT = "Plumber invoice 4471 for Dr Maria Gonzalez, maria.gonzalez@example.org"


@pytest.fixture
def source(tmp_path: Path) -> Vault:
    vault = fake_vault(tmp_path / "a" / "vault.db")
    vault.note(f"# Plumber\n{SECRET_TEXT}", caller=OWNER, tags=["money"])
    vault.statements.add("Maria Gonzalez is the plumber", caller=OWNER, entities=["Maria"])
    yield vault
    vault.close()


@pytest.fixture
def target(tmp_path: Path) -> Vault:
    vault = fake_vault(tmp_path / "b" / "vault.db")
    yield vault
    vault.close()


def _bundle(source: Vault, tmp_path: Path) -> Path:
    path = tmp_path / "out.pvb"
    source.sync.export(path, secret=SECRET, caller=OWNER)
    return path


def test_bundle_bytes_hold_no_note_text(source: Vault, tmp_path: Path) -> None:
    data = _bundle(source, tmp_path).read_bytes()
    for needle in ("Plumber", "4471", "Gonzalez", "maria.gonzalez@example.org", "money"):
        assert needle.encode() not in data
        assert needle.encode("utf-16-le") not in data
    header, _, _ = bundle.read_header(data)
    assert "Plumber" not in json.dumps(header)


def test_import_restores_documents_statements_and_search(
    source: Vault, target: Vault, tmp_path: Path
) -> None:
    report = target.sync.import_bundle(_bundle(source, tmp_path), secret=SECRET, caller=OWNER)
    assert report.applied == {"document": 1, "statement": 1}
    assert source.sync.dump() == target.sync.dump()
    hits = target.search("plumber invoice", caller=OWNER).results
    assert hits and "4471" in hits[0].text
    assert target.status().index.healthy
    # PII spans were computed here, by this device's detector, for every imported section.
    unscanned = target.conn.execute(
        "SELECT count(*) FROM sections s LEFT JOIN pii_scans p ON p.section_id = s.id"
        " WHERE p.section_id IS NULL"
    ).fetchone()[0]
    assert unscanned == 0
    kinds = {kind for (kind,) in target.conn.execute("SELECT kind FROM pii_spans")}
    assert {"PERSON", "EMAIL_ADDRESS"} <= kinds
    scanned = target.conn.execute("SELECT count(*) FROM statement_scans").fetchone()[0]
    assert scanned == 1


def test_importing_twice_changes_nothing(source: Vault, target: Vault, tmp_path: Path) -> None:
    path = _bundle(source, tmp_path)
    target.sync.import_bundle(path, secret=SECRET, caller=OWNER)
    before = target.sync.dump()
    again = target.sync.import_bundle(path, secret=SECRET, caller=OWNER)
    assert again.applied == {} and again.unchanged == 2
    assert target.sync.dump() == before


def test_wrong_passphrase_is_a_clear_error(source: Vault, target: Vault, tmp_path: Path) -> None:
    with pytest.raises(BundleError, match="wrong passphrase"):
        target.sync.import_bundle(_bundle(source, tmp_path), secret="nope", caller=OWNER)
    assert target.sync.dump()["document"] == {}


@pytest.mark.parametrize("cut", [1, 17, 500])
def test_truncated_bundle_is_refused_whole(
    source: Vault, target: Vault, tmp_path: Path, cut: int
) -> None:
    path = _bundle(source, tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - cut] if cut < len(data) else data[:5])
    with pytest.raises(BundleError, match="truncated|damaged"):
        target.sync.import_bundle(path, secret=SECRET, caller=OWNER)
    assert target.sync.dump() == fake_vault(tmp_path / "empty.db").sync.dump()


def test_a_flipped_byte_anywhere_is_refused_whole(
    source: Vault, target: Vault, tmp_path: Path
) -> None:
    path = _bundle(source, tmp_path)
    data = path.read_bytes()
    empty = target.sync.dump()
    header_end = len(bundle.MAGIC) + 4 + struct.unpack(">I", data[8:12])[0]
    for offset in (0, 20, header_end - 3, header_end + 5, len(data) // 2, len(data) - 1):
        changed = bytearray(data)
        changed[offset] ^= 0x01
        path.write_bytes(bytes(changed))
        with pytest.raises(BundleError):
            target.sync.import_bundle(path, secret=SECRET, caller=OWNER)
        assert target.sync.dump() == empty


def test_a_bundle_from_a_newer_schema_or_format_is_refused(
    source: Vault, target: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    newest = known_migrations()[-1].version
    monkeypatch.setattr("privault.vault.sync.applied_version", lambda conn: newest + 1)
    path = _bundle(source, tmp_path)
    with pytest.raises(BundleError, match="newer than this privault knows"):
        target.sync.import_bundle(path, secret=SECRET, caller=OWNER)
    monkeypatch.setattr(bundle, "FORMAT", bundle.FORMAT + 1)
    newer = tmp_path / "newer.pvb"
    source.sync.export(newer, secret=SECRET, caller=OWNER)
    monkeypatch.setattr(bundle, "FORMAT", bundle.FORMAT - 1)
    with pytest.raises(BundleError, match="format 2, newer"):
        target.sync.import_bundle(newer, secret=SECRET, caller=OWNER)
    assert target.sync.dump()["document"] == {}


def test_not_a_bundle(target: Vault, tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello")
    with pytest.raises(BundleError, match="not a privault bundle"):
        target.sync.import_bundle(path, secret=SECRET, caller=OWNER)


def test_export_since_a_cursor_holds_only_later_changes(
    source: Vault, target: Vault, tmp_path: Path
) -> None:
    first = source.sync.export(tmp_path / "all.pvb", secret=SECRET, caller=OWNER)
    nothing = source.sync.export(
        tmp_path / "none.pvb", secret=SECRET, caller=OWNER, since=first.cursor
    )
    assert nothing.rows == 0
    source.note("Second note about the garden", caller=OWNER)
    later = source.sync.export(
        tmp_path / "later.pvb", secret=SECRET, caller=OWNER, since=first.cursor
    )
    assert later.rows == 1
    # Order does not matter: the later bundle first, then the full one.
    target.sync.import_bundle(tmp_path / "later.pvb", secret=SECRET, caller=OWNER)
    target.sync.import_bundle(tmp_path / "all.pvb", secret=SECRET, caller=OWNER)
    assert target.sync.dump() == source.sync.dump()


def test_agents_cannot_export_or_import(source: Vault, tmp_path: Path) -> None:
    agent = Caller.agent("claude")
    with pytest.raises(AccessDenied):
        source.sync.export(tmp_path / "x.pvb", secret=SECRET, caller=agent)
    with pytest.raises(AccessDenied):
        source.sync.import_bundle(tmp_path / "x.pvb", secret=SECRET, caller=agent)


def test_supersede_chains_arrive_intact_in_any_order(
    source: Vault, target: Vault, tmp_path: Path
) -> None:
    first = source.sync.export(tmp_path / "1.pvb", secret=SECRET, caller=OWNER)
    [old] = [row for (row,) in source.conn.execute("SELECT id FROM statements")]
    new = source.statements.supersede(old, "Lee is the plumber", caller=OWNER).statement.statement
    source.sync.export(tmp_path / "2.pvb", secret=SECRET, caller=OWNER, since=first.cursor)
    # The later bundle first: the old version and the new one point at each other and
    # arrive together; the base bundle then only adds the note (its statement is older).
    early = target.sync.import_bundle(tmp_path / "2.pvb", secret=SECRET, caller=OWNER)
    assert early.applied == {"closure": 1, "statement": 2} and early.waiting == 0
    done = target.sync.import_bundle(tmp_path / "1.pvb", secret=SECRET, caller=OWNER)
    assert done.applied == {"document": 1} and done.unchanged == 1
    assert target.sync.dump() == source.sync.dump()
    history = target.statements.history(new.id, caller=OWNER).statements
    assert [item.statement.id for item in history] == [old, new.id]
    assert history[0].statement.superseded_by == new.id


def test_a_row_before_what_it_points_at_waits_then_lands(
    source: Vault, target: Vault, tmp_path: Path
) -> None:
    source.file_page(url="https://example.org/p", title="Prices", text="v1 costs 3", caller=OWNER)
    source.file_page(url="https://example.org/p", title="Prices", text="v2 costs 4", caller=OWNER)
    stamping.stamp_changes(source.conn)
    rows = stamping.rows_since(source.conn, 0)
    newer = [r for r in rows if r.kind == "document" and r.payload and r.payload["previous_id"]]
    rest = [r for r in rows if r not in newer]
    keys = bundle.KeyCache(SECRET)
    schema = known_migrations()[-1].version
    for name, part in (("new.pvb", newer), ("rest.pvb", rest)):
        sealed = bundle.Bundle("dev_000000000001", schema, 0, 1, 0, tuple(part))
        (tmp_path / name).write_bytes(bundle_writer.seal(sealed, keys))
    early = target.sync.import_bundle(tmp_path / "new.pvb", secret=SECRET, caller=OWNER)
    assert early.applied == {} and early.waiting == 1
    late = target.sync.import_bundle(tmp_path / "rest.pvb", secret=SECRET, caller=OWNER)
    assert late.waiting == 0 and late.applied["document"] == 3
    assert target.sync.dump() == source.sync.dump()
    assert target.status().index.healthy


def test_a_synced_watch_runs_only_on_the_device_that_made_it(
    source: Vault, target: Vault, tmp_path: Path
) -> None:
    made = source.watches.add("remind", "Pay the plumber", caller=OWNER, every="1h").watch
    target.sync.import_bundle(_bundle(source, tmp_path), secret=SECRET, caller=OWNER)
    listed = [w.id for w in target.watches.list(caller=OWNER).watches]
    assert made.id in listed
    planned = "SELECT next_run_at FROM watches WHERE id = ?"
    assert source.conn.execute(planned, (made.id,)).fetchone()[0] is not None
    assert target.conn.execute(planned, (made.id,)).fetchone()[0] is None
    # A cancel on the other device comes back and stops it at home.
    target.watches.cancel(made.id, caller=OWNER)
    back = tmp_path / "back.pvb"
    target.sync.export(back, secret=SECRET, caller=OWNER)
    source.sync.import_bundle(back, secret=SECRET, caller=OWNER)
    row = source.conn.execute("SELECT status, next_run_at FROM watches WHERE id = ?", (made.id,))
    assert row.fetchone() == ("cancelled", None)


def test_a_correctly_sealed_bundle_with_unknown_fields_is_refused(
    target: Vault, tmp_path: Path
) -> None:
    payload = {
        "chain_id": "s_1", "content": "x", "source": None, "salience": 0.5, "confidence": 1.0,
        "occurred_at": None, "valid_from": 0, "valid_to": None, "recorded_at": 0,
        "invalidated_at": None, "invalidation_reason": None, "supersedes": None,
        "superseded_by": None, "revises": None, "revised_by": None, "metadata": "{}",
        "entities": [], "seq) VALUES (1); DROP TABLE documents; --": 1,
    }  # fmt: skip
    device = "dev_000000000001"
    row = Row("statement", "s_1", f"000000000000001.000000.{device}", device, payload)
    sealed = bundle.Bundle(device, known_migrations()[-1].version, 0, 1, 0, (row,))
    path = tmp_path / "odd.pvb"
    path.write_bytes(bundle_writer.seal(sealed, bundle.KeyCache(SECRET)))
    with pytest.raises(BundleError, match="malformed"):
        target.sync.import_bundle(path, secret=SECRET, caller=OWNER)
    assert target.conn.execute("SELECT count(*) FROM statements").fetchone()[0] == 0


def test_statement_shelf_entity_kinds_and_authors_travel(
    source: Vault, target: Vault, tmp_path: Path
) -> None:
    """A statement kept on a private shelf must not land on another device's default shelf,
    and an organisation must not become a masked person there."""
    source.shelves.add("health", restricted=True, private=True)
    source.statements.add(
        "The owner has type 2 diabetes",
        caller=OWNER,
        entities=["owner", "org:Northwind Clinic"],
        shelf="health",
    )
    target.sync.import_bundle(_bundle(source, tmp_path), secret=SECRET, caller=OWNER)
    assert source.sync.dump() == target.sync.dump()
    rows = target.conn.execute(
        "SELECT s.shelf, e.name, e.kind FROM statements s"
        " JOIN statement_entities e ON e.statement_id = s.id"
        " WHERE s.content LIKE '%diabetes%' ORDER BY e.position"
    ).fetchall()
    assert [tuple(r) for r in rows] == [
        ("health", "owner", "person"),
        ("health", "Northwind Clinic", "org"),
    ]


def test_imported_entities_are_known_to_every_process(
    source: Vault, target: Vault, tmp_path: Path
) -> None:
    from privault.store import pii

    before = pii.known_generation(target.conn)
    target.sync.import_bundle(_bundle(source, tmp_path), secret=SECRET, caller=OWNER)
    assert pii.known_generation(target.conn) > before


def test_a_new_date_reaches_the_other_devices_vector_index(
    source: Vault, target: Vault, tmp_path: Path
) -> None:
    path = tmp_path / "boiler.md"
    text = "# Boiler\nService booked with Zorbulon."
    path.write_text(f"---\ncreated: 2024-05-01\n---\n{text}")
    doc_id = source.add([path], caller=OWNER).added[0].doc_id
    first = source.sync.export(tmp_path / "1.pvb", secret=SECRET, caller=OWNER)
    target.sync.import_bundle(tmp_path / "1.pvb", secret=SECRET, caller=OWNER)
    assert target.search("Zorbulon", caller=OWNER).results  # its vector index is loaded
    path.write_text(f"---\ncreated: 2021-03-15\n---\n{text}")  # the same text
    assert source.add([path], caller=OWNER).added[0].status == "updated"
    source.sync.export(tmp_path / "2.pvb", secret=SECRET, caller=OWNER, since=first.cursor)
    report = target.sync.import_bundle(tmp_path / "2.pvb", secret=SECRET, caller=OWNER)
    assert report.applied == {"document": 1}
    assert target.sync.dump() == source.sync.dump()
    # The sections are the same, but a date is carried by chunks: they are made anew.
    target.vectors.refresh(target.conn)
    query = target.embedder.embed_query("Zorbulon")
    march = (parse_time("2021-03-01"), parse_time("2021-04-01"))
    found = {c for c, _ in target.vectors.search(query, 5, march, conn=target.conn)}
    chunks = {
        chunk_id
        for (chunk_id,) in target.conn.execute(
            "SELECT c.id FROM chunks c JOIN sections s ON s.id = c.section_id WHERE s.doc_id = ?",
            (doc_id,),
        )
    }
    assert chunks and chunks <= found
    assert target.status().index.healthy
