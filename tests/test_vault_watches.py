"""Watches through the facade: filing into the real vault, agent rules, the privacy gate.

Pages and a fake SearXNG backend are served from 127.0.0.1 by the test itself; the vault
uses the fake embedder and detector.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from test_watches_support import LocalServer, html_page, send, serve

from privault.caller import Caller
from privault.errors import AccessDenied, InputError, NotFound
from privault.store import documents
from privault.timeutil import now_ms, to_iso
from privault.vault import Vault
from privault.vault.watches import VaultWatches
from privault.watches.actions import SearchBackend
from privault.watches.fetcher import Fetcher, FetchLimits

OWNER = Caller.owner()
AGENT = Caller.agent("helper")  # unlisted: the `standard` policy (redact)
READER = Caller.agent("reader", read_only=True)
HOUR = 3_600_000
PAGE = {"paragraphs": ["The price is 10 euros.", "Opening hours are nine to five."]}


def _page(handler: BaseHTTPRequestHandler) -> None:
    send(handler, html_page("Harbour shop", *PAGE["paragraphs"]))


def _search(handler: BaseHTTPRequestHandler) -> None:
    base = f"http://127.0.0.1:{handler.server.server_address[1]}"
    results = [
        {"url": f"{base}/result-a", "title": "Lighthouse repairs", "content": "keeper cottage"},
        {"url": f"{base}/result-b", "title": "Ferry timetable", "content": "winter crossings"},
    ]
    send(handler, json.dumps({"results": results}), content_type="application/json")


ROUTES = {
    "/shop": _page,
    "/search": _search,
    "/result-a": lambda h: send(h, html_page("A", "The lighthouse gets a new lamp in spring.")),
    "/result-b": lambda h: send(h, html_page("B", "Ferries run twice a day in winter.")),
}


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with serve(ROUTES) as running:
        yield running


@pytest.fixture
def vault(vault: Vault) -> Vault:
    vault.watches._fetcher = Fetcher(limits=FetchLimits(total_seconds=5.0))
    return vault


def _watches(vault: Vault) -> VaultWatches:
    watches: VaultWatches = vault.watches  # type: ignore[attr-defined]
    return watches


def test_url_watch_files_new_versions_and_search_returns_the_newest(
    vault: Vault, server: LocalServer
) -> None:
    watches = _watches(vault)
    start = now_ms()
    added = watches.add("url", server.url("/shop"), caller=OWNER, every="1h", allow_private=True)
    first = watches.poll(caller=OWNER, now=start + 1000)
    [run] = first.report.runs
    assert run.status == "changed" and run.diff is None
    [old_id] = run.doc_ids

    same = watches.poll(caller=OWNER, now=start + HOUR + 1000)
    assert [r.status for r in same.report.runs] == ["unchanged"]

    PAGE["paragraphs"] = ["The price is 12 euros.", "Write to shop@example.com for hours."]
    try:
        changed = watches.poll(caller=OWNER, now=to_iso(start + 2 * HOUR + 1000))
    finally:
        PAGE["paragraphs"] = ["The price is 10 euros.", "Opening hours are nine to five."]
    [run] = changed.report.runs
    assert run.status == "changed" and run.diff is not None
    assert "-The price is 10 euros." in run.diff and "+The price is 12 euros." in run.diff
    [new_id] = run.doc_ids
    assert new_id != old_id

    new, old = documents.get(vault.conn, new_id), documents.get(vault.conn, old_id)
    assert new is not None and old is not None
    assert new.current and not old.current and new.previous_id == old_id
    assert new.untrusted and new.metadata["watch_id"] == added.watch.id

    hits = vault.search("price euros", caller=OWNER).results
    assert hits and {hit.doc_id for hit in hits} == {new_id}
    assert "12 euros" in hits[0].text
    old_node = vault.tree(old_id, caller=OWNER).nodes[0].node_id
    assert "10 euros" in vault.read(old_node, caller=OWNER).text

    shown = watches.show(added.watch.id, caller=OWNER)
    assert [r.status for r in shown.runs] == ["changed", "unchanged", "changed"]
    assert "shop@example.com" in (shown.runs[0].diff or "")


def test_agent_sees_run_diffs_and_targets_gated(vault: Vault, server: LocalServer) -> None:
    watches = _watches(vault)
    added = watches.add("url", server.url("/shop"), caller=OWNER, every="1h", allow_private=True)
    watches.poll(caller=OWNER, now=now_ms() + 1000)
    PAGE["paragraphs"] = ["Write to shop@example.com for hours."]
    try:
        watches.run(added.watch.id, caller=OWNER)
    finally:
        PAGE["paragraphs"] = ["The price is 10 euros.", "Opening hours are nine to five."]
    seen = watches.show(added.watch.id, caller=AGENT)
    assert "shop@example.com" not in json.dumps(seen.to_dict())
    assert "<EMAIL_ADDRESS_1>" in (seen.runs[0].diff or "")
    assert "127.0.0.1" not in seen.watch.target  # the IP in the URL is detected too
    assert seen.privacy.policy == "standard" and seen.privacy.held_back["EMAIL_ADDRESS"] >= 1


def test_a_reminder_that_comes_due_is_searchable_and_listed_until_acked(vault: Vault) -> None:
    watches = _watches(vault)
    start = now_ms()
    text = "Call Dr. Alice Smith about the boiler service"
    added = watches.add("remind", text, caller=OWNER, at=start - 5_000)
    assert watches.reminders(caller=OWNER).reminders == ()

    report = watches.poll(caller=OWNER, now=start).report
    assert [run.status for run in report.runs] == ["filed"]
    [reminder] = watches.reminders(caller=OWNER).reminders
    assert reminder.text == text and reminder.due and reminder.watch_id == added.watch.id
    [watch] = watches.list(caller=OWNER).watches
    assert watch.status == "finished"  # a one-off reminder runs once

    [hit] = vault.search("boiler service", caller=OWNER).results
    assert hit.doc_id == reminder.doc_id and hit.kind == "reminder"
    doc = documents.get(vault.conn, reminder.doc_id)
    assert doc is not None and "reminder" in doc.tags
    assert doc.source == f"reminder:{added.watch.id}"  # every run of it files this one note

    theirs = watches.reminders(caller=AGENT)
    assert theirs.reminders[0].text == "Call <PERSON_1> about the boiler service"
    assert theirs.privacy.held_back == {"PERSON": 1}

    watches.poll(caller=OWNER, now=start + HOUR)  # nothing new is due; still listed
    assert len(watches.reminders(caller=OWNER).reminders) == 1
    acked = watches.ack(reminder.id, caller=OWNER)
    assert acked.reminder.acked_at is not None
    assert watches.reminders(caller=OWNER).reminders == ()
    assert len(watches.reminders(caller=OWNER, include_acked=True).reminders) == 1
    with pytest.raises(NotFound):
        watches.ack("rmissing", caller=OWNER)


def test_acknowledged_reminders_page_by_cursor_and_a_hidden_shelf_is_left_out(
    vault: Vault,
) -> None:
    watches = _watches(vault)
    vault.shelves.add("health", restricted=True)
    start = now_ms() - 5_000
    for n in range(5):
        watches.add("remind", f"Stretch {n}", caller=OWNER, at=start)
    watches.add("remind", "Book the dentist", caller=OWNER, at=start, shelf="health")
    watches.poll(caller=OWNER, now=start)
    for reminder in watches.reminders(caller=OWNER).reminders:
        watches.ack(reminder.id, caller=OWNER)
    first = watches.acknowledged(caller=OWNER, limit=4).reminders
    last = first[-1]
    rest = watches.acknowledged(caller=OWNER, limit=4, after=(last.acked_at or 0, last.id))
    assert len(first) == 4 and len(rest.reminders) == 2
    assert {r.id for r in first}.isdisjoint(r.id for r in rest.reminders)
    assert watches.count_acknowledged(caller=OWNER) == 6
    # For an agent, a reminder on a shelf it cannot see does not exist, nor is counted.
    theirs = watches.acknowledged(caller=AGENT, limit=10).reminders
    assert len(theirs) == 5 and "Book the dentist" not in [r.text for r in theirs]
    assert watches.count_acknowledged(caller=AGENT) == 5


def _file_hourly(watches: VaultWatches, text: str, count: int, start: int, shelf: str) -> None:
    """`count` reminders of one hourly watch from `start`, filed by one poll; the watch is
    cancelled then, so a later poll files no more of them."""
    added = watches.add(
        "remind", text, caller=OWNER, at=start, every="1h", shelf=shelf, max_catchup=count
    )
    watches.poll(caller=OWNER, now=start + (count - 1) * HOUR)
    watches.cancel(added.watch.id, caller=OWNER)


def test_a_reminder_list_cut_at_its_limit_counts_the_rest_and_lists_them_after(
    vault: Vault,
) -> None:
    # `reminders` stopped at 100 without a word; the rest are counted and listed by `next`.
    watches = _watches(vault)
    _file_hourly(watches, "Stretch", 130, now_ms() - 200 * HOUR, "default")
    first = watches.reminders(caller=OWNER)
    assert (len(first.reminders), first.more) == (100, 30) and first.next is not None
    rest = watches.reminders(caller=OWNER, after=first.next)
    assert (len(rest.reminders), rest.more, rest.next) == (30, 0, None)
    due = [item.due_at for item in (*first.reminders, *rest.reminders)]
    assert due == sorted(set(due)) and len(due) == 130  # the longest due first, each once
    watches.ack(first.reminders[0].id, caller=OWNER)
    seen, after = [], None
    while True:  # with the acknowledged one, the newest first, 40 at a time
        page = watches.reminders(caller=OWNER, include_acked=True, limit=40, after=after)
        assert page.more == 130 - len(seen) - len(page.reminders)
        seen += [item.due_at for item in page.reminders]
        if page.next is None:
            break
        after = page.next
    assert seen == sorted(due, reverse=True)


def test_an_agent_is_counted_only_the_reminders_on_shelves_it_may_see(vault: Vault) -> None:
    watches = _watches(vault)
    vault.shelves.add("health", restricted=True)
    start = now_ms() - 200 * HOUR
    _file_hourly(watches, "Take the pills", 120, start, "health")  # due first
    _file_hourly(watches, "Stretch", 5, start + 150 * HOUR, "default")
    theirs = watches.reminders(caller=AGENT)  # all five, though 120 hidden ones come first
    assert [item.text for item in theirs.reminders] == ["Stretch"] * 5 and theirs.more == 0
    assert watches.reminders(caller=OWNER, limit=3).more == 122
    cut = watches.reminders(caller=AGENT, limit=3)
    assert (len(cut.reminders), cut.more) == (3, 2)  # the hidden 120 are not counted
    rest = watches.reminders(caller=AGENT, limit=3, after=cut.next)
    assert [item.text for item in rest.reminders] == ["Stretch"] * 2 and rest.next is None
    newest = watches.reminders(caller=AGENT, include_acked=True, limit=2)
    assert {item.text for item in newest.reminders} == {"Stretch"} and newest.more == 3
    # A cursor into the hidden shelf's part of the list finds and counts none of them.
    hidden = watches.reminders(caller=OWNER, limit=1).reminders[0]
    past = watches.reminders(caller=AGENT, limit=1, after=f"{hidden.due_at - 1}.{hidden.id}")
    assert past.more == 4 and past.reminders[0].text == "Stretch"


def test_every_snoozed_reminder_is_listed_however_many_are_due(vault: Vault) -> None:
    watches = _watches(vault)
    vault.shelves.add("health", restricted=True)
    start = now_ms() - 200 * HOUR
    _file_hourly(watches, "Stretch", 130, start, "default")
    _file_hourly(watches, "Take the pills", 2, start - 10 * HOUR, "health")
    oldest, pills = watches.reminders(caller=OWNER, limit=2).reminders
    stretch = watches.reminders(caller=OWNER, limit=3).reminders[2]
    for item in (oldest, pills, stretch):
        watches.snooze(item.id, caller=OWNER, interval="1d")
    assert {item.id for item in watches.snoozed(caller=OWNER).reminders} == {
        oldest.id,
        pills.id,
        stretch.id,
    }
    assert [item.id for item in watches.snoozed(caller=AGENT).reminders] == [stretch.id]
    assert watches.reminders(caller=OWNER).more == 29  # 129 due, none of them snoozed


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"limit": 0}, "limit must be 1-1000"),
        ({"limit": 1001}, "limit must be 1-1000"),
        ({"after": "r1"}, "`after` takes the `next`"),
        ({"after": "12.".ljust(80, "x")}, "`after` takes the `next`"),
        ({"after": "²3.r1"}, "`after` takes the `next`"),
        ({"after": f"{2**63}.r1"}, "out of range"),
    ],
)
def test_a_reminder_limit_or_cursor_out_of_shape_is_refused(
    vault: Vault, arguments: dict[str, Any], message: str
) -> None:
    with pytest.raises(InputError, match=message):
        _watches(vault).reminders(caller=AGENT, **arguments)


def test_a_redelivered_reminder_files_the_same_note(vault: Vault) -> None:
    filer = _watches(vault).filer
    source = "reminder:w1@1780000000000"
    note = {"title": "Renew", "text": "Renew the passport", "tags": ["reminder"]}
    first = filer.file_note(**note, shelf="default", kind="reminder", source=source)
    again = filer.file_note(**note, shelf="default", kind="reminder", source=source)
    later = filer.file_note(**note, shelf="default", kind="reminder", source=source + "1")
    assert first == again != later


def test_search_watch_files_each_result_once(vault: Vault, server: LocalServer) -> None:
    watches = _watches(vault)
    backend = SearchBackend(server.url("/search"), allow_private=True)
    start = now_ms()
    # Result pages are fetched under the watch's own setting; these are on loopback.
    watches.add(
        "search", "harbour news", caller=OWNER, every="1d", fetch_pages=True, allow_private=True
    )
    report = watches.poll(caller=OWNER, now=start + 1000, search=backend).report
    [run] = report.runs
    assert run.status == "filed" and len(run.doc_ids) == 2

    again = watches.poll(caller=OWNER, now=start + 25 * HOUR, search=backend).report
    assert [r.status for r in again.runs] == ["unchanged"]
    # Another watch with the same results: they are already filed, so skipped.
    watches.add("search", "harbour", caller=OWNER, every="1d")
    other = watches.poll(caller=OWNER, now=start + 25 * HOUR + 1000, search=backend).report
    assert [(r.status, r.doc_ids) for r in other.runs] == [("unchanged", ())]

    pages = documents.list_documents(vault.conn, shelves=None, kind="page")
    assert len(pages) == 2 and all(page.untrusted for page in pages)
    [hit] = vault.search("new lamp lighthouse", caller=OWNER, limit=1).results
    assert "keeper cottage" in hit.text and "new lamp in spring" in hit.text


def test_search_watch_without_a_backend_is_a_recorded_error(vault: Vault) -> None:
    watches = _watches(vault)
    watches.add("search", "anything", caller=OWNER, every="1d")
    [run] = watches.poll(caller=OWNER, now=now_ms() + 1000).report.runs
    assert run.status == "error" and "no search backend" in (run.error or "")


def test_folder_watch_indexes_and_marks_removed(vault: Vault, tmp_path: Path) -> None:
    watches = _watches(vault)
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "garden.md").write_text("# Garden\nPlant the tulip bulbs in October.\n")
    (folder / "bike.txt").write_text("The bike needs a new chain and brake pads.\n")
    start = now_ms()
    added = watches.add("folder", str(folder), caller=OWNER, every="1h")
    [run] = watches.poll(caller=OWNER, now=start + 1000).report.runs
    assert run.status == "changed" and len(run.doc_ids) == 2
    [bike] = vault.search("bike chain brake", caller=OWNER, limit=1).results

    (folder / "bike.txt").unlink()
    (folder / "garden.md").write_text("# Garden\nPlant the tulip bulbs in November.\n")
    [run] = watches.poll(caller=OWNER, now=start + HOUR + 1000).report.runs
    assert run.summary.startswith("1 indexed, 1 removed")
    doc = documents.get(vault.conn, bike.doc_id)
    assert doc is not None and not doc.current and "removed" in doc.tags
    assert "removed_at" in doc.metadata
    assert all(
        hit.doc_id != bike.doc_id for hit in vault.search("bike chain", caller=OWNER).results
    )
    assert "brake pads" in vault.read(bike.node_id, caller=OWNER).text  # marked, still readable
    [garden] = vault.search("tulip bulbs", caller=OWNER, limit=1).results
    assert "November" in garden.text
    assert watches.list(caller=AGENT).watches[0].target == "<FOLDER>"
    assert watches.show(added.watch.id, caller=OWNER).watch.target == str(folder.resolve())


def test_agents_may_add_only_what_they_could_reach(vault: Vault, tmp_path: Path) -> None:
    watches = _watches(vault)
    with pytest.raises(AccessDenied, match="folders"):
        watches.add("folder", str(tmp_path), caller=AGENT, every="1h")
    with pytest.raises(AccessDenied, match="private"):
        watches.add("url", "http://127.0.0.1:9/", caller=AGENT, every="1h", allow_private=True)
    with pytest.raises(InputError, match="allow-private"):  # loopback refused without it
        watches.add("url", "http://127.0.0.1:9/", caller=AGENT, every="1h")
    with pytest.raises(AccessDenied, match="read-only"):
        watches.add("remind", "water the plants", caller=READER, every="1d")

    mine = watches.add("remind", "water the plants", caller=AGENT, every="1d")
    assert mine.watch.kind == "remind"
    owners = watches.add("url", "http://127.0.0.1:9/", caller=OWNER, every="1h", allow_private=True)
    listed = watches.list(caller=READER)
    assert {w.id for w in listed.watches} == {mine.watch.id, owners.watch.id}
    with pytest.raises(AccessDenied, match="read-only"):
        watches.cancel(mine.watch.id, caller=READER)
    with pytest.raises(AccessDenied, match="only the owner"):
        watches.cancel(owners.watch.id, caller=AGENT)
    with pytest.raises(AccessDenied, match="only the owner"):
        watches.run(owners.watch.id, caller=AGENT)
    with pytest.raises(AccessDenied):
        watches.poll(caller=AGENT)
    assert watches.pause(mine.watch.id, caller=AGENT).watch.status == "paused"
    assert watches.resume(mine.watch.id, caller=AGENT).watch.status == "active"
    assert watches.cancel(mine.watch.id, caller=AGENT).watch.status == "cancelled"


def test_watches_on_a_restricted_shelf_do_not_exist_for_other_agents(vault: Vault) -> None:
    watches = _watches(vault)
    vault.shelves.add("family", restricted=True)
    hidden = watches.add("remind", "birthday gift", caller=OWNER, every="1w", shelf="family")
    assert watches.list(caller=AGENT).watches == ()
    with pytest.raises(NotFound):
        watches.show(hidden.watch.id, caller=AGENT)
    with pytest.raises(NotFound):
        watches.add("remind", "sneaky", caller=AGENT, every="1d", shelf="family")
    assert [w.id for w in watches.list(caller=OWNER).watches] == [hidden.watch.id]


def test_bad_inputs_are_refused(vault: Vault) -> None:
    watches = _watches(vault)
    with pytest.raises(InputError, match="search watches only"):
        watches.add("url", "https://example.org/", caller=OWNER, every="1d", fetch_pages=True)
    with pytest.raises(InputError, match="no offset"):
        watches.add("remind", "x", caller=OWNER, at="2026-03-01T09:00:00")
    with pytest.raises(InputError, match="schedule"):
        watches.add("remind", "x", caller=OWNER)
    with pytest.raises(NotFound):
        watches.show("wnothere", caller=OWNER)


def test_recent_is_show_for_the_newest_watches_in_one_reply(
    vault: Vault, server: LocalServer
) -> None:
    watches = _watches(vault)
    vault.shelves.add("family", restricted=True)
    page = watches.add("url", server.url("/shop"), caller=OWNER, every="1h", allow_private=True)
    watches.poll(caller=OWNER, now=now_ms() + 1000)
    PAGE["paragraphs"] = ["Write to shop@example.com for hours."]
    try:
        watches.run(page.watch.id, caller=OWNER)
    finally:
        PAGE["paragraphs"] = ["The price is 10 euros.", "Opening hours are nine to five."]
    quiet = watches.add("remind", "water the plants", caller=OWNER, every="1w")
    hidden = watches.add("remind", "birthday gift", caller=OWNER, every="1w", shelf="family")
    cancelled = watches.add("remind", "old chore", caller=OWNER, every="1w")
    watches.cancel(cancelled.watch.id, caller=OWNER)

    for caller in (OWNER, AGENT):
        recent = watches.recent(caller=caller, runs=5)
        for item in recent.watches:  # the same watch and runs as `show` gives, one by one
            one = watches.show(item.watch.id, caller=caller, runs=5)
            assert item.watch == one.watch and item.runs == one.runs
    owner = watches.recent(caller=OWNER)
    assert [w.watch.id for w in owner.watches] == [hidden.watch.id, quiet.watch.id, page.watch.id]
    assert owner.total == 3 and len(owner.watches[2].runs) == 2  # first fetch, then the change
    agent = watches.recent(caller=AGENT, limit=1, runs=1)
    assert [w.watch.id for w in agent.watches] == [quiet.watch.id] and agent.total == 2
    gated = watches.recent(caller=AGENT).watches[1]
    assert "shop@example.com" not in (gated.runs[0].diff or "") and gated.runs[0].diff
    assert gated.privacy.held_back["EMAIL_ADDRESS"] >= 1
    everything = watches.recent(caller=OWNER, include_cancelled=True)
    assert everything.watches[0].watch.id == cancelled.watch.id
    with pytest.raises(InputError):
        watches.recent(caller=OWNER, limit=0)


def test_agents_never_see_a_watched_url_s_credentials_or_tokens(vault: Vault) -> None:
    watches = _watches(vault)
    url = "https://owner:hunter2@shop.example.com/stock?item=boat&token=abc123"
    added = watches.add("url", url, caller=OWNER, every="1d")
    [seen] = watches.list(caller=AGENT).watches
    assert not any(secret in seen.target for secret in ("hunter2", "abc123", "boat"))
    assert seen.target.endswith("@shop.example.com/stock?item=<VALUE>&token=<VALUE>")
    assert watches.show(added.watch.id, caller=OWNER).watch.target == url  # the owner's own


LAN = {"nas.lan": ["192.168.1.20"], "printer.lan": ["10.0.0.7"]}


def _lan_resolver(host: str, port: int) -> list[str]:
    """The owner's local DNS, as a table: no lookup leaves the machine."""
    if host not in LAN:
        raise OSError(-2, "Name or service not known")
    return LAN[host]


