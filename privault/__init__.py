"""privault: a local, privacy-gated memory vault for AI agents and the person who owns them.

The Python API is `Vault` (every operation) and `Caller` (who it acts for).
"""

from privault.caller import Caller
from privault.vault import Vault
from privault.version import __version__

__all__ = ["Caller", "Vault", "__version__"]
