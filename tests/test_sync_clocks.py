"""Clocks another device sends are checked before they are believed: a row dated far ahead
waits for its time instead of moving this device's clock, and a shelf version cannot claim
to have seen a version of this device's that this device never wrote."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from privault import Caller
from privault.interfaces.cli import app
from privault.store.connection import write
from privault.store.migrations import known_migrations
from privault.sync import access, bundle, bundle_writer
from privault.sync import merge as merging
from privault.sync.access import ShelfVersion, merge_shelf
from privault.sync.hlc import Stamp
from privault.sync.rows import Row
from privault.sync.stamping import load_clock, save_clock, stamp_changes
from privault.vault import Vault
from privault.vault import sync as vault_sync
from tests.helpers import FakeEngineRunner, fake_vault

OWNER = Caller.owner()
SECRET = "a long passphrase for bundles"
ME = "dev_aaaaaaaaaaaa"
PEER = "dev_bbbbbbbbbbbb"
HOUR = 3_600_000


@pytest.fixture
def vault(tmp_path: Path) -> Any:
    opened = fake_vault(tmp_path / "a" / "vault.db")
    yield opened
    opened.close()


def _now() -> int:
    return int(time.time() * 1000)


def _clock(at: int, n: int = 0, device: str = PEER) -> str:
    return f"{at:015d}.{n:06d}.{device}"


def _sealed(rows: list[Row], secret: str = SECRET) -> bytes:
    schema = known_migrations()[-1].version
    made = bundle.Bundle(PEER, schema, 0, len(rows), _now(), tuple(rows))
    return bundle_writer.seal(made, bundle.KeyCache(secret))


def _import(vault: Vault, tmp_path: Path, rows: list[Row]) -> Any:
    path = tmp_path / "peer.pvb"
    path.write_bytes(_sealed(rows))
    return vault.sync.import_bundle(path, secret=SECRET, caller=OWNER)


def _restricted(vault: Vault) -> tuple[str, dict[str, Any]]:
    """A restricted shelf `health`, stamped: its clock and its payload."""
    vault.shelves.add("health", policy="strict", restricted=True, private=True)
    stamp_changes(vault.conn)
    [(held,)] = vault.conn.execute(
        "SELECT hlc FROM sync_rows WHERE kind = 'shelf' AND id = 'health'"
    ).fetchall()
    return held, dict(vault.sync.dump()["shelf"]["health"])


def _access(vault: Vault) -> tuple[bool, bool, str | None]:
    shelf = vault.shelves.get("health")
    return shelf.restricted, shelf.private, shelf.policy


def _note_row(tmp_path: Path, at: int) -> tuple[str, Row]:
    """A note written on another device, as a row stamped at `at` there."""
    peer = fake_vault(tmp_path / "peer" / "vault.db")
    try:
        added = peer.note("# Boiler\nService due in March.", caller=OWNER)
        payload = dict(peer.sync.dump()["document"][added.doc_id])
    finally:
        peer.close()
    return added.doc_id, Row("document", added.doc_id, _clock(at), PEER, payload)


def test_a_loosening_dated_a_year_ahead_waits_and_does_not_move_this_clock(
    vault: Vault, tmp_path: Path
) -> None:
    """The forged-clock loosening: a large clock of its own, and a `seen` under it that
    covers every version of this device's up to then."""
    held, payload = _restricted(vault)
    me = vault.sync.device
    ahead = _now() + 365 * 24 * HOUR
    forged = {**payload, "restricted": 0, "private": 0, "policy": None}
    forged["seen"] = {me: _clock(ahead - 1, device=me)}
    report = _import(vault, tmp_path, [Row("shelf", "health", _clock(ahead), PEER, forged)])
    assert report.ahead == 1 and report.waiting == 1 and report.applied == {}
    assert _access(vault) == (True, True, "strict")
    clock = load_clock(vault.conn)
    assert clock is not None and clock.text() == held  # not moved a year ahead
    # A change made now is stamped now, after the held version, not after the forged one.
    vault.shelves.add("garden")
    stamp_changes(vault.conn)
    after = load_clock(vault.conn)
    assert after is not None and after.wall < _now() + HOUR


