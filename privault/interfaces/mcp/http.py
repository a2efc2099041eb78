"""Streamable HTTP: one server for every agent, each request authenticated by bearer token.

`build_app` returns the ASGI app without running it, so `privault serve` (and later the
scheduler and the warm chat model) can share the event loop and the open vault. Calls run
in the lanes of `lanes.Lanes`: reads in parallel on a pool of handles, writes on one
writer, asks one at a time behind a bounded queue. Every request to `/mcp` — POST, GET
stream, DELETE — must carry `Authorization: Bearer <token>` of an active agent; anything
else gets a bare 401 that says nothing about why, and an audit row (refused, named after
the revoked agent whose token it was, else `(unknown)`), bounded against floods by
`refusals.RefusalLog`.

Before any of that, a request no MCP client sends is refused, and nothing is looked up or
written for it: one a browser made for a page on another site. Any page can have a browser
send a "simple" request to 127.0.0.1 (a `text/plain` no-cors POST, an image's GET) with no
preflight to stop it; it cannot read the answer, but an audit row per minute would be its
to write. So the SDK's DNS-rebinding protection (Host and Origin for the bound address, a
POST's body declared as JSON) runs in front of the token check too, and so does the
browser's fetch metadata (`Sec-Fetch-Site`, which no page can set), as on the owner's page:
it names another site's request where the browser sends no Origin (a GET). A POST that
declares no content type at all is left to the token check: `curl -X POST` sends that.

With `web`, every other path goes to the owner's page (`privault.interfaces.web`), which
has its own guard (a session cookie from a one-time login link) and runs on the primary
vault under its own lock. Neither credential opens the other side.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from privault.caller import Caller
from privault.errors import AccessDenied
from privault.interfaces.agents import authenticate
from privault.interfaces.mcp.lanes import DEFAULT_ASK_QUEUE, DEFAULT_READERS, Activity, Lanes
from privault.interfaces.mcp.refusals import (
    UNKNOWN,
    LogThrottle,
    RefusalLog,
    client_address,
    request_summary,
)
from privault.interfaces.mcp.runtime import ToolRuntime
from privault.interfaces.mcp.server import server_for
from privault.vault import Vault
from privault.vault.agents import AuditEntry

CALLER_KEY = "privault.caller"
MCP_PATH = "/mcp"
RunInVault = Callable[[Callable[[], Any]], Awaitable[Any]]
WebFactory = Callable[[RunInVault], ASGIApp]  # builds the owner's page on the shared runner
# The SDK's Host and Origin check logs each refusal with the header's value (`refusals`).
SDK_SECURITY_LOG = logging.getLogger(TransportSecurityMiddleware.__module__)
SDK_SECURITY_THROTTLE = LogThrottle()
SDK_SECURITY_LOG.addFilter(SDK_SECURITY_THROTTLE)


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _caller_of(_vault: Vault, request: Any) -> Caller:
    if isinstance(request, Request) and isinstance(request.scope.get(CALLER_KEY), Caller):
        return request.scope[CALLER_KEY]
    raise AccessDenied("unauthenticated request")


class BearerAuth:
    """ASGI middleware: an active agent's token, or 401 and nothing else (and an audit row,
    see `refusals`); a request from a browser page on another site is refused before its
    token is looked at (see the module docstring). With lifespan events it closes the
    server's lanes at shutdown."""

    def __init__(
        self, app: ASGIApp, runtime: ToolRuntime, security: TransportSecuritySettings
    ) -> None:
        self.app = app
        self.runtime = runtime
        self.refusals = RefusalLog()
        self.security = TransportSecurityMiddleware(security)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":

            async def on_lifespan(message: Any) -> None:
                if message.get("type") == "lifespan.shutdown.complete":
                    await self.stopped()  # the app has stopped: no call runs now
                await send(message)

            await self.app(scope, receive, on_lifespan)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        foreign = await self._foreign(request)
        if foreign is not None:
            await foreign(scope, receive, send)
            return
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        token = token.strip()
        caller = None
        who = UNKNOWN
        if scheme.lower() == "bearer" and token:

            def check(vault: Vault) -> tuple[Caller | None, str]:
                try:
                    return authenticate(vault, token), ""
                except AccessDenied:
                    return None, vault.agents.revoked_holder(token) or UNKNOWN

            caller, who = await self.runtime.on_reader(check)
        if caller is None:
            if not token:
                reason = "access_denied: no bearer token"
            elif who == UNKNOWN:
                reason = "access_denied: unknown token"
            else:
                reason = "access_denied: revoked token"
            # Nothing the request chose (its path, its headers) is written as it came.
            where = request_summary(str(scope.get("method", "")), str(scope.get("path", "")))
            client = scope.get("client") or ("?", 0)
            source = client_address(client[0])
            await self._audit(self.refusals.refused(who, where, reason, source))
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"www-authenticate", b'Bearer realm="privault"'),
                        (b"content-type", b"application/json"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": b'{"error":"unauthorized"}'})
            return
        scope[CALLER_KEY] = caller
        await self.app(scope, receive, send)

    async def _foreign(self, request: Request) -> Response | None:
        """The answer to a request from a browser page on another site, or None: one whose
        fetch metadata says so, or that fails the SDK's Host and Origin checks, or a POST
        declaring a body other than JSON (a form's or a no-cors fetch's simple type)."""
        if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            return Response("Cross-site request refused", status_code=403)
        declared = "content-type" in request.headers
        return await self.security.validate_request(
            request, is_post=request.method == "POST" and declared
        )

    async def stopped(self) -> None:
        """The server stopped: write the refusals still counted (and the SDK's log lines
        held), close the lanes."""
        await self._audit(self.refusals.flush())
        SDK_SECURITY_THROTTLE.flush(SDK_SECURITY_LOG)
        self.runtime.lane.close()

    async def _audit(self, entries: list[AuditEntry]) -> None:
        if entries:

            def record(vault: Vault) -> None:
                for entry in entries:
                    vault.audit.record(entry)

            await self.runtime.on_reader(record)


def allowed_hosts(host: str, port: int, public: Sequence[str] = ()) -> list[str]:
    """The Host header values a server bound at host:port answers to.

    On loopback: the loopback names. On an address of the machine: that address. On
    every address (0.0.0.0, ::) no name is known, so none but `public`: the names clients
    use, from `serve --public-url` / `--allowed-host`, which are added in every case."""
    if is_loopback(host):
        bound = [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"]
    elif host in WILDCARDS:
        bound = []
    else:
        bound = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    return list(dict.fromkeys([*bound, *(name.lower() for name in public)]))


WILDCARDS = frozenset({"0.0.0.0", "::", ""})  # binding every address of the machine


def security_for(hosts: Sequence[str]) -> TransportSecuritySettings:
    """Host/Origin checks: only the names in `hosts` (see `allowed_hosts`)."""
    origins = [f"http://{name}" for name in hosts] + [f"https://{name}" for name in hosts]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=list(hosts), allowed_origins=origins
    )


class PathRouter:
    """`/mcp` (and below) to the MCP app, every other path to the owner's page; lifespan
    events go to the MCP app, whose session manager needs them."""

    def __init__(self, mcp: ASGIApp, web: ASGIApp) -> None:
        self.mcp = mcp
        self.web = web

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.mcp(scope, receive, send)
            return
        path = scope.get("path", "")
        if path == MCP_PATH or path.startswith(MCP_PATH + "/"):
            await self.mcp(scope, receive, send)
        else:
            await self.web(scope, receive, send)


def build_app(
    vault: Vault,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    web: WebFactory | None = None,
    readers: int = DEFAULT_READERS,
    ask_queue: int = DEFAULT_ASK_QUEUE,
    activity: Activity | None = None,
    public: Sequence[str] = (),
) -> ASGIApp:
    """The ASGI app for `privault serve`: bearer auth in front of the MCP endpoint, and
    (with `web`) the owner's page on every other path. `readers` handles serve reads in
    parallel (0: every call on `vault` under one lock); `ask_queue` asks may wait while
    one runs; `activity` counts the calls being served; `public`: the Host values clients
    use beside the bound address (see `allowed_hosts`)."""
    lanes = Lanes(vault, readers=readers, ask_queue=ask_queue, activity=activity)
    runtime = ToolRuntime(vault, _caller_of, lanes=lanes, resolver_reads_vault=False)
    server = server_for(runtime)
    security = security_for(allowed_hosts(host, port, public))
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH, transport_security=security, host=host
    )
    # The auth check wraps the whole MCP app (lifespan passes through), so no route of it,
    # present or future, is reachable without a token.
    guarded = BearerAuth(app, runtime, security)
    return guarded if web is None else PathRouter(guarded, web(runtime.in_vault))


def serve(
    vault: Vault,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    web: WebFactory | None = None,
    readers: int = DEFAULT_READERS,
    ask_queue: int = DEFAULT_ASK_QUEUE,
    activity: Activity | None = None,
    public: Sequence[str] = (),
) -> None:
    """Run the HTTP server in this process until interrupted."""
    import uvicorn

    app = build_app(
        vault,
        host=host,
        port=port,
        web=web,
        readers=readers,
        ask_queue=ask_queue,
        activity=activity,
        public=public,
    )
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        lifespan="on",
    )
    uvicorn.Server(config).run()
