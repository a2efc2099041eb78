"""The owner's page in a real browser: Debian's Chromium driven by Selenium through
chromium-driver, against `privault serve`'s app (MCP and the page on one port) running
with uvicorn on 127.0.0.1 inside the test.

Selenium rather than Playwright: Playwright's Python package drives browsers it downloads
itself and its protocol is pinned to those builds; Debian's `chromium` and
`chromium-driver` come from one source package at one version, so WebDriver and browser
always match and nothing is fetched at run time.

The run takes the screenshots the README shows (`web-search.png` and a phone-width one)
into the test's temporary folder; with `PRIVAULT_SCREENSHOTS=docs` it writes them into
`docs/` instead, so an ordinary run leaves the work tree clean. `.ci/run` installs the
browser; without it these tests fail, saying what to install.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from privault.interfaces.web.auth import cookie_name
from tests.web_browser import shot, text_of, wait_for

pytest_plugins = ["tests.web_browser"]  # the served app and the browser, as fixtures
pytestmark = pytest.mark.browser


def test_log_in_search_compare_mark_and_ack(browser: Any, served: Any, screenshots: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    base, links, site = served
    driver = browser

    # Log in with a one-time link: the session cookie is HttpOnly and SameSite=Strict.
    driver.get(f"{base}/login?token={links.issue()}")
    wait_for(driver, lambda d: d.current_url == f"{base}/", "landing on the search page")
    cookie = driver.get_cookie(cookie_name(base.split("//", 1)[1]))
    assert cookie["httpOnly"] is True and cookie["sameSite"] == "Strict"
    assert driver.execute_script("return document.cookie") == ""  # not readable by script

    # Search as the owner and as agent claude, side by side (htmx swaps the results in).
    box = driver.find_element(By.NAME, "q")
    box.send_keys("boiler invoice")
    Select(driver.find_element(By.ID, "agent")).select_by_value("claude")
    driver.find_element(By.CSS_SELECTOR, "form.search button").click()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".column.agent .hit"), "results")
    assert "q=boiler%20invoice" in driver.current_url  # htmx pushed the query into the URL
    owner, agent = text_of(driver, ".column.owner"), text_of(driver, ".column.agent")
    assert "Dr. Maria Gonzalez" in owner and "maria.gonzalez@example.com" in owner
    assert "Maria" not in agent and "<PERSON_1>" in agent and "<EMAIL_ADDRESS_1>" in agent
    assert "not visible to claude" in agent and "Boiler fumes" not in agent
    assert "Boiler fumes" in owner  # paired with why claude has nothing there
    # claude's own search, the page's second, is fetched once the results are shown.
    wait_for(driver, lambda d: "in claude's results" in text_of(d, "#own"), "claude's own results")
    assert "Your #1: " in text_of(driver, "#own") and "Maria" not in text_of(driver, "#own")

    # The agent's context pack is fetched when its panel is opened, and is gated too.
    assert "tokens" not in text_of(driver, "#pack-body")
    driver.find_element(By.CSS_SELECTOR, "details.pack summary").click()
    wait_for(driver, lambda d: "tokens" in text_of(d, "#pack-body"), "the context pack")
    pack = text_of(driver, "#pack-body")
    assert "repaired the boiler" in pack and "Maria" not in pack and "<PERSON_" in pack

    # Mark a value the detector missed: the agent column masks it at once.
    driver.get(f"{base}/doc/{site.team}?agent=claude")
    assert "Kofi Mensah" in text_of(driver, ".section-row .column.agent")
    driver.find_element(By.ID, "mark-value").send_keys("Kofi Mensah")
    driver.find_element(By.ID, "mark-submit").click()
    wait_for(
        driver,
        lambda d: "Kofi Mensah" not in text_of(d, ".section-row .column.agent"),
        "the agent column to mask the marked value",
    )
    assert "<PERSON_1>" in text_of(driver, ".section-row .column.agent")
    assert "Kofi Mensah" in text_of(driver, ".section-row .column.owner")
    assert "Marked" in driver.page_source

    # And a search as the agent no longer shows it either: the README's screenshots.
    driver.get(f"{base}/?q=boiler+invoice&agent=claude")
    assert "Kofi Mensah" in text_of(driver, ".column.owner")
    assert "Kofi" not in text_of(driver, ".column.agent")
    wait_for(driver, lambda d: "in claude's results" in text_of(d, "#own"), "claude's own results")
    assert "Kofi" not in text_of(driver, "#own")
    driver.execute_script("document.activeElement.blur()")
    shot(driver, screenshots, "web-search.png", 1360, 900)
    driver.set_window_size(400, 860)
    owner_box, agent_box = driver.execute_script(
        "return ['.column.owner', '.column.agent'].map("
        "s => document.querySelector(s).getBoundingClientRect().toJSON())"
    )
    assert agent_box["top"] >= owner_box["bottom"] - 1  # stacked, the agent's view under yours
    # On a phone the agent's column stacks under the owner's: show where they meet.
    driver.execute_script(
        "document.getElementById('agent-h').scrollIntoView(); window.scrollBy(0, -140)"
    )
    shot(driver, screenshots, "web-search-phone.png", 400, 860)
    driver.set_window_size(1360, 900)

    # Acknowledge the due reminder.
    driver.get(f"{base}/watches")
    assert "Pay the plumber" in text_of(driver, "#reminders")
    assert "+The boiler service costs 95 euros." in text_of(driver, "pre.diff")
    driver.find_element(By.CSS_SELECTOR, "#reminders button.ack").click()
    wait_for(driver, lambda d: "Nothing due." in text_of(d, "#reminders"), "the reminder acked")

    # The strict CSP held everywhere: no violation, no script error in the console.
    problems = [
        entry["message"]
        for entry in driver.get_log("browser")
        if entry["level"] == "SEVERE" or "Content Security Policy" in entry["message"]
    ]
    assert problems == []


def test_a_script_in_a_note_does_not_run(browser: Any, served: Any) -> None:
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    base, links, site = served
    driver = browser
    driver.get(f"{base}/login?token={links.issue()}")
    for path in (f"/doc/{site.evil}", "/?q=pasted+web+page&agent=claude", "/docs"):
        driver.get(base + path)
        time.sleep(0.3)
        with pytest.raises(NoAlertPresentException):
            driver.switch_to.alert  # noqa: B018 - an alert() would be open now
        assert driver.find_elements(By.TAG_NAME, "img") == []
        assert '<script>alert("pwned")</script>' in text_of(driver, "main")


def test_every_page_fits_a_phone_width(browser: Any, served: Any) -> None:
    base, links, site = served
    driver = browser
    driver.get(f"{base}/login?token={links.issue()}")
    driver.set_window_size(400, 860)
    time.sleep(0.3)
    too_wide = {}
    for path in (
        "/?q=boiler+invoice&agent=claude",
        "/pack?q=boiler+invoice&agent=claude",
        f"/doc/{site.plumber}?agent=claude",
        "/docs",
        "/statements?entity=Acme",
        "/watches",
        "/agents",
        "/audit",
        "/status",
    ):
        driver.get(base + path)
        # The widest element, if any sticks out past the window (what to fix, not just where).
        wide = driver.execute_script(
            "const w = document.documentElement.clientWidth;"
            "const out = [...document.querySelectorAll('main *')]"
            "  .map(e => [e, Math.round(e.getBoundingClientRect().right)])"
            "  .filter(([e, right]) => right > w + 1)"
            "  .map(([e, right]) => `${e.tagName}.${e.className} ${right}`);"
            "return document.documentElement.scrollWidth > w ? out.slice(0, 3) : [];"
        )
        if wide:
            too_wide[path] = wide
    assert too_wide == {}, f"wider than a phone: {too_wide}"
