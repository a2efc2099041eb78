"""Follow-up tokens: signed, bound to caller/question/sections, expiring, single use."""

from __future__ import annotations

from privault.ask.followup import FollowupTokens, Redeemed
from privault.store.connection import Connection


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000_000

    def __call__(self) -> int:
        return self.now


IDS = ["n1", "n2"]


def test_a_token_works_once(conn: Connection) -> None:
    tokens = FollowupTokens(conn)
    token = tokens.issue("bench", "what is due?", IDS)
    assert tokens.redeem(token, "bench", "what is due?", IDS).ok
    again = tokens.redeem(token, "bench", "what is due?", IDS)
    assert not again.ok and again.reason and "already been used" in again.reason


def test_section_order_and_question_spacing_do_not_matter(conn: Connection) -> None:
    tokens = FollowupTokens(conn)
    token = tokens.issue("bench", "what is  due?", IDS)
    assert tokens.redeem(token, "bench", "what is due? ", list(reversed(IDS))).ok


def test_an_expired_token_is_refused(conn: Connection) -> None:
    clock = Clock()
    tokens = FollowupTokens(conn, ttl_minutes=10, clock=clock)
    token = tokens.issue("bench", "q", IDS)
    clock.now += 10 * 60_000 + 1
    result = tokens.redeem(token, "bench", "q", IDS)
    assert not result.ok and result.reason and "expired" in result.reason


def test_a_token_for_another_caller_question_or_context_is_refused(conn: Connection) -> None:
    tokens = FollowupTokens(conn)
    token = tokens.issue("bench", "q", IDS)
    assert "another caller" in str(tokens.redeem(token, "mallory", "q", IDS).reason)
    assert "different question" in str(tokens.redeem(token, "bench", "other q", IDS).reason)
    assert "changed" in str(tokens.redeem(token, "bench", "q", ["n1", "n3"]).reason)
    # None of the refusals burned the token for its rightful owner.
    assert tokens.redeem(token, "bench", "q", IDS).ok


def test_tampered_or_malformed_tokens_are_refused(conn: Connection) -> None:
    tokens = FollowupTokens(conn)
    token = tokens.issue("bench", "q", IDS)
    prefix, body, signature = token.split(".")
    flipped = body[:-2] + ("A" if body[-2] != "A" else "B") + body[-1]
    for bad in (
        f"{prefix}.{flipped}.{signature}",
        f"{prefix}.{body}.{signature[:-1]}x",
        "pv1.e30.",
        "garbage",
        "",
        token + ".extra",
    ):
        result = tokens.redeem(bad, "bench", "q", IDS)
        assert not result.ok and result.reason


def test_a_token_with_a_character_outside_ascii_is_malformed_not_a_crash(
    conn: Connection,
) -> None:
    # Tokens are base64url and dots; anything else is refused as a value, wherever it is.
    tokens = FollowupTokens(conn)
    token = tokens.issue("bench", "q", IDS)
    prefix, body, signature = token.split(".")
    for bad in (
        f"{prefix}.{body}.{signature[:-1]}\u00e9",
        f"{prefix}.{body[:-1]}\u00e9.{signature}",
        f"pv\u00b9.{body}.{signature}",
        "pv1.abc.d\u00e9f",
        f"{token}\udcff",
    ):
        result = tokens.redeem(bad, "bench", "q", IDS)
        assert result == Redeemed(False, "the follow-up token is malformed"), bad
    assert tokens.redeem(token, "bench", "q", IDS).ok  # none of them burned the real one


def test_a_token_from_another_vault_is_refused(conn: Connection, tmp_path) -> None:
    from privault.store.connection import connect
    from privault.store.migrations import migrate

    other = connect(tmp_path / "other.db")
    migrate(other)
    token = FollowupTokens(other).issue("bench", "q", IDS)
    result = FollowupTokens(conn).redeem(token, "bench", "q", IDS)
    assert not result.ok and "signature" in str(result.reason)
    other.close()


def test_the_secret_is_created_once_and_kept(conn: Connection) -> None:
    token = FollowupTokens(conn).issue("bench", "q", IDS)
    # A new instance (a restarted server) reads the same secret back.
    assert FollowupTokens(conn).redeem(token, "bench", "q", IDS).ok
    (count,) = conn.execute("SELECT count(*) FROM meta WHERE key='followup_secret'").fetchone()
    assert count == 1


def test_expired_used_ids_are_pruned(conn: Connection) -> None:
    clock = Clock()
    tokens = FollowupTokens(conn, ttl_minutes=1, clock=clock)
    assert tokens.redeem(tokens.issue("a", "q", IDS), "a", "q", IDS).ok
    clock.now += 2 * 60_000
    assert tokens.redeem(tokens.issue("a", "q", IDS), "a", "q", IDS).ok
    (count,) = conn.execute("SELECT count(*) FROM followup_tokens_used").fetchone()
    assert count == 1
