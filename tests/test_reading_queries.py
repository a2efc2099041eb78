"""How many SQL statements one reply costs: a reply reads what its gates apply in batches,
once per reply, however many hits, titles and breadcrumbs it shows."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from privault import Caller
from privault.vault import Vault

OWNER = Caller.owner()
AGENT = Caller.agent("claude")
SEARCH_BUDGET = 20  # statements for one agent search, whatever its number of hits


@contextmanager
def traced(vault: Vault) -> Iterator[list[str]]:
    """Every SQL statement the vault's connection runs meanwhile (not those SQLite runs
    inside a virtual table on the statement's behalf, which it reports as `-- ...`)."""
    seen: list[str] = []
    vault.conn.set_trace_callback(seen.append)
    try:
        yield seen
    finally:
        vault.conn.set_trace_callback(None)
        seen[:] = [sql for sql in seen if not sql.startswith("--")]


@pytest.fixture
def vault(vault: Vault) -> Vault:
    vault.agents.issue("claude")
    for i in range(14):
        vault.note(
            f"# Trip {i} with Jane Roe\n\n## Hotel {i}\n\n"
            f"The hotel budget for trip {i} is 400; mail jane{i}@example.com.\n\n"
            f"### Rooms\n\nTwo hotel rooms for trip {i}, booked by Jane Roe.",
            caller=OWNER,
            tags=["travel", f"trip-{i}"],
        )
    vault.statements.add("Jane Roe books the hotel", caller=OWNER, entities=["Jane Roe"])
    vault.search("hotel budget", caller=AGENT)  # the masked index is checked once a process
    return vault


def _search(vault: Vault, limit: int) -> tuple[int, int]:
    with traced(vault) as seen:
        found = vault.search("hotel budget rooms", caller=AGENT, limit=limit)
    assert all("jane" not in hit.text.lower() for hit in found.results)
    return len(found.results), len(seen)


def test_an_agents_ten_hit_search_costs_at_most_twenty_statements(vault: Vault) -> None:
    hits, statements = _search(vault, 10)
    assert hits == 10
    assert statements <= SEARCH_BUDGET


def test_the_statements_of_a_search_do_not_grow_with_its_hits(vault: Vault) -> None:
    few_hits, few = _search(vault, 2)
    many_hits, many = _search(vault, 10)
    assert (few_hits, many_hits) == (2, 10)
    assert many == few


def test_a_document_is_read_in_one_reply(vault: Vault) -> None:
    doc_id = vault.docs(caller=OWNER, limit=1).documents[0].doc_id
    nodes = [node.node_id for node in vault.tree(doc_id, caller=OWNER).nodes]
    with traced(vault) as seen:
        views = vault.documents.read_document(doc_id, caller=AGENT)
    with traced(vault) as first_two:
        vault.documents.read_document(doc_id, caller=AGENT, limit=2)
    assert [view.node_id for view in views] == nodes
    assert len(seen) == len(first_two) <= 12  # as many for two sections as for all
    for view in views:  # what `read` gives, section by section
        alone = vault.read(view.node_id, caller=AGENT)
        assert (view.text, view.breadcrumb, view.children) == (
            alone.text,
            alone.breadcrumb,
            alone.children,
        )
    assert "<PERSON_1>" in views[0].title and "Jane" not in views[-1].text


def test_a_listing_and_a_context_pack_read_their_documents_once(vault: Vault) -> None:
    with traced(vault) as two:
        assert len(vault.docs(caller=AGENT, limit=2).documents) == 2
    with traced(vault) as all_of_them:
        assert len(vault.docs(caller=AGENT, limit=14).documents) == 14
    assert len(two) == len(all_of_them)
    with traced(vault) as small:
        vault.context("hotel budget rooms", caller=AGENT, budget=100)
    with traced(vault) as large:
        pack = vault.context("hotel budget rooms", caller=AGENT, budget=2000)
    assert len(pack.sections) > 5
    assert len(large) == len(small) <= SEARCH_BUDGET
