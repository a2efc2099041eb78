"""Follow-up tokens: one signed, short-lived, single-use chance to refine an answer.

An ask reply carries a token; the agent may send it back once with an instruction ("just
the total and the due date"), and the local model re-runs over the same sections. The
token is `pv1.<payload>.<signature>`: the payload (base64url JSON) holds a random token id,
the expiry, and keyed digests of the caller, the question and the section node ids; the
signature is HMAC-SHA256 over the payload with a secret kept in the vault's `meta` table.
Digests, not the values, so the token shows nothing the agent did not send. Redeeming
records the token id in `followup_tokens_used` inside one write transaction, so a token
works once even when two processes race.

Every failure is a value (`Redeemed.reason`), never an exception: a forged or stale token
is an expected thing for an agent to send.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from privault.store import followup_tokens
from privault.store.connection import Connection
from privault.timeutil import now_ms

PREFIX = "pv1"
DEFAULT_TTL_MINUTES = 10


@dataclass(frozen=True)
class Redeemed:
    """The outcome of presenting a token: `ok`, or a one-line `reason` it was refused."""

    ok: bool
    reason: str | None = None


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _same(given: str, expected: str) -> bool:
    """Constant-time equality over UTF-8 bytes, for any text (never raises)."""
    return hmac.compare_digest(
        given.encode("utf-8", "surrogatepass"), expected.encode("utf-8", "surrogatepass")
    )


class FollowupTokens:
    """Issues and redeems follow-up tokens for one vault connection."""

    def __init__(
        self,
        conn: Connection,
        *,
        ttl_minutes: float = DEFAULT_TTL_MINUTES,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        self._conn = conn
        self.ttl_ms = int(ttl_minutes * 60_000)
        self._clock = clock
        self._secret: bytes | None = None

    def _key(self) -> bytes:
        """The vault's signing secret, read (or created) once per process."""
        if self._secret is None:
            self._secret = followup_tokens.signing_secret(self._conn)
        return self._secret

    def _digest(self, label: str, *values: str) -> str:
        """A keyed digest binding the token to a value without revealing it."""
        message = "\x1f".join((label, *values)).encode("utf-8")
        return _b64(hmac.new(self._key(), message, hashlib.sha256).digest()[:16])

    def _bindings(self, caller: str, question: str, node_ids: Sequence[str]) -> dict[str, str]:
        return {
            "c": self._digest("caller", caller),
            "q": self._digest("question", " ".join(question.split())),
            "s": self._digest("sections", *sorted(node_ids)),
        }

    def issue(self, caller: str, question: str, node_ids: Sequence[str]) -> str:
        """A new token for `caller`'s `question` over the sections `node_ids`."""
        payload = {
            "id": _b64(secrets.token_bytes(16)),
            "exp": self._clock() + self.ttl_ms,
            **self._bindings(caller, question, node_ids),
        }
        body = _b64(json.dumps(payload, separators=(",", ":"), sort_keys=True).encode())
        signature = _b64(hmac.new(self._key(), body.encode(), hashlib.sha256).digest())
        return f"{PREFIX}.{body}.{signature}"

    def redeem(self, token: str, caller: str, question: str, node_ids: Sequence[str]) -> Redeemed:
        """Check a token and, if it is good, mark it used. Each refusal names one reason."""
        parts = token.strip().split(".")
        # A real token is ASCII; anything else is refused here, before it meets
        # `compare_digest` (which raises on a non-ASCII str) or an encoder.
        if not token.isascii() or len(parts) != 3 or parts[0] != PREFIX:
            return Redeemed(False, "the follow-up token is malformed")
        body, signature = parts[1], parts[2]
        expected = _b64(hmac.new(self._key(), body.encode(), hashlib.sha256).digest())
        if not _same(expected, signature):
            return Redeemed(False, "the follow-up token is not valid (bad signature)")
        try:
            payload = json.loads(_unb64(body))
            token_id, expires = str(payload["id"]), int(payload["exp"])
        except (ValueError, KeyError, TypeError):
            return Redeemed(False, "the follow-up token is malformed")
        now = self._clock()
        if now > expires:
            return Redeemed(False, "the follow-up token has expired; ask the question again")
        bound = self._bindings(caller, question, node_ids)
        if not _same(str(payload.get("c")), bound["c"]):
            return Redeemed(False, "the follow-up token was issued to another caller")
        if not _same(str(payload.get("q")), bound["q"]):
            return Redeemed(False, "the follow-up token belongs to a different question")
        if not _same(str(payload.get("s")), bound["s"]):
            return Redeemed(
                False, "the sections behind this answer have changed; ask the question again"
            )
        if not followup_tokens.mark_used(self._conn, token_id, now=now, expires_at=expires):
            return Redeemed(False, "the follow-up token has already been used")
        return Redeemed(True)
