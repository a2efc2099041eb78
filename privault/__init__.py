"""privault: a local, privacy-gated memory vault for AI agents and the person who owns them.

The Python API is `Vault` (every operation) and `Caller` (who it acts for). They are loaded
on first use: importing any part of privault (the CLI capturing a note, say) must not pull
in the whole vault and its engines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from privault.version import __version__

if TYPE_CHECKING:
    from privault.caller import Caller
    from privault.vault import Vault

__all__ = ["Caller", "Vault", "__version__"]


def __getattr__(name: str) -> Any:
    if name == "Caller":
        from privault.caller import Caller

        return Caller
    if name == "Vault":
        from privault.vault import Vault

        return Vault
    raise AttributeError(f"module 'privault' has no attribute {name!r}")
