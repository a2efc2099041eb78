"""Requests refused at the HTTP door (no, unknown or revoked token): a bare 401 and an audit
row, named after the revoked agent whose token it was, without letting a flood of them grow
the audit table one row per request."""

from __future__ import annotations

import secrets

from starlette.testclient import TestClient

from privault.interfaces.mcp.http import build_app
from privault.interfaces.mcp.refusals import UNKNOWN, RefusalLog
from privault.store import audit
from privault.vault import Vault

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
        (UNKNOWN, "access_denied: unknown token"),
        ("bob", "access_denied: revoked token"),
    ]
    assert all(not row.ok and row.tool == "POST /mcp" for row in during)
    summary = [row for row in after if row not in during]
    assert [(row.agent, row.reason) for row in summary] == [
        (UNKNOWN, "301 more requests refused in the 60 s after the one logged before")
    ]
    assert not any(row.agent == "claude" for row in after)


def test_a_refused_identity_costs_at_most_two_rows_a_window() -> None:
    now = [0.0]
    log = RefusalLog(window_seconds=60, clock=lambda: now[0])
    first = log.refused(UNKNOWN, "POST /mcp", "access_denied: unknown token")
    assert [(row.agent, row.refused, row.ok) for row in first] == [(UNKNOWN, True, False)]
    assert all(log.refused(UNKNOWN, "POST /mcp", "x") == [] for _ in range(999))
    now[0] = 30.0
    assert [row.agent for row in log.refused("bob", "GET /mcp", "revoked")] == ["bob"]
    now[0] = 61.0  # the first window closed: its count is written with the next refusal
    rows = log.refused("bob", "GET /mcp", "revoked")
    assert [(row.agent, row.reason) for row in rows] == [
        (UNKNOWN, "999 more requests refused in the 60 s after the one logged before")
    ]
    now[0] = 62.0
    again = log.refused(UNKNOWN, "POST /mcp", "access_denied: unknown token")
    assert [row.agent for row in again] == [UNKNOWN]  # a new window: logged at once
    assert [(row.agent, row.reason) for row in log.flush()] == [
        ("bob", "1 more request refused in the 60 s after the one logged before")
    ]
    assert log.flush() == []
