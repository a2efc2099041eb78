"""Streamable HTTP: one server for every agent, each request authenticated by bearer token.

`build_app` returns the ASGI app without running it, so `privault serve` (and later the
scheduler and the warm chat model) can share the event loop and the one open vault. Every
request — POST, GET stream, DELETE — must carry `Authorization: Bearer <token>` of an
active agent; anything else gets a bare 401 that says nothing about why. Host and Origin
headers are checked by the SDK's DNS-rebinding protection for the bound address.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from privault.caller import Caller
from privault.errors import AccessDenied
from privault.interfaces.agents import authenticate
from privault.interfaces.mcp.runtime import ToolRuntime
from privault.interfaces.mcp.server import server_for
from privault.vault import Vault

CALLER_KEY = "privault.caller"
MCP_PATH = "/mcp"


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _caller_of(request: Any) -> Caller:
    if isinstance(request, Request) and isinstance(request.scope.get(CALLER_KEY), Caller):
        return request.scope[CALLER_KEY]  # type: ignore[no-any-return]
    raise AccessDenied("unauthenticated request")


class BearerAuth:
    """ASGI middleware: an active agent's token, or 401 and nothing else."""

    def __init__(self, app: ASGIApp, runtime: ToolRuntime) -> None:
        self.app = app
        self.runtime = runtime

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = Request(scope).headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        caller = None
        if scheme.lower() == "bearer" and token.strip():
            vault = self.runtime.vault
            try:
                caller = await self.runtime.in_vault(lambda: authenticate(vault, token.strip()))
            except AccessDenied:
                caller = None
        if caller is None:
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


def security_for(host: str, port: int) -> TransportSecuritySettings:
    """Host/Origin checks: loopback names on loopback; the bound host otherwise."""
    if is_loopback(host):
        hosts = [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"]
    else:
        hosts = [f"{host}:{port}"]
    origins = [f"http://{name}" for name in hosts] + [f"https://{name}" for name in hosts]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def build_app(vault: Vault, *, host: str = "127.0.0.1", port: int = 8765) -> ASGIApp:
    """The ASGI app for `privault serve`: bearer auth in front of the MCP endpoint."""
    runtime = ToolRuntime(vault, _caller_of)
    server = server_for(runtime)
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=security_for(host, port),
        host=host,
    )
    # The auth check wraps the whole app (lifespan passes through), so no route, present
    # or future, is reachable without a token.
    return BearerAuth(app, runtime)


def serve(vault: Vault, *, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Run the HTTP server in this process until interrupted."""
    import uvicorn

    config = uvicorn.Config(
        build_app(vault, host=host, port=port),
        host=host,
        port=port,
        log_level="warning",
        lifespan="on",
    )
    uvicorn.Server(config).run()
