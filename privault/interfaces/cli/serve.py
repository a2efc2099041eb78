"""`privault serve`: the composition root of the long-running server.

One process serves MCP over HTTP for every agent, the owner's page beside it, the clock
that polls watches (and syncs, with `--sync`), and keeps the engines loaded: the
embedder, the PII detector and the local chat model.
"""

from __future__ import annotations

import gc
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

import typer

from privault.errors import InputError, PrivaultError
from privault.interfaces.cli.common import err_console, opened
from privault.interfaces.cli.terminal import styled
from privault.interfaces.mcp.lanes import DEFAULT_ASK_QUEUE, DEFAULT_READERS, Activity
from privault.interfaces.scheduler import POLL_SECONDS, Clock, SyncJob
from privault.vault import Vault


def serve(
    host: Annotated[str, typer.Option("--host", help="Address to bind.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", min=1, max=65535, help="Port to listen on.")
    ] = 8765,
    allow_remote: Annotated[
        bool,
        typer.Option("--allow-remote", help="Allow binding an address other machines can reach."),
    ] = False,
    public_url: Annotated[
        str | None,
        typer.Option(
            "--public-url",
            help="The URL other machines reach this server at (e.g. https://vault.lan:8765): "
            "requests must name its host and port, and `privault ui` links to it.",
        ),
    ] = None,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-host",
            help="Another NAME[:PORT] clients may use in the Host header (repeatable; the "
            "port defaults to --port).",
        ),
    ] = None,
    sync_folder: Annotated[
        Path | None,
        typer.Option("--sync", help="Also sync through this shared folder (`privault sync`)."),
    ] = None,
    sync_minutes: Annotated[
        int, typer.Option("--sync-minutes", min=1, help="Minutes between syncs.")
    ] = 5,
    readers: Annotated[
        int,
        typer.Option(
            "--readers",
            min=0,
            max=32,
            help="Connections serving read calls in parallel (0: every call through one "
            "connection, one at a time).",
        ),
    ] = DEFAULT_READERS,
    ask_queue: Annotated[
        int,
        typer.Option(
            "--ask-queue",
            min=0,
            max=100,
            help="ask_memory calls that may wait while one runs; more are answered busy.",
        ),
    ] = DEFAULT_ASK_QUEUE,
    chat_threads: Annotated[
        int | None,
        typer.Option(
            "--chat-threads",
            min=1,
            max=256,
            help="CPU threads the local chat model computes with (default: one fewer than "
            "the machine has, so calls beside an ask keep a core).",
        ),
    ] = None,
) -> None:
    """Serve MCP at http://HOST:PORT/mcp (bearer token per agent) and the owner's page at
    http://HOST:PORT/ (log in with the link `privault ui` prints)."""
    from privault.interfaces.cli.sync import bundle_secret
    from privault.interfaces.cli.ui import announce, web_factory
    from privault.interfaces.mcp import http

    public = public_names(public_url, allowed_host or (), port)
    if not http.is_loopback(host):
        if not allow_remote:
            raise InputError(
                f"{host} is reachable from other machines; pass --allow-remote to bind it anyway"
            )
        if host in http.WILDCARDS and not public:
            raise InputError(
                f"--host {host or '(every address)'} listens on every address: say which name "
                "clients use with --public-url URL or --allowed-host NAME[:PORT]"
            )
        err_console.print(
            styled(
                "[yellow]warning:[/yellow] serving on {host}: anyone who can reach it and holds "
                "a token can read this vault; traffic is plain HTTP — put TLS in front of it",
                host=host,
            ),
            highlight=False,
        )
    job = None
    if sync_folder is not None:
        secret = bundle_secret(vault_key=False, confirm=False)
        job = SyncJob(sync_folder, secret, sync_minutes * 60)
    with opened() as vault:
        # The clock's own connection, on the server's engines: one embedder, one detector.
        # Its strong-model pass steps aside while the server serves calls.
        activity = Activity()
        clock = Clock(vault.sibling, job, busy=activity.busy)
        _warm_up(vault, chat_threads or max(1, (os.cpu_count() or 2) - 1))
        clock.start()
        err_console.print(
            f"privault MCP on http://{host}:{port}{http.MCP_PATH} · the owner's page on "
            f"http://{host}:{port}/ (`privault ui` prints a login link) · watches "
            f"polled every {POLL_SECONDS}s"
            + (f" · syncing {sync_folder} every {sync_minutes} min" if sync_folder else ""),
            highlight=False,
        )
        announce(host, port, public_url.rstrip("/") if public_url else None)
        try:
            http.serve(
                vault,
                host=host,
                port=port,
                web=web_factory(vault, host, port, public),
                readers=readers,
                ask_queue=ask_queue,
                activity=activity,
                public=public,
            )
        finally:
            clock.stop()


_NAME = re.compile(
    r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9-]{1,63})*|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$"
)


def public_names(public_url: str | None, allowed: Sequence[str], port: int) -> list[str]:
    """The Host header values other machines use, from --public-url and --allowed-host.

    A URL with an explicit port gives `name:port`; without one, `name` and `name:443`
    (or `:80`), as browsers send either. An allowed host without a port gets `port`."""
    names = []
    if public_url:
        parts = urlsplit(public_url.strip())
        try:
            explicit = parts.port
        except ValueError:
            explicit = -1
        if (
            parts.scheme not in ("http", "https")
            or not parts.hostname
            or parts.path not in ("", "/")
            or parts.query
            or parts.fragment
            or parts.username is not None
            or explicit == -1
        ):
            raise InputError(
                f"--public-url {public_url!r}: give the address clients use, like "
                "https://vault.example.lan:8765 (no path)"
            )
        name = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        if explicit:
            names.append(f"{name}:{explicit}")
        else:
            names += [name, f"{name}:{443 if parts.scheme == 'https' else 80}"]
    for item in allowed:
        found = _NAME.match(item.strip().lower())
        if not found:
            raise InputError(f"--allowed-host {item!r}: give NAME or NAME:PORT")
        names.append(item.strip().lower() if found.group(1) else f"{item.strip().lower()}:{port}")
    return names


def _warm_up(vault: Vault, chat_threads: int) -> None:
    """Load the embedder, the PII detector and the local chat model now, so the first call
    is not slow; then take what they loaded out of the garbage collector's sight."""
    vault.embedder.embed_query("warm up")
    try:
        vault.privacy.detector.detect("Warm up with Dana Lee in Paris.")
    except PrivaultError as exc:  # every gated call will refuse with the same message
        err_console.print(styled("[yellow]PII detector unavailable:[/yellow] {}", exc))
    try:
        name = vault.load_chat_model(threads=chat_threads)
        err_console.print(
            f"local model {name} loaded ({chat_threads} CPU thread"
            + ("s)" if chat_threads != 1 else ")"),
            highlight=False,
        )
    except PrivaultError as exc:
        err_console.print(styled("[yellow]ask_memory unavailable:[/yellow] {}", exc))
    settle_heap()


def settle_heap() -> None:
    """Exempt every object alive now from the cyclic garbage collector.

    The engines leave a large heap of objects that live as long as the server (tokenizers,
    ONNX sessions, spaCy and presidio); each full collection walked all of them again,
    which on the owner's page cost about 60 ms of CPU every ten requests or so. Frozen,
    they are still freed by reference counting; only cycles among them are never reclaimed.
    """
    gc.collect()
    gc.freeze()


def register(app: typer.Typer) -> None:
    """Add `serve` to the app."""
    app.command()(serve)
