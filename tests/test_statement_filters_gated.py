"""Statement filters and the entity list answer a gated caller as it sees statements:
a value masked for it, by its own policy or by the shelf a statement is on, is found by
no form of it, and the entity list shows it masked. Each case compares a vault holding the
value with one holding another of the same shape: the agent's replies must not differ."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.statement_presence import contacts_policies
from privault import Caller, Vault
from privault.vault.statement_matching import SeenWords
from tests.helpers import fake_vault

OWNER = Caller.owner()
AGENT = Caller.agent("helper")
FILLER = ("The boiler was serviced in March.", "The car insurance renews in June.")


def _vault(tmp_path: Path, name: str, agent_policy: str) -> Vault:
    policies = contacts_policies(tmp_path)  # `contacts` masks contact details, not names
    privacy = {"agent_default": "standard", "agents": {"helper": agent_policy}}
    return fake_vault(tmp_path / f"{name}.db", privacy=privacy, policies_dir=policies)


def _replies(vault: Vault, asked: str) -> dict[str, Any]:
    """What the agent reads: the statements an entity filter and words find, and the list."""
    found = vault.statements.query(caller=AGENT, entities=[asked]).statements
    ranked = vault.statements.query(caller=AGENT, text=asked, limit=1).statements
    context = vault.statements.for_context(vault.privacy.reading(AGENT), asked, limit=1)
    return {
        "filter": [item.statement.content for item in found],
        "words": [item.statement.content for item in ranked],
        "context": [item.statement.content for item in context],
        "entities": [
            (item.name, item.count) for item in vault.statements.entities(caller=AGENT).entities
        ],
    }


@pytest.mark.parametrize("agent_policy", ["contacts", "open"])
def test_a_name_a_shelf_masks_is_found_by_no_form_of_it(tmp_path: Path, agent_policy: str) -> None:
    # The agent's own policy does not mask names; the shelf's (`standard`) does.
    seen = {}
    for name in ("Maria Lopez", "Sofia Garcia"):
        with _vault(tmp_path, name.split()[0], agent_policy) as vault:
            vault.shelves.add("family", policy="standard")
            for line in FILLER:
                vault.statements.add(line, caller=OWNER)
            vault.statements.add(
                f"{name} is allergic to penicillin.", caller=OWNER, entities=[name], shelf="family"
            )
            seen[name] = _replies(vault, "Maria Lopez")
            [shown] = vault.statements.query(caller=AGENT, text="penicillin").statements
            assert shown.statement.content == "<PERSON_1> is allergic to penicillin."
    assert seen["Maria Lopez"] == seen["Sofia Garcia"]
    assert seen["Maria Lopez"]["filter"] == []
    assert seen["Maria Lopez"]["entities"] == [("<PERSON_1>", 1)]


def test_an_entity_its_own_policy_masks_is_not_found_by_the_filter(tmp_path: Path) -> None:
    # `contacts` masks addresses but not names, so filtering by entity is open to it.
    seen = {}
    for address in ("maria.lopez@example.com", "sofia.garcia@example.com"):
        with _vault(tmp_path, address.split(".")[0], "contacts") as vault:
            for line in FILLER:
                vault.statements.add(line, caller=OWNER)
            vault.statements.add(
                f"Invoices go to {address}.", caller=OWNER, entities=[f"other:{address}"]
            )
            vault.statements.add("Ana Lima runs the shop.", caller=OWNER, entities=["Ana Lima"])
            seen[address] = _replies(vault, "maria.lopez@example.com")
            # A name shown as written is still found by it.
            [named] = vault.statements.query(caller=AGENT, entities=["ana lima"]).statements
            assert named.statement.content == "Ana Lima runs the shop."
    assert seen["maria.lopez@example.com"] == seen["sofia.garcia@example.com"]
    assert seen["maria.lopez@example.com"]["filter"] == []


def test_an_entity_filter_judges_every_statement_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Narrowed first by the names as stored, the filter gated only the statements naming
    # the value asked for: its time told how many the vault held, though none came back.
    judged: list[int] = []
    seen = SeenWords._seen

    def counting(self: SeenWords, found: Any, gate: Any) -> Any:
        judged.append(len(found))
        return seen(self, found, gate)

    monkeypatch.setattr(SeenWords, "_seen", counting)
    for name in ("Maria Lopez", "Sofia Garcia"):
        with _vault(tmp_path, name.split()[0], "contacts") as vault:
            vault.shelves.add("family", policy="standard")
            for day in range(5):
                vault.statements.add(
                    f"{name} visited on day {day}.", caller=OWNER, entities=[name], shelf="family"
                )
            vault.statements.add("The boiler was serviced.", caller=OWNER)
            assert vault.statements.query(caller=AGENT, entities=["Maria Lopez"]).statements == ()
    assert judged == [6, 6]
