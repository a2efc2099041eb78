"""Dates named in a query, and the ranking they add to search."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from privault.caller import Caller
from privault.filters import Filters as Chosen
from privault.retrieval.fts import match_expression
from privault.retrieval.periods import envelope, mentioned_periods
from privault.retrieval.vectors import VectorIndex
from privault.store.index_reads import Filters
from privault.timeutil import parse_time
from tests.helpers import fake_vault

OWNER = Caller.owner()


def _days(query: str) -> list[tuple[str, str]]:
    def day(ms: int) -> str:
        return datetime.fromtimestamp(ms / 1000, UTC).date().isoformat()

    return [(day(start), day(end)) for start, end in mentioned_periods(query)]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # a day: from the day before (zones) to two days after (written the next day)
        ("What did Anna show on October 13, 2023?", [("2023-10-12", "2023-10-15")]),
        ("dinner on 3 June, 2023", [("2023-06-02", "2023-06-05")]),
        ("the 13th of Oct 2023", [("2023-10-12", "2023-10-15")]),
        ("notes from 2023-10-13", [("2023-10-12", "2023-10-15")]),
        # a month or a year: itself and one day more
        ("Where did Jo travel in July 2022?", [("2022-07-01", "2022-08-02")]),
        ("December 2023 and 2024-02", [("2023-12-01", "2024-01-02"), ("2024-02-01", "2024-03-02")]),
        ("How often did we go to the beach in 2023?", [("2023-01-01", "2024-01-02")]),
        ("the launch on Sept 5, 2023", [("2023-09-04", "2023-09-07")]),
        # a day without a year takes the year of the full date after it
        (
            "Where was John between August 11 and August 15 2023?",
            [("2023-08-10", "2023-08-13"), ("2023-08-14", "2023-08-17")],
        ),
        ("dinner on 3 June, lunch in 2023", [("2023-01-01", "2024-01-02")]),  # no day in a year
        (
            "from 30 Dec to 2 January 2024",
            [("2023-12-29", "2024-01-01"), ("2024-01-01", "2024-01-04")],
        ),
    ],
)
def test_dates_in_a_query_become_periods(query: str, expected: list[tuple[str, str]]) -> None:
    assert _days(query) == expected


@pytest.mark.parametrize(
    "query",
    [
        "What happened on 31 February 2023?",  # no such day
        "What happened last week?",  # needs a reference point
        "dinner on 3 June",  # no year
        "between 30 February and 2 March",  # no year anywhere
        "the 2023 tax form",  # a bare number is not a period
        "order 12 May 1850",  # outside the years read
        "room 2023-13-01",  # no 13th month
    ],
)
def test_what_is_not_a_full_date_names_no_period(query: str) -> None:
    assert mentioned_periods(query) == []


def test_envelope_spans_every_period() -> None:
    assert envelope([]) is None
    assert envelope([(5, 9), (1, 3)]) == (1, 9)


def test_filters_within_narrows_and_never_widens() -> None:
    caller_window = Filters(since=100, until=200)
    assert caller_window.within(50, 150) == Filters(since=100, until=150)
    assert caller_window.within(300, 400) is None  # no time left: no dated ranking at all
    assert Filters().within(1, 2) == Filters(since=1, until=2)


def test_apostrophe_fragments_are_not_search_words() -> None:
    assert match_expression("What is Anna's plan? She didn't say") == (
        '"anna" OR "plan" OR "didn" OR "say"'
    )


@pytest.mark.parametrize(
    ("query", "expression"),
    [
        ("vet in January 2018", '"vet" OR "january 2018"'),
        ("What happened on October 13, 2023?", '"happened" OR "october 13 2023"'),
        ("dental check-up in 2019", '"dental" OR "check" OR "up" OR "2019"'),
        ("meeting 2023-10-13 notes", '"meeting" OR "2023 10 13" OR "notes"'),
        # Only a date with a year is one phrase; the yearless one keeps its words.
        (
            "between August 11 and August 15 2023",
            '"between" OR "august" OR "11" OR "august 15 2023"',
        ),
        ("May I ask about May", '"may" OR "ask" OR "about"'),  # no year: words as written
    ],
)
def test_a_written_date_is_one_keyword_phrase(query: str, expression: str) -> None:
    assert match_expression(query) == expression


def test_a_months_name_alone_does_not_rank_another_years_note(tmp_path: Path) -> None:
    """The period legs rank what was written in January 2018; the keyword leg no longer
    ranks a note of 2020 for the word "January" (nor a note of 2018 for "2018")."""
    with fake_vault(tmp_path / "v.db") as vault:
        for day, text in [
            ("2020-01-09", "January sales: bought a coat, the vet bill came too."),
            ("2018-06-01", "2018 budget for the garden."),
            ("2018-01-12", "Took the cat to the vet for her vaccinations."),
            ("2018-05-12", "The vet said the January 2018 jabs are due again."),
        ]:
            vault.note(text, caller=OWNER, created_at=parse_time(f"{day}T09:00:00Z"))
        keyword = match_expression("vet in January 2018")
        assert keyword is not None
        matched = {
            text
            for (text,) in vault.conn.execute(
                "SELECT text FROM chunks_fts WHERE chunks_fts MATCH ?", (keyword,)
            )
        }
        assert "2018 budget for the garden." not in matched
        assert "The vet said the January 2018 jabs are due again." in matched
        found = vault.search("vet in January 2018", caller=OWNER, limit=4).results
        assert "vaccinations" in found[0].text
        assert "January sales" not in found[1].text


def test_vector_search_within_a_period(tmp_path: Path) -> None:
    vault = fake_vault(tmp_path / "v.db")
    for day, text in ((100, "alpha"), (200, "alpha beta gamma"), (300, "delta")):
        vault.note(text, caller=OWNER, created_at=day)
    conn = vault.conn
    chunk = {text: cid for cid, text in conn.execute("SELECT rowid, text FROM chunks_fts")}
    first, second, third = (chunk[t] for t in ("alpha", "alpha beta gamma", "delta"))
    index = VectorIndex(vault.embedder.dim)
    index.refresh(conn)
    query = vault.embedder.embed_query("alpha")
    assert [i for i, _ in index.search(query, 3, conn=conn)][:2] == [first, second]
    assert [i for i, _ in index.search(query, 3, (150, 400), conn=conn)] == [second, third]
    assert [i for i, _ in index.search(query, 1, (150, 400), conn=conn)] == [second]
    assert index.search(query, 3, (400, 500), conn=conn) == []
    # A refresh loads new rows: no stale distances are reused for them.
    later = vault.note("alpha", caller=OWNER, created_at=250, title="again")
    index.refresh(conn)
    found = [i for i, _ in index.search(query, 3, (150, 400), conn=conn)]
    assert len(found) == 3 and found[-1] == third
    assert later.doc_id
    vault.close()


def _dated_notes(vault) -> None:
    for day, text in [
        ("2023-03-02", "Went to the pottery class, made a bowl. Busy week at work."),
        ("2023-07-15", "Pottery again with the kids. Then a long walk by the river."),
        ("2023-11-20", "The pottery studio has a new kiln; I signed up for glazing."),
    ]:
        vault.note(text, caller=OWNER, created_at=parse_time(f"{day}T18:00:00Z"))


def test_a_query_naming_a_month_ranks_what_was_written_then_first(tmp_path: Path) -> None:
    with fake_vault(tmp_path / "v.db") as vault:
        _dated_notes(vault)
        plain = vault.search("pottery", caller=OWNER, limit=3).results
        dated = vault.search("pottery in July 2023", caller=OWNER, limit=3).results
        assert len(plain) == len(dated) == 3  # a preference, never a filter
        assert "with the kids" in dated[0].text
        assert "with the kids" not in plain[0].text
        november = vault.search("What did I sign up for on 20 November 2023?", caller=OWNER)
        assert "kiln" in november.results[0].text


def test_notes_added_after_the_first_search_are_dated_too(tmp_path: Path) -> None:
    with fake_vault(tmp_path / "v.db") as vault:
        _dated_notes(vault)
        vault.search("pottery", caller=OWNER)  # the vector mirror is loaded here
        vault.note(
            "Pottery fair in town, bought a teapot.",
            caller=OWNER,
            created_at=parse_time("2024-05-04T10:00:00Z"),
        )
        found = vault.search("pottery on 4 May 2024", caller=OWNER).results
        assert "teapot" in found[0].text


def test_the_dated_ranking_respects_the_callers_filters(tmp_path: Path) -> None:
    with fake_vault(tmp_path / "v.db") as vault:
        _dated_notes(vault)
        found = vault.search(
            "pottery in July 2023",
            caller=OWNER,
            filters=Chosen(since=parse_time("2023-10-01T00:00:00Z")),
        ).results
        assert [h.text for h in found] == [
            "The pottery studio has a new kiln; I signed up for glazing."
        ]
