"""One narrowing, one selection: the search index's reads and the document listings take
their SQL conditions from `store.narrowing`, so the same filters pick the same documents."""

from __future__ import annotations

import itertools

import pytest

from privault.caller import Caller
from privault.filters import Filters
from privault.store import documents
from privault.store import index_reads as reads
from privault.store.connection import rows
from privault.store.narrowing import conditions
from privault.vault import Vault

OWNER = Caller.owner()


def _searchable(vault: Vault, chosen: reads.Filters) -> set[str]:
    where, params = chosen.sql()
    found = rows(vault.conn, f"SELECT d.id FROM documents d WHERE {where}", params)
    return {item["id"] for item in found}


def _listed(
    vault: Vault, shelves: list[str] | None, hidden: list[str], chosen: Filters
) -> set[str]:
    found = documents.list_documents(
        vault.conn,
        shelves=shelves,
        kind=chosen.kind,
        tag=chosen.tag,
        since=chosen.since,
        until=chosen.until,
        hidden=hidden,
        limit=1000,
    )
    return {doc.id for doc in found}


@pytest.fixture
def filled(vault: Vault) -> Vault:
    vault.shelves.add("work")
    for number, (shelf, tags) in enumerate(
        itertools.product(["default", "work"], [(), ("money",), ("money", "home")])
    ):
        vault.note(f"# Note {number}\nText {number}.", caller=OWNER, tags=tags, shelf=shelf)
    return vault


def test_a_search_and_a_listing_narrowed_alike_select_the_same_documents(filled: Vault) -> None:
    created = sorted(item["created_at"] for item in rows(filled.conn, "SELECT * FROM documents"))
    middle = created[len(created) // 2]
    choices = [
        Filters(),
        Filters(tag="money"),
        Filters(tag="home", kind="note"),
        Filters(kind="page"),
        Filters(since=middle),
        Filters(until=middle),
        Filters(tag="money", since=created[0], until=created[-1] + 1),
    ]
    seen = set()
    for chosen, (shelves, hidden) in itertools.product(
        choices, [(None, []), (["work"], []), (None, ["work"]), ([], [])]
    ):
        searched = _searchable(
            filled,
            reads.Filters(
                None if shelves is None else tuple(shelves),
                tuple(hidden),
                chosen.kind,
                chosen.tag,
                chosen.since,
                chosen.until,
            ),
        )
        assert searched == _listed(filled, shelves, hidden, chosen), (chosen, shelves, hidden)
        seen.add(len(searched))
    assert {0, 6} <= seen and len(seen) > 3  # the choices narrow, to nothing and to some


def test_conditions_name_the_documents_table_as_asked() -> None:
    where, params = conditions(Filters(kind="note", tag="x"), ["a"], ["b"], "d.")
    assert where == [
        "d.shelf IN (?)",
        "d.shelf NOT IN (?)",
        "d.kind = ?",
        "d.id IN (SELECT doc_id FROM document_tags WHERE tag = ?)",
    ]
    assert params == ["a", "b", "note", "x"]
    assert conditions(Filters(), [], [], "")[0] == ["0"]  # no shelf at all: nothing
