"""The facade layer: `Vault` and the capability facades it hands one shared context.

Interfaces call only this package. Each facade (documents, statements, watches, pii, ask,
shelves, agents) receives the `VaultContext` — connection, settings, privacy runtime,
embedder, shelf visibility — never the `Vault`, and every response leaves through its gate.
"""

from privault.vault.context import VaultContext, VaultSettings
from privault.vault.vault import Vault, create

__all__ = ["Vault", "VaultContext", "VaultSettings", "create"]
