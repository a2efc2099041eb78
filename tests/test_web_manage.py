"""Managing agents, shelves and watches from the page: each action needs the CSRF token,
and one that would show an agent more asks first and changes nothing until confirmed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from privault.caller import Caller
from privault.interfaces.agents import authenticate, known_caller
from privault.vault import Vault
from tests.helpers import fake_vault, logged_in

OWNER = Caller.owner()


@pytest.fixture
def vault(tmp_path: Path) -> Iterator[Vault]:
    opened = fake_vault(tmp_path / "v.db")
    opened.shelves.add("health", restricted=True)
    opened.note("# Fumes\nThe boiler fumes gave me a headache.", caller=OWNER, shelf="health")
    opened.agents.issue("claude")
    yield opened
    opened.close()


@pytest.fixture
def client(vault: Vault, tmp_path: Path) -> TestClient:
    return logged_in(vault, tmp_path)


def csrf_of(client: TestClient) -> str:
    return client.get("/agents").text.split('name="csrf" value="', 1)[1].split('"', 1)[0]


def sees_health(vault: Vault, agent: str) -> bool:
    return "health" not in vault.hidden_shelves(known_caller(vault, agent))


def test_adding_an_agent_shows_its_token_once(client: TestClient, vault: Vault) -> None:
    csrf = csrf_of(client)
    assert client.post("/agents/add", data={"name": "cursor"}).status_code == 403  # no token
    reply = client.post("/agents/add", data={"name": "cursor", "read_only": "yes", "csrf": csrf})
    assert reply.status_code == 200 and reply.headers["cache-control"] == "no-store"
    token = re.search(r'id="agent-token" class="token-value" value="([^"]+)"', reply.text)
    assert token and authenticate(vault, token.group(1)).name == "cursor"
    assert vault.agents.get("cursor").read_only  # type: ignore[union-attr]
    assert token.group(1) not in client.get("/agents").text  # shown that once only
    assert token.group(1) not in client.get("/agents/cursor").text
    again = client.post("/agents/add", data={"name": "cursor", "csrf": csrf})
    assert again.status_code in (400, 403, 409) and "cursor" in again.text


def test_opening_a_shelf_to_an_agent_asks_first(client: TestClient, vault: Vault) -> None:
    csrf = csrf_of(client)
    panel = client.get("/agents/claude").text
    assert "health" in panel and "Open to claude" in panel
    asked = client.post("/agents/claude/attach", data={"shelf": "health", "csrf": csrf})
    assert "claude would see the 1 document(s) on shelf health" in asked.text
    assert not sees_health(vault, "claude")
    done = client.post(
        "/agents/claude/attach", data={"shelf": "health", "csrf": csrf, "confirm": "yes"}
    )
    assert "Shelf opened to the agent" in done.text and sees_health(vault, "claude")
    client.post("/agents/claude/detach", data={"shelf": "health", "csrf": csrf})
    assert not sees_health(vault, "claude")
    public = client.post("/agents/claude/attach", data={"shelf": "default", "csrf": csrf})
    assert public.status_code in (400, 404)


def test_shelves_are_added_and_published_after_a_confirmation(
    client: TestClient, vault: Vault
) -> None:
    csrf = csrf_of(client)
    client.post(
        "/shelves/add",
        data={"name": "work", "access": "restricted", "policy": "strict", "csrf": csrf},
    )
    shelf = vault.shelves.get("work")
    assert shelf.restricted and shelf.policy == "strict"
    asked = client.post("/shelves/health/publish", data={"csrf": csrf})
    assert "Make shelf “health” public?" in asked.text and "claude would see" in asked.text
    assert vault.shelves.get("health").restricted
    client.post("/shelves/health/publish", data={"csrf": csrf, "confirm": "yes"})
    assert not vault.shelves.get("health").restricted and sees_health(vault, "claude")
    # Restricting takes it away again (no agent is on its list).
    done = client.post("/shelves/health/restrict", data={"csrf": csrf})
    assert "Shelf restricted" in done.text and not sees_health(vault, "claude")
    assert client.post("/shelves/nowhere/restrict", data={"csrf": csrf}).status_code == 404


def test_watches_are_added_run_paused_resumed_and_cancelled(
    client: TestClient, vault: Vault
) -> None:
    csrf = csrf_of(client)
    reply = client.post(
        "/watches/add",
        data={"kind": "remind", "target": "Water the roses", "every": "1d", "csrf": csrf},
    )
    assert "Watch added." in reply.text
    [watch] = vault.watches.list(caller=OWNER).watches
    for verb, status in (("pause", "paused"), ("resume", "active"), ("run", "active")):
        client.post(f"/watches/{watch.id}/{verb}", data={"csrf": csrf})
        assert vault.watches.show(watch.id, caller=OWNER).watch.status == status, verb
    assert vault.watches.show(watch.id, caller=OWNER).watch.runs >= 1
    client.post(f"/watches/{watch.id}/cancel", data={"csrf": csrf})
    assert vault.watches.show(watch.id, caller=OWNER).watch.status == "cancelled"
    bad = client.post("/watches/add", data={"kind": "shell", "target": "rm", "csrf": csrf})
    assert bad.status_code == 400 and "a watch is one of" in bad.text
    assert client.post(f"/watches/{watch.id}/explode", data={"csrf": csrf}).status_code == 404


def test_agent_and_shelf_changes_need_the_token_and_a_looser_policy_asks_first(
    client: TestClient, vault: Vault
) -> None:
    for path, data in (
        ("/agents/claude/policy", {"policy": "strict"}),
        ("/agents/claude/pause", {}),
        ("/agents/claude/read-only", {}),
        ("/shelves/health/policy", {"policy": "strict"}),
    ):
        assert client.post(path, data=data).status_code == 403, path
    agent = vault.agents.get("claude")
    assert agent and not agent.paused and not agent.read_only and agent.policy is None
    csrf = csrf_of(client)
    asked = client.post("/agents/claude/policy", data={"policy": "open", "csrf": csrf})
    assert "Loosen claude" in asked.text and 'name="confirm" value="yes"' in asked.text
    assert vault.agents.get("claude").policy is None  # type: ignore[union-attr]
    client.post("/agents/claude/policy", data={"policy": "open", "csrf": csrf, "confirm": "yes"})
    assert vault.agents.get("claude").policy == "open"  # type: ignore[union-attr]
    bad = client.post("/agents/claude/policy", data={"policy": "nope", "csrf": csrf})
    assert bad.status_code in (400, 403) and vault.agents.get("claude").policy == "open"  # type: ignore[union-attr]
    assert client.post("/agents/claude/explode", data={"csrf": csrf}).status_code == 404
    client.post("/agents/claude/pause", data={"csrf": csrf})
    assert known_caller(vault, "claude").paused and "paused" in client.get("/agents").text
    client.post("/agents/claude/resume", data={"csrf": csrf})
    assert not known_caller(vault, "claude").paused
    client.post("/shelves/health/policy", data={"policy": "strict", "csrf": csrf})
    assert vault.shelves.get("health").policy == "strict"
    asked = client.post("/shelves/health/policy", data={"policy": "", "csrf": csrf})
    assert "Loosen shelf" in asked.text and vault.shelves.get("health").policy == "strict"
    assert client.post("/shelves/nowhere/policy", data={"csrf": csrf}).status_code == 404


def test_an_agent_the_configuration_refuses_breaks_no_page(tmp_path: Path) -> None:
    # Agents without an entry refused: one registered without an entry ("aaa", first by
    # name) made the agents page, its own panel and every document page a 403.
    privacy = {"unlisted_agents": False, "agents": {"claude": "standard"}}
    with fake_vault(tmp_path / "v.db", privacy=privacy) as vault:
        vault.agents.issue("claude")
        vault.agents.issue("aaa")
        doc = vault.note("# Boiler\nThe boiler was serviced.", caller=OWNER).doc_id
        client = logged_in(vault, tmp_path)
        agents = client.get("/agents")
        assert agents.status_code == 200 and "none: refused" in agents.text
        assert 'action="/agents/aaa/revoke"' in agents.text  # it can still be revoked
        panel = client.get("/agents/aaa")
        assert panel.status_code == 200 and "none: refused" in panel.text
        page = client.get(f"/doc/{doc}")
        assert page.status_code == 200 and "The boiler was serviced." in page.text
        assert '<option value="claude" selected>' in page.text  # the first agent that reads


def test_a_paused_agent_is_not_previewed_as_if_it_read(client: TestClient, vault: Vault) -> None:
    # Every call of a paused agent is refused, yet the page showed what it "gets": it is
    # left out of every preview, as an agent the configuration refuses, and listed so.
    doc = vault.note("# Boiler\nThe boiler was serviced on Monday.", caller=OWNER).doc_id
    vault.statements.add("The boiler is serviced yearly", caller=OWNER, entities=["Boiler"])
    vault.agents.issue("cursor")
    vault.agents.pause("claude")
    pages = [
        client.get("/", params={"q": "boiler serviced", "agent": "claude"}).text,
        client.get(f"/doc/{doc}", params={"agent": "claude"}).text,
        client.get("/statements", params={"entity": "Boiler", "agent": "claude"}).text,
    ]
    for page in pages:
        assert "serviced" in page and "cursor" in page
        assert "As <em>claude</em>" not in page and "as claude" not in page
        assert '<option value="claude"' not in page and "<option>claude<" not in page
    for path in ("/own", "/pack"):
        refused = client.get(path, params={"q": "boiler", "agent": "claude", "mine": ""})
        assert refused.status_code == 404 and "no active agent" in refused.text
    row = re.search(r'href="/agents/claude">claude</a>.*?</tr>', client.get("/agents").text, re.S)
    assert row and "none: paused" in row.group(0)
    assert "None while paused" in client.get("/agents/claude").text
    vault.agents.resume("claude")
    page = client.get("/", params={"q": "boiler serviced", "agent": "claude"}).text
    assert "As <em>claude</em>" in page
