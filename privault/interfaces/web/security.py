"""The guard in front of every page: host, method, session, and the headers on every reply.

* **Host** must be one of the names the server was bound as (DNS-rebinding protection: a
  page on another site that resolves its own name to 127.0.0.1 gets a 400).
* **Methods**: GET, HEAD and POST only. A POST must come from this origin (`Origin` and
  `Sec-Fetch-Site`, when the browser sends them) and carry the session's CSRF token — that
  last check is made by the route (`views.common.action`), which reads the form.
  Under this page's `no-referrer` policy a browser sends its own plain form posts with
  `Origin: null`; such a post passes here only when the browser's `Sec-Fetch-Site` (a
  header no page can set) says it came from this origin, and it still needs the token.
* **Session**: every path but the login link and the static files needs a live session
  cookie. An `Authorization` header is ignored: an agent's bearer token opens nothing here.
* **Headers**: a Content-Security-Policy that allows only this origin's own script and
  style files (no inline script, no eval, no third party), no framing, no referrer, no
  caching of private pages, and `Server-Timing` with the time spent serving the page.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from http.cookies import SimpleCookie

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from privault.interfaces.web.auth import Sessions, cookie_name

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
]
PUBLIC_PREFIXES = ("/static/", "/login")
SESSION_KEY = "privault.session"
SESSION_ID_KEY = "privault.session_id"


def cookie_value(scope: Scope, name: str) -> str | None:
    """One cookie from the request headers, or None."""
    for key, value in scope.get("headers", []):
        if key == b"cookie":
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(value.decode("latin-1"))
            except Exception:  # a malformed cookie header is the same as none
                return None
            if name in jar:
                return jar[name].value
    return None


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def small_page(heading: str, text: str) -> str:
    """A whole page of one heading and one line (fixed or escaped texts only: nothing is
    escaped here)."""
    return (
        '<!doctype html><html lang="en"><meta charset="utf-8"><title>privault</title>'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="stylesheet" href="/static/style.css">'
        '<link rel="icon" href="/static/favicon.svg">'
        f'<main class="narrow"><h1>{heading}</h1><p>{text}</p></main></html>'
    )


async def _plain(send: Send, status: int, text: str) -> None:
    if not text.startswith("<!doctype"):
        text = small_page(text[:1].upper() + text[1:], "")
    body = text.encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/html; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                *HEADERS,
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


LOGIN_NEEDED = small_page(
    "Not signed in",
    "Run <code>privault ui</code> (or <code>privault ui --open</code>) in a terminal and "
    "open the one-time link it prints.",
)


class PageGuard:
    """ASGI middleware for the owner's page (see the module docstring)."""

    def __init__(self, app: ASGIApp, sessions: Sessions, hosts: Sequence[str]) -> None:
        self.app = app
        self.sessions = sessions
        self.hosts = {host.lower() for host in hosts}
        self.origins = {f"{scheme}://{host}" for host in self.hosts for scheme in ("http", "https")}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        if (_header(scope, b"host") or "").lower() not in self.hosts:
            await _plain(send, 400, "unknown host")
            return
        method = scope["method"]
        if method not in ("GET", "HEAD", "POST"):
            await _plain(send, 405, "method not allowed")
            return
        if method == "POST" and not self._same_origin(scope):
            await _plain(send, 403, "cross-site request refused")
            return
        path = scope["path"]
        if not path.startswith(PUBLIC_PREFIXES):
            session_id = cookie_value(scope, cookie_name(_header(scope, b"host") or ""))
            session = self.sessions.get(session_id)
            if session is None:
                await _plain(send, 401, LOGIN_NEEDED)
                return
            scope[SESSION_KEY] = session
            scope[SESSION_ID_KEY] = session_id
        private = not path.startswith("/static/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v) for k, v in message.get("headers", []) if k != b"cache-control"
                ] + HEADERS
                headers.append(
                    (b"cache-control", b"no-store" if private else b"public, max-age=3600")
                )
                spent = (time.perf_counter() - started) * 1000
                headers.append((b"server-timing", f"app;dur={spent:.1f}".encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _same_origin(self, scope: Scope) -> bool:
        origin = _header(scope, b"origin")
        site = _header(scope, b"sec-fetch-site")
        if origin == "null":
            # An opaque origin: a form post under `no-referrer`, but also a sandboxed frame
            # or a `data:` page anywhere. Only the browser's own fetch metadata tells them apart.
            return site == "same-origin"
        if origin is not None and origin.lower() not in self.origins:
            return False
        return site in (None, "same-origin", "none")
