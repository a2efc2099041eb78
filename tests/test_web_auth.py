"""The owner's page: who gets in, and what a request must carry to change anything.

Login links are single-use and expire; the session cookie is HttpOnly and SameSite=Strict;
an agent's bearer token opens no page and a page session is no MCP token; every POST
needs this session's CSRF token and this origin; the Host header is checked.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from privault.interfaces.mcp.http import build_app
from privault.interfaces.web import auth
from privault.interfaces.web.app import build_web_app
from privault.interfaces.web.auth import LoginLinks
from privault.vault import Vault
from tests.web_site import OWNER, Site, csrf_of, seed

PAGES = [
    "/",
    "/?q=boiler",
    "/pack?q=boiler&agent=claude",
    "/own?q=boiler&agent=claude",
    "/docs",
    "/statements",
    "/watches",
    "/agents",
    "/audit",
    "/status",
]


@pytest.fixture
def site(vault: Vault) -> Site:
    return seed(vault)


@pytest.fixture
def links(tmp_path: Path) -> LoginLinks:
    return LoginLinks(tmp_path / "home" / "ui" / "logins")


@pytest.fixture
def client(vault: Vault, links: LoginLinks) -> TestClient:
    return TestClient(build_web_app(vault, links=links, hosts=["testserver"]))


def login(client: TestClient, links: LoginLinks) -> str:
    """Log `client` in with a fresh link; return the session cookie."""
    reply = client.get(f"/login?token={links.issue()}", follow_redirects=False)
    assert reply.status_code == 303
    return str(client.cookies[auth.cookie_name(client.base_url.netloc.decode())])


def actions(site: Site) -> list[str]:
    return [
        f"/doc/{site.team}/mark",
        f"/doc/{site.team}/unmark",
        f"/doc/{site.team}/overrides/1/remove",
        f"/reminders/{site.reminder}/ack",
        "/agents/claude/revoke",
        "/logout",
    ]


def test_every_page_and_action_needs_a_session(client: TestClient, site: Site) -> None:
    for path in PAGES + [f"/doc/{site.plumber}"]:
        reply = client.get(path)
        assert reply.status_code == 401, path
        assert "privault ui" in reply.text and "Maria" not in reply.text
    for path in actions(site):
        assert client.post(path, data={"value": "x"}).status_code == 401, path


def test_a_login_link_works_once_and_sets_a_strict_httponly_cookie(
    client: TestClient, links: LoginLinks
) -> None:
    token = links.issue()
    first = client.get(f"/login?token={token}", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == "/"
    cookie = first.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie
    assert client.get("/status").status_code == 200

    other = TestClient(client.app)
    again = other.get(f"/login?token={token}", follow_redirects=False)
    assert again.status_code == 403 and auth.COOKIE not in other.cookies
    assert "used or expired" in again.text
    assert other.get("/status").status_code == 401


def test_an_expired_or_made_up_link_opens_nothing(
    client: TestClient, links: LoginLinks, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = links.issue(ttl_seconds=60)
    later = auth.time.time() + 61
    monkeypatch.setattr(auth.time, "time", lambda: later)
    assert client.get(f"/login?token={token}", follow_redirects=False).status_code == 403
    monkeypatch.undo()
    assert client.get(f"/login?token={token}").status_code == 403  # and it is gone now
    assert client.get("/login?token=not-a-token").status_code == 403
    assert client.get("/login").status_code == 401
    assert client.get("/status").status_code == 401


def test_links_are_stored_hashed_in_a_private_folder(links: LoginLinks) -> None:
    token = links.issue()
    [stored] = list(links.folder.iterdir())
    assert token not in stored.name and token not in stored.read_text()
    assert oct(links.folder.stat().st_mode & 0o777) == "0o700"
    assert oct(stored.stat().st_mode & 0o777) == "0o600"
    with pytest.raises(ValueError):
        links.issue(ttl_seconds=0)


def test_an_agent_bearer_token_opens_no_page(client: TestClient, site: Site) -> None:
    bearer = {"Authorization": f"Bearer {site.tokens['claude']}"}
    for path in PAGES:
        assert client.get(path, headers=bearer).status_code == 401, path
    reply = client.post("/agents/reader/revoke", headers=bearer)
    assert reply.status_code == 401


def test_a_page_session_is_no_mcp_token(vault: Vault, site: Site, links: LoginLinks) -> None:
    def web(run):  # type: ignore[no-untyped-def]
        return build_web_app(vault, links=links, hosts=["127.0.0.1:8765"], run=run)

    app = build_app(vault, host="127.0.0.1", port=8765, web=web)
    with TestClient(app, base_url="http://127.0.0.1:8765") as client:
        session = login(client, links)
        assert client.get("/status").status_code == 200  # the page works on the shared app
        hello = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        headers = {"Accept": "application/json, text/event-stream"}
        assert client.post("/mcp", json=hello, headers=headers).status_code == 401
        as_bearer = {**headers, "Authorization": f"Bearer {session}"}
        assert client.post("/mcp", json=hello, headers=as_bearer).status_code == 401
        agent = {**headers, "Authorization": f"Bearer {site.tokens['claude']}"}
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"},
            },
        }
        assert client.post("/mcp", json=init, headers=agent).status_code == 200


def test_every_post_needs_this_sessions_csrf_token(
    client: TestClient, links: LoginLinks, site: Site, vault: Vault
) -> None:
    login(client, links)
    page = client.get(f"/doc/{site.team}")
    csrf = csrf_of(page.text)
    for path in actions(site):
        assert client.post(path, data={"value": "Kofi"}).status_code == 403, path
        wrong = {"value": "Kofi", "csrf": csrf[::-1]}
        assert client.post(path, data=wrong).status_code == 403, path
    assert vault.pii.overrides(caller=OWNER) == []
    assert len(vault.watches.reminders(caller=OWNER).reminders) == 1
    # A second session's token is not this one's.
    other = TestClient(client.app)
    login(other, links)
    stolen = other.post(f"/doc/{site.team}/mark", data={"value": "Kofi", "csrf": csrf})
    assert stolen.status_code == 403
    # The right token, in the form or in htmx's header, is accepted.
    ok = client.post(
        f"/doc/{site.team}/mark", data={"value": "Kofi", "csrf": csrf}, follow_redirects=False
    )
    assert ok.status_code == 303
    by_header = client.post(
        f"/reminders/{site.reminder}/ack", headers={"X-CSRF-Token": csrf}, follow_redirects=False
    )
    assert by_header.status_code == 303


def test_a_wrong_csrf_token_is_the_same_403_whatever_its_characters(
    client: TestClient, links: LoginLinks, site: Site, vault: Vault
) -> None:
    login(client, links)
    csrf = csrf_of(client.get("/").text)
    path = f"/reminders/{site.reminder}/ack"
    replies = [
        client.post(path, data={"csrf": wrong}, follow_redirects=False)
        for wrong in ("wrong", "caf\u00e9", csrf[:-1] + "\u00e9", "\U0001f511" * 43)
    ]
    # A header arrives as Latin-1 text, so it can carry non-ASCII characters too.
    header = {"X-CSRF-Token": (csrf[:-1] + "\u00e9").encode("latin-1")}
    replies.append(client.post(path, headers=header, follow_redirects=False))
    assert {(reply.status_code, reply.text) for reply in replies} == {
        (403, "CSRF token missing or wrong; reload the page")
    }
    assert len(vault.watches.reminders(caller=OWNER).reminders) == 1  # nothing was done


def test_cross_site_posts_and_foreign_hosts_are_refused(
    client: TestClient, links: LoginLinks, site: Site, vault: Vault
) -> None:
    login(client, links)
    csrf = csrf_of(client.get("/").text)
    path = f"/reminders/{site.reminder}/ack"
    evil = client.post(path, data={"csrf": csrf}, headers={"Origin": "http://evil.example"})
    assert evil.status_code == 403
    cross = client.post(path, data={"csrf": csrf}, headers={"Sec-Fetch-Site": "cross-site"})
    assert cross.status_code == 403
    assert len(vault.watches.reminders(caller=OWNER).reminders) == 1
    assert client.get("/", headers={"Host": "attacker.example"}).status_code == 400
    assert client.request("PUT", "/").status_code == 405
    assert client.request("DELETE", "/agents/claude/revoke").status_code == 405


def test_a_null_origin_passes_only_as_this_origins_own_form_post_with_the_token(
    client: TestClient, links: LoginLinks, site: Site, vault: Vault
) -> None:
    # Under `no-referrer` Chromium sends its own form posts with `Origin: null`; a sandboxed
    # frame or a data: page on another site sends the same, so fetch metadata decides.
    login(client, links)
    csrf = csrf_of(client.get("/").text)
    path = f"/reminders/{site.reminder}/ack"
    for site_header in ("cross-site", "same-site", None):
        headers = {"Origin": "null"}
        if site_header:
            headers["Sec-Fetch-Site"] = site_header
        refused = client.post(path, data={"csrf": csrf}, headers=headers)
        assert refused.status_code == 403, site_header
    own = {"Origin": "null", "Sec-Fetch-Site": "same-origin"}
    assert client.post(path, data={"csrf": "wrong"}, headers=own).status_code == 403
    assert client.post(path, headers=own).status_code == 403  # the token is still required
    assert len(vault.watches.reminders(caller=OWNER).reminders) == 1
    done = client.post(path, data={"csrf": csrf}, headers=own, follow_redirects=False)
    assert done.status_code == 303
    assert len(vault.watches.reminders(caller=OWNER).reminders) == 0


def test_logout_ends_the_session(client: TestClient, links: LoginLinks) -> None:
    login(client, links)
    csrf = csrf_of(client.get("/").text)
    assert client.post("/logout", data={"csrf": csrf}, follow_redirects=False).status_code == 303
    assert client.get("/status").status_code == 401


def test_every_reply_carries_a_strict_csp_and_no_caching_of_private_pages(
    client: TestClient, links: LoginLinks, site: Site
) -> None:
    login(client, links)
    for path in PAGES + [f"/doc/{site.plumber}"]:
        reply = client.get(path)
        assert reply.status_code == 200, path
        csp = reply.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "default-src 'none'" in csp
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert reply.headers["cache-control"] == "no-store"
        assert reply.headers["x-frame-options"] == "DENY"
        assert reply.headers["referrer-policy"] == "no-referrer"
        assert reply.headers["server-timing"].startswith("app;dur=")
        # The only script is the vendored htmx file; nothing is loaded from elsewhere.
        assert reply.text.count("<script") == 1
        assert '<script src="/static/htmx.min.js" defer></script>' in reply.text
        assert "http://" not in reply.text.replace("http://testserver", "")
        assert "https://" not in reply.text
    unauthenticated = TestClient(client.app).get("/")
    assert "unsafe-inline" not in unauthenticated.headers["content-security-policy"]


def test_the_vendored_htmx_is_served_with_its_licence_header(client: TestClient) -> None:
    reply = client.get("/static/htmx.min.js")
    assert reply.status_code == 200
    assert reply.text.startswith("/*! htmx.org 2.0.11")
    assert "Zero-Clause BSD" in reply.text.splitlines()[0]
    assert "javascript" in reply.headers["content-type"]
    assert client.get("/static/style.css").status_code == 200
    escape = client.get("/static/%2e%2e/app.py")
    assert escape.status_code == 404 and "build_web_app" not in escape.text


def test_two_vaults_pages_on_one_machine_keep_their_own_sessions(
    vault: Vault, links: LoginLinks
) -> None:
    """A browser sends a host's cookies to every port of it: the session cookie carries
    its page's port, so logging in to a second vault's page does not log out the first."""
    clients = {}
    for port in (8765, 8766):
        host = f"127.0.0.1:{port}"
        app = build_web_app(vault, links=links, hosts=[host])
        clients[port] = TestClient(app, base_url=f"http://{host}")
        login = clients[port].get(f"/login?token={links.issue()}", follow_redirects=False)
        assert login.status_code == 303
    jar = {name: value for client in clients.values() for name, value in client.cookies.items()}
    assert set(jar) == {f"{auth.COOKIE}_8765", f"{auth.COOKIE}_8766"}
    for client in clients.values():
        client.cookies.clear()
        # What one browser sends to either port: both sessions' cookies.
        assert client.get("/status", headers={"cookie": _header(jar)}).status_code == 200
    assert auth.cookie_name("[::1]") == auth.cookie_name("localhost") == auth.COOKIE


def _header(jar: dict[str, str]) -> str:
    return "; ".join(f"{name}={value}" for name, value in jar.items())


def test_a_link_preview_does_not_use_up_a_login_link(vault: Vault, links: LoginLinks) -> None:
    client = TestClient(build_web_app(vault, links=links, hosts=["testserver"]))
    token = links.issue()
    assert client.head(f"/login?token={token}").status_code == 204
    assert client.get(f"/login?token={token}").status_code == 200  # still good once
