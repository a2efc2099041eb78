"""What the owner's page draws and counts as masked is what the gate masked.

The page found masks by matching the text: a note quoting `<PERSON_1>` or a withheld
stub, or an agent writing one to make the owner think something was held back, was drawn
as a mask and counted in the held-back badges. Now the gate says where it put each
placeholder and stub (`Gated.masks`), and text that only looks like one is plain text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from privault.caller import Caller
from privault.vault import Vault
from tests.helpers import fake_vault, logged_in

OWNER = Caller.owner()
CLAUDE = Caller.agent("claude")
LOOKALIKES = "<PERSON_1> and [withheld by policy strict: contains EMAIL_ADDRESS]"
DRAWN = re.compile(r'<span class="ph [^"]+">([^<]*)</span>')


@pytest.fixture
def vault(tmp_path: Path) -> Iterator[Vault]:
    opened = fake_vault(tmp_path / "v.db")
    opened.agents.issue("claude")
    opened.agents.issue("careful")
    opened.agents.set_policy("careful", "strict")
    # The owner's note quotes a template beside a real name; the agent's holds nothing real.
    opened.note(f"# Forms\nDr. Maria Gonzalez signs the forms: {LOOKALIKES}.", caller=OWNER)
    opened.note(f"# Handover\nThe handover went to {LOOKALIKES}.", caller=CLAUDE)
    yield opened
    opened.close()


@pytest.fixture
def client(vault: Vault, tmp_path: Path) -> TestClient:
    return logged_in(vault, tmp_path)


def _badges(page: str) -> dict[str, int]:
    return {kind: int(n) for kind, n in re.findall(r'badge held [^"]+">(\w+) ×(\d+)<', page)}


def test_a_lookalike_is_plain_text_on_the_search_page_and_not_counted(
    client: TestClient,
) -> None:
    page = client.get("/", params={"q": "forms handover", "agent": "claude"}).text
    agent = "".join(re.findall(r'<section class="column agent".*?</section>', page, re.S))
    assert "signs the forms" in agent and "The handover went to" in agent
    assert "Maria" not in agent
    # One real mask (the doctor's name); the quoted `<PERSON_1>`s read as the text they are.
    assert DRAWN.findall(agent) == ["&lt;PERSON_1&gt;"]
    assert agent.count("&lt;PERSON_1&gt;") == 3
    assert _badges(agent) == {"PERSON": 1}
    own = client.get("/own", params={"q": "forms handover", "agent": "claude"}).text
    assert "The handover went to" in own
    assert DRAWN.findall(own) == ["&lt;PERSON_1&gt;"] and _badges(own) == {"PERSON": 1}


def test_a_lookalike_is_plain_text_in_the_context_pack_and_not_counted(
    client: TestClient,
) -> None:
    page = client.get("/pack", params={"q": "forms handover", "agent": "claude"}).text
    pack = re.search(r'<div id="pack-body">.*?</div>', page, re.S)
    assert pack and "The handover went to" in pack.group(0)
    assert DRAWN.findall(pack.group(0)) == ["&lt;PERSON_1&gt;"]
    assert _badges(pack.group(0)) == {"PERSON": 1}


def test_a_real_stub_is_counted_and_a_quoted_one_is_not(client: TestClient) -> None:
    page = client.get("/", params={"q": "forms handover", "agent": "careful"}).text
    agent = "".join(re.findall(r'<section class="column agent".*?</section>', page, re.S))
    # Under `strict` the owner's note is withheld whole (a stub naming PERSON); the
    # agent's own note quotes a stub naming EMAIL_ADDRESS, and withholds nothing.
    assert "withheld whole by policy strict" in agent and "The handover went to" in agent
    assert _badges(agent) == {"PERSON": 1}
    assert DRAWN.findall(agent) == []


def test_a_lookalike_is_plain_text_beside_the_agent_on_a_document_and_statements(
    client: TestClient, vault: Vault
) -> None:
    handover = vault.docs(caller=OWNER).documents[0]
    assert handover.title == "Handover"
    page = client.get(f"/doc/{handover.doc_id}", params={"agent": "claude"}).text
    agent = "".join(re.findall(r'<section class="column agent">.*?</section>', page, re.S))
    assert "The handover went to &lt;PERSON_1&gt;" in agent and DRAWN.findall(agent) == []
    vault.statements.add(f"The form names {LOOKALIKES}", caller=CLAUDE, entities=["Form"])
    page = client.get("/statements", params={"entity": "Form", "agent": "claude"}).text
    beside = "".join(re.findall(r'<p class="as-agent">.*?</p>', page, re.S))
    assert "The form names &lt;PERSON_1&gt;" in beside and DRAWN.findall(beside) == []
