"""`Filters`: what a caller narrows a search, a context pack or a listing to.

One value from the interface that parses it (an MCP tool's arguments, CLI options, the
owner's page) down to the store that turns it into SQL, so the five fields are spelled once.
What a caller may see at all (hidden shelves) is added by the vault, never taken from here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Filters:
    """One shelf, one kind, one tag and a creation-time window; None narrows nothing."""

    shelf: str | None = None
    kind: str | None = None
    tag: str | None = None
    since: int | None = None  # created at or after (epoch ms)
    until: int | None = None  # created before (epoch ms)


EVERYTHING = Filters()
