"""What every page handler shares: the open vault, how to run on it, rendering, CSRF.

The vault has one SQLite connection, shared with the MCP endpoint of the same server; page
handlers run their vault work through `run` (a worker thread under the server's one lock),
exactly as tool calls do. The page always acts as the owner: the session proves it is the
person at this machine who ran `privault ui`.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar
from urllib.parse import urlencode

import anyio
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from privault.caller import Caller
from privault.errors import AccessDenied, InputError, NotFound, PolicyError, PrivaultError
from privault.interfaces.web.auth import LoginLinks, Session, Sessions, csrf_matches
from privault.interfaces.web.render import Templates
from privault.interfaces.web.security import SESSION_KEY
from privault.vault import Vault
from privault.vault.bounds import MAX_STORED_INT

T = TypeVar("T")
OWNER = Caller.owner()
NAV = (
    ("search", "/", "Search"),
    ("docs", "/docs", "Documents"),
    ("statements", "/statements", "Statements"),
    ("watches", "/watches", "Watches"),
    ("agents", "/agents", "Agents"),
    ("audit", "/audit", "Audit"),
    ("status", "/status", "Status"),
)


class RunInVault(Protocol):
    """Runs a function with the vault to itself, off the event loop."""

    def __call__(self, fn: Callable[[], T], /) -> Awaitable[T]: ...


@dataclass
class LockedRunner:
    """A `RunInVault` with its own lock (when no MCP runtime shares the vault)."""

    _lock: threading.Lock = field(default_factory=threading.Lock)

    async def __call__(self, fn: Callable[[], T]) -> T:
        """Run `fn` on a worker thread under the lock."""

        def locked() -> T:
            with self._lock:
                return fn()

        return await anyio.to_thread.run_sync(locked)


@dataclass
class Web:
    """The state every handler reads: `request.app.state.web`."""

    vault: Vault
    run: RunInVault
    sessions: Sessions
    links: LoginLinks
    templates: Templates = field(default_factory=Templates)

    def active_agents(self) -> list[str]:
        """Names of the agents whose view the owner can preview: not those the
        configuration refuses, nor those the owner paused (every call of theirs is refused):
        they read nothing, and a preview would show what they do not get."""
        refuses = self.vault.privacy.access.refuses
        return [
            a.name
            for a in self.vault.agents.list()
            if a.active and not a.paused and not refuses(a.name)
        ]


def web_of(request: Request) -> Web:
    """The page state of the app serving `request`."""
    found: Web = request.app.state.web
    return found


def session_of(request: Request) -> Session:
    """The session the guard checked (every non-public route has one)."""
    found = request.scope.get(SESSION_KEY)
    if not isinstance(found, Session):
        raise AccessDenied("no session")
    return found


def page(
    request: Request, template: str, active: str, status_code: int = 200, **context: Any
) -> Response:
    """A full page (htmx swaps the part it asked for with `hx-select`)."""
    web = web_of(request)
    html = web.templates.render(
        template,
        {
            "nav": NAV,
            "active": active,
            "csrf": session_of(request).csrf,
            "message": MESSAGES.get(request.query_params.get("done", ""), ""),
            **context,
        },
    )
    return HTMLResponse(html, status_code=status_code)


MESSAGES = {  # fixed texts: a link cannot make the page say something of its choosing
    "marked": "Marked: the agent column now masks it.",
    "absent": "Nothing marked: that value does not occur in this document (check its spelling).",
    "unmarked": "Unmarked: no longer treated as PII of that kind in this document.",
    "unmarked-hidden": "Unmarked; no agent sees more: other kinds still mask that text.",
    "removed": "Override removed.",
    "acked": "Reminder acknowledged.",
    "revoked": "Agent revoked: its next call is refused.",
    "attached": "Shelf opened to the agent: its next call sees it.",
    "detached": "Shelf closed to the agent: its next call no longer sees it.",
    "shelf-added": "Shelf added.",
    "published": "Shelf published: every agent sees it from its next call.",
    "restricted": "Shelf restricted: only the agents on its list see it from their next call.",
    "watch-added": "Watch added.",
    "watch-ran": "Watch run.",
    "watch-paused": "Watch paused.",
    "watch-resumed": "Watch resumed.",
    "watch-cancelled": "Watch cancelled.",
    "agent-policy": "Policy changed: the agent reads under it from its next call.",
    "agent-pause": "Agent paused: its calls are refused until you resume it.",
    "agent-resume": "Agent resumed: its next call works again.",
    "agent-read-only": "Agent made read-only: its write tools are gone from its next call.",
    "agent-writable": "Agent made writable: it can write from its next call.",
    "shelf-policy": "Shelf policy changed: agents read it under that from their next call.",
    "snoozed": "Reminder snoozed: it is due again after that time.",
    "superseded": "Statement superseded: the new one holds from now.",
    "closed": "Statement closed: it stays in the history, no longer current.",
}


def status_of(exc: PrivaultError) -> int:
    """The HTTP status of a known failure: 404 not found, 400 bad input, else 403."""
    return 404 if isinstance(exc, NotFound) else 400 if isinstance(exc, InputError) else 403


def whole_main(request: Request, response: Response) -> Response:
    """`response` shown in place of the whole of `<main>` even when htmx asked for a part."""
    if request.headers.get("hx-request"):
        response.headers.update(
            {"HX-Retarget": "main", "HX-Reselect": "main", "HX-Reswap": "outerHTML"}
        )
    return response


def error_page(request: Request, exc: PrivaultError) -> Response:
    """A known failure as a page with one line, and the matching status."""
    response = page(request, "error.html", "", status_code=status_of(exc), error=str(exc))
    return whole_main(request, response)


Handler = Callable[[Request], Awaitable[Response]]


def action(handler: Callable[[Request, dict[str, str]], Awaitable[str | Response]]) -> Handler:
    """A state-changing route: checks the CSRF token, runs, then redirects (303) to the URL
    the handler returns. htmx follows the redirect and swaps in the part of the page it
    targets; without script the browser simply loads the page again. A handler may return
    a page instead (a confirmation to ask for): it replaces the whole of `<main>`."""

    async def route(request: Request) -> Response:
        form = {key: str(value) for key, value in (await request.form()).items()}
        presented = request.headers.get("x-csrf-token") or form.get("csrf")
        if not csrf_matches(session_of(request), presented):
            return HTMLResponse("CSRF token missing or wrong; reload the page", status_code=403)
        try:
            target = await handler(request, form)
        except (PrivaultError, PolicyError) as exc:
            return error_page(request, exc)
        if isinstance(target, Response):
            return whole_main(request, target)
        return RedirectResponse(target, status_code=303)

    return route


def whole_number(text: str) -> int | None:
    """A number from an address (a page's start, a cursor's parts), or None for anything else:
    `str.isdigit` also takes `²`, which `int()` refuses, and a number past SQLite's 64-bit
    integers fails its query."""
    if not (text.isascii() and text.isdigit() and len(text) <= len(str(MAX_STORED_INT))):
        return None
    value = int(text)
    return value if value <= MAX_STORED_INT else None


def url(path: str, **params: str | None) -> str:
    """`path?key=value…` with empty values left out."""
    kept = {key: value for key, value in params.items() if value}
    return f"{path}?{urlencode(kept)}" if kept else path
