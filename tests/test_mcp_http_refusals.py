"""Requests refused at the HTTP door (no, unknown or revoked token): a bare 401 and an audit
row, named after the revoked agent whose token it was, without letting a flood of them grow
the audit table one row per request."""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
from starlette.testclient import TestClient

from privault.interfaces.mcp.http import SDK_SECURITY_LOG, build_app
from privault.interfaces.mcp.refusals import UNKNOWN, LogThrottle, RefusalLog
from privault.store import audit
from privault.vault import Vault
from tests.helpers import free_port, uvicorn_running

HEADERS = {"Accept": "application/json, text/event-stream"}
HELLO = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}


def refusal_rows(vault: Vault) -> list[audit.AuditEntry]:
    return [row for row in audit.entries(vault.conn, limit=10_000) if row.refused]


def bearer(token: str) -> dict[str, str]:
    return {**HEADERS, "Authorization": f"Bearer {token}"}


def test_refused_tokens_get_a_bare_401_and_a_bounded_audit(vault: Vault) -> None:
    active = vault.agents.issue("claude")
    revoked = vault.agents.issue("bob")
    vault.agents.revoke("bob")
    app = build_app(vault, host="127.0.0.1", port=8765, readers=2)
    with TestClient(app, base_url="http://127.0.0.1:8765") as client:
        unknown = client.post("/mcp", json=HELLO, headers=bearer("pv_" + "x" * 43))
        assert (unknown.status_code, unknown.json()) == (401, {"error": "unauthorized"})
        assert client.post("/mcp", json=HELLO, headers=HEADERS).status_code == 401
        gone = client.post("/mcp", json=HELLO, headers=bearer(revoked))
        assert gone.status_code == 401 and gone.content == unknown.content  # nothing more
        for _ in range(300):  # a flood of made-up tokens
            flood = bearer("pv_" + secrets.token_urlsafe(32))
            assert client.post("/mcp", json=HELLO, headers=flood).status_code == 401
        assert client.post("/mcp", json=INIT, headers=bearer(active)).status_code == 200
        during = refusal_rows(vault)
    after = refusal_rows(vault)  # the server stopped: what was only counted is written
    assert sorted((row.agent, row.reason) for row in during) == [
        (UNKNOWN, "access_denied: unknown token (from ?)"),
        ("bob", "access_denied: revoked token (from ?)"),
    ]
    assert all(not row.ok and row.tool == "POST /mcp" for row in during)
    summary = [row for row in after if row not in during]
    assert [(row.agent, row.reason) for row in summary] == [
        (
            UNKNOWN,
            "301 more requests refused in the 60 s after the one logged before (from ?)",
        )
    ]
    assert not any(row.agent == "claude" for row in after)


def test_a_refused_source_costs_at_most_one_row_a_window() -> None:
    now = [0.0]
    log = RefusalLog(window_seconds=60, clock=lambda: now[0])
    first = log.refused(UNKNOWN, "POST /mcp", "access_denied: unknown token", "10.0.0.1")
    assert [(row.agent, row.refused, row.ok) for row in first] == [(UNKNOWN, True, False)]
    assert first[0].reason == "access_denied: unknown token (from 10.0.0.1)"
    assert all(log.refused(UNKNOWN, "POST /mcp", "x", "10.0.0.1") == [] for _ in range(999))
    now[0] = 30.0
    assert [row.agent for row in log.refused("bob", "GET /mcp", "revoked", "10.0.0.1")] == ["bob"]
    now[0] = 61.0  # the first window closed: its count is written with the next refusal
    rows = log.refused("bob", "GET /mcp", "revoked", "10.0.0.1")
    assert [(row.agent, row.reason) for row in rows] == [
        (
            UNKNOWN,
            "999 more requests refused in the 60 s after the one logged before (from 10.0.0.1)",
        )
    ]
    now[0] = 62.0
    # The summary opened the next window: a refusal a second later waits for it too.
    assert log.refused(UNKNOWN, "POST /mcp", "access_denied: unknown token", "10.0.0.1") == []
    assert sorted((row.agent, row.reason) for row in log.flush()) == [
        (UNKNOWN, "1 more request refused in the 60 s after the one logged before (from 10.0.0.1)"),
        ("bob", "1 more request refused in the 60 s after the one logged before (from 10.0.0.1)"),
    ]
    assert log.flush() == []


