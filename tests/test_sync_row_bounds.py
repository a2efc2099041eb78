"""Rows from another device that are well shaped but break a local write's bounds.

The device holds the passphrase, so its bundles are authentic; their rows are still data
to check. A row outside the bounds a local write keeps is refused on its own and named in
the import report; the rest of its bundle merges, and nothing refused reaches a read.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from privault import Caller
from privault.store import sync_state
from privault.store.connection import write
from privault.store.migrations import known_migrations
from privault.sync import bundle, bundle_writer, folder
from privault.sync.rows import Row
from privault.sync.stamping import stamp_changes
from privault.vault import Vault
from tests.helpers import fake_vault

OWNER = Caller.owner()
SECRET = "a long passphrase for bundles"
PEER = "dev_bbbbbbbbbbbb"
OTHER = "dev_cccccccccccc"


@pytest.fixture
def vault(tmp_path: Path) -> Any:
    opened = fake_vault(tmp_path / "a" / "vault.db")
    yield opened
    opened.close()


def _clock(n: int, device: str = PEER) -> str:
    """A clock a moment from now on `device` (later than anything the vault holds)."""
    return f"{int(time.time() * 1000) + 60_000:015d}.{n:06d}.{device}"


def _sealed(rows: list[Row], device: str = PEER) -> bytes:
    schema = known_migrations()[-1].version
    made = bundle.Bundle(device, schema, 0, len(rows), int(time.time() * 1000), tuple(rows))
    return bundle_writer.seal(made, bundle.KeyCache(SECRET))


def _import(vault: Vault, tmp_path: Path, rows: list[Row]) -> Any:
    path = tmp_path / "peer.pvb"
    path.write_bytes(_sealed(rows))
    return vault.sync.import_bundle(path, secret=SECRET, caller=OWNER)


def _statement(statement_id: str, content: str, **changes: Any) -> dict[str, Any]:
    return {
        "chain_id": statement_id,
        "content": content,
        "source": None,
        "salience": 0.5,
        "confidence": 1.0,
        "occurred_at": None,
        "valid_from": 0,
        "valid_to": None,
        "recorded_at": 1,
        "invalidated_at": None,
        "invalidation_reason": None,
        "supersedes": None,
        "superseded_by": None,
        "revises": None,
        "revised_by": None,
        "metadata": "{}",
        "shelf": "default",
        "author": "",
        "entities": [],
        **changes,
    }


# ---- statements ------------------------------------------------------------------------


@pytest.mark.parametrize("metadata", ["not json", "[1, 2]", '"text"', "null", "{"])
def test_statement_metadata_that_is_not_a_json_object_is_refused_alone(
    vault: Vault, tmp_path: Path, metadata: str
) -> None:
    bad = _statement("s_aaaaaaaaaa", "Dana likes tea", metadata=metadata)
    good = _statement("s_cccccccccc", "Dana likes coffee")
    report = _import(
        vault,
        tmp_path,
        [
            Row("statement", "s_aaaaaaaaaa", _clock(1), PEER, bad),
            Row("statement", "s_cccccccccc", _clock(2), PEER, good),
        ],
    )
    assert report.applied == {"statement": 1}
    assert len(report.refused_rows) == 1
    assert report.refused_rows[0].startswith("row 1: statement row 's_aaaaaaaaaa'")
    assert "metadata" in report.refused_rows[0]
    # Reads that parse every statement's metadata still work, and see the good one.
    found = vault.statements.query(caller=OWNER)
    assert [item.statement.id for item in found.statements] == ["s_cccccccccc"]
    assert vault.search("coffee", caller=OWNER) is not None


def test_a_parked_row_that_no_longer_passes_is_named_and_no_longer_parked(
    vault: Vault, tmp_path: Path
) -> None:
    """A version that checked less parked a row (it pointed at a statement not yet here);
    the checks it now fails drop it, and the import that drops it says so."""
    conn = vault.shared.conn
    parked = _statement("s_aaaaaaaaaa", "Dana likes tea", metadata="[]", supersedes="s_bbbbbbbbbb")
    with write(conn):
        sync_state.park(conn, "statement", "s_aaaaaaaaaa", _clock(1), PEER, parked)
    good = _statement("s_cccccccccc", "Dana likes coffee")
    report = _import(vault, tmp_path, [Row("statement", "s_cccccccccc", _clock(2), PEER, good)])
    assert report.applied == {"statement": 1}
    [line] = report.refused_rows
    assert "statement row 's_aaaaaaaaaa'" in line and "metadata" in line
    assert sync_state.pending(conn) == [] and report.waiting == 0
    again = _import(vault, tmp_path, [Row("statement", "s_cccccccccc", _clock(2), PEER, good)])
    assert again.refused_rows == ()  # named once


def test_a_sync_round_merges_every_peer_when_one_peer_file_holds_a_bad_statement(
    vault: Vault, tmp_path: Path
) -> None:
    shared = tmp_path / "shared"
    bad = _statement("s_aaaaaaaaaa", "Dana likes tea", metadata="not json")
    good = _statement("s_cccccccccc", "Dana likes coffee")
    for device, row in (
        (PEER, Row("statement", "s_aaaaaaaaaa", _clock(1), PEER, bad)),
        (OTHER, Row("statement", "s_cccccccccc", _clock(1, OTHER), OTHER, good)),
    ):
        (shared / device).mkdir(parents=True)
        sealed = _sealed([row], device)
        folder.write_file(shared, device, 1, lambda out, data=sealed: out.write(data))
    report = vault.sync.sync(shared, secret=SECRET, caller=OWNER)
    assert report.refused == ()
    by_device = {item.device: item for item in report.imported}
    assert by_device[OTHER].applied == {"statement": 1}
    assert by_device[PEER].applied == {} and len(by_device[PEER].refused_rows) == 1
    assert [s.statement.id for s in vault.statements.query(caller=OWNER).statements] == [
        "s_cccccccccc"
    ]


def test_a_peer_file_whose_merge_fails_unexpectedly_is_named_and_the_others_merge(
    vault: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import privault.vault.sync as vault_sync

    shared = tmp_path / "shared"
    for device, statement_id in ((PEER, "s_aaaaaaaaaa"), (OTHER, "s_cccccccccc")):
        row = Row(
            "statement", statement_id, _clock(1, device), device, _statement(statement_id, "x")
        )
        (shared / device).mkdir(parents=True)
        sealed = _sealed([row], device)
        folder.write_file(shared, device, 1, lambda out, data=sealed: out.write(data))
    real = vault_sync.merge

    def merge(conn: Any, rows: Any, derive: Any, now: Any) -> Any:
        if rows[0].origin == PEER:
            raise ValueError("Expecting value: line 1 column 1 (char 0)")
        return real(conn, rows, derive, now)

    monkeypatch.setattr(vault_sync, "merge", merge)
    report = vault.sync.sync(shared, secret=SECRET, caller=OWNER)
    assert [item.device for item in report.imported] == [OTHER]
    assert len(report.refused) == 1 and PEER in report.refused[0][0]
    assert report.refused[0][1].startswith("ValueError: ")
    monkeypatch.setattr(vault_sync, "merge", real)
    again = vault.sync.sync(shared, secret=SECRET, caller=OWNER)  # tried again, and merged
    assert [item.device for item in again.imported] == [PEER] and again.refused == ()


# ---- watches ---------------------------------------------------------------------------


def _watch_payload(vault: Vault, watch_id: str, **changes: Any) -> dict[str, Any]:
    payload: dict[str, Any] = dict(vault.sync.dump()["watch"][watch_id])
    return {**payload, **changes}


@pytest.mark.parametrize("schedule", ["every blue moon", "61 * * * *", "0s", "1h" + "0" * 5000])
def test_a_watch_row_whose_schedule_cannot_be_read_is_refused_alone(
    vault: Vault, tmp_path: Path, schedule: str
) -> None:
    broken = vault.watches.add("remind", "water the plants", caller=OWNER, every="1h").watch
    other = vault.watches.add("remind", "call the bank", caller=OWNER, every="1h").watch
    report = _import(
        vault,
        tmp_path,
        [
            Row(
                "watch",
                broken.id,
                _clock(1),
                PEER,
                _watch_payload(vault, broken.id, schedule=schedule),
            ),
            Row("watch", other.id, _clock(2), PEER, _watch_payload(vault, other.id, schedule="2h")),
        ],
    )
    assert report.applied == {"watch": 1}
    [line] = report.refused_rows
    assert line.startswith(f"row 1: watch row {broken.id!r}: its schedule") and len(line) < 200
    schedules = dict(vault.conn.execute("SELECT id, schedule FROM watches"))
    assert schedules == {broken.id: "1h", other.id: "2h"}


# ---- shelves ---------------------------------------------------------------------------


def test_a_shelf_row_claiming_to_have_seen_its_own_future_is_refused(
    vault: Vault, tmp_path: Path
) -> None:
    vault.shelves.add("health", policy="strict", restricted=True, private=True)
    vault.shelves.add("work", policy="strict")
    me = vault.sync.device
    held = vault.sync.dump()["shelf"]
    stamp = _clock(1)
    future = f"999999999999999.999999.{me}"  # a clock of this device, later than the row's
    loosened = {**held["health"], "restricted": 0, "private": 0, "policy": None}
    report = _import(
        vault,
        tmp_path,
        [
            Row("shelf", "health", stamp, PEER, {**loosened, "seen": {me: future}}),
            Row("shelf", "work", _clock(2), PEER, {**held["work"], "policy": "open", "seen": {}}),
        ],
    )
    [line] = report.refused_rows
    assert line.startswith("row 1: shelf row 'health': it claims to have seen a later version")
    health = vault.shelves.get("health")
    assert (health.restricted, health.private, health.policy) == (True, True, "strict")
    # The other row merged (a concurrent change: the stricter policy stays).
    assert report.applied.get("shelf", 0) + report.unchanged == 1
    assert vault.shelves.get("work").policy == "strict"


def test_a_shelf_row_whose_seen_clocks_precede_it_is_taken(vault: Vault, tmp_path: Path) -> None:
    vault.shelves.add("health", policy="strict", restricted=True, private=True)
    me = vault.sync.device
    stamp_changes(vault.conn)
    [(held_clock,)] = vault.conn.execute(
        "SELECT hlc FROM sync_rows WHERE kind = 'shelf' AND id = 'health'"
    ).fetchall()
    loosened = {**vault.sync.dump()["shelf"]["health"], "restricted": 0, "seen": {me: held_clock}}
    report = _import(vault, tmp_path, [Row("shelf", "health", _clock(1), PEER, loosened)])
    assert report.refused_rows == () and report.applied == {"shelf": 1}
    assert not vault.shelves.get("health").restricted  # it followed the restriction


# ---- watches: no private reach from a bundle ---------------------------------------------


def _planned(vault: Vault, watch_id: str) -> tuple[Any, ...]:
    query = "SELECT target, allow_private, next_run_at FROM watches WHERE id = ?"
    return tuple(vault.conn.execute(query, (watch_id,)).fetchone())


@pytest.mark.parametrize("kind", ["url", "search"])
@pytest.mark.parametrize(
    "target",
    ["http://127.0.0.1:8080/admin/keys", "http://[::1]/", "http://0x7f.1/", "http://10.0.0.1/"],
)
def test_a_bundle_cannot_point_a_watch_at_a_private_address(
    vault: Vault, tmp_path: Path, kind: str, target: str
) -> None:
    made = vault.watches.add(kind, "https://example.com/", caller=OWNER, every="1h").watch
    edited = _watch_payload(vault, made.id, kind="url", target=target, allow_private=1)
    _import(vault, tmp_path, [Row("watch", made.id, _clock(1), PEER, edited)])
    # The definition travels, but it is not planned here and has no private reach.
    assert _planned(vault, made.id) == (target, 0, None)
    report = vault.watches.poll(caller=OWNER, now=int(time.time() * 1000) + 86_400_000)
    assert report.runs == ()


def test_a_watch_new_here_gets_no_private_reach(vault: Vault, tmp_path: Path) -> None:
    made = vault.watches.add("url", "https://example.com/", caller=OWNER, every="1h").watch
    payload = _watch_payload(vault, made.id, target="http://127.0.0.1/", allow_private=1)
    _import(vault, tmp_path, [Row("watch", "w0000beef", _clock(1), PEER, payload)])
    assert _planned(vault, "w0000beef") == ("http://127.0.0.1/", 0, None)


def test_private_reach_stays_this_devices_own(vault: Vault, tmp_path: Path) -> None:
    lan = "http://192.168.1.20/status"
    made = vault.watches.add("url", lan, caller=OWNER, every="1h", allow_private=True).watch
    before = _planned(vault, made.id)
    # Another device's edit that leaves the target alone keeps this device's grant ...
    same = _watch_payload(vault, made.id, schedule="2h", allow_private=0)
    _import(vault, tmp_path, [Row("watch", made.id, _clock(1), PEER, same)])
    assert _planned(vault, made.id) == before
    # ... and one that moves it to another private address loses it and stops here.
    moved = _watch_payload(vault, made.id, target="http://192.168.1.1/admin", allow_private=1)
    _import(vault, tmp_path, [Row("watch", made.id, _clock(2), PEER, moved)])
    assert _planned(vault, made.id) == ("http://192.168.1.1/admin", 0, None)


@pytest.mark.parametrize(
    "changes", [{"options": {"fetch_pages": True}}, {"shelf": "elsewhere"}, {"author": "bot"}]
)
def test_private_reach_is_lost_when_a_bundle_changes_what_a_watch_fetches(
    vault: Vault, tmp_path: Path, changes: dict[str, Any]
) -> None:
    """`fetch_pages` fetches every search result with the watch's reach: a bundle turning
    it on for a watch that may reach the LAN here would fetch result URLs on the LAN. Any
    change but to when a watch runs takes the reach away; the watch keeps running."""
    made = vault.watches.add(
        "search", "printer status", caller=OWNER, every="1h", allow_private=True
    ).watch
    planned = _planned(vault, made.id)
    assert planned[1] == 1
    edited = _watch_payload(vault, made.id, allow_private=1, **changes)
    _import(vault, tmp_path, [Row("watch", made.id, _clock(1), PEER, edited)])
    assert _planned(vault, made.id) == ("printer status", 0, planned[2])
    # When it runs is another device's to change: the reach stays for that.
    again = vault.watches.add(
        "search", "router status", caller=OWNER, every="1h", allow_private=True
    ).watch
    timing = _watch_payload(vault, again.id, schedule="2h", status="paused", max_catchup=3)
    _import(vault, tmp_path, [Row("watch", again.id, _clock(2), PEER, timing)])
    assert _planned(vault, again.id)[1] == 1


def test_a_watch_moved_to_a_public_address_keeps_running(vault: Vault, tmp_path: Path) -> None:
    made = vault.watches.add("url", "https://example.com/", caller=OWNER, every="1h").watch
    planned = _planned(vault, made.id)[2]
    moved = _watch_payload(vault, made.id, target="https://example.org/")
    _import(vault, tmp_path, [Row("watch", made.id, _clock(1), PEER, moved)])
    assert _planned(vault, made.id) == ("https://example.org/", 0, planned)


# ---- documents and sections ------------------------------------------------------------


def _document_row(vault: Vault, tmp_path: Path) -> tuple[str, dict[str, Any]]:
    added = vault.note("# Boiler\nService due in March.", caller=OWNER)
    return added.doc_id, dict(vault.sync.dump()["document"][added.doc_id])


def _first_section(payload: dict[str, Any], **at: int) -> dict[str, Any]:
    sections = [list(item) for item in payload["sections"]]
    if "start" in at:
        sections[0][7] = at["start"]
    if "end" in at:
        sections[0][8] = at["end"]
    return {**payload, "sections": sections}


@pytest.mark.parametrize(
    "change, says",
    [
        (lambda p: _first_section(p, start=5, end=4), "does not lie inside"),
        (lambda p: _first_section(p, start=-5), "does not lie inside"),
        (lambda p: _first_section(p, end=999_999), "does not lie inside"),
    ],
)
def test_a_document_row_outside_local_write_bounds_is_refused_alone(
    tmp_path: Path, change: Any, says: str
) -> None:
    source = fake_vault(tmp_path / "b" / "vault.db")
    target = fake_vault(tmp_path / "c" / "vault.db")
    try:
        doc_id, payload = _document_row(source, tmp_path)
        kept = source.note("# Kettle\nDescale monthly.", caller=OWNER).doc_id
        good = dict(source.sync.dump()["document"][kept])
        report = _import(
            target,
            tmp_path,
            [
                Row("document", doc_id, _clock(1), PEER, change(payload)),
                Row("document", kept, _clock(2), PEER, good),
            ],
        )
        [line] = report.refused_rows
        assert line.startswith(f"row 1: document row {doc_id!r}: ") and says in line
        assert report.applied == {"document": 1}
        assert [d.doc_id for d in target.docs(caller=OWNER).documents] == [kept]
    finally:
        source.close()
        target.close()


def test_a_local_note_title_is_stored_within_the_bound_a_synced_row_must_keep(
    vault: Vault,
) -> None:
    added = vault.note("Service due in March.", caller=OWNER, title="T" * 2_000)
    assert len(vault.sync.dump()["document"][added.doc_id]["title"]) == 500


YEAR_500 = -46_757_376_000_000  # what imports stored before times were range-checked


@pytest.mark.parametrize(
    "title, stored",
    [
        ("Boiler " + "T" * 2_000, "Boiler " + "T" * 493),
        ("T" * 501, "T" * 500),
        ("T" * 500, "T" * 500),
    ],
)
def test_a_title_an_older_version_stored_whole_is_clipped_as_a_local_write_clips_it(
    tmp_path: Path, title: str, stored: str
) -> None:
    """Versions before cbc4be4 stored titles longer than the bound (explicit titles,
    reminders, HTML titles): such a row is taken with its title clipped, not refused for
    good."""
    source = fake_vault(tmp_path / "b" / "vault.db")
    target = fake_vault(tmp_path / "c" / "vault.db")
    try:
        doc_id, payload = _document_row(source, tmp_path)
        row = Row("document", doc_id, _clock(1), PEER, {**payload, "title": title})
        report = _import(target, tmp_path, [row])
        assert report.refused_rows == () and report.applied == {"document": 1}
        assert target.sync.dump()["document"][doc_id]["title"] == stored
        assert [d.doc_id for d in target.docs(caller=OWNER).documents] == [doc_id]
        # Its labels were scanned as stored: the title clipped is the label kept.
        labels = target.shared.conn.execute(
            "SELECT label FROM label_spans WHERE doc_id = ?", (doc_id,)
        ).fetchall()
        assert (stored,) in labels and all(len(label) <= 500 for (label,) in labels)
    finally:
        source.close()
        target.close()


@pytest.mark.parametrize(
    "dates", [{"created_at": YEAR_500}, {"updated_at": 2**62}, {"created_at": -(2**63)}]
)
def test_a_date_an_older_version_stored_outside_years_1000_9999_is_kept(
    tmp_path: Path, dates: dict[str, int]
) -> None:
    """to_iso shows such a date exactly (14b2fd0): the row is taken as it came."""
    source = fake_vault(tmp_path / "b" / "vault.db")
    target = fake_vault(tmp_path / "c" / "vault.db")
    try:
        doc_id, payload = _document_row(source, tmp_path)
        report = _import(
            target, tmp_path, [Row("document", doc_id, _clock(1), PEER, {**payload, **dates})]
        )
        assert report.refused_rows == () and report.applied == {"document": 1}
        held = target.sync.dump()["document"][doc_id]
        assert {name: held[name] for name in dates} == dates
        assert [d.doc_id for d in target.docs(caller=OWNER).documents] == [doc_id]
        assert len(target.search("boiler service", caller=OWNER).results) == 1
    finally:
        source.close()
        target.close()


def test_a_synced_long_title_named_in_breadcrumbs_is_masked_in_the_index(
    tmp_path: Path,
) -> None:
    """A peer of an older version sends a title over the bound, its sections' breadcrumbs
    naming it whole. Clipping the title alone left the breadcrumb a label no scan took: a
    process that had already checked its masked entries wrote the window's entry in clear,
    and an agent's search for the number in it found the note (an absent one did not)."""
    agent = Caller.agent("helper")
    privacy = {"agent_default": "standard"}
    source = fake_vault(tmp_path / "b" / "vault.db", privacy=privacy)
    target = fake_vault(tmp_path / "c" / "vault.db", privacy=privacy)
    try:
        target.search("warm up", caller=agent)  # a running server: entries checked once
        title = "Call 555-12-3456 about the boiler\n" + "x" * 600
        added = source.note("# Plan\nService due in March.", caller=OWNER, title="Boiler")
        payload = dict(source.sync.dump()["document"][added.doc_id])
        sections = [list(section) for section in payload["sections"]]
        for section in sections:
            section[5] = [title if part == "Boiler" else part for part in section[5]]
        payload = {**payload, "title": title, "sections": sections}
        report = _import(
            target, tmp_path, [Row("document", added.doc_id, _clock(1), PEER, payload)]
        )
        assert report.refused_rows == ()
        for number in ("555-12-3456", "987-65-4321"):
            assert target.search(number, caller=agent).results == (), number
        [listed] = target.docs(caller=OWNER).documents
        assert "\n" not in str(listed.title) and len(str(listed.title)) <= 500
    finally:
        source.close()
        target.close()
