"""Fixtures and helpers for the browser tests: the served app, Chromium, waiting, reading
text and screenshots (see `test_web_browser`)."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from test_watches_support import LocalServer, serve

from privault.interfaces.mcp.http import allowed_hosts, build_app
from privault.interfaces.web.app import build_web_app
from privault.interfaces.web.auth import LoginLinks
from privault.vault import Vault
from privault.watches.fetcher import Fetcher, FetchLimits
from tests.helpers import fake_vault, free_port, uvicorn_running
from tests.web_site import Site, seed, shop_page

CHROMIUM = "/usr/bin/chromium"
DRIVER = "/usr/bin/chromedriver"
DOCS = Path(__file__).parents[1] / "docs"
WAIT = 15.0


@pytest.fixture(scope="module")
def pages() -> Iterator[LocalServer]:
    with serve({"/shop": shop_page}) as running:
        yield running


@contextmanager
def serving(vault: Vault, links: LoginLinks) -> Iterator[str]:
    """`privault serve`'s app for `vault` on a free loopback port; yields its base URL."""
    port = free_port()

    def web(run: Any) -> Any:
        return build_web_app(vault, links=links, hosts=allowed_hosts("127.0.0.1", port), run=run)

    with uvicorn_running(
        build_app(vault, host="127.0.0.1", port=port, web=web), port, wait=WAIT
    ) as url:
        yield url


@pytest.fixture
def served(tmp_path: Path, pages: LocalServer) -> Iterator[tuple[str, LoginLinks, Site]]:
    """The seeded vault (`web_site.seed`) served; yields (base URL, links, site)."""
    vault: Vault = fake_vault(tmp_path / "v.db")
    vault.watches._fetcher = Fetcher(limits=FetchLimits(total_seconds=5.0))
    site = seed(vault, pages)
    links = LoginLinks(tmp_path / "logins")
    try:
        with serving(vault, links) as base:
            yield base, links, site
    finally:
        vault.close()


@pytest.fixture
def screenshots(tmp_path: Path) -> Path:
    """Where screenshots go: `docs/` only when `PRIVAULT_SCREENSHOTS=docs` asks for the
    README's copies; else the test's own folder (a test run must not change the repo)."""
    wanted = os.environ.get("PRIVAULT_SCREENSHOTS", "")
    if wanted not in ("", "docs"):
        pytest.fail(f"PRIVAULT_SCREENSHOTS={wanted!r}: the one value it takes is `docs`")
    folder = DOCS if wanted == "docs" else tmp_path / "screenshots"
    folder.mkdir(exist_ok=True)
    return folder


def chromium(*, script: bool = True) -> Any:
    """Headless Debian Chromium through chromium-driver (its profile in a temp folder)."""
    missing = [path for path in (CHROMIUM, DRIVER) if not Path(path).exists()]
    if missing:
        pytest.fail(
            f"{', '.join(missing)} missing: `apt-get install chromium chromium-driver` "
            "(or deselect with -m 'not browser')"
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="privault-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--window-size=1360,900",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    if not script:  # the page's no-script fallbacks: every form a plain form post
        options.add_experimental_option(
            "prefs", {"profile.managed_default_content_settings.javascript": 2}
        )
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=DRIVER))
    driver.set_page_load_timeout(WAIT)
    driver.profile_folder = profile
    return driver


def close(driver: Any) -> None:
    """Quit the browser and remove its profile."""
    driver.quit()
    shutil.rmtree(driver.profile_folder, ignore_errors=True)


@pytest.fixture
def browser() -> Iterator[Any]:
    """Chromium with script on, as people use the page."""
    driver = chromium()
    try:
        yield driver
    finally:
        close(driver)


@pytest.fixture
def scriptless() -> Iterator[Any]:
    """Chromium with script off: the page must work with plain forms and links."""
    driver = chromium(script=False)
    try:
        yield driver
    finally:
        close(driver)


def wait_for(driver: Any, condition: Any, what: str) -> Any:
    """Wait until `condition(driver)` holds. An element read while a form post replaces
    the page goes stale: that is "not yet", as a missing element is, and so is Chromium's
    "does not belong to the document" for a node of the page being replaced (see
    `replaced`)."""
    from selenium.common.exceptions import (
        NoSuchElementException,
        StaleElementReferenceException,
        WebDriverException,
    )
    from selenium.webdriver.support.ui import WebDriverWait

    def attempt(current: Any) -> Any:
        try:
            return condition(current)
        except WebDriverException as exc:
            if _of_a_replaced_page(exc):
                return False
            raise

    ignored = (NoSuchElementException, StaleElementReferenceException)
    return WebDriverWait(driver, WAIT, ignored_exceptions=ignored).until(attempt, message=what)


def replaced(element: Any) -> Any:
    """A `wait_for` condition: `element` has left the page (a reply replaced it). Chromium
    may answer a question about a node of the document being replaced with "does not
    belong to the document" instead of a stale reference: that is gone too."""
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

    def gone(_driver: Any) -> bool:
        try:
            element.is_enabled()
        except StaleElementReferenceException:
            return True
        except WebDriverException as exc:
            if _of_a_replaced_page(exc):
                return True
            raise
        return False

    return gone


def _of_a_replaced_page(exc: Exception) -> bool:
    """True for Chromium's answer about a node of a document being replaced."""
    return "does not belong to the document" in str(exc)


def text_of(driver: Any, selector: str) -> str:
    """The visible text of every element matching `selector`, read in one step (htmx may
    swap elements between two WebDriver calls)."""
    script = "return [...document.querySelectorAll(arguments[0])].map(e => e.innerText).join('\\n')"
    return str(driver.execute_script(script, selector))


def shot(driver: Any, folder: Path, name: str, width: int, height: int) -> Path:
    """A screenshot of the current page at a window size, into `folder`."""
    driver.set_window_size(width, height)
    time.sleep(0.3)  # let the layout settle after the resize
    path = folder / name
    assert driver.save_screenshot(str(path)), f"no screenshot written to {path}"
    return path


def log_in(driver: Any, base: str, links: LoginLinks) -> None:
    """Open a fresh one-time login link and land on the search page."""
    driver.get(f"{base}/login?token={links.issue()}")
    wait_for(driver, lambda d: d.current_url == f"{base}/", "landing on the search page")
