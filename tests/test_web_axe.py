"""Accessibility: axe-core (vendored in `tests/vendor/axe-core`) runs in Chromium on every
page of the owner's page, in light and in dark colour schemes, and finds nothing critical
or serious. Also: every page, error pages included, says its language."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.web_browser import log_in, wait_for

pytest_plugins = ["tests.web_browser"]
pytestmark = pytest.mark.browser

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
SEVERE = ("critical", "serious")


def axe_problems(driver: Any) -> list[str]:
    """axe's critical and serious findings on the page now, one line each."""
    if not driver.execute_script("return !!window.axe"):
        driver.execute_script(AXE.read_text(encoding="utf-8"))
    found = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']})"
        ".then(r => done(JSON.stringify(r.violations)))"
        ".catch(e => done(JSON.stringify([{id: 'axe-error', impact: 'critical',"
        " help: String(e), nodes: []}])));"
    )
    problems = []
    for item in json.loads(found):
        if item["impact"] in SEVERE:
            where = [" ".join(node["target"]) for node in item["nodes"][:3]]
            problems.append(f"{item['impact']} {item['id']}: {item['help']} at {where}")
    return problems


def pages_of(site: Any) -> list[str]:
    return [
        "/",
        "/?q=boiler+invoice&agent=claude",
        "/pack?q=boiler+invoice&agent=claude",
        "/own?q=boiler+invoice&agent=claude",
        "/own?q=Acme+contact&agent=claude",
        f"/doc/{site.plumber}?agent=claude",
        f"/doc/{site.health}?agent=claude",
        "/docs",
        "/statements",
        "/statements?entity=Acme",
        "/watches",
        "/agents",
        "/agents/claude",
        "/audit",
        "/status",
        "/no-such-page",
        "/logout",  # a GET where only POST is allowed: the styled 405
    ]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_critical_or_serious_accessibility_problems(
    browser: Any, served: Any, scheme: str
) -> None:
    base, links, site = served
    browser.set_script_timeout(60)
    browser.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": scheme}]},
    )
    log_in(browser, base, links)
    found = {}
    for path in pages_of(site):
        browser.get(base + path)
        wait_for(
            browser, lambda d: d.execute_script("return document.readyState") == "complete", path
        )
        assert browser.execute_script("return document.documentElement.lang") == "en", path
        problems = axe_problems(browser)
        if problems:
            found[path] = problems
    # The confirmation a reveal asks for, and the page a signed-out browser gets.
    browser.get(f"{base}/doc/{site.plumber}?agent=claude")
    browser.find_element("css selector", "#masked-values button").click()
    wait_for(browser, lambda d: d.find_elements("id", "confirm-yes"), "the confirmation")
    if problems := axe_problems(browser):
        found["confirm"] = problems
    browser.delete_all_cookies()
    browser.get(base + "/status")
    assert browser.execute_script("return document.documentElement.lang") == "en"
    if problems := axe_problems(browser):
        found["signed out"] = problems
    assert found == {}, json.dumps(found, indent=1)
