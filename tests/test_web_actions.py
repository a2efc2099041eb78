"""What a person does on the owner's page, in a real browser, and what an agent then sees:
sign out, mark and unmark values, confirm a change that shows text to agents.

Each test clicks what the person clicks (the fixtures are in `web_browser`) and then checks
the agent's side through the vault itself, not through the page that was just clicked.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from privault.interfaces.agents import known_caller
from privault.interfaces.web.auth import LoginLinks
from privault.privacy.policy import shipped_policies_dir
from privault.vault import Vault
from tests.helpers import fake_vault
from tests.web_browser import log_in, serving, shot, text_of, wait_for
from tests.web_site import OWNER

pytest_plugins = ["tests.web_browser"]
pytestmark = pytest.mark.browser


def test_sign_out_ends_the_session(browser: Any, served: Any) -> None:
    from selenium.webdriver.common.by import By

    base, links, _ = served
    log_in(browser, base, links)
    browser.get(f"{base}/status")
    assert "Status" in text_of(browser, "h1")
    browser.find_element(By.CSS_SELECTOR, "form.logout button").click()
    wait_for(browser, lambda d: "Not signed in" in text_of(d, "h1"), "the signed-out page")
    assert "cross-site request refused" not in browser.page_source
    browser.get(f"{base}/status")  # the old cookie opens nothing any more
    assert "Not signed in" in text_of(browser, "h1")
    assert "documents" not in text_of(browser, "main")


def test_without_script_every_form_still_posts(scriptless: Any, served: Any) -> None:
    from selenium.webdriver.common.by import By

    base, links, site = served
    driver = scriptless
    log_in(driver, base, links)

    def shown(selector: str) -> str:  # read without script: WebDriver's own element text
        return str(driver.find_element(By.CSS_SELECTOR, selector).text)

    driver.get(f"{base}/watches")
    assert "Pay the plumber" in shown("#reminders")
    driver.find_element(By.CSS_SELECTOR, "#reminders button.ack").click()
    wait_for(driver, lambda d: "Nothing due." in shown("#reminders"), "the reminder acked")
    driver.find_element(By.CSS_SELECTOR, "form.logout button").click()
    wait_for(driver, lambda d: "Not signed in" in shown("h1"), "the signed-out page")


PHONE = "+44 20 7946 0018"
DESK_POLICY = """name: desk
description: Masks people, phones, e-mail addresses and organisations.
mode: redact
identifying: [PERSON, PHONE_NUMBER, EMAIL_ADDRESS, ORGANIZATION]
"""


@pytest.fixture
def desk(tmp_path: Path) -> Iterator[tuple[str, LoginLinks, Vault, str]]:
    """A vault whose agent `claude` reads under a policy that masks organisations too, and
    where a phone number is also known as an organisation (marked so in another note)."""
    folder = tmp_path / "policies"
    shutil.copytree(shipped_policies_dir(), folder)
    (folder / "desk.yaml").write_text(DESK_POLICY)
    vault = fake_vault(
        tmp_path / "v.db", privacy={"agents": {"claude": "desk"}}, policies_dir=folder
    )
    switchboard = vault.note(f"# Switchboard\nThe office line is {PHONE}.", caller=OWNER)
    vault.pii.mark(switchboard.doc_id, PHONE, caller=OWNER, kind="ORGANIZATION")
    call = vault.note(f"# Call\nRing the plumber on {PHONE} before noon.", caller=OWNER)
    vault.agents.issue("claude")
    links = LoginLinks(tmp_path / "logins")
    try:
        with serving(vault, links) as base:
            yield base, links, vault, call.doc_id
    finally:
        vault.close()


def as_claude(vault: Vault, doc_id: str) -> str:
    """The document's text as agent claude reads it, straight from the vault."""
    caller = known_caller(vault, "claude")
    return "\n".join(
        vault.read(node.node_id, caller=caller).text
        for node in vault.tree(doc_id, caller=OWNER).nodes
    )


def test_not_an_organisation_keeps_the_phone_number_masked(browser: Any, desk: Any) -> None:
    from selenium.webdriver.common.by import By

    base, links, vault, doc_id = desk
    log_in(browser, base, links)
    browser.get(f"{base}/doc/{doc_id}?agent=claude")
    rows = text_of(browser, "#masked-values tbody")
    assert PHONE in rows and "ORGANIZATION" in rows
    assert PHONE not in as_claude(vault, doc_id)

    # The number is not an organisation: nothing new is shown, so nothing to confirm.
    browser.find_element(By.CSS_SELECTOR, "button[aria-label^='Not ORGANIZATION']").click()
    wait_for(browser, lambda d: "no agent sees more" in text_of(d, ".flash"), "the unmark")
    assert PHONE not in as_claude(vault, doc_id)
    assert "<PHONE_NUMBER_1>" in as_claude(vault, doc_id)
    assert PHONE not in text_of(browser, ".section-row .column.agent")
    rows = text_of(browser, "#masked-values tbody")
    assert "PHONE_NUMBER" in rows and "ORGANIZATION" not in rows
    [unmark] = vault.pii.overrides(caller=OWNER, target=doc_id)
    assert (unmark.action, unmark.kind) == ("unmark", "ORGANIZATION")

    # Not a phone number either: that shows claude the number, so the page asks first.
    browser.find_element(By.CSS_SELECTOR, "button[aria-label^='Not PHONE_NUMBER']").click()
    wait_for(browser, lambda d: d.find_elements(By.ID, "confirm-yes"), "the confirmation")
    asked = text_of(browser, ".confirm")
    assert "claude" in asked and "PHONE_NUMBER" in asked and "desk" in asked
    browser.find_element(By.ID, "confirm-no").click()  # cancel: nothing changes
    wait_for(browser, lambda d: d.find_elements(By.ID, "masked-values"), "the document again")
    assert PHONE not in as_claude(vault, doc_id)
    browser.find_element(By.CSS_SELECTOR, "button[aria-label^='Not PHONE_NUMBER']").click()
    wait_for(browser, lambda d: d.find_elements(By.ID, "confirm-yes"), "the confirmation")
    browser.find_element(By.ID, "confirm-yes").click()
    wait_for(browser, lambda d: "Unmarked" in text_of(d, ".flash"), "the confirmed unmark")
    assert PHONE in as_claude(vault, doc_id)
    assert PHONE in text_of(browser, ".section-row .column.agent")


