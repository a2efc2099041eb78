"""Long lists on the owner's page: Documents, Audit and acknowledged reminders a page at a
time (keyset paging, so page 40 costs what page 1 does), with filters and "N of M"; the
audit row shows what the call asked; the agents page shows each agent's last call and
counts."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from privault.caller import Caller
from privault.timeutil import now_ms
from privault.vault import Vault
from privault.vault.agents import AuditEntry
from tests.helpers import fake_vault, logged_in, mcp_ok

OWNER = Caller.owner()


@pytest.fixture
def vault(tmp_path: Path) -> Iterator[Vault]:
    opened = fake_vault(tmp_path / "v.db")
    opened.note_many(
        [{"text": f"# Invoice {n}\nPaid in full, number {n}."} for n in range(1, 121)],
        caller=OWNER,
    )
    opened.note("# Garden plan\nRoses by the fence.", caller=OWNER, tags=["home"])
    opened.agents.issue("claude")
    yield opened
    opened.close()


@pytest.fixture
def client(vault: Vault, tmp_path: Path) -> TestClient:
    return logged_in(vault, tmp_path)


def titles(page: str) -> list[str]:
    return re.findall(r'<td><a href="/doc/d\w+">([^<]+)</a></td>', page)


def next_link(page: str, name: str) -> str | None:
    found = re.search(rf'<a href="([^"]+)" rel="next" id="{name}-next">', page)
    return found.group(1).replace("&amp;", "&") if found else None


def test_documents_page_through_every_one_once(client: TestClient) -> None:
    seen: list[str] = []
    page = client.get("/docs").text
    assert "1–50 of 121 document(s)" in page
    pages = 0
    while True:
        pages += 1
        seen += titles(page)
        link = next_link(page, "docs")
        if link is None:
            break
        page = client.get(link).text
    assert pages == 3 and len(seen) == 121 == len(set(seen))
    assert "101–121 of 121 document(s)" in page
    assert seen[0] == "Garden plan"  # newest first


def test_documents_filters_narrow_the_count(client: TestClient) -> None:
    page = client.get("/docs", params={"q": "invoice 11"}).text
    assert "of 11 document(s)" in page  # Invoice 11, 110..119
    assert set(titles(page)) == {"Invoice 11", *(f"Invoice {n}" for n in range(110, 120))}
    tagged = client.get("/docs", params={"tag": "home"}).text
    assert titles(tagged) == ["Garden plan"] and "1–1 of 1" in tagged
    old = client.get("/docs", params={"until": "2001-01-01"}).text
    assert titles(old) == [] and "0 of 0" in old
    wild = client.get("/docs", params={"q": "%"}).text  # a LIKE wildcard is a plain character
    assert "0 of 0" in wild
    bad = client.get("/docs", params={"since": "last week"})
    assert bad.status_code == 400 and "must be a day" in bad.text
    junk = client.get("/docs", params={"after": "x.y", "start": "-3"}).text
    assert "1–50 of 121" in junk  # a malformed cursor is the first page


def test_audit_pages_and_shows_what_each_call_asked(client: TestClient, vault: Vault) -> None:
    for n in range(70):
        vault.audit.record(
            AuditEntry(
                agent="claude",
                tool="memory_search",
                ok=True,
                ids=(f"d{n:012x}.1",),
                arguments={"query": f"question {n}"},
                at=1_000_000 + n,
            )
        )
    page = client.get("/audit").text
    assert "1–50 of 70 call(s)" in page
    assert "question 69" in page and "question 19" not in page
    assert '<a href="/doc/d000000000045#d000000000045.1">' in page  # ids lead to the section
    older = client.get(next_link(page, "audit") or "").text
    assert "51–70 of 70 call(s)" in older and "question 19" in older and "question 20" not in older
    assert next_link(older, "audit") is None
    refused = client.get("/audit", params={"outcome": "refused"}).text
    assert "0 of 0 call(s)" in refused


def test_an_mcp_call_is_audited_with_its_arguments(client: TestClient, vault: Vault) -> None:
    mcp_ok(vault, "claude", "memory_search", query="garden roses")
    [row] = vault.audit.entries(agent="claude")
    assert row.arguments["query"] == "garden roses"
    page = client.get("/audit").text
    assert "garden roses" in page
    long = {"query": "x" * 1000, "follow_up_token": "secret-value"}
    vault.audit.record(AuditEntry(agent="claude", tool="ask_followup", ok=True, arguments=long))
    kept = vault.audit.entries(tool="ask_followup")[0].arguments
    assert len(kept["query"]) == 300 and kept["follow_up_token"] == "(not kept)"
    agents = client.get("/agents").text
    assert '2 <span class="muted">' not in agents  # nothing refused yet
    assert re.search(r"<td>2</td>", agents)  # two calls by claude


def test_status_shows_the_queue_the_strong_model_the_chat_model_and_the_watches(
    client: TestClient, vault: Vault
) -> None:
    page = client.get("/status").text
    queue = re.search(r'<li id="indexer-queue">.*?</li>', page, re.S)
    assert queue and "empty" in queue.group(0)
    assert '<li id="strong-coverage">strong model: <span class="muted">not installed' in page
    chat = re.search(r'<li id="chat-model">.*?</li>', page, re.S)
    assert chat and vault.asking.chat_model in chat.group(0) and "not installed" in chat.group(0)
    assert "last run never" in page
    vault.note("# Later\nIndexed in the background.", caller=OWNER, background=True)
    vault.watches.add("remind", "Water the roses", caller=OWNER, at=1_000)  # long overdue
    page = client.get("/status").text
    queue = re.search(r'<li id="indexer-queue">.*?</li>', page, re.S)
    assert queue and "1 section(s) of 1 document(s) waiting" in queue.group(0)
    assert "overdue by more than an hour" in page


HUGE = "9" * 30  # past SQLite's 64-bit integers


@pytest.mark.parametrize(
    ("path", "params", "shown"),
    [
        ("/docs", {"after": f"{HUGE}.dx"}, "1–50 of 121 document(s)"),
        # `str.isdigit` takes a superscript, which `int()` refuses
        ("/docs", {"after": "².dx"}, "1–50 of 121 document(s)"),
        ("/docs", {"start": "²"}, "1–50 of 121 document(s)"),
        ("/docs", {"start": "9" * 5000}, "1–50 of 121 document(s)"),  # past `int()`'s digits
        ("/audit", {"before": f"{HUGE}.1"}, "0 of 0 call(s)"),
        ("/audit", {"before": f"1.{HUGE}"}, "0 of 0 call(s)"),
        ("/audit", {"before": "².1"}, "0 of 0 call(s)"),
        ("/audit", {"start": "²"}, "0 of 0 call(s)"),
    ],
)
def test_a_number_no_stored_one_can_be_is_ignored_like_a_malformed_cursor(
    client: TestClient, path: str, params: dict[str, str], shown: str
) -> None:
    found = client.get(path, params=params)
    assert found.status_code == 200 and shown in found.text


def test_acknowledged_reminders_are_counted_and_paged_every_one_once(
    client: TestClient, vault: Vault
) -> None:
    # The watches page listed the 20 latest acknowledged reminders with no word of the
    # rest; now it says how many there are and pages through them, the latest first.
    start = now_ms() - 60_000
    texts = {f"Water plant {n}" for n in range(45)}
    for text in texts:
        vault.watches.add("remind", text, caller=OWNER, at=start)
    vault.watches.poll(caller=OWNER, now=start)
    for reminder in vault.watches.reminders(caller=OWNER).reminders:
        vault.watches.ack(reminder.id, caller=OWNER)  # many share one millisecond
    page = client.get("/watches").text
    assert "Acknowledged (45)" in page and "1–20 of 45" in page
    seen: list[str] = []
    link: str | None = "/watches"
    while link:
        page = client.get(link).text
        seen += re.findall(
            r'<span class="text">(Water plant \d+)</span> <span class="meta">acked', page
        )
        link = next_link(page, "acked")
    assert "41–45 of 45" in page and "« latest" in page
    assert len(seen) == 45 and set(seen) == texts


def test_every_snoozed_reminder_is_listed_and_the_due_ones_past_the_list_are_counted(
    client: TestClient, vault: Vault
) -> None:
    # "Snoozed" was picked from the newest 100 reminders of any state, so an older snoozed
    # one was missing; the due list stopped at 100 and counted only those.
    hour = 3_600_000
    start = now_ms() - 200 * hour
    vault.watches.add("remind", "Renew the passport", caller=OWNER, at=start - hour)
    vault.watches.poll(caller=OWNER, now=start - hour)
    added = vault.watches.add(
        "remind", "Stretch", caller=OWNER, at=start, every="1h", max_catchup=130
    )
    vault.watches.poll(caller=OWNER, now=start + 129 * hour)  # 130 of them
    vault.watches.cancel(added.watch.id, caller=OWNER)
    [passport] = vault.watches.reminders(caller=OWNER, limit=1).reminders
    vault.watches.snooze(passport.id, caller=OWNER, interval="1d")
    page = client.get("/watches").text
    assert "Snoozed (1)" in page and "Renew the passport</span>" in page
    assert 'Due reminders <span class="muted">(130)</span>' in page
    assert page.count('class="ack"') == 100 and "… and 30 more due after these" in page
