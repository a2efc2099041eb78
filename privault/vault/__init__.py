"""The facade layer: `Vault` and the capability facades it hands one shared context.

Interfaces call only this package. Each facade (documents, statements, watches, pii, ask,
shelves, agents) receives the `VaultContext` — connection, settings, privacy runtime,
embedder, shelf visibility — never the `Vault`, and every response leaves through its gate.

The names below load on first use, so a module of this package that needs none of them
(`vault.capture`, which stores a note without any model) does not import them all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from privault.vault.context import VaultContext, VaultSettings
    from privault.vault.vault import Vault, create

__all__ = ["Vault", "VaultContext", "VaultSettings", "create"]


def __getattr__(name: str) -> Any:
    if name in ("Vault", "create"):
        from privault.vault import vault

        return getattr(vault, name)
    if name in ("VaultContext", "VaultSettings"):
        from privault.vault import context

        return getattr(context, name)
    raise AttributeError(f"module 'privault.vault' has no attribute {name!r}")
