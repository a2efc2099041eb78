"""Audit rows for HTTP requests refused at the door (no token, an unknown or revoked one).

Every refused request should reach the audit log, but anyone who can reach the port can
send them, as fast as they like: one row each would let an unauthenticated flood grow the
table (and fsync the file) without bound. So refusals are counted per identity — the
revoked agent the token belonged to, or `(unknown)` for every token no agent ever held —
in windows of `window_seconds`: the first refusal of an identity in a window is written at
once, the rest are counted, and the count is written as one summary row when the window
has closed (at the next refusal, or when the server stops). An identity thus costs at most
two rows per window however fast it knocks, and the identities are bounded by the agents
ever registered, plus one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from privault.vault.agents import AuditEntry

UNKNOWN = "(unknown)"  # the audit name of a caller no registered agent can be tied to
WINDOW_SECONDS = 60.0


@dataclass
class _Window:
    started: float
    tool: str
    more: int = 0  # refusals after the first, not yet written


class RefusalLog:
    """Which refused requests get an audit row now (see the module docstring)."""

    def __init__(
        self,
        window_seconds: float = WINDOW_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.window_seconds = window_seconds
        self._clock = clock
        self._windows: dict[str, _Window] = {}
        self._lock = threading.Lock()

    def refused(self, who: str, tool: str, reason: str) -> list[AuditEntry]:
        """Note one refusal by `who`; return the rows to write for it now (maybe none)."""
        with self._lock:
            now = self._clock()
            rows = self._close_windows(lambda window: now - window.started >= self.window_seconds)
            window = self._windows.get(who)
            if window is None:
                self._windows[who] = _Window(now, tool)
                rows.append(_row(who, tool, reason))
            else:
                window.more += 1
            return rows

    def flush(self) -> list[AuditEntry]:
        """The summary rows of every open window (the server is stopping)."""
        with self._lock:
            return self._close_windows(lambda _window: True)

    def _close_windows(self, closes: Callable[[_Window], bool]) -> list[AuditEntry]:
        rows = []
        for who, window in list(self._windows.items()):
            if closes(window):
                del self._windows[who]
                if window.more:
                    rows.append(
                        _row(
                            who,
                            window.tool,
                            f"{window.more} more request{'' if window.more == 1 else 's'} "
                            f"refused in the {self.window_seconds:g} s after the one logged "
                            "before",
                        )
                    )
        return rows


def _row(who: str, tool: str, reason: str) -> AuditEntry:
    return AuditEntry(agent=who, tool=tool[:100], ok=False, refused=True, reason=reason)