def test_a_row_dated_ahead_merges_at_an_import_once_its_time_has_come(
    vault: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc_id, row = _note_row(tmp_path, _now() + 2 * HOUR)
    first = _import(vault, tmp_path, [row])
    assert (first.ahead, first.waiting, first.applied) == (1, 1, {})
    assert list(vault.docs(caller=OWNER).documents) == []
    # Imported again before its time: still waiting, nothing lost.
    again = _import(vault, tmp_path, [row])
    assert (again.ahead, again.waiting) == (1, 1)
    real = vault_sync.now_ms
    monkeypatch.setattr(vault_sync, "now_ms", lambda: real() + 3 * HOUR)
    later = _import(vault, tmp_path, [row])
    assert (later.ahead, later.waiting) == (0, 0)
    assert [doc.doc_id for doc in vault.docs(caller=OWNER).documents] == [doc_id]


def test_a_row_a_few_minutes_ahead_merges_at_once(vault: Vault, tmp_path: Path) -> None:
    doc_id, row = _note_row(tmp_path, _now() + merging.MAX_AHEAD_MS - 60_000)
    report = _import(vault, tmp_path, [row])
    assert (report.ahead, report.waiting, report.applied) == (0, 0, {"document": 1})


def test_a_claim_to_have_seen_a_later_version_of_this_device_is_not_believed(
    vault: Vault, tmp_path: Path
) -> None:
    """Within the hour a row may be ahead, a version claims a clock of this device's later
    than any it wrote: made without knowing the restriction, so the restriction stays."""
    held, payload = _restricted(vault)
    me = vault.sync.device
    at = _now() + 30 * 60_000
    loosened = {**payload, "restricted": 0, "private": 0, "policy": None}
    loosened["seen"] = {me: _clock(at - 1, device=me)}
    report = _import(vault, tmp_path, [Row("shelf", "health", _clock(at), PEER, loosened)])
    assert report.kept_stricter == ("health",) and report.refused_rows == ()
    assert _access(vault) == (True, True, "strict")
    # The claim it could check did not travel into the merged version either.
    assert vault.sync.dump()["shelf"]["health"]["seen"].get(me, "") <= held


def test_a_loosening_made_after_seeing_this_devices_version_still_travels(
    vault: Vault, tmp_path: Path
) -> None:
    held, payload = _restricted(vault)
    me = vault.sync.device
    loosened = {**payload, "restricted": 0, "private": 0, "policy": None, "seen": {me: held}}
    report = _import(vault, tmp_path, [Row("shelf", "health", _clock(_now()), PEER, loosened)])
    assert report.applied == {"shelf": 1} and report.kept_stricter == ()
    assert _access(vault) == (False, False, None)


def _rank(name: str | None) -> int:
    return {None: 0, "strict": 2}[name]


def test_merge_shelf_checks_claims_about_its_own_device_only() -> None:
    strict = {"restricted": 1, "private": 1, "policy": "strict", "seen": {}}
    loose = {"restricted": 0, "private": 0, "policy": None}
    held = ShelfVersion(_clock(100, device=ME), ME, strict)
    beyond = {**loose, "seen": {ME: _clock(150, device=ME)}}
    incoming = ShelfVersion(_clock(200), PEER, beyond)
    assert access.believed(incoming.history, held.history, ME) is None
    outcome = merge_shelf(held, incoming, _rank, ME)
    assert outcome.action == "merge" and outcome.payload is not None
    assert (outcome.payload["restricted"], outcome.payload["policy"]) == (1, "strict")
    # The same version read on another device, whose own claim it is not: it follows.
    other = ShelfVersion(_clock(100, device=ME), ME, strict)
    assert merge_shelf(other, incoming, _rank, "dev_cccccccccccc").action == "take"
    # Claiming exactly the version held is what a device that saw it writes.
    seen_it = ShelfVersion(_clock(200), PEER, {**loose, "seen": {ME: _clock(100, device=ME)}})
    assert merge_shelf(held, seen_it, _rank, ME).action == "take"


def test_the_import_command_says_which_rows_wait_for_their_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRIVAULT_SYNC_PASSPHRASE", SECRET)
    monkeypatch.setattr(bundle, "SCRYPT", {"n": 2**10, "r": 8, "p": 1})
    monkeypatch.setattr(bundle, "ACCEPTED_SCRYPT", frozenset({(2**10, 8, 1)}))
    _, row = _note_row(tmp_path, _now() + 5 * HOUR)
    path = tmp_path / "peer.pvb"
    path.write_bytes(_sealed([row]))
    monkeypatch.setenv("PRIVAULT_VAULT", str(tmp_path / "cli" / "vault.db"))
    result = FakeEngineRunner().invoke(app, ["import", str(path)])
    assert result.exit_code == 0, result.output
    assert "1 waiting for rows not yet imported" in result.output
    assert "1 row(s) waiting: their clock is more than an hour ahead" in " ".join(
        result.output.split()
    )


def test_a_version_ahead_hides_no_restriction_sent_now(
    vault: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shelf version parked for its clock is the newest of its row: another device's
    restriction sent meanwhile still merges, and the parked one merges over it later."""
    held, payload = _restricted(vault)
    vault.shelves.publish("health")
    stamp_changes(vault.conn)
    [(public,)] = vault.conn.execute(
        "SELECT hlc FROM sync_rows WHERE kind = 'shelf' AND id = 'health'"
    ).fetchall()
    me, other = vault.sync.device, "dev_cccccccccccc"
    loose = {**payload, "restricted": 0, "private": 0, "policy": None, "seen": {me: public}}
    ahead = Row("shelf", "health", _clock(_now() + 2 * HOUR, device=other), other, loose)
    assert _import(vault, tmp_path, [ahead]).ahead == 1
    strict = {**payload, "seen": {me: public}}
    report = _import(vault, tmp_path, [Row("shelf", "health", _clock(_now()), PEER, strict)])
    assert report.applied == {"shelf": 1} and report.ahead == 1
    assert _access(vault) == (True, True, "strict")
    real = vault_sync.now_ms
    monkeypatch.setattr(vault_sync, "now_ms", lambda: real() + 3 * HOUR)
    monkeypatch.setattr(bundle, "SCRYPT", {"n": 2**10, "r": 8, "p": 1})
    monkeypatch.setattr(bundle, "ACCEPTED_SCRYPT", frozenset({(2**10, 8, 1)}))
    [merged] = vault.sync.sync(tmp_path / "shared", secret=SECRET, caller=OWNER).imported
    assert merged.ahead == 0 and merged.kept_stricter == ("health",)  # concurrent
    assert _access(vault) == (True, True, "strict")


def test_a_tombstone_ahead_is_applied_at_once(vault: Vault, tmp_path: Path) -> None:
    doc_id, row = _note_row(tmp_path, _now())
    assert _import(vault, tmp_path, [row]).applied == {"document": 1}
    forgotten = Row("tombstone", doc_id, _clock(_now() + 5 * HOUR, 1), PEER, {"deleted_at": 1})
    report = _import(vault, tmp_path, [forgotten])
    assert report.ahead == 0 and report.applied == {"tombstone": 1}
    assert list(vault.docs(caller=OWNER).documents) == []
    clock = load_clock(vault.conn)
    assert clock is None or clock.wall < _now() + HOUR  # its clock is not taken


def test_a_restored_vault_keeps_its_own_lost_restriction_strict() -> None:
    """Restored from a backup, a device meets its own later version coming back: not
    provably following the held one, it merges as concurrent, and the restriction stays."""
    public = {"restricted": 0, "private": 0, "policy": None, "seen": {}}
    held = ShelfVersion(_clock(100), PEER, public)
    lost = {"restricted": 1, "private": 1, "policy": "strict", "seen": {PEER: _clock(100)}}
    outcome = merge_shelf(held, ShelfVersion(_clock(200, device=ME), ME, lost), _rank, ME)
    assert outcome.action == "take"
    assert merge_shelf(held, ShelfVersion(_clock(200, device=ME), ME, lost), _rank, "x").action == (
        "take"
    )


def test_a_sync_round_merges_rows_whose_time_has_come_with_no_new_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bundle, "SCRYPT", {"n": 2**10, "r": 8, "p": 1})
    monkeypatch.setattr(bundle, "ACCEPTED_SCRYPT", frozenset({(2**10, 8, 1)}))
    shared = tmp_path / "shared"
    peer = fake_vault(tmp_path / "peer" / "vault.db")
    here = fake_vault(tmp_path / "here" / "vault.db")
    try:
        # The peer's clock ran two hours fast once: its changes stay stamped that far ahead.
        with write(peer.conn):
            save_clock(peer.conn, Stamp(_now() + 2 * HOUR, 0, peer.sync.device))
        peer.note("# Groceries\nMilk and eggs.", caller=OWNER)
        written = peer.sync.sync(shared, secret=SECRET, caller=OWNER).written
        assert written is not None and written.clock_ahead_ms > merging.MAX_AHEAD_MS
        real = vault_sync.now_ms
        first = here.sync.sync(shared, secret=SECRET, caller=OWNER)
        assert [(item.ahead, item.waiting) for item in first.imported] == [(1, 1)]
        monkeypatch.setattr(vault_sync, "now_ms", lambda: real() + 3 * HOUR)
        again = here.sync.sync(shared, secret=SECRET, caller=OWNER)
        assert [item.path for item in again.imported] == [vault_sync.WAITING_ROWS]
        assert [doc.title for doc in here.docs(caller=OWNER).documents] == ["Groceries"]
    finally:
        peer.close()
        here.close()


def test_a_bundle_of_no_rows_merges_the_rows_whose_time_has_come(
    vault: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `export --since` with nothing new writes a bundle of no rows: importing it still
    # merges what waits, and the report counts what still does.
    _, row = _note_row(tmp_path, _now() + 2 * HOUR)
    assert _import(vault, tmp_path, [row]).ahead == 1
    assert (_import(vault, tmp_path, []).ahead, _import(vault, tmp_path, []).waiting) == (1, 1)
    real = vault_sync.now_ms
    monkeypatch.setattr(vault_sync, "now_ms", lambda: real() + 3 * HOUR)
    later = _import(vault, tmp_path, [])
    assert later.applied == {"document": 1} and later.waiting == 0
