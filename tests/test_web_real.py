"""The owner's page on the real engines: presidio + spaCy finding what the page shows, the
real embedder ranking the search and the context pack (small inputs).

The browser run (`test_web_browser.py`) uses the fake detector: what it checks (htmx, the
CSP, cookies, layout) does not depend on which detector found a span. What does depend on
it — the real detector's spans highlighted by kind, masked in the agent's column and the
context pack, and a value it misses being marked by hand — is checked here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from privault.caller import Caller
from privault.interfaces.web.app import build_web_app
from privault.interfaces.web.auth import LoginLinks
from privault.vault import Vault

pytestmark = pytest.mark.real

OWNER = Caller.owner()
NOTE = """# Dentist
Appointment with Maria Gonzalez in Leeds on 3 March at 10:00.
Her phone is +1 415 555 0134; my aunt bibi runs the practice."""


@pytest.fixture
def vault(tmp_path: Path, models_dir: Path) -> Iterator[Vault]:
    opened = Vault.open(tmp_path / "v.db", models_dir=models_dir)  # real embedder and detector
    yield opened
    opened.close()


def column(page: str, name: str) -> str:
    """Every part of the owner's or the agent's side of a page, joined."""
    found = re.findall(rf'<section class="column {name}".*?</section>', page, re.S)
    assert found, name
    return "\n".join(found)


def test_the_real_detector_on_the_page(vault: Vault, tmp_path: Path) -> None:
    doc = vault.note(NOTE, caller=OWNER).doc_id
    vault.note("# Groceries\nOat milk, rye bread, coffee beans.", caller=OWNER)
    vault.agents.issue("claude")
    links = LoginLinks(tmp_path / "logins")
    client = TestClient(build_web_app(vault, links=links, hosts=["testserver"]))
    assert client.get(f"/login?token={links.issue()}").status_code == 200

    search = client.get("/", params={"q": "when do I see the tooth doctor", "agent": "claude"})
    owner, agent = column(search.text, "owner"), column(search.text, "agent")
    first = owner.split('<article class="hit"', 2)[1]
    assert "Dentist" in first and "Groceries" not in first  # found by meaning: no shared word
    assert "Maria Gonzalez" in owner and "415 555 0134" in owner
    assert "Maria" not in agent and "Gonzalez" not in agent and "555" not in agent
    assert "Leeds" not in agent and "&lt;PERSON_" in agent and "&lt;PHONE_NUMBER_" in agent

    pack = client.get("/pack", params={"q": "when do I see the tooth doctor", "agent": "claude"})
    assert pack.status_code == 200 and "Dentist" in pack.text and "tokens" in pack.text
    assert "Maria" not in pack.text and "555 0134" not in pack.text

    page = client.get(f"/doc/{doc}", params={"agent": "claude"}).text
    assert re.search(r'<mark class="pii k-person" title="PERSON">Maria Gonzalez', page)
    assert re.search(r'<mark class="pii k-location" title="LOCATION">Leeds', page)
    assert "bibi" in page.split('<section class="column agent">', 1)[1]  # missed by NER

    csrf = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    marked = client.post(
        f"/doc/{doc}/mark?agent=claude", data={"value": "bibi", "kind": "PERSON", "csrf": csrf}
    )
    assert marked.status_code == 200 and "Marked" in marked.text
    agent_view = "".join(
        re.findall(r'<section class="column agent">.*?</section>', marked.text, re.S)
    )
    assert "bibi" not in agent_view and "Maria" not in agent_view
    again = client.get("/", params={"q": "who runs the dental practice", "agent": "claude"})
    assert "bibi" in column(again.text, "owner")
    assert 'my aunt <span class="ph k-person">&lt;PERSON_' in column(again.text, "agent")
