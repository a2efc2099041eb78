"""Polling real watches against a loopback server, filing into a FakeFiler."""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from test_watches_support import FakeFiler, LocalServer, html_page, send, serve

from privault.store import jobs
from privault.store.connection import Connection, rows
from privault.watches.actions import SearchBackend
from privault.watches.fetcher import Fetcher, FetchLimits
from privault.watches.manage import add_watch, get_watch, watch_runs
from privault.watches.poll import poll

T0 = 1_780_000_000_000
HOUR = 3_600_000
PAGE = {"paragraphs": ["The price is 10 euros.", "Opening hours are nine to five."]}
SEARCH = {
    "results": [
        {"url": "http://127.0.0.1:PORT/result-a", "title": "Result A", "content": "about A"},
        {"url": "http://127.0.0.1:PORT/result-b", "title": "Result B", "content": "about B"},
    ]
}


def _page(handler: BaseHTTPRequestHandler) -> None:
    send(handler, html_page("Shop", *PAGE["paragraphs"]))


def _search(handler: BaseHTTPRequestHandler) -> None:
    port = str(handler.server.server_address[1])
    assert "format=json" in handler.path and "q=" in handler.path
    send(handler, json.dumps(SEARCH).replace("PORT", port), content_type="application/json")


ROUTES = {
    "/shop": _page,
    "/search": _search,
    "/result-a": lambda h: send(h, html_page("A", "Full text of result A.")),
    "/result-b": lambda h: send(h, html_page("B", "Full text of result B.")),
    "/result-c": lambda h: send(h, html_page("C", "Full text of result C.")),
    "/broken": lambda h: send(h, "boom", status=500, content_type="text/plain"),
    "/image": lambda h: send(h, b"\x89PNG", content_type="image/png"),
}


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with serve(ROUTES) as running:
        yield running


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    with Fetcher(limits=FetchLimits(total_seconds=5.0)) as f:
        yield f


def test_url_watch_files_versions_only_when_content_changes(
    conn: Connection, server: LocalServer, fetcher: Fetcher
) -> None:
    watch = add_watch(conn, "url", server.url("/shop"), every="1h", allow_private=True, now_ms=T0)
    filer = FakeFiler()
    first = poll(conn, filer, fetcher, now_ms=T0)
    assert [run.status for run in first.runs] == ["changed"]
    assert "Opening hours" in filer.calls[0][1]["text"]

    same = poll(conn, filer, fetcher, now_ms=T0 + HOUR)
    assert [run.status for run in same.runs] == ["unchanged"]
    assert len(filer.pages[server.url("/shop")]) == 1

    PAGE["paragraphs"] = ["The price is 12 euros.", "Opening hours are nine to five."]
    try:
        changed = poll(conn, filer, fetcher, now_ms=T0 + 2 * HOUR)
    finally:
        PAGE["paragraphs"] = ["The price is 10 euros.", "Opening hours are nine to five."]
    [run] = changed.runs
    assert run.status == "changed" and run.diff is not None
    assert "-The price is 10 euros." in run.diff and "+The price is 12 euros." in run.diff
    assert len(filer.pages[server.url("/shop")]) == 2  # the old version is kept by the filer
    stored = get_watch(conn, watch.id)
    assert stored.runs == 3 and stored.last_status == "changed" and stored.failures == 0
    assert stored.next_run_at == T0 + 3 * HOUR


def test_one_failing_watch_never_stops_the_others(
    conn: Connection, server: LocalServer, fetcher: Fetcher
) -> None:
    broken = add_watch(
        conn, "url", server.url("/broken"), every="1d", allow_private=True, now_ms=T0
    )
    image = add_watch(conn, "url", server.url("/image"), every="1d", allow_private=True, now_ms=T0)
    reminder = add_watch(conn, "remind", "call the bank", at_ms=T0, now_ms=T0)
    shop = add_watch(conn, "url", server.url("/shop"), every="1d", allow_private=True, now_ms=T0)
    filer = FakeFiler()
    report = poll(conn, filer, fetcher, now_ms=T0)
    by_watch = {run.watch_id: run for run in report.runs}
    assert by_watch[broken.id].status == "error" and "HTTP 500" in str(by_watch[broken.id].error)
    assert by_watch[image.id].status == "error" and "content type" in str(by_watch[image.id].error)
    assert by_watch[reminder.id].status == "filed"
    assert by_watch[shop.id].status == "changed"
    assert report.failed == 2 and report.retrying == 1 and report.dead == 1
    assert get_watch(conn, broken.id).last_error is not None
    assert "HTTP 500" in (watch_runs(conn, broken.id)[0].error or "")
    [queued] = jobs.list_jobs(conn, status="queued")
    assert queued.watch_id == broken.id and queued.available_at > T0  # backing off


