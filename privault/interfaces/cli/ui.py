"""The owner's web page from the terminal: `privault ui [--open]` prints a one-time login link.

The page itself is served by `privault serve` (beside MCP, on the same port). `serve` notes
where it listens in `$PRIVAULT_HOME/ui/server.json`, so `ui` links to the running server
without being told its port; `ui` writes the link's hashed token into `$PRIVAULT_HOME/ui/
logins/`, where that server consumes it (see `privault.interfaces.web.auth`).
"""

from __future__ import annotations

import json
import os
import socket
import webbrowser
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from privault.errors import InputError
from privault.interfaces import config
from privault.interfaces.cli.common import JsonOption, console, emit_json, err_console, number
from privault.interfaces.cli.terminal import styled

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def ui_folder() -> Path:
    """`$PRIVAULT_HOME/ui`: login links and where the server listens (owner-only)."""
    return config.home() / "ui"


def login_links() -> Any:
    """The login links shared by `ui` (which issues) and `serve` (which consumes)."""
    from privault.interfaces.web.auth import LoginLinks

    return LoginLinks(ui_folder() / "logins")


def announce(host: str, port: int, public_url: str | None = None) -> None:
    """Record where this server listens (and its pid, and the URL clients use when it
    serves other machines), for `privault ui`."""
    folder = ui_folder()
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    data = {"host": host, "port": port, "pid": os.getpid(), "url": public_url}
    (folder / "server.json").write_text(json.dumps(data))


def _announced() -> tuple[str, int, str | None] | None:
    try:
        data = json.loads((ui_folder() / "server.json").read_text())
        os.kill(int(data["pid"]), 0)  # still running?
        url = data.get("url")
        return str(data["host"]), int(data["port"]), str(url) if url else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _listening(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def web_factory(vault: Any, host: str, port: int, public: Sequence[str] = ()) -> Any:
    """What `privault serve` mounts beside MCP: the owner's page for this vault, answering
    to the same Host names as MCP."""
    from privault.interfaces.mcp.http import allowed_hosts
    from privault.interfaces.web.app import build_web_app

    links = login_links()
    hosts = allowed_hosts(host, port, public)
    return lambda run: build_web_app(vault, links=links, hosts=hosts, run=run)


def ui(
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the link in the default browser.")
    ] = False,
    host: Annotated[
        str | None, typer.Option("--host", help="The server's address (default: the running one).")
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(
            "--port", min=1, max=65535, help="The server's port (default: the running one)."
        ),
    ] = None,
    minutes: Annotated[
        int, typer.Option("--minutes", help="How long the link may be used (once).", parser=number)
    ] = 5,
    json_out: JsonOption = False,
) -> None:
    """Print a one-time login link to the owner's page served by `privault serve`."""
    if not 1 <= minutes <= 60:
        raise InputError("--minutes must be between 1 and 60")
    running = _announced()
    chosen_host = host or (running[0] if running else DEFAULT_HOST)
    chosen_port = port or (running[1] if running else DEFAULT_PORT)
    public_url = running[2] if running and host is None and port is None else None
    if chosen_host in ("0.0.0.0", "::", ""):  # bound to every address: check this machine
        chosen_host = DEFAULT_HOST
    token = login_links().issue(minutes * 60)
    shown_host = f"[{chosen_host}]" if ":" in chosen_host else chosen_host
    # A server for other machines answers only to its public name: link to that.
    base = public_url.rstrip("/") if public_url else f"http://{shown_host}:{chosen_port}"
    link = f"{base}/login?token={token}"
    up = _listening(chosen_host, chosen_port)
    if json_out:
        emit_json({"url": link, "expires_in_seconds": minutes * 60, "server_running": up})
    else:
        console.print(f"one-time login link (valid {minutes} min, works once):", highlight=False)
        print(link)
        if not up:
            err_console.print(
                styled(
                    "[yellow]no server on {host}:{port}[/yellow] — start it with "
                    "`privault serve` (the link stays valid until it expires)",
                    host=chosen_host,
                    port=chosen_port,
                ),
                highlight=False,
            )
    if open_browser:
        webbrowser.open(link)


def register(app: typer.Typer) -> None:
    """Add this command to the app."""
    app.command()(ui)