def test_a_flood_leaves_one_row_a_minute_per_source() -> None:
    now = [0.0]
    log = RefusalLog(window_seconds=60, clock=lambda: now[0])
    written = []
    for second in range(0, 600):  # ten minutes, 50 requests a second
        now[0] = float(second)
        for _ in range(50):
            written += log.refused(UNKNOWN, "POST /mcp/…", "access_denied: no bearer token", "::1")
    written += log.flush()
    assert 10 <= len(written) <= 11
    assert sum(int(row.reason.split()[0]) for row in written[1:]) == 600 * 50 - 1


def test_sources_tracked_at_once_are_capped() -> None:
    log = RefusalLog(window_seconds=60, clock=lambda: 0.0, max_sources=8)
    rows = [
        row
        for i in range(1000)
        for row in log.refused(UNKNOWN, "GET /mcp", "x", f"10.0.{i // 250}.{i % 250}")
    ]
    assert len(rows) == 9  # eight addresses, then one bucket for the rest
    assert rows[-1].reason.endswith("(from (other addresses))")


@pytest.mark.parametrize(
    "path",
    ["/mcp/%5B%2F%5D", "/mcp/%1B%5D0%3Bowned%07", "/mcp/" + "A" * 5000, "/mcp/..%2F..%2Fetc"],
)
def test_an_unauthenticated_path_is_never_written_as_it_came(vault: Vault, path: str) -> None:
    app = build_app(vault, host="127.0.0.1", port=8765, readers=1)
    with TestClient(app, base_url="http://127.0.0.1:8765") as client:
        for method in ("POST", "GET", "DELETE", "PROPFIND"):
            assert client.request(method, path, headers=HEADERS).status_code in (401, 405)
    rows = refusal_rows(vault)
    assert len(rows) == 2  # the first refusal, and the summary written when the server stopped
    assert {row.tool for row in rows} <= {"POST /mcp/…", "refused requests"}
    for row in rows:
        assert "[" not in row.tool and "\x1b" not in (row.reason or "")
        assert len(row.reason or "") <= 300 and "A" * 50 not in (row.reason or "")


@contextmanager
def serving(vault: Vault) -> Iterator[str]:
    """`privault serve`'s app for `vault`, run by uvicorn on 127.0.0.1; its base URL. The
    server is stopped on leaving (what it only counted is written then)."""
    port = free_port()
    with uvicorn_running(build_app(vault, host="127.0.0.1", port=port, readers=1), port) as url:
        yield url


# What a browser sends for a page on another site (`fetch(url, {method: "POST", mode:
# "no-cors", body})`, an <img src>, a form), with and without the fetch metadata older
# browsers leave out: none can be a real MCP client's request.
SIMPLE_POST = {"Content-Type": "text/plain;charset=UTF-8", "Origin": "https://site.example"}
FROM_ANOTHER_SITE = [
    ("POST", {**SIMPLE_POST, "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"}),
    ("POST", SIMPLE_POST),
    ("POST", {"Content-Type": "application/x-www-form-urlencoded", "Origin": "null"}),
    ("POST", {"Content-Type": "text/plain"}),
    ("POST", {**HEADERS, "Content-Type": "application/json", "Origin": "http://localhost:3000"}),
    ("GET", {"Accept": "image/avif,image/webp,*/*", "Sec-Fetch-Site": "cross-site"}),
    ("GET", {"Accept": "text/event-stream", "Sec-Fetch-Site": "same-site"}),
]