def test_an_action_that_raises_is_recorded_not_fatal(
    conn: Connection, server: LocalServer, fetcher: Fetcher
) -> None:
    class ExplodingFiler(FakeFiler):
        def file_note(self, **kwargs: object) -> str:  # type: ignore[override]
            raise RuntimeError("disk on fire")

    add_watch(conn, "remind", "a", at_ms=T0, now_ms=T0)
    shop = add_watch(conn, "url", server.url("/shop"), every="1d", allow_private=True, now_ms=T0)
    report = poll(conn, ExplodingFiler(), fetcher, now_ms=T0)
    statuses = sorted(run.status for run in report.runs)
    assert statuses == ["changed", "error"]
    assert any("disk on fire" in (run.error or "") for run in report.runs)
    assert get_watch(conn, shop.id).last_status == "changed"


def test_search_watch_files_only_new_results(
    conn: Connection, server: LocalServer, fetcher: Fetcher
) -> None:
    backend = SearchBackend(server.url("/search"), allow_private=True)
    add_watch(
        conn,
        "search",
        "privault news",
        every="1d",
        allow_private=True,
        options={"fetch_pages": True},
        now_ms=T0,
    )
    filer = FakeFiler()
    first = poll(conn, filer, fetcher, now_ms=T0, search=backend)
    [run] = first.runs
    assert run.status == "filed" and len(run.doc_ids) == 2
    texts = {c[1]["url"].rsplit("/", 1)[1]: c[1]["text"] for c in filer.calls}
    assert "Full text of result A." in (texts["result-a"] or "")

    SEARCH["results"].append(
        {"url": "http://127.0.0.1:PORT/result-c", "title": "Result C", "content": "about C"}
    )
    try:
        second = poll(conn, filer, fetcher, now_ms=T0 + 24 * HOUR, search=backend)
    finally:
        SEARCH["results"].pop()
    [run] = second.runs
    assert run.status == "filed" and len(run.doc_ids) == 1 and "1 new of 3" in run.summary
    assert sorted(filer.results) == [server.url(f"/result-{x}") for x in "abc"]


def test_search_result_pages_are_fetched_under_the_watch_rules(
    conn: Connection, server: LocalServer, fetcher: Fetcher
) -> None:
    # The backend is on loopback by the owner's choice, but results pointing inside are
    # not fetched for a watch that does not allow private targets: filed with snippet only.
    backend = SearchBackend(server.url("/search"), allow_private=True)
    add_watch(conn, "search", "q", every="1d", options={"fetch_pages": True}, now_ms=T0)
    filer = FakeFiler()
    before = len(server.hits)
    report = poll(conn, filer, fetcher, now_ms=T0, search=backend)
    assert report.runs[0].status == "filed"
    assert all(call[1]["text"] is None for call in filer.calls)
    assert not any(hit.startswith("/result") for hit in server.hits[before:])


def test_a_private_backend_may_not_redirect_elsewhere_inside(
    conn: Connection, server: LocalServer, fetcher: Fetcher
) -> None:
    # Trusting the owner's backend covers its own host and port (a redirect there is
    # followed), not a service on another port of the machine or the network it sits in.
    with serve({"/internal": lambda h: send(h, "{}", content_type="application/json")}) as inner:
        server.routes["/moved"] = lambda h: send(
            h, "", status=302, headers={"Location": h.path.replace("/moved", "/search")}
        )
        server.routes["/away"] = lambda h: send(
            h, "", status=302, headers={"Location": inner.url("/internal")}
        )
        try:
            add_watch(conn, "search", "q", every="1d", now_ms=T0)
            moved = poll(
                conn,
                FakeFiler(),
                fetcher,
                now_ms=T0,
                search=SearchBackend(server.url("/moved"), allow_private=True),
            )
            add_watch(conn, "search", "r", every="1d", now_ms=T0)
            away = poll(
                conn,
                FakeFiler(),
                fetcher,
                now_ms=T0 + HOUR,
                search=SearchBackend(server.url("/away"), allow_private=True),
            )
        finally:
            del server.routes["/moved"], server.routes["/away"]
    assert [run.status for run in moved.runs] == ["filed"]
    [refused] = away.runs
    assert refused.status == "error" and "search backend: blocked" in (refused.error or "")
    assert inner.hits == []


def test_a_backend_reply_nested_too_deep_is_malformed_json(
    conn: Connection, server: LocalServer, fetcher: Fetcher
) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    server.routes["/deep"] = lambda h: send(h, deep, content_type="application/json")
    try:
        add_watch(conn, "search", "q", every="1d", now_ms=T0)
        backend = SearchBackend(server.url("/deep"), allow_private=True)
        [run] = poll(conn, FakeFiler(), fetcher, now_ms=T0, search=backend).runs
    finally:
        del server.routes["/deep"]
    assert run.status == "error" and run.error == "search backend sent malformed JSON"


