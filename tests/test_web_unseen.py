"""Untrusted strings on the owner's page: control characters and bidi controls are shown
as escapes, as the CLI shows them, so no title can hide or reorder what the owner reads;
a form still sends a stored value back exactly as stored."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from privault.caller import Caller
from privault.vault import Vault
from tests.helpers import fake_vault, logged_in

OWNER = Caller.owner()
SPOOF = "Invoice\u202efdp.exe \x1b]0;OWNED\x07"
SHOWN = "Invoice\\u202efdp.exe \\x1b]0;OWNED\\x07"


@pytest.fixture
def vault(tmp_path: Path) -> Iterator[Vault]:
    opened = fake_vault(tmp_path / "v.db")
    opened.agents.issue("claude")
    yield opened
    opened.close()


@pytest.fixture
def client(vault: Vault, tmp_path: Path) -> TestClient:
    return logged_in(vault, tmp_path)


def test_a_title_with_controls_is_shown_escaped_on_every_page(
    client: TestClient, vault: Vault
) -> None:
    doc = vault.note(f"# {SPOOF}\nThe boiler invoice is paid.", caller=OWNER).doc_id
    pages = {
        "document": client.get(f"/doc/{doc}", params={"agent": "claude"}).text,
        "documents": client.get("/docs").text,
        "search": client.get("/", params={"q": "boiler invoice", "agent": "claude"}).text,
    }
    for name, page in pages.items():
        assert not re.search("[\x00-\x08\x0b-\x1f\u202a-\u202e\u2066-\u2069]", page), name
        assert SHOWN in html.unescape(page), name
    title = re.search("<title>(.*?)</title>", pages["document"], re.S)
    assert title and html.unescape(title.group(1)) == f"\u2068{SHOWN}\u2069 · privault"


def test_a_value_with_a_bidi_mark_is_shown_escaped_and_unmarked_as_stored(
    client: TestClient, vault: Vault
) -> None:
    value = "Kofi\u200fMensah"
    doc = vault.note(f"# Team\n{value} leads the team.", caller=OWNER).doc_id
    page = client.get(f"/doc/{doc}").text
    csrf = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    marked = client.post(
        f"/doc/{doc}/mark", data={"value": value, "kind": "PERSON", "csrf": csrf}
    ).text
    assert "Kofi\\u200fMensah" in marked and "\u200f" in marked  # shown; in the form as is
    sent = re.search(r'name="value" value="([^"]*)"', marked)
    assert sent
    form = {"value": html.unescape(sent.group(1)), "kind": "PERSON", "csrf": csrf}
    client.post(f"/doc/{doc}/unmark", data={**form, "confirm": "yes"})
    overrides = vault.pii.overrides(caller=OWNER, target=doc)
    assert [(o.action, o.value) for o in overrides] == [("unmark", value)]