def test_agents_see_one_reason_for_every_blocked_or_unresolvable_target(vault: Vault) -> None:
    # Which names the owner's DNS knows, and the addresses behind them, are the owner's: an
    # agent that watches guessed names must not learn from the errors which ones exist.
    watches = _watches(vault)
    watches._fetcher = Fetcher(limits=FetchLimits(total_seconds=5.0), resolver=_lan_resolver)
    added = [
        watches.add("url", f"http://{host}/", caller=AGENT, every="1h").watch.id
        for host in ("nas.lan", "printer.lan", "nothere.lan")
    ]
    searching = watches.add("search", "harbour", caller=AGENT, every="1h").watch.id
    backend = SearchBackend("http://nas.lan/search")
    watches.poll(caller=OWNER, now=now_ms() + 1000, search=backend)

    blocked = "blocked: the target is not a reachable public address"
    for watch_id in added:
        for seen in (watches.show(watch_id, caller=AGENT), watches.show(watch_id, caller=READER)):
            [run] = seen.runs
            assert seen.watch.last_error == run.error == run.summary == blocked
    by_id = {w.id: w for w in watches.list(caller=AGENT).watches}
    assert [by_id[watch_id].last_error for watch_id in added] == [blocked] * 3
    [run] = watches.show(searching, caller=AGENT).runs
    assert run.error == f"search backend: {blocked}"

    # The owner keeps the detail, to fix a name or an address.
    owners = [watches.show(watch_id, caller=OWNER).watch.last_error or "" for watch_id in added]
    assert "192.168.1.20 is a private address" in owners[0]
    assert "10.0.0.7 is a private address" in owners[1]
    assert "cannot resolve nothere.lan" in owners[2]
    [run] = watches.show(searching, caller=OWNER).runs
    assert "search backend: blocked: 192.168.1.20" in (run.error or "")


