"""A gated caller's statements are matched as it sees them, without gating every statement
on every search: what each policy shows is kept between replies, and never outlives a
change to what that policy would show."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from privault.caller import Caller
from privault.interfaces.agents import known_caller
from privault.spans import Span
from privault.store import statement_spans
from privault.vault import Vault
from privault.vault.statement_gate import StatementGate
from tests.helpers import fake_vault, mcp_ok

OWNER = Caller.owner()


@pytest.fixture
def vault(tmp_path: Path) -> Iterator[Vault]:
    """A fake-engine vault with one registered agent, `bob` (the `standard` policy)."""
    opened = fake_vault(tmp_path / "v.db")
    opened.agents.issue("bob")
    yield opened
    opened.close()


def agent_facts(vault: Vault, query: str, name: str = "bob") -> list[str]:
    """The statements' contents an agent's search returns for `query`."""
    found = vault.search(query, caller=known_caller(vault, name))
    return [str(item.statement.content) for item in found.statements]


@pytest.fixture
def gated(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the statements gated from now on, once per gating."""
    seen: list[str] = []
    original = StatementGate._one

    def counted(self: StatementGate, statement, found, gate):  # type: ignore[no-untyped-def]
        seen.append(statement.id)
        return original(self, statement, found, gate)

    monkeypatch.setattr(StatementGate, "_one", counted)
    return seen


def test_a_search_after_the_first_gates_only_the_statements_it_returns(
    vault: Vault, gated: list[str]
) -> None:
    for number in range(30):
        vault.statements.add(
            f"Supplier {number} sends invoices to desk{number}@example.com", caller=OWNER
        )
    first = agent_facts(vault, "supplier invoices")
    assert len(first) == 5 and all("<EMAIL_ADDRESS_" in text for text in first)
    gated.clear()
    again = agent_facts(vault, "supplier invoices")
    assert again == first
    assert len(gated) == len(again)  # the other 25 were matched from what was kept


def test_a_name_the_vault_learns_stops_matching_at_once(vault: Vault) -> None:
    vault.statements.add("Quillon pays the boiler invoice", caller=OWNER)
    assert agent_facts(vault, "Quillon") == ["Quillon pays the boiler invoice"]
    vault.statements.add("Quillon moved house", caller=OWNER, entities=["Quillon"])
    assert agent_facts(vault, "Quillon") == []
    assert agent_facts(vault, "boiler") == ["<PERSON_1> pays the boiler invoice"]


def test_a_name_another_process_learns_stops_matching_on_the_next_search(
    vault: Vault, tmp_path: Path
) -> None:
    vault.statements.add("Vantreck signs the lease", caller=OWNER)
    assert agent_facts(vault, "Vantreck lease") == ["Vantreck signs the lease"]
    other = fake_vault(tmp_path / "v.db")
    try:
        other.statements.add("Vantreck is the landlord", caller=OWNER, entities=["Vantreck"])
    finally:
        other.close()
    assert agent_facts(vault, "Vantreck") == []
    assert agent_facts(vault, "lease") == ["<PERSON_1> signs the lease"]


def test_a_stricter_policy_matches_what_it_shows(vault: Vault) -> None:
    vault.statements.add("The boiler invoice goes to Dr. Ana Lima", caller=OWNER)
    assert agent_facts(vault, "boiler") == ["The boiler invoice goes to <PERSON_1>"]
    vault.agents.set_policy("bob", "strict")
    # Withheld whole: nothing of its text can match any more, only the stub's own words.
    assert agent_facts(vault, "boiler") == []
    assert agent_facts(vault, "withheld") == ["[withheld by policy strict: contains PERSON]"]
    vault.agents.set_policy("bob", None)
    assert agent_facts(vault, "boiler") == ["The boiler invoice goes to <PERSON_1>"]


def test_a_rescanned_statement_matches_its_new_spans(vault: Vault) -> None:
    made = vault.statements.add("Gravelpit holds the spare keys", caller=OWNER)
    statement_id = made.statement.statement.id
    assert agent_facts(vault, "Gravelpit keys") == ["Gravelpit holds the spare keys"]
    scan = statement_spans.StatementScan(
        (Span(0, 9, "PERSON", 0.9, "ner"),), {}, "a newer detector"
    )
    statement_spans.save_scan(vault.conn, statement_id, scan)
    assert agent_facts(vault, "Gravelpit") == []
    assert agent_facts(vault, "keys") == ["<PERSON_1> holds the spare keys"]


def test_held_back_and_the_mcp_reply_count_what_is_returned(vault: Vault) -> None:
    for number in range(12):
        vault.statements.add(f"Desk {number} is reached at desk{number}@example.com", caller=OWNER)
    for _ in range(2):  # the second reply matches from what the first one kept
        reply = mcp_ok(vault, "bob", "memory_search", query="desk reached")
        shown = [text for item in reply["statements"] for text in [item["content"]]]
        assert len(shown) == 5
        assert reply["held_back"] == {"EMAIL_ADDRESS": 5}


def test_a_statements_query_counts_only_the_statements_it_returns(vault: Vault) -> None:
    for number in range(12):
        vault.statements.add(f"Desk {number} is reached at desk{number}@example.com", caller=OWNER)
    bob = known_caller(vault, "bob")
    found = vault.statements.query(caller=bob, text="desk reached", limit=3)
    assert len(found.statements) == 3
    assert found.privacy.held_back == {"EMAIL_ADDRESS": 3}
    newest = vault.statements.query(caller=bob, limit=4)
    assert len(newest.statements) == 4 and newest.privacy.held_back == {"EMAIL_ADDRESS": 4}
    reply = mcp_ok(vault, "bob", "query_statements", text="desk", limit=2)
    assert len(reply["statements"]) == 2 and reply["held_back"] == {"EMAIL_ADDRESS": 2}


def test_a_shelf_made_stricter_matches_what_it_shows_there(vault: Vault) -> None:
    vault.shelves.add("work")
    vault.statements.add("The boiler invoice goes to Dr. Ana Lima", caller=OWNER, shelf="work")
    vault.statements.add("The boiler is serviced in May", caller=OWNER)
    assert sorted(agent_facts(vault, "boiler")) == [
        "The boiler invoice goes to <PERSON_1>",
        "The boiler is serviced in May",
    ]
    vault.shelves.set_policy("work", "strict")
    # Withheld whole on that shelf alone: the other shelf's statement still matches.
    assert agent_facts(vault, "boiler") == ["The boiler is serviced in May"]
    vault.shelves.set_policy("work", None)
    assert len(agent_facts(vault, "boiler")) == 2
