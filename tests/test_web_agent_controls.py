"""Changing an agent, a shelf, a reminder and a statement from the owner's page, in a real
browser: each test clicks what the person clicks (and answers the page's confirmation),
then checks what the agent gets through the vault and its MCP tools, not through the page.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from privault.interfaces.agents import known_caller
from privault.interfaces.web.auth import LoginLinks
from privault.timeutil import now_ms
from privault.vault import Vault
from tests.helpers import fake_vault, mcp_call, mcp_error, mcp_ok
from tests.web_browser import log_in, replaced, serving, shot, text_of, wait_for
from tests.web_site import OWNER

pytest_plugins = ["tests.web_browser"]
pytestmark = pytest.mark.browser

EMAIL = "jane@example.com"


@pytest.fixture
def office(tmp_path: Path) -> Iterator[tuple[str, LoginLinks, Vault]]:
    """Agent claude (standard policy: e-mail addresses masked), a note on the public
    default shelf and one on shelf `work`, a due reminder and a statement about Acme."""
    vault = fake_vault(tmp_path / "v.db")
    vault.note(f"# Budget\nSend the budget to {EMAIL} by Friday.", caller=OWNER)
    vault.note(f"# Desk\nThe desk invoice goes to {EMAIL} too.", caller=OWNER, shelf="work")
    vault.agents.issue("claude")
    vault.watches.add("remind", "Pay the plumber", caller=OWNER, at=now_ms() - 60_000)
    vault.watches.poll(caller=OWNER, now=now_ms() + 1000)
    vault.statements.add("Acme's account contact is Dana", caller=OWNER, entities=["Acme"])
    links = LoginLinks(tmp_path / "logins")
    try:
        with serving(vault, links) as base:
            yield base, links, vault
    finally:
        vault.close()


def claude_reads(vault: Vault, query: str) -> str:
    found = mcp_ok(vault, "claude", "memory_search", query=query)
    return " ".join(hit["text"] for hit in found["results"])


def choose(browser: Any, select: Any, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(select).select_by_value(value)


def click_and_wait(browser: Any, button: Any, answer: bool = False, part: str = "main") -> None:
    """Click a form's button (answering its "Are you sure?" with OK when `answer`) and wait
    until the part of the page it replaces (`main`, or the one htmx swaps) is replaced."""
    from selenium.webdriver.common.by import By

    main = browser.find_element(By.CSS_SELECTOR, part)
    button.click()
    if answer:
        accept_confirm(browser)
    wait_for(browser, replaced(main), "the reply")


def accept_confirm(browser: Any) -> None:
    """Answer the page's "Are you sure?" (htmx's hx-confirm) with OK."""
    wait_for(browser, lambda d: d.switch_to.alert, "the confirmation dialog")
    browser.switch_to.alert.accept()


def test_change_an_agents_policy_write_tools_and_pause_it(
    browser: Any, office: Any, screenshots: Path
) -> None:
    from selenium.webdriver.common.by import By

    base, links, vault = office
    log_in(browser, base, links)
    browser.get(f"{base}/agents/claude")
    assert EMAIL not in claude_reads(vault, "budget")
    # A looser policy asks first, and nothing changes until the person confirms.
    choose(browser, browser.find_element(By.ID, "agent-policy"), "open")
    browser.find_element(By.ID, "set-policy").click()
    wait_for(browser, lambda d: d.find_elements(By.ID, "confirm-yes"), "the confirmation")
    assert "claude would read under policy open" in text_of(browser, ".confirm")
    assert EMAIL not in claude_reads(vault, "budget")
    click_and_wait(browser, browser.find_element(By.ID, "confirm-yes"))
    assert "Policy changed" in text_of(browser, "main")
    assert EMAIL in claude_reads(vault, "budget")
    # A stricter one applies at once.
    choose(browser, browser.find_element(By.ID, "agent-policy"), "strict")
    click_and_wait(browser, browser.find_element(By.ID, "set-policy"))
    assert "Policy changed" in text_of(browser, "main")
    assert EMAIL not in claude_reads(vault, "budget")
    assert vault.privacy.base_policy(known_caller(vault, "claude")).name == "strict"
    # Read-only: the write tools are gone for the agent; writable brings them back.
    click_and_wait(browser, browser.find_element(By.ID, "make-read-only"), answer=True)
    assert browser.find_elements(By.ID, "make-writable")
    assert mcp_error(vault, "claude", "remember", text="a note") == "Unknown tool: remember"
    click_and_wait(browser, browser.find_element(By.ID, "make-writable"), answer=True)
    assert browser.find_elements(By.ID, "make-read-only")
    assert mcp_ok(vault, "claude", "remember", text="The bins go out on Tuesday.")
    # Pause: every call is refused with a reason, and audited; resume undoes it.
    click_and_wait(browser, browser.find_element(By.ID, "pause-agent"), answer=True)
    assert browser.find_elements(By.ID, "resume-agent")
    assert "paused" in text_of(browser, "#agent-h")
    refused = mcp_error(vault, "claude", "memory_search", query="budget")
    assert "agent claude is paused by the vault's owner" in refused
    row = vault.audit.entries(agent="claude", limit=1)[0]
    assert row.refused and "paused" in (row.reason or "")
    browser.get(f"{base}/agents")
    assert "paused" in text_of(browser, "#agents")
    browser.get(f"{base}/agents/claude")
    browser.execute_script("document.activeElement.blur()")
    shot(browser, screenshots, "web-agent-controls.png", 1360, 1000)
    click_and_wait(browser, browser.find_element(By.ID, "resume-agent"), answer=True)
    assert browser.find_elements(By.ID, "pause-agent")
    assert not mcp_call(vault, "claude", "memory_search", query="budget").is_error
    # The owner's changes are in the audit log, under "owner".
    browser.get(f"{base}/audit?agent=owner")
    logged = text_of(browser, "main")
    for tool in ("agent_policy", "agent_read_only", "agent_pause", "agent_resume"):
        assert tool in logged


def test_change_a_shelfs_policy_snooze_a_reminder_and_supersede_a_statement(
    browser: Any, office: Any
) -> None:
    from selenium.webdriver.common.by import By

    base, links, vault = office
    vault.agents.set_policy("claude", "open")
    log_in(browser, base, links)
    assert EMAIL in claude_reads(vault, "desk invoice")
    # A stricter shelf policy masks the shelf for the agent at once.
    browser.get(f"{base}/agents")
    form = "//form[@action='/shelves/work/policy']"
    choose(browser, browser.find_element(By.XPATH, f"{form}//select"), "standard")
    click_and_wait(browser, browser.find_element(By.XPATH, f"{form}//button"))
    assert "Shelf policy changed" in text_of(browser, "main")
    assert EMAIL not in claude_reads(vault, "desk invoice")
    assert EMAIL in claude_reads(vault, "budget")  # other shelves keep the agent's policy
    # Dropping it asks first.
    choose(browser, browser.find_element(By.XPATH, f"{form}//select"), "")
    browser.find_element(By.XPATH, f"{form}//button").click()
    wait_for(browser, lambda d: d.find_elements(By.ID, "confirm-yes"), "the confirmation")
    assert "Agents would read shelf work under each agent's own policy" in text_of(
        browser, ".confirm"
    )
    click_and_wait(browser, browser.find_element(By.ID, "confirm-no"))
    assert vault.shelves.get("work").policy == "standard"
    assert EMAIL not in claude_reads(vault, "desk invoice")
    # Snooze the due reminder: off the list for the owner and for the agent.
    browser.get(f"{base}/watches")
    snooze = "//li[contains(@class,'reminder')]//form[contains(@class,'snooze')]"
    choose(browser, browser.find_element(By.XPATH, f"{snooze}//select"), "1w")
    click_and_wait(browser, browser.find_element(By.XPATH, f"{snooze}//button"), part="#reminders")
    assert "Reminder snoozed" in text_of(browser, "#reminders")
    assert "Pay the plumber" not in text_of(browser, "#reminders")
    assert vault.watches.reminders(caller=OWNER).reminders == ()
    assert mcp_ok(vault, "claude", "list_reminders")["reminders"] == []
    # Supersede the statement from its timeline; then close the new one.
    browser.get(f"{base}/statements?entity=Acme")
    browser.find_element(By.XPATH, "//summary[contains(., 'Supersede or close')]").click()
    browser.find_element(By.CLASS_NAME, "supersede-text").send_keys("Acme's account contact is Lee")
    click_and_wait(
        browser, browser.find_element(By.XPATH, "//button[normalize-space()='Supersede']")
    )
    assert "Statement superseded" in text_of(browser, "main")
    claude = known_caller(vault, "claude")
    [now] = vault.statements.query(caller=claude, entities=["Acme"]).statements
    assert now.statement.content == "Acme's account contact is Lee"
    browser.find_element(By.XPATH, "//summary[contains(., 'Supersede or close')]").click()
    browser.find_element(By.NAME, "reason").send_keys("Acme closed the account")
    click_and_wait(
        browser, browser.find_element(By.XPATH, "//button[normalize-space()='Close']"), answer=True
    )
    assert "Statement closed" in text_of(browser, "main")
    assert vault.statements.query(caller=claude, entities=["Acme"]).statements == ()
    assert not browser.find_elements(By.XPATH, "//summary[contains(., 'Supersede or close')]")
