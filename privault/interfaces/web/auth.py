"""Who may open the owner's page: one-time login links, then a server-side session.

`privault ui` and `privault serve` are two processes, so a login link is handed over through
the owner's home folder: `ui` writes a file named by the sha256 of a fresh random token
(the token itself is never stored) holding its expiry, and prints a link carrying the
token. The server consumes a link by deleting that file — an unlink succeeds once, so two
requests racing with one link cannot both log in — and then checks the expiry. Anyone who
can write the home folder can already read the vault file, so the folder is the right
place to trust.

A session lives only in the server's memory (a restart logs the owner out). Its id travels
in an HttpOnly, SameSite=Strict cookie and is nothing an MCP endpoint accepts: agent tokens
are looked up by their hash in the vault, and a session id is not in that table. Each
session carries its own CSRF token, required on every state-changing request.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path

LINK_TTL_SECONDS = 300  # a login link is for clicking now, not for later
SESSION_IDLE_SECONDS = 8 * 3600
SESSION_MAX_SECONDS = 24 * 3600
COOKIE = "privault_session"


def cookie_name(host: str) -> str:
    """The session cookie's name on the page at `host`, the request's Host header
    ("127.0.0.1:8765"): COOKIE and its port. Browsers keep cookies per host, not per port,
    so the pages of two vaults served on one machine would otherwise overwrite each other's
    session at every login."""
    _, _, port = host.rpartition(":")
    return f"{COOKIE}_{port}" if port.isdigit() else COOKIE


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class LoginLinks:
    """One-time login tokens, kept as `<sha256>` files in a private folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def issue(self, ttl_seconds: int = LINK_TTL_SECONDS) -> str:
        """A fresh token valid once, for `ttl_seconds`; expired ones are swept first."""
        if not 1 <= ttl_seconds <= 86_400:
            raise ValueError("a login link lives between 1 second and 1 day")
        self.folder.mkdir(parents=True, exist_ok=True)
        os.chmod(self.folder, 0o700)
        self._sweep()
        token = secrets.token_urlsafe(32)
        path = self.folder / _digest(token)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(str(time.time() + ttl_seconds))
        return token

    def consume(self, token: str) -> bool:
        """True once for a token that was issued and has not expired; False ever after."""
        if not token or len(token) > 200:
            return False
        path = self.folder / _digest(token)
        try:
            expires = float(path.read_text())
            path.unlink()  # the single use: only one caller's unlink succeeds
        except (OSError, ValueError):
            return False
        return time.time() < expires

    def _sweep(self) -> None:
        for path in self.folder.glob("*"):
            try:
                if float(path.read_text()) < time.time():
                    path.unlink()
            except (OSError, ValueError):
                continue


@dataclass
class Session:
    """One logged-in browser."""

    csrf: str
    created: float
    seen: float


@dataclass
class Sessions:
    """Sessions by id, in memory; idle and absolute expiry."""

    idle_seconds: float = SESSION_IDLE_SECONDS
    max_seconds: float = SESSION_MAX_SECONDS
    _by_id: dict[str, Session] = field(default_factory=dict)

    def start(self) -> str:
        """A new session; returns its id (the cookie value)."""
        now = time.time()
        self._by_id = {k: s for k, s in self._by_id.items() if self._alive(s, now)}
        session_id = secrets.token_urlsafe(32)
        self._by_id[session_id] = Session(secrets.token_urlsafe(32), now, now)
        return session_id

    def get(self, session_id: str | None) -> Session | None:
        """The live session with this id, or None (and an expired one is dropped)."""
        if not session_id:
            return None
        found = self._by_id.get(session_id)
        now = time.time()
        if found is None:
            return None
        if not self._alive(found, now):
            self._by_id.pop(session_id, None)
            return None
        found.seen = now
        return found

    def end(self, session_id: str | None) -> None:
        """Log a session out."""
        if session_id:
            self._by_id.pop(session_id, None)

    def _alive(self, session: Session, now: float) -> bool:
        return now - session.seen < self.idle_seconds and now - session.created < self.max_seconds


def csrf_matches(session: Session, presented: str | None) -> bool:
    """True when the request carries this session's CSRF token (constant-time compare).

    Compared as bytes: `compare_digest` raises on a str with non-ASCII characters, and a
    wrong token must be the same refusal whatever it is made of."""
    if not presented:
        return False
    wanted = session.csrf.encode("utf-8", "surrogatepass")
    return hmac.compare_digest(wanted, presented.encode("utf-8", "surrogatepass"))
