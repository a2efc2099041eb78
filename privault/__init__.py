"""privault: a local, privacy-gated memory vault for AI agents and the person who owns them."""

__version__ = "0.1.0"