def test_marking_a_value_the_document_lacks_says_so(browser: Any, desk: Any) -> None:
    from selenium.webdriver.common.by import By

    base, links, vault, doc_id = desk
    log_in(browser, base, links)
    browser.get(f"{base}/doc/{doc_id}?agent=claude")
    browser.find_element(By.ID, "mark-value").send_keys("Kofi Mensah")
    browser.find_element(By.ID, "mark-submit").click()
    wait_for(browser, lambda d: "does not occur" in text_of(d, ".flash"), "the refusal")
    assert "Marked" not in text_of(browser, ".flash")
    assert vault.pii.overrides(caller=OWNER, target=doc_id) == []
    # A value that is there is marked, and the agent no longer sees it.
    browser.find_element(By.ID, "mark-value").send_keys("the plumber")
    browser.find_element(By.ID, "mark-submit").click()
    wait_for(browser, lambda d: "Marked" in text_of(d, ".flash"), "the mark")
    assert "the plumber" not in as_claude(vault, doc_id).lower().replace("<person_1>", "")
    assert "<PERSON_1>" in as_claude(vault, doc_id)


def test_on_a_phone_the_nav_shows_everything_and_the_agent_view_is_near_the_top(
    browser: Any, served: Any
) -> None:
    base, links, site = served
    log_in(browser, base, links)
    browser.set_window_size(400, 860)
    for path in ("/", f"/doc/{site.plumber}?agent=claude"):
        browser.get(base + path)
        hidden = browser.execute_script(
            "const w = document.documentElement.clientWidth;"
            "return [...document.querySelectorAll('.top nav a')]"
            "  .filter(a => { const r = a.getBoundingClientRect();"
            "    return r.right > w || r.left < 0 || r.width === 0; })"
            "  .map(a => a.textContent);"
        )
        assert hidden == [], f"{path}: nav links out of view: {hidden}"
    agent_top = browser.execute_script(
        "return document.querySelector('.section-row .column.agent').getBoundingClientRect().top"
    )
    assert agent_top < 860, f"the agent's view starts {agent_top / 860:.1f} screens down"


def test_owner_highlights_take_their_kinds_colour(browser: Any, served: Any) -> None:
    base, links, site = served
    log_in(browser, base, links)
    browser.get(f"{base}/doc/{site.plumber}?agent=claude")
    colours = browser.execute_script(
        "const out = {};"
        "for (const m of document.querySelectorAll('.section-row .owner mark.pii'))"
        "  out[m.title] = getComputedStyle(m).backgroundColor;"
        "return out;"
    )
    assert set(colours) >= {"PERSON", "EMAIL_ADDRESS"}
    assert colours["PERSON"] != colours["EMAIL_ADDRESS"]


def test_add_an_agent_then_manage_it_from_its_panel(
    browser: Any, served: Any, screenshots: Path
) -> None:
    from selenium.webdriver.common.by import By

    base, links, site = served
    log_in(browser, base, links)
    browser.get(f"{base}/agents")
    browser.find_element(By.ID, "new-agent").send_keys("cursor")
    browser.find_element(By.ID, "add-agent").click()
    wait_for(browser, lambda d: d.find_elements(By.ID, "agent-token"), "the one-time token")
    token = browser.find_element(By.ID, "agent-token").get_attribute("value")
    assert token and len(token) > 20
    browser.find_element(By.LINK_TEXT, "Open cursor's panel").click()
    wait_for(browser, lambda d: "Agent cursor" in text_of(d, "h1"), "the agent's panel")
    assert token not in browser.page_source
    # Open the restricted shelf to it: the page says what it would see, then does it.
    browser.find_element(By.XPATH, "//button[contains(., 'Open to cursor')]").click()
    wait_for(browser, lambda d: d.find_elements(By.ID, "confirm-yes"), "the confirmation")
    assert "cursor would see the 1 document(s) on shelf health" in text_of(browser, ".confirm")
    browser.find_element(By.ID, "confirm-yes").click()
    wait_for(browser, lambda d: "opened to the agent" in text_of(d, "main"), "the attach")
    browser.get(f"{base}/agents/cursor")
    assert "open to cursor" in text_of(browser, "#agent-panel")
    # The README's picture: an agent that has made calls, each with what it asked.
    browser.get(f"{base}/agents/claude")
    assert "memory_search" in text_of(browser, "#agent-panel")
    browser.execute_script("document.activeElement.blur()")
    shot(browser, screenshots, "web-agent.png", 1360, 900)
