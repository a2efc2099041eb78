"""A scripted six months (January–June 2025) read back at many (valid_at, known_at) points.

The story: Acme's account contact changes from Bo Stone to Cy Diaz (learned late); Ana's
city is revised to better wording; the contract renewal date is confirmed five times; two
offices are disputed until one is superseded.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from privault import statements as st
from privault.statements import NewStatement
from privault.store.connection import Connection
from privault.timeutil import parse_time

BO = "Bo Stone is the account contact for Acme"
CY = "Cy Diaz is the account contact for Acme"
LYON = "Ana lives in Lyon"
LYON_FR = "Ana lives in Lyon, France"
RENEWAL = "The Acme contract renews on 1 July"
BERLIN = "Acme's office is in Berlin"
MUNICH = "Acme's office is in Munich"
HAMBURG = "Acme's office moved to Hamburg"
NOW = parse_time("2025-06-30T12:00:00Z")


def t(day: str) -> int:
    """Noon UTC on a 2025 day given as MM-DD."""
    return parse_time(f"2025-{day}T12:00:00Z")


@dataclass(frozen=True)
class Timeline:
    """Ids of the statements the script wrote."""

    bo: str
    cy: str
    lyon: str
    lyon_fr: str
    renewal: str
    berlin: str
    munich: str
    hamburg: str


@pytest.fixture
def timeline(conn: Connection) -> Timeline:
    """Play the six months into the vault."""
    bo = st.add(
        conn,
        NewStatement(BO, entities=["Acme", "Bo Stone"], valid_from=t("01-10")),
        now_ms=t("01-10"),
    )
    lyon = st.add(
        conn, NewStatement(LYON, entities=["Ana"], valid_from=t("01-01")), now_ms=t("01-15")
    )
    renewal = st.add(conn, NewStatement(RENEWAL, entities=["Acme"]), now_ms=t("01-20"))
    for month in ("02", "03", "04", "05", "06"):
        st.confirm(conn, renewal.id, source=f"call {month}", now_ms=t(f"{month}-01"))
    berlin = st.add(conn, NewStatement(BERLIN, entities=["Acme"]), now_ms=t("02-10"))
    munich = st.add(conn, NewStatement(MUNICH, entities=["Acme"]), now_ms=t("02-12"))
    st.dispute(conn, berlin.id, munich.id, reason="one office", now_ms=t("02-12"))
    lyon_fr = st.revise(conn, lyon.id, NewStatement(LYON_FR), now_ms=t("03-05"))
    # The contact changed on 20 March; the vault hears of it on 1 April.
    cy = st.supersede(
        conn,
        bo.id,
        NewStatement(CY, entities=["Acme", "Cy Diaz"], valid_from=t("03-20")),
        now_ms=t("04-01"),
    )
    hamburg = st.supersede(
        conn, berlin.id, NewStatement(HAMBURG, valid_from=t("05-01")), now_ms=t("05-10")
    )
    return Timeline(bo.id, cy.id, lyon.id, lyon_fr.id, renewal.id, berlin.id, munich.id, hamburg.id)


# (valid_at, known_at, entity, contents that hold) — None means "now" (30 June).
CASES = [
    (None, None, "acme", {CY, RENEWAL, MUNICH, HAMBURG}),
    (None, None, "ana", {LYON_FR}),
    ("02-01", None, "acme", {BO, RENEWAL}),
    ("02-01", None, "ana", {LYON_FR}),  # revised wording, same world window
    ("03-25", None, "acme", {CY, RENEWAL, BERLIN, MUNICH}),
    (None, "03-25", "acme", {BO, RENEWAL, BERLIN, MUNICH}),  # the change not yet heard of
    (None, "03-25", "ana", {LYON_FR}),
    (None, "02-20", "ana", {LYON}),  # before the revision: the original wording
    (None, "01-12", "ana", set()),  # not yet recorded
    (None, "01-12", "acme", {BO}),
    ("01-05", None, "ana", {LYON_FR}),  # valid from 1 January, learned on the 15th
    ("01-05", None, "acme", set()),
    ("01-05", "02-01", "ana", {LYON}),
    ("05-05", "04-15", "acme", {CY, RENEWAL, BERLIN, MUNICH}),  # Hamburg not yet known
    ("05-05", None, "acme", {CY, RENEWAL, MUNICH, HAMBURG}),
    ("03-19", "04-15", "acme", {BO, RENEWAL, BERLIN, MUNICH}),  # the day before the change
    ("03-20", "04-15", "acme", {CY, RENEWAL, BERLIN, MUNICH}),
]


@pytest.mark.parametrize(("valid_at", "known_at", "entity", "expected"), CASES)
def test_what_held_when(
    conn: Connection,
    timeline: Timeline,
    valid_at: str | None,
    known_at: str | None,
    entity: str,
    expected: set[str],
) -> None:
    found = st.query(
        conn,
        entities=[entity],
        valid_at=t(valid_at) if valid_at else None,
        known_at=t(known_at) if known_at else None,
        limit=None,
        now_ms=NOW,
    )
    assert {s.content for s in found} == expected


@pytest.mark.parametrize(
    ("known_at", "count", "last"),
    [(None, 5, "06-01"), ("03-15", 2, "03-01"), ("01-25", 0, None), ("06-01", 5, "06-01")],
)
def test_five_confirmations_counted_as_known(
    conn: Connection, timeline: Timeline, known_at: str | None, count: int, last: str | None
) -> None:
    seen = st.get(conn, timeline.renewal, known_at=t(known_at) if known_at else NOW)
    assert seen.confirmed_count == count
    assert seen.last_confirmed_at == (t(last) if last else None)


def test_dispute_settled_by_supersede(conn: Connection, timeline: Timeline) -> None:
    in_march = st.query(conn, disputed=True, known_at=t("03-01"), now_ms=NOW)
    assert {s.id for s in in_march} == {timeline.berlin, timeline.munich}
    assert st.get(conn, timeline.munich, known_at=t("03-01")).disputed_with == (timeline.berlin,)
    assert st.query(conn, disputed=True, now_ms=NOW) == []
    assert st.get(conn, timeline.munich, now_ms=NOW).disputed_with == ()
    assert st.stats(conn, now_ms=NOW).disputed == 0


def test_contact_chain_and_labels(conn: Connection, timeline: Timeline) -> None:
    chain = st.history(conn, timeline.cy, now_ms=NOW)
    assert [s.content for s in chain] == [BO, CY]
    assert [s.status for s in chain] == ["superseded", "current"]
    # As the vault stood in March, Bo was current and had no successor yet.
    march = st.history(conn, timeline.bo, known_at=t("03-25"))
    assert [(s.content, s.status, s.superseded_by) for s in march] == [(BO, "current", None)]


def test_revised_city_is_found_before_the_revision(conn: Connection, timeline: Timeline) -> None:
    before = st.query(conn, text="Lyon", known_at=t("03-01"), now_ms=NOW)
    assert [s.id for s in before] == [timeline.lyon]
    after = st.query(conn, text="Lyon", now_ms=NOW)
    assert [s.id for s in after] == [timeline.lyon_fr]
    every = st.query(conn, text="Lyon", include_closed=True, now_ms=NOW)
    assert {s.id for s in every} == {timeline.lyon, timeline.lyon_fr}
    assert st.get(conn, timeline.lyon, now_ms=NOW).status == "revised"


def test_all_lists_every_version(conn: Connection, timeline: Timeline) -> None:
    every = st.query(conn, include_closed=True, limit=None, now_ms=NOW)
    assert len(every) == 8
    assert {s.id for s in every} == set(vars(timeline).values())
    assert len(st.query(conn, include_closed=True, known_at=t("02-11"), limit=None)) == 4
