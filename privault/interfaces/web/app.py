"""The owner's web page as an ASGI app: routes, login and logout, static files.

`build_web_app` returns the app without running it: `privault serve` mounts it beside the
MCP endpoint on the same port, sharing the vault and its lock (see
`privault.interfaces.mcp.http`); tests drive it with Starlette's test client.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from privault.errors import storage_fault
from privault.interfaces.web import access, documents, manage, search, statements, watches
from privault.interfaces.web.auth import (
    SESSION_MAX_SECONDS,
    LoginLinks,
    Session,
    Sessions,
    cookie_name,
)
from privault.interfaces.web.common import LockedRunner, RunInVault, Web, action, page, web_of
from privault.interfaces.web.security import (
    LOGIN_NEEDED,
    SESSION_ID_KEY,
    SESSION_KEY,
    PageGuard,
    small_page,
)
from privault.vault import Vault

STATIC = Path(__file__).parent / "static"
LOGIN_FAILED = LOGIN_NEEDED.replace("Not signed in", "This login link is used or expired").replace(
    "Run <code>", "Each link works once, for a few minutes. Run <code>"
)


async def login(request: Request) -> Response:
    """GET /login?token=… — a one-time link from `privault ui` starts a session."""
    web = web_of(request)
    token = request.query_params.get("token", "")
    if request.method == "HEAD":  # a link preview looking: the link stays unused
        return Response(status_code=204, headers={"cache-control": "no-store"})
    if not token:
        return HTMLResponse(LOGIN_NEEDED, status_code=401)
    if not web.links.consume(token):
        return HTMLResponse(LOGIN_FAILED, status_code=403)
    response = RedirectResponse("/", status_code=303)
    response.set_cookie(
        cookie_name(request.headers.get("host", "")),
        web.sessions.start(),
        max_age=int(SESSION_MAX_SECONDS),
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


@action
async def logout(request: Request, form: dict[str, str]) -> str:
    """POST /logout — end this session."""
    web_of(request).sessions.end(request.scope.get(SESSION_ID_KEY))
    return "/login"


ROUTES = [
    Route("/", search.search_page),
    Route("/pack", search.pack_page),
    Route("/own", search.own_page),
    Route("/docs", documents.documents_page),
    Route("/doc/{doc_id}", documents.document_page),
    Route("/doc/{doc_id}/mark", documents.mark, methods=["POST"]),
    Route("/doc/{doc_id}/unmark", documents.unmark, methods=["POST"]),
    Route(
        "/doc/{doc_id}/overrides/{override_id:int}/remove",
        documents.remove_override,
        methods=["POST"],
    ),
    Route("/statements", statements.statements_page),
    Route("/statements/{statement_id}/supersede", statements.supersede, methods=["POST"]),
    Route("/statements/{statement_id}/close", statements.close, methods=["POST"]),
    Route("/watches", watches.watches_page),
    Route("/reminders/{reminder_id}/ack", watches.ack, methods=["POST"]),
    Route("/reminders/{reminder_id}/snooze", watches.snooze, methods=["POST"]),
    Route("/agents", access.agents_page),
    Route("/agents/add", manage.add_agent, methods=["POST"]),
    Route("/agents/{name}", manage.agent_page),
    Route("/agents/{name}/revoke", access.revoke, methods=["POST"]),
    Route("/agents/{name}/attach", manage.attach, methods=["POST"]),
    Route("/agents/{name}/detach", manage.detach, methods=["POST"]),
    Route("/agents/{name}/policy", manage.agent_policy, methods=["POST"]),
    Route("/agents/{name}/{verb}", manage.agent_switch, methods=["POST"]),
    Route("/shelves/add", manage.add_shelf, methods=["POST"]),
    Route("/shelves/{shelf}/publish", manage.publish, methods=["POST"]),
    Route("/shelves/{shelf}/restrict", manage.restrict, methods=["POST"]),
    Route("/shelves/{shelf}/policy", manage.shelf_policy, methods=["POST"]),
    Route("/watches/add", manage.add_watch, methods=["POST"]),
    Route("/watches/{watch_id}/{verb}", manage.watch_action, methods=["POST"]),
    Route("/audit", access.audit_page),
    Route("/status", access.status_page),
    Route("/login", login),
    Route("/logout", logout, methods=["POST"]),
    Mount("/static", StaticFiles(directory=STATIC), name="static"),
]


HTTP_ERRORS = {
    404: "There is no such page here.",
    405: "This address takes a form's post, not a link: use the button on its page.",
}


async def http_error(request: Request, exc: Exception) -> Response:
    """A styled page for a 404 or 405 (the path is not echoed back)."""
    code = getattr(exc, "status_code", 404)
    text = HTTP_ERRORS.get(code, "That did not work.")
    if not isinstance(request.scope.get(SESSION_KEY), Session):  # a static file: no session
        return HTMLResponse(small_page("Not found" if code == 404 else "Not allowed", text), code)
    return page(request, "error.html", "", status_code=code, error=text)


async def server_error(request: Request, exc: Exception) -> Response:
    """What privault did not expect, as one line: what to do where the vault file or the
    disk is at fault (`storage_fault`), else that the server's log has it (with the
    traceback, which the server still logs)."""
    fault = storage_fault(exc)
    text = html.escape(fault) if fault else "The server could not do that; its log says why."
    return HTMLResponse(small_page("Error", text), 500)


def build_web_app(
    vault: Vault,
    *,
    links: LoginLinks,
    hosts: Sequence[str],
    run: RunInVault | None = None,
    sessions: Sessions | None = None,
) -> ASGIApp:
    """The owner's page for `vault`: `hosts` are the Host header values it answers to."""
    handlers = {404: http_error, 405: http_error, Exception: server_error}
    app = Starlette(routes=ROUTES, exception_handlers=handlers)
    web = Web(vault, run or LockedRunner(), sessions or Sessions(), links)
    app.state.web = web
    return PageGuard(app, web.sessions, hosts)
