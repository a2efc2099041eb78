"""The owner's page, page by page and action by action, through Starlette's test client.

The vault is a real file with the fake embedder and detector (the detector finds e-mail
addresses and "Dr. Firstname Lastname"); pages and actions are checked for what they
show the owner, what they show as an agent, and that nothing from the vault is rendered
as markup.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape
from starlette.testclient import TestClient
from test_watches_support import LocalServer, html_page, send, serve

from privault.caller import Caller
from privault.interfaces.web import statements as web_statements
from privault.interfaces.web.app import build_web_app
from privault.interfaces.web.auth import LoginLinks
from privault.models.chat import Message
from privault.models.engines import Spec
from privault.models.handles import WorkerChat
from privault.models.supervisor import ModelProcess
from privault.statements.model import entity_key
from privault.store.connection import write
from privault.timeutil import now_ms
from privault.vault import Vault
from privault.vault.reading import BEING_INDEXED
from privault.watches.fetcher import Fetcher, FetchLimits
from tests.web_site import OWNER, XSS, Site, csrf_of, seed, shop_page


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with serve({"/shop": shop_page}) as running:
        yield running


@pytest.fixture
def vault(vault: Vault) -> Vault:
    vault.watches._fetcher = Fetcher(limits=FetchLimits(total_seconds=5.0))
    return vault


@pytest.fixture
def site(vault: Vault, server: LocalServer) -> Site:
    return seed(vault, server)


@pytest.fixture
def client(vault: Vault, tmp_path: Path, site: Site) -> TestClient:
    links = LoginLinks(tmp_path / "logins")
    client = TestClient(build_web_app(vault, links=links, hosts=["testserver"]))
    assert client.get(f"/login?token={links.issue()}").status_code == 200
    return client


def column(text: str, name: str) -> str:
    """The HTML of the owner's or the agent's side of the search page (every part of it)."""
    found = re.findall(rf'<section class="column {name}".*?</section>', text, re.S)
    assert found, name
    return "\n".join(found)


def agent_texts(page: str) -> str:
    """Every agent-column section of a document page, joined."""
    return "".join(re.findall(r'<section class="column agent">.*?</section>', page, re.S))


def test_search_shows_owner_and_agent_side_by_side(client: TestClient, site: Site) -> None:
    page = client.get("/", params={"q": "boiler invoice", "agent": "claude"}).text
    owner, agent = column(page, "owner"), column(page, "agent")
    assert "Dr. Maria Gonzalez" in owner and "maria.gonzalez@example.com" in owner
    assert "Maria Gonzalez" not in agent and "maria.gonzalez@example.com" not in agent
    assert '<span class="ph k-person">&lt;PERSON_1&gt;</span>' in agent
    assert "&lt;EMAIL_ADDRESS_1&gt;" in agent
    assert "standard · redact" in agent and "open · off" in owner
    # What was held back: the placeholders the agent's side shows, each counted once.
    for kind in ("PERSON", "EMAIL_ADDRESS"):
        shown = len(re.findall(rf"&lt;{kind}_\d+&gt;", agent))
        assert shown and f"{kind} ×{shown}<" in agent, kind
    # The context pack is a third search: only a link to it until the owner opens it.
    assert '<details class="pack" hx-get="/pack?q=boiler+invoice&amp;agent=claude"' in page
    assert "Dr. Maria" not in agent and "tokens" not in agent
    # The restricted shelf: the owner's hit is paired with why the agent has nothing.
    assert "Boiler fumes" in owner and "not visible to claude" in agent
    assert "Boiler fumes" not in agent and "shelves claude cannot see" in agent
    # Each pair is one section: the agent's version of the same node.
    pairs = re.findall(r'<div class="columns pair" data-node="([^"]+)">', page)
    assert len(pairs) == len(set(pairs)) >= 2
    # The agent's own search is the second: loaded once the page is shown, with the
    # owner's results to rank. The page itself ran one search, the owner's.
    own_url = re.search(r'<div id="own" hx-get="([^"]+)"', page)
    assert own_url and "mine=" + "%2C".join(pairs) in own_url.group(1)
    own = client.get(html.unescape(own_url.group(1))).text
    assert "Your #1: #1 in claude's results" in column(own, "agent")
    assert "Maria Gonzalez" not in own and "maria.gonzalez@example.com" not in own
    assert "Boiler fumes" not in own  # the restricted shelf's note is not the agent's
    # No statement shares a word with these words, so none is listed.
    assert "account contact" not in page and "account contact" not in own


def test_a_note_quoting_the_unscanned_marker_is_shown_as_the_agent_gets_it(
    client: TestClient, vault: Vault
) -> None:
    # The page told "withheld until scanned" by finding the marker in the text: a note
    # holding it read as withheld while the agent got all of it.
    vault.note(
        f"# Boiler plan\nSend the boiler invoice to the usual place. {BEING_INDEXED}",
        caller=Caller.agent("claude"),
    )
    page = client.get("/", params={"q": "boiler plan usual place", "agent": "claude"}).text
    agent = column(page, "agent")
    assert "Send the boiler invoice to the usual place." in agent
    assert "withheld until it is" not in agent


@pytest.mark.parametrize(
    ("path", "part"), [("/own", '<div id="own">'), ("/pack", '<div id="pack-body">')]
)
def test_a_part_the_page_loads_is_refused_in_its_place(
    client: TestClient, site: Site, path: str, part: str
) -> None:
    for params, status, says in (
        ({"q": "boiler", "agent": "nobody"}, 404, "no active agent"),
        ({"q": " ", "agent": "claude"}, 400, "give the words"),
    ):
        refused = client.get(path, params=params)
        assert refused.status_code == status and says in refused.text
        assert part in refused.text  # the error lands where the results or the pack would


def test_search_lists_statements_only_where_they_match(client: TestClient, site: Site) -> None:
    page = client.get("/", params={"q": "Acme contact", "agent": "claude"}).text
    assert "account contact is Lee" in column(page, "owner")
    own = client.get("/own", params={"q": "Acme contact", "agent": "claude"}).text
    assert "account contact is" in column(own, "agent")
    other = client.get("/", params={"q": "pressure valve", "agent": "claude"}).text
    assert "account contact" not in other


def test_the_context_pack_is_what_the_agent_would_get(client: TestClient, site: Site) -> None:
    reply = client.get("/pack", params={"q": "boiler invoice", "agent": "claude"})
    assert reply.status_code == 200
    body = re.search(r'<div id="pack-body">.*?</div>', reply.text, re.S)
    assert body, "the part htmx swaps in"
    pack = body.group(0)
    assert "standard · redact" in pack and " / 600 tokens" in pack
    assert "boiler" in pack and "Maria" not in pack and "maria.gonzalez" not in pack
    assert re.search(r"&lt;PERSON_\d+&gt;</span> repaired the boiler", pack)
    assert "Boiler fumes" not in pack  # nor the restricted shelf's note
    reader = client.get("/pack", params={"q": "boiler invoice", "agent": "reader"}).text
    assert "standard · redact" in reader and "Maria" not in reader


def test_search_without_a_query_or_agent_says_what_to_do(client: TestClient, vault: Vault) -> None:
    assert "side by side" in client.get("/").text
    empty = TestClient(client.app, cookies=client.cookies)
    page = empty.get("/", params={"q": "boiler", "agent": "nobody"}).text
    assert "As <em>claude</em>" in page  # an unknown agent falls back to the first one


def test_a_pasted_script_is_inert_everywhere(client: TestClient, site: Site) -> None:
    pages = [
        client.get("/", params={"q": "boiler pasted web page", "agent": "claude"}).text,
        client.get(f"/doc/{site.evil}").text,
        client.get("/docs").text,
    ]
    for page in pages:
        assert str(escape(XSS)) in page
        assert "<script>alert" not in page and "<img src=x" not in page
        assert "onerror=" not in page.replace("onerror=&#34;", "").replace("onerror=&quot;", "")
        assert page.count("<script") == 1  # only the vendored htmx


def test_a_document_highlights_pii_by_kind_beside_the_agents_view(
    client: TestClient, site: Site
) -> None:
    page = client.get(f"/doc/{site.plumber}", params={"agent": "claude"}).text
    assert '<mark class="pii k-person" title="PERSON">Dr. Maria Gonzalez' in page
    assert '<mark class="pii k-email-address" title="EMAIL_ADDRESS">maria.gonzalez@' in page
    assert 'href="#' in page and ">Parts</a>" in page  # the heading tree links to sections
    agent = agent_texts(page)
    assert "&lt;PERSON_1&gt;" in agent and "Maria" not in agent
    restricted = client.get(f"/doc/{site.health}", params={"agent": "claude"}).text
    assert "Not visible to claude" in restricted


def test_marking_a_value_masks_it_for_the_agent_and_unmarking_undoes_it(
    client: TestClient, site: Site, vault: Vault
) -> None:
    url = f"/doc/{site.team}?agent=claude"
    before = client.get(url).text
    assert "Kofi Mensah" in agent_texts(before)
    csrf = csrf_of(before)
    reply = client.post(
        f"/doc/{site.team}/mark?agent=claude",
        data={"value": "Kofi Mensah", "kind": "PERSON", "csrf": csrf},
    )
    assert reply.status_code == 200 and "Marked: the agent column now masks it." in reply.text
    assert "Kofi Mensah" not in agent_texts(reply.text)
    assert "&lt;PERSON_1&gt;" in agent_texts(reply.text)
    assert '<mark class="pii k-person" title="PERSON">Kofi Mensah' in reply.text
    [mark] = vault.pii.overrides(caller=OWNER, target=site.team)
    assert (mark.action, mark.value, mark.kind) == ("mark", "Kofi Mensah", "PERSON")

    # Taking the mark back shows the name to agents again: the page asks first.
    remove = f"/doc/{site.team}/overrides/{mark.id}/remove?agent=claude"
    asked = client.post(remove, data={"csrf": csrf})
    assert "Take back your mark of “Kofi Mensah” as PERSON?" in asked.text
    assert "<strong>claude</strong>" in asked.text and ">PERSON</span>" in asked.text
    assert len(vault.pii.overrides(caller=OWNER, target=site.team)) == 1  # nothing changed yet
    removed = client.post(remove, data={"csrf": csrf, "confirm": "yes"})
    assert "Kofi Mensah" in agent_texts(removed.text)
    assert vault.pii.overrides(caller=OWNER, target=site.team) == []

    email = "maria.gonzalez@example.com"
    plumber = f"/doc/{site.plumber}?agent=claude"
    assert email not in agent_texts(client.get(plumber).text)
    form = {"value": email, "kind": "EMAIL_ADDRESS", "csrf": csrf}
    asked = client.post(f"/doc/{site.plumber}/unmark?agent=claude", data=form)
    assert "EMAIL_ADDRESS" in asked.text and "<strong>claude</strong>" in asked.text
    assert email not in agent_texts(client.get(plumber).text)
    client.post(f"/doc/{site.plumber}/unmark?agent=claude", data={**form, "confirm": "yes"})
    assert email in agent_texts(client.get(plumber).text)


def test_a_refused_action_shows_its_error(client: TestClient, site: Site) -> None:
    csrf = csrf_of(client.get("/").text)
    empty = client.post(
        f"/doc/{site.team}/mark", data={"value": " ", "csrf": csrf}, headers={"HX-Request": "true"}
    )
    assert empty.status_code == 400 and "give the value to mark" in empty.text
    assert empty.headers["hx-retarget"] == "main"
    other = client.post(f"/doc/{site.plumber}/overrides/999/remove", data={"csrf": csrf})
    assert other.status_code == 404
    missing = client.get("/doc/d_nope")
    assert missing.status_code == 404 and "no document" in missing.text


def test_statements_show_a_timeline_and_history_as_known_at_a_day(
    client: TestClient, site: Site
) -> None:
    listing = client.get("/statements").text
    assert "Acme (2)" in listing and "Dana" in listing
    page = client.get("/statements", params={"entity": "Acme"}).text
    assert page.count("<rect ") == 2
    assert "Acme&#39;s account contact is Dana" in page and "is Lee" in page
    assert ">superseded</span>" in page and ">current</span>" in page
    assert "superseded by s_" in page and "supersedes s_" in page
    before = client.get("/statements", params={"entity": "Acme", "known_at": "2001-01-01"}).text
    assert "No statements about Acme known at 2001-01-01" in before
    bad = client.get("/statements", params={"entity": "Acme", "known_at": "yesterday"})
    assert bad.status_code == 400 and "must be a day" in bad.text


def test_statements_beyond_the_page_are_counted_not_dropped_in_silence(
    client: TestClient, site: Site, vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An agent writing many statements about an entity pushed the owner's own off the
    # page with no word of it; now the page says how many it leaves out, and how to list them.
    monkeypatch.setattr(web_statements, "MOST_VERSIONS", 3)
    for n in range(3):
        vault.statements.add(f"Acme detail {n}", caller=Caller.agent("claude"), entities=["Acme"])
    page = client.get("/statements", params={"entity": "ACME"}).text  # any case
    assert page.count("<rect ") == 3
    assert "The newest 3 versions are shown; 2 older ones are not" in page
    assert "privault statement query --entity ACME --all" in page
    # The command is quoted for a shell: a name an agent chose runs nothing when pasted.
    name = "Acme$(touch /tmp/owned)"
    for n in range(4):
        vault.statements.add(f"{name} fact {n}", caller=Caller.agent("claude"), entities=[name])
    quoted = client.get("/statements", params={"entity": name}).text
    assert "--entity &#39;Acme$(touch /tmp/owned)&#39; --all" in quoted
    full = client.get("/statements", params={"entity": "Dana"}).text
    assert "older ones are not" not in full


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash to paste into")
def test_a_name_with_characters_written_out_is_spelt_exactly_in_the_command(
    client: TestClient, vault: Vault, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The page shows a bidi control or a run of invisible characters as an escape, and
    # shlex's quotes held the characters themselves: the command the owner copied asked
    # for a different, literal name. Such a name is spelt in `$'…'` now, which reproduces
    # it in bash and runs nothing an agent put in it.
    monkeypatch.setattr(web_statements, "MOST_VERSIONS", 1)
    marker = tmp_path / "owned"
    names = [
        f"Acme\u202efdp.exe$(touch {marker})`touch {marker}`'\\x41",
        "Dana\u200b\u200c\u2060Whit \x1b]0;x\x07 \U000e0041\U000e0042 Zoë",
    ]
    for name in names:
        for n in range(2):
            vault.statements.add(f"fact {n}", caller=Caller.agent("claude"), entities=[name])
        page = client.get("/statements", params={"entity": name}).text
        assert "older ones are not" in page
        command = re.search(r"<code>(privault statement query --entity .*? --all)", page)
        assert command, page
        word = html.unescape(command.group(1)).split(" --entity ", 1)[1].removesuffix(" --all")
        pasted = subprocess.run(
            ["bash", "-c", f"printf '%s' {word}"],
            capture_output=True,
            env={"LC_ALL": "C.UTF-8", "PATH": os.environ.get("PATH", "")},
            check=True,
        )
        assert pasted.stdout.decode("utf-8") == name
        assert word.startswith("$'") and word.isascii() and word.isprintable()
        assert "in bash or zsh" in page
    assert not marker.exists()
    # A NUL no command line carries: no command that would ask for a cut name. Writes
    # refuse such a name now; one an older version stored is put in place here.
    cut = "Acme\x00Corp"
    for n in range(2):
        vault.statements.add(f"fact {n}", caller=Caller.agent("claude"), entities=["AcmeZCorp"])
    with write(vault.conn):
        vault.conn.execute(
            "UPDATE statement_entities SET name = ?, key = ? WHERE key = ?",
            (cut, entity_key(cut), entity_key("AcmeZCorp")),
        )
    page = client.get("/statements", params={"entity": cut}).text
    assert "--entity" not in page and "no command line can carry" in page


def test_watches_show_versions_with_a_diff_and_reminders_can_be_acked(
    client: TestClient, site: Site, vault: Vault
) -> None:
    page = client.get("/watches").text
    assert "Pay the plumber" in page and f"/reminders/{site.reminder}/ack" in page
    assert '<span class="d-del">-The boiler service costs 90 euros.</span>' in page
    assert '<span class="d-add">+The boiler service costs 95 euros.</span>' in page
    assert "Versions (2)" in page  # the first fetch and the change
    acked = client.post(f"/reminders/{site.reminder}/ack", data={"csrf": csrf_of(page)})
    assert acked.status_code == 200 and "Reminder acknowledged." in acked.text
    assert 'Due reminders <span class="muted">(0)</span>' in acked.text
    assert vault.watches.reminders(caller=OWNER).reminders == ()


def test_agents_page_shows_access_and_revokes(client: TestClient, site: Site, vault: Vault) -> None:
    page = client.get("/agents").text
    assert "claude" in page and "reader" in page and "restricted: owner only" in page
    assert "standard" in page
    matrix = page.split("Who sees which shelf", 1)[1]
    assert matrix.count('class="no"') == 2  # neither agent sees `health`
    reply = client.post("/agents/claude/revoke", data={"csrf": csrf_of(page)})
    assert "Agent revoked" in reply.text and "revoked 20" in reply.text
    agents = {agent.name: agent for agent in vault.agents.list()}
    assert not agents["claude"].active and agents["reader"].active
    search = client.get("/", params={"q": "boiler"}).text
    assert "As <em>reader</em>" in search  # a revoked agent is no longer offered
    unknown = client.post("/agents/nobody/revoke", data={"csrf": csrf_of(page)})
    assert unknown.status_code == 404


def test_audit_filters(client: TestClient, site: Site) -> None:
    page = client.get("/audit").text
    assert "memory_search" in page and "remember" in page and "PERSON ×1" in page
    assert "who repaired the boiler" in page  # what the call asked
    assert f'<a href="/doc/{site.plumber}#{site.plumber}.1">' in page  # its ids are links
    only = client.get("/audit", params={"agent": "reader"}).text
    assert "remember" in only and "memory_search" not in only
    refused = client.get("/audit", params={"outcome": "refused"}).text
    assert "read-only" in refused and "memory_search" not in refused
    tool = client.get("/audit", params={"tool": "memory_search"}).text
    assert "memory_search" in tool and "read-only" not in tool
    later = client.get("/audit", params={"since": "2999-01-01"}).text
    assert "No calls match." in later
    assert client.get("/audit", params={"outcome": "maybe"}).status_code == 400


def test_status_and_documents_pages(client: TestClient, site: Site) -> None:
    status = client.get("/status").text
    assert "documents" in status and "index windows" in status and "Models" in status
    assert "complete" in status
    docs = client.get("/docs").text
    assert f'href="/doc/{site.plumber}"' in docs and "Plumber" in docs
    health = client.get("/docs", params={"shelf": "health"}).text
    assert "Boiler fumes" in health and "Plumber" not in health


def test_a_watch_diff_shows_what_changed_on_the_page_not_in_its_extraction(
    client: TestClient, vault: Vault
) -> None:
    # The short first version is read with its menu ("Home | About"); the longer second one
    # without it. The menu did not leave the page, so the diff must not say it did.
    short = ["The boiler service costs 90 euros.", "Open Monday to Friday."]
    long = ["The boiler service costs 95 euros. " * 8, "Open Monday to Saturday. " * 6]
    shown = {"paragraphs": short}

    def page(handler: BaseHTTPRequestHandler) -> None:
        send(handler, html_page("Boiler service", *shown["paragraphs"]))

    with serve({"/prices": page}) as running:
        added = vault.watches.add(
            "url", running.url("/prices"), caller=OWNER, every="1d", allow_private=True
        )
        vault.watches.run(added.watch.id, caller=OWNER)
        shown["paragraphs"] = long
        vault.watches.run(added.watch.id, caller=OWNER)
    text = client.get("/watches").text
    assert '<span class="d-del">-The boiler service costs 90 euros.</span>' in text
    assert '<span class="d-add">+The boiler service costs 95 euros.' in text
    assert '<span class="d-del">-Home | About</span>' not in text
    assert '<span class="d-same"> Home | About</span>' in text  # kept as context


def test_unknown_pages_and_wrong_methods_get_styled_pages(client: TestClient) -> None:
    missing = client.get("/no/such/<b>page</b>")
    assert missing.status_code == 404 and '<html lang="en">' in missing.text
    assert "There is no such page here." in missing.text and "<b>page" not in missing.text
    assert '<link rel="stylesheet" href="/static/style.css">' in missing.text
    wrong = client.get("/logout")
    assert wrong.status_code == 405 and "takes a form" in wrong.text
    assert '<html lang="en">' in wrong.text
    put = client.request("PUT", "/")
    assert put.status_code == 405 and '<html lang="en">' in put.text
    static = client.get("/static/nothing.css")
    assert static.status_code == 404 and '<html lang="en">' in static.text
    signed_out = TestClient(client.app).get("/status")
    assert signed_out.status_code == 401 and '<html lang="en">' in signed_out.text


def test_statements_land_on_entities_and_changes_and_show_each_version_as_an_agent(
    client: TestClient, site: Site, vault: Vault
) -> None:
    landing = client.get("/statements").text
    assert '<a href="/statements?entity=Acme">Acme</a>' in landing
    assert "Recent changes" in landing and "account contact is Lee" in landing
    page = client.get("/statements", params={"entity": "Acme", "agent": "claude"}).text
    beside = re.findall(r'<p class="as-agent">(.*?)</p>', page, re.S)
    assert len(beside) == 2 and all("as claude" in line for line in beside)
    # Acme and Dana are the statements' entities, known names: the agent's versions mask
    # them ("Lee" came in a superseding text without entities, so the vault does not know it).
    assert not any("Dana" in line or "Acme" in line for line in beside)
    assert all("&lt;PERSON_1&gt;" in line for line in beside)
    assert "as claude" not in client.get("/statements", params={"entity": "Acme"}).text


def _fake_answerer(vault: Vault, **settings: Any) -> tuple[WorkerChat, ModelProcess]:
    """A fake answerer and its worker process, reporting to the vault's engines."""
    spec = Spec("fake-chat", "fake-answerer")
    process = ModelProcess(spec, on_change=vault.shared.engines.on_health, **settings)
    return WorkerChat(spec, process=process), process