def test_agents_read_no_detail_of_a_failed_connection(vault: Vault) -> None:
    # "Connection refused" against "no route to host" says which of the owner's machines
    # are up; an agent reads that the target could not be reached, the owner the detail.
    watches = _watches(vault)
    watches._fetcher = Fetcher(limits=FetchLimits(total_seconds=5.0), resolver=_lan_resolver)
    added = watches.add("url", "http://127.0.0.1:9/", caller=OWNER, every="1h", allow_private=True)
    watch_id = added.watch.id
    watches.poll(caller=OWNER, now=now_ms() + 1000)

    owners = watches.show(watch_id, caller=OWNER).watch.last_error or ""
    assert owners.startswith("connect: ") and "refused" in owners.lower(), owners
    for caller in (AGENT, READER):
        seen = watches.show(watch_id, caller=caller)
        [run] = seen.runs
        assert seen.watch.last_error == run.error == "connect: the target could not be reached"


def test_a_reminder_due_before_1970_pages_by_its_own_cursor(vault: Vault) -> None:
    # Times before 1970 are kept (years 1000-9999): the cursor of such a reminder is read back.
    watches = _watches(vault)
    for at, text in ((-86_400_000, "Old one"), (-172_800_000, "Older one")):
        watches.add("remind", text, caller=OWNER, at=at)
    watches.poll(caller=OWNER, now=now_ms())
    first = watches.reminders(caller=OWNER, limit=1)
    assert first.more == 1 and first.next is not None and first.next.startswith("-")
    rest = watches.reminders(caller=OWNER, limit=1, after=first.next)
    assert rest.more == 0 and len(rest.reminders) == 1
    assert {first.reminders[0].text, rest.reminders[0].text} == {"Old one", "Older one"}
