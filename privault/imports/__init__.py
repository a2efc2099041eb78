"""Importers of other apps' exports: ChatGPT, Claude, Obsidian, Notion, mbox mail, mem0.

A capability of its own: each module reads one app's export as the app writes it and
streams plain values (`items.Page`, `items.Memory`, `items.Bad`). Nothing here touches the
vault — no SQL, no printing; `vault.importing` writes the items through the same path as
`privault add`. `detect` names the kind of an export when exactly one kind fits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

from privault.imports import chatgpt, claude, mbox, mem0, notion, obsidian
from privault.imports.items import (
    Bad,
    Item,
    Known,
    Link,
    Memory,
    NotThisKind,
    Page,
    Revision,
    Unchanged,
)

__all__ = [
    "KINDS",
    "Bad",
    "Item",
    "Known",
    "Link",
    "Memory",
    "NotThisKind",
    "Page",
    "Revision",
    "Unchanged",
    "detect",
    "fitting",
    "reader",
]

_MODULES: dict[str, ModuleType] = {
    module.KIND: module for module in (chatgpt, claude, obsidian, notion, mbox, mem0)
}
KINDS: tuple[str, ...] = tuple(_MODULES)


def reader(kind: str) -> Callable[[Path, Known | None], Iterator[Item]]:
    """The function that streams the items of an export of `kind` (given a `Known`
    check, it skips parsing what the vault holds as it is)."""
    if kind not in _MODULES:
        raise NotThisKind(f"unknown import kind {kind!r}: use one of {', '.join(KINDS)}")
    read: Callable[[Path, Known | None], Iterator[Item]] = _MODULES[kind].read
    return read


def fitting(path: Path) -> list[str]:
    """Every kind `path` looks like an export of (by its content, not its name)."""
    return [kind for kind, module in _MODULES.items() if module.looks_like(path)]


def detect(path: Path) -> str:
    """The one kind `path` is an export of; `NotThisKind` when none or several fit."""
    if not path.exists():
        raise NotThisKind(f"no such file or folder: {path}")
    fits = fitting(path)
    if len(fits) == 1:
        return fits[0]
    if not fits:
        raise NotThisKind(
            f"{path.name} is not an export privault recognises; name its kind with "
            f"--from ({', '.join(KINDS)})"
        )
    raise NotThisKind(f"{path.name} could be {' or '.join(fits)}; name its kind with --from")
