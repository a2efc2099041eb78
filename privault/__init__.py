"""privault: a local, privacy-gated memory vault for AI agents and the person who owns them.

The Python API is `Vault` (every operation) and `Caller` (who it acts for).
"""

__version__ = "0.1.0"

from privault.caller import Caller  # noqa: E402
from privault.vault import Vault  # noqa: E402

__all__ = ["Caller", "Vault", "__version__"]
