"""Follow-up tokens at rest: the vault's signing secret and the ids of tokens already used.

The tokens themselves are never stored (`privault.ask.followup` signs and checks them);
only what makes them work across processes is: one secret per vault, created by whichever
process needs it first, and the id of each redeemed token until it expires.
"""

from __future__ import annotations

import secrets

from privault.store.connection import Connection, IntegrityError, write

SECRET_KEY = "followup_secret"


def signing_secret(conn: Connection) -> bytes:
    """The vault's follow-up signing secret, created on first use.

    `INSERT OR IGNORE` then a read, in one write transaction: two processes racing to
    create it agree on the one that landed first.
    """
    with write(conn):
        conn.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
            (SECRET_KEY, secrets.token_hex(32)),
        )
        (value,) = conn.execute("SELECT value FROM meta WHERE key = ?", (SECRET_KEY,)).fetchone()
    return bytes.fromhex(value)


def mark_used(conn: Connection, token_id: str, *, now: int, expires_at: int) -> bool:
    """Record that a token was redeemed; False if it already was (by any process).

    Ids of expired tokens are dropped in the same transaction: an expired token is
    refused on its expiry before its id is ever looked at, so the table stays small.
    """
    try:
        with write(conn):
            conn.execute("DELETE FROM followup_tokens_used WHERE expires_at < ?", (now,))
            conn.execute(
                "INSERT INTO followup_tokens_used (token_id, used_at, expires_at) VALUES (?, ?, ?)",
                (token_id, now, expires_at),
            )
    except IntegrityError:
        return False
    return True