def test_status_shows_a_failed_model_worker_with_its_reason(
    client: TestClient, vault: Vault
) -> None:
    chat, process = _fake_answerer(vault, max_failures=1)
    try:
        with pytest.raises(Exception, match="SIGABRT"):
            chat.chat([Message("user", "[[crash:abort]]")])
        page = client.get("/status").text
    finally:
        process.close()
    worker = page.split('id="worker-fake-answerer"', 1)[1].split("</li>", 1)[0]
    assert "failed" in worker and "signal 6 (SIGABRT)" in worker and "privault doctor" in worker


def test_status_shows_an_unloaded_answerer_as_idle_with_why(
    client: TestClient, vault: Vault
) -> None:
    chat, process = _fake_answerer(vault, unload_after=0.2)
    try:
        chat.chat([Message("user", "hello")])
        ends = time.monotonic() + 10
        while process.health().state != "idle":
            assert time.monotonic() < ends
            time.sleep(0.05)
        page = client.get("/status").text
    finally:
        process.close()
    worker = page.split('id="worker-fake-answerer"', 1)[1].split("</li>", 1)[0]
    assert "idle" in worker and "unloaded after 0.2 s unused" in worker
    assert "the next question loads it" in worker and "failed" not in worker


def test_what_an_agent_wrote_says_so(client: TestClient, vault: Vault) -> None:
    # An agent's note looked like the owner's own on every page.
    agent = Caller.agent("claude")
    doc = vault.note("# Pay the invoice\nPay invoice 4471 to the new account.", caller=agent)
    listing = client.get("/docs").text
    row = next(line for line in listing.splitlines() if "Pay the invoice" in line)
    assert "agent claude" in row
    assert "written by agent claude" in client.get(f"/doc/{doc.doc_id}").text
    found = client.get("/", params={"q": "invoice 4471 account", "agent": "claude"}).text
    assert "by agent claude" in column(found, "owner")
    # Only the owner is told who wrote what: not the agent, nor another agent.
    hit = vault.search("invoice 4471 account", caller=OWNER).results[0]
    assert hit.doc_id == doc.doc_id and hit.to_dict()["author"] == "claude"
    others = [
        h for h in vault.search("boiler invoice", caller=OWNER).results if h.doc_id != doc.doc_id
    ]
    assert others and all(h.to_dict()["author"] is None for h in others)  # the owner's own
    seen = vault.search("invoice 4471 account", caller=agent).results[0]
    assert seen.doc_id == doc.doc_id and seen.author == ""
    assert "author" not in seen.to_dict(for_agent=True)


def test_a_reminder_an_agent_set_says_so(client: TestClient, vault: Vault) -> None:
    agent = Caller.agent("claude")
    vault.watches.add("remind", "Pay invoice 4471 to the new account", caller=agent, at=now_ms())
    vault.watches.poll(caller=OWNER, now=now_ms() + 1000)
    page = client.get("/watches").text
    item = page[page.index("Pay invoice 4471") :].split("</li>", 1)[0]
    assert "set by agent claude" in item
    owners = page[page.index("Pay the plumber") :].split("</li>", 1)[0]
    assert "set by agent" not in owners