def test_search_without_backend_is_an_error_value(conn: Connection, fetcher: Fetcher) -> None:
    add_watch(conn, "search", "q", every="1d", now_ms=T0)
    report = poll(conn, FakeFiler(), fetcher, now_ms=T0)
    assert report.runs[0].status == "error" and report.dead == 1


def test_folder_watch_indexes_changes_and_marks_removals(
    conn: Connection, tmp_path: Path, fetcher: Fetcher
) -> None:
    folder = tmp_path / "notes"
    (folder / "sub").mkdir(parents=True)
    (folder / ".git").mkdir()
    (folder / "a.md").write_text("# A\nalpha")
    (folder / "sub" / "b.txt").write_text("beta")
    (folder / "c.pdf").write_bytes(b"%PDF-1.4 broken")
    (folder / "ignored.png").write_bytes(b"png")
    (folder / ".git" / "HEAD.md").write_text("hidden")
    add_watch(conn, "folder", str(folder), every="1h", now_ms=T0)
    filer = FakeFiler(fail_paths={"c.pdf"})
    first = poll(conn, filer, fetcher, now_ms=T0)
    [run] = first.runs
    assert run.status == "changed" and "2 indexed" in run.summary and "1 unreadable" in run.summary
    assert "c.pdf" in (run.error or "")
    assert sorted(Path(p).name for p in filer.files) == ["a.md", "b.txt"]

    quiet = poll(conn, filer, fetcher, now_ms=T0 + HOUR)
    assert quiet.runs[0].summary.startswith("0 indexed, 0 removed")
    assert filer.names().count("index_file") == 4  # the unreadable pdf is retried

    (folder / "a.md").write_text("# A\nalpha, changed")
    (folder / "sub" / "b.txt").unlink()
    third = poll(conn, filer, fetcher, now_ms=T0 + 2 * HOUR)
    assert "1 indexed, 1 removed" in third.runs[0].summary
    assert [Path(p).name for p in filer.removed] == ["b.txt"]


def test_missing_folder_is_retried_not_emptied(
    conn: Connection, tmp_path: Path, fetcher: Fetcher
) -> None:
    folder = tmp_path / "drive"
    folder.mkdir()
    (folder / "a.md").write_text("a")
    add_watch(conn, "folder", str(folder), every="1h", now_ms=T0)
    filer = FakeFiler()
    poll(conn, filer, fetcher, now_ms=T0)
    (folder / "a.md").unlink()
    folder.rmdir()
    report = poll(conn, filer, fetcher, now_ms=T0 + HOUR)
    assert report.runs[0].status == "error" and report.retrying == 1
    assert filer.removed == []


def test_poll_records_catch_up_skips(conn: Connection, fetcher: Fetcher) -> None:
    watch = add_watch(conn, "remind", "stretch", every="1h", max_catchup=2, now_ms=T0)
    filer = FakeFiler()
    report = poll(conn, filer, fetcher, now_ms=T0 + 10 * HOUR)  # down for ten hours
    assert report.enqueued == 2 and report.skipped == 8 and len(filer.notes) == 2
    assert get_watch(conn, watch.id).skipped == 8
    planned = [r["planned_at"] for r in rows(conn, "SELECT planned_at FROM reminders")]
    assert sorted(planned) == [T0 + 9 * HOUR, T0 + 10 * HOUR]


@pytest.mark.parametrize("schedule", ["every blue moon", "61 * * * *", "0s"])
def test_a_watch_whose_schedule_cannot_be_read_never_stops_the_others(
    conn: Connection, fetcher: Fetcher, schedule: str
) -> None:
    # A schedule no local add accepts can still arrive in a row from another device.
    broken = add_watch(conn, "remind", "water the plants", every="1h", now_ms=T0)
    conn.execute("UPDATE watches SET schedule = ? WHERE id = ?", (schedule, broken.id))
    first = add_watch(conn, "remind", "call the bank", at_ms=T0, now_ms=T0)
    after = add_watch(conn, "remind", "pay the rent", at_ms=T0, now_ms=T0)
    report = poll(conn, FakeFiler(), fetcher, now_ms=T0 + 2 * HOUR)
    assert sorted(run.watch_id for run in report.runs) == sorted([first.id, after.id])
    stored = get_watch(conn, broken.id)
    assert stored.status == "active" and stored.next_run_at is None
    assert stored.last_status == "error"
    assert "schedule cannot be read" in (stored.last_error or "")
    # Nothing ran: no run or failure is counted, and no last run time is set.
    assert (stored.runs, stored.failures, stored.last_run_at) == (0, 0, None)
    # It is not tried again at every poll.
    assert poll(conn, FakeFiler(), fetcher, now_ms=T0 + 3 * HOUR).runs == ()
    assert (get_watch(conn, broken.id).runs, get_watch(conn, broken.id).failures) == (0, 0)
