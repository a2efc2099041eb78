"""Statements: operations, refusals that leave rows untouched, history, ranking, entities."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from privault import statements as st
from privault.errors import Conflict, InputError, ModelError, NotFound
from privault.statements import NewStatement
from privault.store.connection import Connection, rows
from privault.timeutil import parse_time

DAY = 86_400_000
T0 = parse_time("2025-01-01T00:00:00Z")
TABLES = (
    "statements",
    "statement_entities",
    "statement_closures",
    "statement_attestations",
    "statement_disputes",
)


def at(day: int) -> int:
    """Day `day` of the test calendar, in epoch ms."""
    return T0 + day * DAY


def snapshot(conn: Connection) -> dict[str, Any]:
    """Every row of every statement table, to prove a refusal changed nothing."""
    return {table: rows(conn, f"SELECT * FROM {table} ORDER BY 1, 2") for table in TABLES}


def fake_embed(texts: list[str]) -> list[list[float]]:
    """A deterministic bag-of-words embedder: each lowercase word lights one of 384 slots."""
    vectors = []
    for text in texts:
        vector = [0.0] * 384
        for word in re.findall(r"\w+", text.lower()):
            vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % 384] += 1.0
        vectors.append(vector if any(vector) else [1.0] + [0.0] * 383)
    return vectors


def test_add_defaults_and_to_dict(conn: Connection) -> None:
    s = st.add(
        conn,
        NewStatement("  Ana is the contact  ", entities=["Ana", " ana ", "Acme  Corp"]),
        now_ms=at(1),
    )
    assert s.id.startswith("s_") and len(s.id) == 12
    assert s.content == "Ana is the contact"
    assert s.entities == ("Ana", "Acme Corp")  # case-insensitive duplicates dropped
    assert (s.salience, s.confidence) == (0.5, 1.0)
    assert (s.valid_from, s.valid_to, s.recorded_at) == (at(1), None, at(1))
    assert s.status == "current" and s.chain_id == s.id
    data = s.to_dict()
    assert data["valid_from"] == "2025-01-02T00:00:00Z" and data["valid_to"] is None
    assert data["current"] is True and data["score"] is None  # a score only in a search
    json.dumps(data)  # JSON-friendly as is


def test_valid_from_defaults_to_occurred_at(conn: Connection) -> None:
    s = st.add(conn, NewStatement("met Bo at the fair", occurred_at=at(-3)), now_ms=at(1))
    assert (s.occurred_at, s.valid_from, s.recorded_at) == (at(-3), at(-3), at(1))


def test_entities_match_case_insensitively_and_all_must_match(conn: Connection) -> None:
    st.add(conn, NewStatement("Bo works at Acme", entities=["Bo", "ACME"]), now_ms=at(1))
    st.add(conn, NewStatement("Cy works at Acme", entities=["Cy", "Acme"]), now_ms=at(1))
    assert len(st.query(conn, entities=["acme"], now_ms=at(2))) == 2
    found = st.query(conn, entities=["acme", "  bo "], now_ms=at(2))
    assert [s.content for s in found] == ["Bo works at Acme"]
    assert st.query(conn, entities=["acme", "zed"], now_ms=at(2)) == []


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (
            lambda c: st.add(c, NewStatement("x", valid_from=at(5), valid_to=at(4)), now_ms=at(5)),
            InputError,
        ),
        (lambda c: st.add(c, NewStatement("   "), now_ms=at(5)), InputError),
        (lambda c: st.add(c, NewStatement("x", salience=1.5), now_ms=at(5)), InputError),
        (lambda c: st.add(c, NewStatement("x", confidence=-0.1), now_ms=at(5)), InputError),
        (lambda c: st.add(c, NewStatement("x", entities=["  "]), now_ms=at(5)), InputError),
        (lambda c: st.add(c, NewStatement("x", entities=["Ana\x00"]), now_ms=at(5)), InputError),
        (
            lambda c: st.add(c, NewStatement("x", metadata={"when": object()}), now_ms=at(5)),
            InputError,
        ),
    ],
)
def test_bad_adds_are_refused_and_store_nothing(
    conn: Connection, call: Callable[[Connection], object], error: type[Exception]
) -> None:
    with pytest.raises(error):
        call(conn)
    assert snapshot(conn)["statements"] == []


# Each case: (name, how to prepare the target, the refused call, the error).
Prepare = Callable[[Connection, str], None]
Refused = Callable[[Connection, str], object]


def _superseded(c: Connection, sid: str) -> None:
    st.supersede(c, sid, NewStatement("newer", valid_from=at(12)), now_ms=at(12))


def _revised(c: Connection, sid: str) -> None:
    st.revise(c, sid, NewStatement("better words"), now_ms=at(12))


def _invalidated(c: Connection, sid: str) -> None:
    st.invalidate(c, sid, valid_to=at(11), reason="wrong", now_ms=at(12))


def _nothing(c: Connection, sid: str) -> None:
    return None


REFUSALS: list[tuple[str, Prepare, Refused, type[Exception]]] = [
    (
        "boundary before open",
        _nothing,
        lambda c, s: st.supersede(c, s, NewStatement("n", valid_from=at(9)), now_ms=at(20)),
        InputError,
    ),
    (
        "new window inverted",
        _nothing,
        lambda c, s: st.supersede(
            c, s, NewStatement("n", valid_from=at(15), valid_to=at(14)), now_ms=at(20)
        ),
        InputError,
    ),
    (
        "invalidate before open",
        _nothing,
        lambda c, s: st.invalidate(c, s, valid_to=at(9), now_ms=at(20)),
        InputError,
    ),
    (
        "confirm in the future",
        _nothing,
        lambda c, s: st.confirm(c, s, attested_at=at(21), now_ms=at(20)),
        InputError,
    ),
    ("dispute itself", _nothing, lambda c, s: st.dispute(c, s, s, now_ms=at(20)), InputError),
    (
        "unknown id",
        _nothing,
        lambda c, s: st.supersede(c, "s_0000000000", NewStatement("n"), now_ms=at(20)),
        NotFound,
    ),
]
for _label, _prepare in (
    ("superseded", _superseded),
    ("revised", _revised),
    ("invalidated", _invalidated),
):
    REFUSALS += [
        (f"supersede {_label}", _prepare,
         lambda c, s: st.supersede(c, s, NewStatement("n", valid_from=at(20)), now_ms=at(20)),
         Conflict),
        (f"revise {_label}", _prepare,
         lambda c, s: st.revise(c, s, NewStatement("n"), now_ms=at(20)), Conflict),
        (f"confirm {_label}", _prepare, lambda c, s: st.confirm(c, s, now_ms=at(20)), Conflict),
        (f"invalidate {_label}", _prepare,
         lambda c, s: st.invalidate(c, s, now_ms=at(20)), Conflict),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("prepare", "call", "error"),
    [case[1:] for case in REFUSALS],
    ids=[case[0] for case in REFUSALS],
)
def test_refusals_leave_every_row_untouched(
    conn: Connection, prepare: Prepare, call: Refused, error: type[Exception]
) -> None:
    target = st.add(
        conn, NewStatement("Bo is the contact", entities=["Bo"], valid_from=at(10)), now_ms=at(10)
    )
    prepare(conn, target.id)
    before = snapshot(conn)
    with pytest.raises(error):
        call(conn, target.id)
    assert snapshot(conn) == before


def test_conflict_message_names_the_successor(conn: Connection) -> None:
    old = st.add(conn, NewStatement("Bo is the contact"), now_ms=at(1))
    new = st.supersede(conn, old.id, NewStatement("Cy is the contact"), now_ms=at(2))
    with pytest.raises(Conflict, match=new.id):
        st.supersede(conn, old.id, NewStatement("Di is the contact"), now_ms=at(3))


def test_supersede_closes_exactly_where_the_new_opens(conn: Connection) -> None:
    old = st.add(
        conn, NewStatement("Bo is the contact", entities=["Bo", "Acme"], salience=0.9), now_ms=at(1)
    )
    new = st.supersede(
        conn, old.id, NewStatement("Cy is the contact", valid_from=at(5)), now_ms=at(7)
    )
    old_now = st.get(conn, old.id, now_ms=at(7))
    assert old_now.valid_to == new.valid_from == at(5)
    assert (old_now.superseded_by, new.supersedes) == (new.id, old.id)
    assert new.entities == ("Bo", "Acme") and new.salience == 0.9  # inherited
    assert old_now.status == "superseded" and old_now.invalidation_reason == "superseded"
    assert [s.id for s in st.query(conn, valid_at=at(5) - 1, now_ms=at(7))] == [old.id]
    assert [s.id for s in st.query(conn, valid_at=at(5), now_ms=at(7))] == [new.id]
    # Before the supersede was recorded, the vault still saw the old one open-ended.
    earlier = st.get(conn, old.id, known_at=at(6), now_ms=at(7))
    assert earlier.valid_to is None and earlier.superseded_by is None


def test_supersede_of_a_bounded_statement_must_fall_inside_it(conn: Connection) -> None:
    trip = st.add(
        conn, NewStatement("Bo is in Rome", valid_from=at(1), valid_to=at(10)), now_ms=at(1)
    )
    before = snapshot(conn)
    with pytest.raises(InputError, match="already ends"):
        st.supersede(conn, trip.id, NewStatement("Bo is in Oslo", valid_from=at(11)), now_ms=at(2))
    assert snapshot(conn) == before
    oslo = st.supersede(
        conn, trip.id, NewStatement("Bo is in Oslo", valid_from=at(6)), now_ms=at(2)
    )
    assert st.get(conn, trip.id, now_ms=at(2)).valid_to == at(6)
    assert oslo.valid_to is None


def test_revise_keeps_window_attestations_entities_and_disputes(conn: Connection) -> None:
    city = st.add(
        conn,
        NewStatement(
            "Ana lives in Lyon",
            entities=["Ana"],
            salience=0.8,
            metadata={"from": "chat"},
            valid_from=at(0),
            valid_to=at(100),
        ),
        now_ms=at(2),
    )
    rival = st.add(conn, NewStatement("Ana lives in Nice", entities=["Ana"]), now_ms=at(3))
    st.confirm(conn, city.id, source="email", attested_at=at(3), now_ms=at(4))
    st.dispute(conn, city.id, rival.id, reason="two cities", now_ms=at(5))
    better = st.revise(conn, city.id, NewStatement("Ana lives in Lyon, France"), now_ms=at(6))
    assert (better.valid_from, better.valid_to) == (at(0), at(100))
    assert better.entities == ("Ana",) and better.salience == 0.8
    assert better.metadata == {"from": "chat"}
    assert (better.confirmed_count, better.last_confirmed_at) == (1, at(3))
    assert better.disputed_with == (rival.id,) and better.revises == city.id
    assert st.get(conn, rival.id, now_ms=at(6)).disputed_with == (better.id,)
    original = st.get(conn, city.id, now_ms=at(6))
    assert original.status == "revised" and original.invalidated_at == at(6)
    assert original.invalidation_reason == "revised" and original.revised_by == better.id
    assert original.disputed_with == ()
    # Seen from before the revision, the original is the current one, still disputed.
    past = st.query(conn, entities=["ana"], known_at=at(5), now_ms=at(9))
    assert {s.id for s in past} == {city.id, rival.id}
    assert st.get(conn, city.id, known_at=at(5)).disputed_with == (rival.id,)
    assert {s.id for s in st.query(conn, entities=["ana"], now_ms=at(9))} == {better.id, rival.id}


def test_dispute_is_settled_by_invalidating_one_side(conn: Connection) -> None:
    a = st.add(conn, NewStatement("the meeting is on Monday"), now_ms=at(1))
    b = st.add(conn, NewStatement("the meeting is on Tuesday"), now_ms=at(1))
    first, second = st.dispute(conn, a.id, b.id, now_ms=at(2))
    assert first.disputed_with == (b.id,) and second.disputed_with == (a.id,)
    st.dispute(conn, b.id, a.id, now_ms=at(2))  # the same open dispute again: no new row
    assert len(rows(conn, "SELECT * FROM statement_disputes")) == 1
    assert {s.id for s in st.query(conn, disputed=True, now_ms=at(3))} == {a.id, b.id}
    st.invalidate(conn, a.id, reason="it was Tuesday", now_ms=at(4))
    assert st.query(conn, disputed=True, now_ms=at(5)) == []
    assert st.get(conn, b.id, now_ms=at(5)).disputed_with == ()
    assert {s.id for s in st.query(conn, disputed=True, known_at=at(3), now_ms=at(5))} == {
        a.id,
        b.id,
    }


def test_invalidate_in_the_past_keeps_what_held_before(conn: Connection) -> None:
    s = st.add(conn, NewStatement("Bo lives in Oslo", valid_from=at(0)), now_ms=at(1))
    closed = st.invalidate(conn, s.id, valid_to=at(30), reason="moved", now_ms=at(60))
    assert closed.valid_to == at(30) and closed.invalidation_reason == "moved"
    assert closed.status == "closed"
    assert st.query(conn, now_ms=at(61)) == []
    assert [x.id for x in st.query(conn, valid_at=at(29), now_ms=at(61))] == [s.id]
    assert [x.id for x in st.query(conn, include_closed=True, now_ms=at(61))] == [s.id]


def test_history_from_any_member_oldest_first(conn: Connection) -> None:
    v1 = st.add(conn, NewStatement("contact: Bo"), now_ms=at(1))
    v2 = st.supersede(conn, v1.id, NewStatement("contact: Cy"), now_ms=at(2))
    v3 = st.revise(conn, v2.id, NewStatement("contact: Cy Young"), now_ms=at(3))
    v4 = st.supersede(conn, v3.id, NewStatement("contact: Di"), now_ms=at(4))
    other = st.add(conn, NewStatement("unrelated"), now_ms=at(4))
    expected = [v1.id, v2.id, v3.id, v4.id]
    for member in expected:
        assert [s.id for s in st.history(conn, member, now_ms=at(5))] == expected
    assert [s.id for s in st.history(conn, v2.id, known_at=at(2), now_ms=at(5))] == expected[:2]
    assert [s.id for s in st.history(conn, other.id, now_ms=at(5))] == [other.id]
    with pytest.raises(NotFound):
        st.history(conn, "s_ffffffffff")


def test_text_query_uses_keywords_and_refuses_bad_order(conn: Connection) -> None:
    st.add(conn, NewStatement("Ana prefers tea in the morning"), now_ms=at(1))
    st.add(conn, NewStatement("Bo prefers coffee"), now_ms=at(2))
    st.add(conn, NewStatement('weird "quotes" AND (syntax) * NEAR'), now_ms=at(3))
    found = st.query(conn, text="tea morning", now_ms=at(4))
    assert [s.content for s in found] == ["Ana prefers tea in the morning"]
    assert found[0].score is not None
    assert len(st.query(conn, text='"AND (NEAR *', now_ms=at(4))) == 1  # never FTS syntax
    assert st.query(conn, text="!!!", now_ms=at(4)) == []
    with pytest.raises(InputError):
        st.query(conn, order="alphabetical")
    with pytest.raises(InputError):
        st.query(conn, include_closed=True, valid_at=at(1))


def test_vector_similarity_joins_keyword_search(conn: Connection) -> None:
    cat = st.add(conn, NewStatement("the cat sleeps on the sofa"), embed=fake_embed, now_ms=at(1))
    st.add(conn, NewStatement("stock prices rose"), embed=fake_embed, now_ms=at(1))
    unembedded = st.add(conn, NewStatement("a sofa for sale"), now_ms=at(1))
    # "sleeps cat" shares words with the cat statement only; vectors agree.
    found = st.query(conn, text="cat sleeps", embed=fake_embed, now_ms=at(2))
    assert found[0].id == cat.id
    assert st.index_embeddings(conn, fake_embed) == 1
    assert st.index_embeddings(conn, fake_embed) == 0
    found = st.query(conn, text="sofa", embed=fake_embed, limit=5, now_ms=at(2))
    assert {cat.id, unembedded.id} <= {s.id for s in found}


def test_wrong_embedding_size_is_a_model_error(conn: Connection) -> None:
    with pytest.raises(ModelError):
        st.add(
            conn, NewStatement("x"), embed=lambda texts: [[0.0, 1.0] for _ in texts], now_ms=at(1)
        )
    assert snapshot(conn)["statements"] == []


def test_orders(conn: Connection) -> None:
    low = st.add(conn, NewStatement("old but vital", salience=0.9), now_ms=at(1))
    high = st.add(conn, NewStatement("new and minor", salience=0.1), now_ms=at(50))
    heard = st.add(conn, NewStatement("older, heard again", salience=0.5), now_ms=at(0))
    st.confirm(conn, heard.id, now_ms=at(60))
    recency = [s.id for s in st.query(conn, now_ms=at(61))]
    assert recency == [heard.id, high.id, low.id]
    assert [s.id for s in st.query(conn, order="salience", now_ms=at(61))][0] == low.id
    scored = st.query(conn, order="composite", now_ms=at(61))
    assert all(s.score is not None for s in scored)
    assert [s.score for s in scored] == sorted((s.score or 0 for s in scored), reverse=True)
    assert len(st.query(conn, limit=2, now_ms=at(61))) == 2
    assert st.query(conn, order="relevance", now_ms=at(61))[0].id == heard.id  # no text: recency


def test_source_filter_and_confirm_counts(conn: Connection) -> None:
    s = st.add(conn, NewStatement("Acme pays in 30 days", source="contract.pdf"), now_ms=at(1))
    st.add(conn, NewStatement("Acme pays late", source="gossip"), now_ms=at(1))
    for day in (2, 3, 4):
        st.confirm(conn, s.id, source="invoice", now_ms=at(day))
    assert [x.id for x in st.query(conn, source="contract.pdf", now_ms=at(5))] == [s.id]
    assert st.get(conn, s.id, now_ms=at(5)).confirmed_count == 3
    assert st.get(conn, s.id, known_at=at(3)).confirmed_count == 2
    assert st.get(conn, s.id, known_at=at(3)).last_confirmed_at == at(3)


def test_entities_stats_and_known_names(conn: Connection) -> None:
    a = st.add(conn, NewStatement("Bo at Acme", entities=["Bo", "Acme"]), now_ms=at(1))
    st.add(conn, NewStatement("Cy at ACME", entities=["Cy", "ACME"]), now_ms=at(1))
    b = st.add(conn, NewStatement("Di is new", entities=["Di"]), now_ms=at(1))
    c = st.add(conn, NewStatement("Di is old", entities=["di"]), now_ms=at(1))
    st.supersede(conn, a.id, NewStatement("Bo left Acme", entities=["Bo", "Acme"]), now_ms=at(2))
    st.dispute(conn, b.id, c.id, now_ms=at(2))
    st.revise(conn, c.id, NewStatement("Di is older"), now_ms=at(3))
    counts = {e.key: e.count for e in st.entities(conn, now_ms=at(4))}
    assert counts == {"acme": 2, "bo": 1, "cy": 1, "di": 2}
    every = {e.key: e.count for e in st.entities(conn, include_closed=True, now_ms=at(4))}
    assert every == {"acme": 3, "bo": 2, "cy": 1, "di": 3}
    assert [e.key for e in st.entities(conn, min_count=2, now_ms=at(4))] == ["acme", "di"]
    past = {e.key: e.count for e in st.entities(conn, valid_at=at(1), now_ms=at(4))}
    assert past == {"acme": 2, "bo": 1, "cy": 1, "di": 2}
    assert st.entities(conn, now_ms=at(4))[0].to_dict() == {"name": "Acme", "key": "acme",
                                                           "count": 2}  # fmt: skip
    assert st.stats(conn, now_ms=at(4)).to_dict() == {
        "total": 6,
        "open": 4,
        "closed": 2,
        "superseded": 1,
        "revised": 1,
        "disputed": 2,
    }
    assert st.known_entity_names(conn) == dict.fromkeys(["Bo", "Acme", "Cy", "Di"], "person")


def test_get_honours_known_at(conn: Connection) -> None:
    s = st.add(conn, NewStatement("later fact"), now_ms=at(5))
    with pytest.raises(NotFound):
        st.get(conn, s.id, known_at=at(4))
    with pytest.raises(NotFound):
        st.get(conn, "s_missing")
