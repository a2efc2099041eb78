"""Serving other machines: `--allow-remote` with the name clients use.

A server bound to every address knew no name but `0.0.0.0:PORT`, so the owner's page
answered a real browser 400 and MCP a real client 421. With `--public-url` (or
`--allowed-host`) the Host allow-list is that name and port, and `privault ui` links to it.
The live test binds 127.0.0.2 — an address of this machine that is not the default — and
drives the page and MCP through it with the public Host name.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from privault.errors import InputError
from privault.interfaces.cli import app
from privault.interfaces.cli.serve import public_names
from privault.interfaces.cli.ui import announce, web_factory
from privault.interfaces.mcp.http import allowed_hosts, build_app
from privault.vault import Vault
from tests.helpers import FakeEngineRunner, fake_vault, free_port, uvicorn_running

ADDRESS = "127.0.0.2"
HEADERS = {"Accept": "application/json, text/event-stream"}
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


def test_public_names_from_a_url_and_allowed_hosts() -> None:
    assert public_names("https://Vault.Example.lan:9443/", (), 8765) == ["vault.example.lan:9443"]
    assert public_names("https://vault.lan", (), 8765) == ["vault.lan", "vault.lan:443"]
    assert public_names("http://[fd00::1]:8765", (), 8765) == ["[fd00::1]:8765"]
    assert public_names(None, ["box.lan", "10.0.0.5:80"], 8765) == ["box.lan:8765", "10.0.0.5:80"]
    for bad in ("ftp://x", "https://x/path", "https://u:p@x", "x.lan", "https://x:99999"):
        with pytest.raises(InputError):
            public_names(bad, (), 8765)
    with pytest.raises(InputError):
        public_names(None, ["evil.lan/x"], 8765)


def test_the_allow_list_of_every_address_is_the_public_names_only() -> None:
    assert allowed_hosts("0.0.0.0", 8765) == []
    assert allowed_hosts("0.0.0.0", 8765, ["vault.lan:8765"]) == ["vault.lan:8765"]
    assert "vault.lan:8765" in allowed_hosts("127.0.0.1", 8765, ["vault.lan:8765"])
    assert allowed_hosts("192.168.1.5", 8765) == ["192.168.1.5:8765"]


def test_serving_every_address_without_a_public_name_is_refused() -> None:
    result = FakeEngineRunner().invoke(app, ["serve", "--host", "0.0.0.0", "--allow-remote"])
    assert result.exit_code != 0
    assert "--public-url" in str(result.exception)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[Vault, int, str]]:
    try:
        port = free_port(ADDRESS)
    except OSError:
        pytest.fail(f"cannot bind {ADDRESS}: loopback addresses beyond 127.0.0.1 are missing")
    vault = fake_vault(tmp_path / "vault.db")
    token = vault.agents.issue("claude")
    public = public_names(f"http://vault.test:{port}", (), port)
    asgi = build_app(
        vault,
        host=ADDRESS,
        port=port,
        web=web_factory(vault, ADDRESS, port, public),
        readers=1,
        public=public,
    )
    try:
        with uvicorn_running(asgi, port, host=ADDRESS):
            announce(ADDRESS, port, f"http://vault.test:{port}")
            yield vault, port, token
    finally:
        vault.close()


def test_the_page_and_mcp_answer_through_the_public_name(
    server: tuple[Vault, int, str],
) -> None:
    _, port, token = server
    ui = FakeEngineRunner().invoke(app, ["ui", "--json"])
    assert ui.exit_code == 0, ui.output
    link = json.loads(ui.stdout)["url"]
    assert link.startswith(f"http://vault.test:{port}/login?token=")
    assert json.loads(ui.stdout)["server_running"] is True
    path = link.removeprefix(f"http://vault.test:{port}")
    named = {"Host": f"vault.test:{port}"}
    with httpx.Client(base_url=f"http://{ADDRESS}:{port}", timeout=30) as client:
        login = client.get(path, headers=named, follow_redirects=False)
        assert login.status_code == 303, login.text
        assert client.get("/status", headers=named).status_code == 200
        mcp = {**HEADERS, **named, "Authorization": f"Bearer {token}"}
        assert client.post("/mcp", json=INIT, headers=mcp).status_code == 200
        # Any other name is refused, as before: DNS rebinding stays closed.
        for host in (f"0.0.0.0:{port}", f"evil.test:{port}", "vault.test"):
            assert client.get("/status", headers={"Host": host}).status_code == 400
            wrong = {**mcp, "Host": host}
            assert client.post("/mcp", json=INIT, headers=wrong).status_code in (400, 421)
