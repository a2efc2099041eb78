"""What every CLI command shares: the --json and --as options, opening the vault, output."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import typer

from privault.caller import Caller
from privault.errors import utf8_text
from privault.interfaces import config
from privault.interfaces.cli.terminal import SafeConsole
from privault.timeutil import parse_time
from privault.vault.bounds import MAX_STORED_INT

if TYPE_CHECKING:  # loaded by the commands that open the whole vault, not by `note`
    from rich.progress import Progress

    from privault.retrieval.embedder import Embedder
    from privault.retrieval.strong import StrongEmbedder
    from privault.vault import Vault
    from privault.vault.capture import Capture
    from privault.vault.detection import DetectorFactory

# Every human-readable line goes through these (see `terminal`): untrusted text in them
# is never markup and never a raw control character.
console = SafeConsole()
err_console = SafeConsole(stderr=True)

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
    detector_factory: DetectorFactory | None = None  # None: the real detector
    strong: StrongEmbedder | None = None  # the strong model (None: the installed one, if any)

    @property
    def injected(self) -> bool:
        """Whether a program chose the engines (then deferred writes are indexed in the
        command itself, with them, instead of by a detached worker with the real ones)."""
        return self.embedder is not None or self.detector_factory is not None


_DEFAULT = EngineChoice()
_chosen: list[EngineChoice] = [_DEFAULT]


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
    from privault.vault import Vault
    from privault.vault.privacy import Detector

    cfg = config.load_config()
    path = config.vault_path()
    engines = _engines()
    vault = Vault.open(
        path,
        models_dir=config.models_dir(),
        key=config.vault_key(path),
        embedder=engines.embedder,
        detector_factory=engines.detector_factory or Detector,
        strong_embedder=engines.strong,
        max_note_bytes=cfg.max_note_bytes,
        max_file_bytes=cfg.max_file_bytes,
        policies_dir=cfg.policies_dir,
        privacy=cfg.privacy,
        chat_model=cfg.chat_model,
        ask_timeout=cfg.ask_timeout,
        chat_unload_after=cfg.chat_unload_after,
        strong_model=cfg.strong_model,
        remote_chat=cfg.remote_chat,
    )
    if cfg.search_backend:
        from privault.watches.actions import SearchBackend

        # The owner wrote this URL: a SearXNG on localhost is the usual setup. Only its
        # own host and port may be private; a redirect elsewhere is checked as usual.
        vault.watches.search_backend = SearchBackend(cfg.search_backend, allow_private=True)
    return vault


def open_capture() -> Capture:
    """The configured vault for deferred writes only: no model, no policy is loaded."""
    from privault.vault.capture import Capture

    cfg = config.load_config()
    path = config.vault_path()
    return Capture.open(
        path,
        key=config.vault_key(path),
        max_note_bytes=cfg.max_note_bytes,
        max_file_bytes=cfg.max_file_bytes,
    )


@contextmanager
def opened() -> Iterator[Vault]:
    """The configured vault for the length of a command. Afterwards, work left in the
    index queue is handed to an indexer if none runs (see `index_in_background`)."""
    vault = open_vault()
    try:
        yield vault
        has_work = vault.indexing.has_work()
    finally:
        vault.close()
    if has_work:
        index_in_background()


INDEXER_ENV = "PRIVAULT_INDEXER"  # `off`: leave queued work to `privault index` or serve


def index_in_background() -> None:
    """See that deferred writes get indexed: by a detached worker with the real engines,
    or — when a program chose the engines (`using_engines`) — right here with those.
    `PRIVAULT_INDEXER=off` starts nothing (the work waits for `privault index` or serve)."""
    if os.environ.get(INDEXER_ENV) == "off":
        return
    if not _engines().injected:
        from privault.interfaces import indexer

        indexer.kick(config.vault_path(), has_work=True)
        return
    from privault.interfaces.indexer import run_until_idle

    vault = open_vault()
    try:
        run_until_idle(vault)
    finally:
        vault.close()


def warm_search(options: dict[str, Any]) -> dict[str, Any]:
    """`Vault.search` with the CLI's options, as JSON: answered by the vault's warm
    searcher when one runs (see `interfaces.warm`), else here — and then one is started
    for the next search. A program that chose the engines always searches here."""
    from privault.interfaces import warm

    if _engines().injected:
        with opened() as vault:
            return warm.run_search(vault, options)
    path = config.vault_path().resolve()
    answer = warm.ask(path, options)
    if answer is not None:
        if answer.has_work:
            index_in_background()
        return answer.data
    with opened() as vault:
        data = warm.run_search(vault, options)
    warm.start(path)
    return data


def progress_bar(label: str) -> Progress:
    """A bar that counts done/total and names the current item; gone when finished."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    return Progress(
        TextColumn(label, markup=False),  # may name a file: not markup either
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}", markup=False),  # a file name is not markup
        console=console,
        transient=True,
    )


_JSON_CONTROL = re.compile("[\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def emit_json(data: Any) -> None:
    """Print data as JSON on stdout. JSON escapes C0 controls itself; DEL, C1 and the bidi
    controls it would leave raw are written as `\\u` escapes too (same JSON value)."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    sys.stdout.write(_JSON_CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n")


def optional_time(value: str | None) -> int | None:
    """Parse an optional ISO time option."""
    return parse_time(value) if value else None


def number(text: str) -> int:
    """A whole-number option (a count, a cursor): SQLite's integers are 64-bit, and a larger
    number failed the query it was put in with a traceback."""
    try:
        value = int(text)
    except ValueError:
        raise typer.BadParameter(f"{text!r} is not a whole number") from None
    if not -MAX_STORED_INT - 1 <= value <= MAX_STORED_INT:
        raise typer.BadParameter(f"{text} is out of range: the vault stores 64-bit numbers")
    return value


def read_text_argument(text: str) -> str:
    """A TEXT argument, or standard input when it is `-`."""
    return utf8_text(sys.stdin.read(), "standard input") if text == "-" else text


def privacy_line(privacy: dict[str, Any]) -> str:
    """One line saying which policy applied and what it held back."""
    held = ", ".join(f"{kind} ×{count}" for kind, count in privacy["held_back"].items())
    parts = [f"policy {privacy['policy']} ({privacy['mode']})"]
    if held:
        parts.append(f"held back: {held}")
    if privacy.get("withheld_sections"):
        parts.append(f"{privacy['withheld_sections']} section(s) withheld")
    return " · ".join(parts)


def unsearchable_line(count: int) -> str:
    """What to say when recent sections could not be searched by meaning yet ('' if none)."""
    if count <= 0:
        return ""
    return (
        f"{count} recent section(s) not searchable by meaning yet (the indexer is working"
        " through them; they are found by their words meanwhile; `privault status` shows it)"
    )
