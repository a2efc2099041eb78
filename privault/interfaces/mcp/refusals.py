"""Audit rows for HTTP requests refused at the door (no token, an unknown or revoked one).

Every refused request should reach the audit log, but anyone who can reach the port can
send them, as fast as they like, with any path they like. So a refused request never
writes what it chose: the row names the method (one of the HTTP methods, else `?`) and
`/mcp` or `/mcp/…`, the refusal and the source address, nothing of the rest of the path,
the headers or the token. And refusals are counted per source — the identity (the revoked
agent the token belonged to, or `(unknown)` for every token no agent ever held) and the
client address — in windows of `window_seconds`: the first refusal of a source is written
at once, the rest are counted, and the count is written as one summary row when the
window has closed (at the next refusal from anyone, or when the server stops); that
summary opens the source's next window. A source thus costs at most one row per window
however fast it knocks, and the sources tracked at once are capped (`MAX_SOURCES`);
beyond the cap, addresses share one bucket.

Requests refused before that, as a browser page on another site sends them, write no
audit row, but the SDK's Host and Origin check logs a warning for each, the header's value
in it: any page could fill the server's log with lines of its choosing. `LogThrottle`
keeps that logger to one line of each kind per window, without the value, and says how
many it held.
"""

from __future__ import annotations

import ipaddress
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from privault.vault.agents import AuditEntry

UNKNOWN = "(unknown)"  # the audit name of a caller no registered agent can be tied to
WINDOW_SECONDS = 60.0
MAX_SOURCES = 1024  # (identity, address) pairs counted at once
OTHER_SOURCES = "(other addresses)"
MAX_KIND = 80  # characters of a log line's kind kept
MAX_KINDS = 8  # kinds of log line throttled apart (the SDK writes three)
_METHODS = frozenset({"GET", "POST", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS"})


def request_summary(method: str, path: str, mcp_path: str = "/mcp") -> str:
    """What a refused request is recorded as: a known method and `/mcp` or `/mcp/…`."""
    shown_method = method if method in _METHODS else "?"
    if path == mcp_path:
        shown_path = mcp_path
    elif path.startswith(mcp_path + "/"):
        shown_path = mcp_path + "/…"
    else:
        shown_path = "…"
    return f"{shown_method} {shown_path}"


def client_address(host: object) -> str:
    """The client's address as the audit shows it: an IP address, or `?`."""
    try:
        return str(ipaddress.ip_address(str(host)))
    except ValueError:
        return "?"


@dataclass
class _Window:
    started: float
    more: int = 0  # refusals not yet written


class RefusalLog:
    """Which refused requests get an audit row now (see the module docstring)."""

    def __init__(
        self,
        window_seconds: float = WINDOW_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        max_sources: int = MAX_SOURCES,
    ) -> None:
        self.window_seconds = window_seconds
        self.max_sources = max_sources
        self._clock = clock
        self._windows: dict[tuple[str, str], _Window] = {}
        self._lock = threading.Lock()

    def refused(self, who: str, tool: str, reason: str, source: str = "?") -> list[AuditEntry]:
        """Note one refusal by `who` from address `source` (`tool`: `request_summary`);
        return the rows to write for it now (maybe none)."""
        with self._lock:
            now = self._clock()
            rows = self._settle(now)
            key = (who, source)
            if key not in self._windows and len(self._windows) >= self.max_sources:
                key = (who, OTHER_SOURCES)
            window = self._windows.get(key)
            if window is None:
                self._windows[key] = _Window(now)
                rows.append(_row(who, tool, f"{reason} (from {key[1]})"))
            else:
                window.more += 1
            return rows

    def flush(self) -> list[AuditEntry]:
        """The summary rows of every open window (the server is stopping)."""
        with self._lock:
            rows = [self._summary(key, window) for key, window in self._windows.items()]
            self._windows.clear()
            return [row for row in rows if row is not None]

    def _settle(self, now: float) -> list[AuditEntry]:
        """Close the windows that have run out: a summary row for each that counted
        refusals (and a new window from now, so the next row waits a window too)."""
        rows = []
        for key, window in list(self._windows.items()):
            if now - window.started < self.window_seconds:
                continue
            summary = self._summary(key, window)
            if summary is None:
                del self._windows[key]
            else:
                rows.append(summary)
                self._windows[key] = _Window(now)
        return rows

    def _summary(self, key: tuple[str, str], window: _Window) -> AuditEntry | None:
        if not window.more:
            return None
        plural = "" if window.more == 1 else "s"
        return _row(
            key[0],
            "refused requests",
            f"{window.more} more request{plural} refused in the {self.window_seconds:g} s "
            f"after the one logged before (from {key[1]})",
        )


def _row(who: str, tool: str, reason: str) -> AuditEntry:
    return AuditEntry(agent=who, tool=tool[:100], ok=False, refused=True, reason=reason[:300])


_HELD = "privault_held"  # marks a record `LogThrottle.flush` writes


class LogThrottle(logging.Filter):
    """One record of each kind a logger writes per `window_seconds`, its message cut before
    the first colon (what follows is the request's own header value; the rest is its
    kind: "Invalid Origin header"); the records of a kind held meanwhile are counted in
    the next one of that kind let through. Kinds are the logger's own few messages, so a
    flood of one kind never hides another ("Invalid Host header" from a misconfigured
    client)."""

    def __init__(
        self, window_seconds: float = WINDOW_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.window_seconds = window_seconds
        self._clock = clock
        self._kinds: dict[str, _Window] = {}  # from the last record of a kind let through
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, _HELD, False):
            return True  # written by `flush`, already counted and cut
        kind = record.getMessage().split(":", 1)[0][:MAX_KIND]
        with self._lock:
            now = self._clock()
            window = self._kinds.get(kind)
            if window is not None and now - window.started < self.window_seconds:
                window.more += 1
                return False
            if window is None and len(self._kinds) >= MAX_KINDS:
                return False  # a message of no kind seen before: nothing a flood may use
            held = window.more if window else 0
            self._kinds[kind] = _Window(now)
        if held:
            kind += f" ({held} more held in the {self.window_seconds:g} s before)"
        record.msg, record.args = kind, None
        return True

    def flush(self, logger: logging.Logger) -> None:
        """Write to `logger` how many records of each kind are held since the last one let
        through (the server is stopping: no later record of that kind will say so)."""
        with self._lock:
            held = {kind: window.more for kind, window in self._kinds.items() if window.more}
            self._kinds.clear()
        for kind, more in held.items():
            plural = "" if more == 1 else "s"
            logger.warning(
                "%s: %d more record%s held since the last one written",
                kind,
                more,
                plural,
                extra={_HELD: True},
            )