def test_a_page_on_another_site_writes_nothing_to_the_audit(vault: Vault) -> None:
    """A page anywhere can make the browser send a simple cross-origin request to
    127.0.0.1: it cannot read the answer, and now it cannot write an audit row either.
    Such requests are refused before the token is looked at; a request a client could
    have sent without a token is still refused with a 401 and audited."""
    token = vault.agents.issue("claude")
    body = json.dumps(HELLO)
    with serving(vault) as base, httpx.Client(base_url=base, timeout=30) as client:
        for method, headers in FROM_ANOTHER_SITE:
            answer = client.request(method, "/mcp", content=body, headers=headers)
            assert answer.status_code in (400, 403), (method, headers, answer.status_code)
        # Not even with a token: no MCP client is a page on another site.
        stolen = {**SIMPLE_POST, "Authorization": f"Bearer {token}"}
        assert client.post("/mcp", content=body, headers=stolen).status_code in (400, 403)
        during = refusal_rows(vault)
        assert client.post("/mcp", json=INIT, headers=bearer(token)).status_code == 200
        bare = client.post("/mcp", content=body, headers=HEADERS)  # curl -X POST, no token
        assert bare.status_code == 401
    assert during == []
    rows = refusal_rows(vault)
    assert [(row.tool, row.reason) for row in rows] == [
        ("POST /mcp", "access_denied: no bearer token (from 127.0.0.1)")
    ]


def test_the_sdks_host_and_origin_warnings_are_one_line_a_minute_without_the_value() -> None:
    now = [0.0]
    throttle = LogThrottle(clock=lambda: now[0])

    def record(origin: str) -> logging.LogRecord:
        return logging.LogRecord(
            "sdk", logging.WARNING, "x", 1, f"Invalid Origin header: {origin}", None, None
        )

    first = record("https://site.example/\u202eevil")
    assert throttle.filter(first) and first.getMessage() == "Invalid Origin header"
    assert not any(throttle.filter(record(f"https://{n}.example")) for n in range(500))
    # A flood of one kind hides no other: a misconfigured client's Host is still logged.
    host = logging.LogRecord(
        "sdk", logging.WARNING, "x", 1, "Invalid Host header: vault.lan", None, None
    )
    assert throttle.filter(host) and host.getMessage() == "Invalid Host header"
    now[0] = 61.0
    later = record("null")
    assert throttle.filter(later)
    assert later.getMessage() == "Invalid Origin header (500 more held in the 60 s before)"


def test_the_warnings_held_are_counted_when_the_server_stops(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Until now the count of held lines came only with the next line of their kind, and
    # a server stopping mid-window never wrote it.
    logger = logging.getLogger("privault.tests.sdk")
    throttle = LogThrottle(clock=lambda: 0.0)
    logger.addFilter(throttle)
    try:
        with caplog.at_level(logging.WARNING, logger=logger.name):
            for n in range(4):
                logger.warning("Invalid Origin header: https://%d.example", n)
            throttle.flush(logger)
            logger.warning("Invalid Origin header: https://later.example")  # a new window
    finally:
        logger.removeFilter(throttle)
    assert [r.getMessage() for r in caplog.records] == [
        "Invalid Origin header",
        "Invalid Origin header: 3 more records held since the last one written",
        "Invalid Origin header",
    ]


def test_a_flood_from_another_site_logs_no_header_it_chose(
    vault: Vault, caplog: pytest.LogCaptureFixture
) -> None:
    body = json.dumps(HELLO)
    headers = {**HEADERS, "Content-Type": "application/json"}
    with (
        serving(vault) as base,
        httpx.Client(base_url=base, timeout=30) as client,
        caplog.at_level(logging.WARNING, logger=SDK_SECURITY_LOG.name),
    ):
        for n in range(50):
            origin = f"https://flood-{n}.example"
            answer = client.post("/mcp", content=body, headers={**headers, "Origin": origin})
            assert answer.status_code == 403
        during = [r.getMessage() for r in caplog.records if r.name == SDK_SECURITY_LOG.name]
    lines = [r.getMessage() for r in caplog.records if r.name == SDK_SECURITY_LOG.name]
    assert len(during) <= 1
    assert not any("flood" in line for line in lines)
    # Stopping, the server says how many it held (one line).
    assert len(lines) == len(during) + 1 and "more records held" in lines[-1]
