"""What every CLI command shares: the --json and --as options, opening the vault, output."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any

import typer
from rich.console import Console

from privault.caller import Caller
from privault.interfaces import config
from privault.retrieval.embedder import Embedder
from privault.retrieval.strong import StrongEmbedder
from privault.timeutil import parse_time
from privault.vault import Vault
from privault.vault.privacy import Detector, DetectorFactory

console = Console()
err_console = Console(stderr=True)

JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
AsOption = Annotated[
    str | None,
    typer.Option("--as", help="Preview exactly what agent NAME would receive (its policy)."),
]
ShelfOption = Annotated[str | None, typer.Option("--shelf", help="Only this shelf.")]


def caller_for(agent: str | None, vault: Vault) -> Caller:
    """The owner, or (with --as) the named agent as the vault knows it."""
    if agent is None:
        return Caller.owner()
    from privault.interfaces.agents import known_caller

    return known_caller(vault, agent)


@dataclass(frozen=True)
class EngineChoice:
    """The engines a command's vault runs with: the real ones unless given others.

    The CLI is a composition root: a program embedding it (or a test driving it through
    typer's runner) picks the embedder and detector with `using_engines`.
    """

    embedder: Embedder | None = None
    detector_factory: DetectorFactory = Detector
    strong: StrongEmbedder | None = None  # the strong model (None: the installed one, if any)


_chosen: list[EngineChoice] = [EngineChoice()]


@contextmanager
def using_engines(choice: EngineChoice) -> Iterator[None]:
    """Open every vault with `choice` while the block runs."""
    _chosen.append(choice)
    try:
        yield
    finally:
        _chosen.pop()


def _engines() -> EngineChoice:
    return _chosen[-1]


def open_vault() -> Vault:
    """The configured vault, opened with the configured settings (the caller closes it)."""
    cfg = config.load_config()
    path = config.vault_path()
    engines = _engines()
    vault = Vault.open(
        path,
        models_dir=config.models_dir(),
        key=config.vault_key(path),
        embedder=engines.embedder,
        detector_factory=engines.detector_factory,
        strong_embedder=engines.strong,
        max_note_bytes=cfg.max_note_bytes,
        max_file_bytes=cfg.max_file_bytes,
        policies_dir=cfg.policies_dir,
        privacy=cfg.privacy,
        chat_model=cfg.chat_model,
        strong_model=cfg.strong_model,
        remote_chat=cfg.remote_chat,
    )
    if cfg.search_backend:
        from privault.watches.actions import SearchBackend

        # The owner wrote this URL: a SearXNG on localhost is the usual setup.
        vault.watches.search_backend = SearchBackend(cfg.search_backend, allow_private=True)
    return vault


@contextmanager
def opened() -> Iterator[Vault]:
    """The configured vault for the length of a command."""
    vault = open_vault()
    try:
        yield vault
    finally:
        vault.close()


def emit_json(data: Any) -> None:
    """Print data as JSON on stdout."""
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def optional_time(value: str | None) -> int | None:
    """Parse an optional ISO time option."""
    return parse_time(value) if value else None


def read_text_argument(text: str) -> str:
    """A TEXT argument, or standard input when it is `-`."""
    return sys.stdin.read() if text == "-" else text


def privacy_line(privacy: dict[str, Any]) -> str:
    """One line saying which policy applied and what it held back."""
    held = ", ".join(f"{kind} ×{count}" for kind, count in privacy["held_back"].items())
    parts = [f"policy {privacy['policy']} ({privacy['mode']})"]
    if held:
        parts.append(f"held back: {held}")
    if privacy.get("withheld_sections"):
        parts.append(f"{privacy['withheld_sections']} section(s) withheld")
    if privacy.get("query_removed"):
        parts.append(f"removed from query: {', '.join(privacy['query_removed'])}")
    return " · ".join(parts)
