"""The owner's overrides as the page uses them: unmark by value and kind, what a change
would show to which agents before it is made, and what one agent gets masked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from privault.caller import Caller
from privault.interfaces.agents import known_caller
from privault.store.connection import connect
from privault.vault import Vault
from tests.helpers import fake_vault

OWNER = Caller.owner()
PHONE = "+44 20 7946 0018"


@pytest.fixture
def vault(tmp_path: Path) -> Iterator[Vault]:
    opened = fake_vault(tmp_path / "v.db")
    opened.agents.issue("claude")
    opened.agents.issue("nurse")
    opened.shelves.add("health", restricted=True)
    yield opened
    opened.close()


def read_as(vault: Vault, doc_id: str, agent: str) -> str:
    caller = known_caller(vault, agent)
    nodes = vault.tree(doc_id, caller=OWNER).nodes
    return "\n".join(vault.read(node.node_id, caller=caller).text for node in nodes)


def test_unmark_of_one_kind_keeps_the_other_kinds_of_the_same_text(vault: Vault) -> None:
    other = vault.note(f"Switchboard: {PHONE}.", caller=OWNER).doc_id
    vault.pii.mark(other, PHONE, caller=OWNER, kind="ORGANIZATION")  # known vault-wide now
    doc = vault.note(f"Ring {PHONE} before noon.", caller=OWNER).doc_id
    assert PHONE not in read_as(vault, doc, "claude")
    assert vault.pii.unmark_reveals(doc, PHONE, caller=OWNER, kind="ORGANIZATION") == ()
    vault.pii.unmark(doc, PHONE, caller=OWNER, kind="ORGANIZATION")
    assert "<PHONE_NUMBER_1>" in read_as(vault, doc, "claude")
    [reveal] = [
        r for r in vault.pii.unmark_reveals(doc, PHONE, caller=OWNER) if r.agent == "claude"
    ]
    assert reveal.kinds == ("PHONE_NUMBER",) and reveal.policies == ("standard",)
    vault.pii.unmark(doc, PHONE, caller=OWNER, kind="PHONE_NUMBER")
    [override] = vault.pii.overrides(caller=OWNER, target=doc)
    assert override.kind == "ORGANIZATION,PHONE_NUMBER"  # one row, the kinds add up
    assert PHONE in read_as(vault, doc, "claude")


def test_a_reveal_names_only_agents_that_can_see_the_shelf(vault: Vault) -> None:
    doc = vault.note("Ask Dr. Rivers about it.", caller=OWNER, shelf="health").doc_id
    vault.shelves.attach("health", "nurse")
    reveals = vault.pii.unmark_reveals(doc, "Dr. Rivers", caller=OWNER)
    assert [(r.agent, r.kinds, r.sections) for r in reveals] == [("nurse", ("PERSON",), 1)]


def test_taking_back_a_mark_is_previewed_with_what_it_shows(vault: Vault) -> None:
    doc = vault.note("Kofi Mensah leads the project.", caller=OWNER).doc_id
    mark = vault.pii.mark(doc, "Kofi Mensah", caller=OWNER)
    # An unmark would replace the mark: its preview says so before anything changes.
    previewed = vault.pii.unmark_reveals(doc, "kofi mensah", caller=OWNER)
    assert {(r.agent, r.kinds) for r in previewed} == {
        ("claude", ("PERSON",)),
        ("nurse", ("PERSON",)),
    }
    assert vault.pii.overrides(caller=OWNER, target=doc) == [mark]
    # The preview of taking the mark back names what then happens, and nothing else.
    elsewhere = vault.note("Kofi Mensah called.", caller=OWNER).doc_id
    assert "Kofi" not in read_as(vault, elsewhere, "claude")
    reveals = vault.pii.remove_reveals(mark.id, caller=OWNER)
    assert [(r.agent, r.kinds) for r in reveals] == [
        ("claude", ("PERSON",)),
        ("nurse", ("PERSON",)),
    ]
    vault.pii.remove_override(mark.id, caller=OWNER)
    shown = [d for d in (doc, elsewhere) if "Kofi Mensah" in read_as(vault, d, "claude")]
    assert doc in shown and reveals[0].sections == len(shown)


def test_absent_values_are_counted_as_absent(vault: Vault) -> None:
    doc = vault.note("Kofi Mensah leads the project.", caller=OWNER).doc_id
    assert vault.pii.occurrences(doc, "kofi  mensah", caller=OWNER) == 1
    assert vault.pii.occurrences(doc, "Kofi Mens", caller=OWNER) == 0  # whole words only
    assert vault.pii.occurrences(doc, "Dana", caller=OWNER) == 0


def test_the_agent_panel_folds_parts_and_lists_what_it_lets_through(vault: Vault) -> None:
    doc = vault.note("Dr. Jonas Becker called. Jonas will come on Monday.", caller=OWNER).doc_id
    vault.pii.mark(doc, "Jonas", caller=OWNER)
    vault.pii.mark(doc, "Monday", caller=OWNER, kind="DATE_TIME")
    _, masking = vault.pii.masking_for(doc, known_caller(vault, "claude"), caller=OWNER)
    masked = [(row.value, row.kind, row.count) for row in masking.masked]
    # Once in the text and once in the title (the note's first line), as the agent reads it.
    assert masked == [("Dr. Jonas Becker", "PERSON", 2), ("Jonas", "PERSON", 2)]
    assert [(row.value, row.kind) for row in masking.shown] == [("Monday", "DATE_TIME")]
    assert masking.policies == ("standard",) and masking.hidden_sections == 0


def test_the_agent_panel_lists_what_titles_headings_and_tags_mask(vault: Vault) -> None:
    # Titles, headings and tags are gated wherever an agent reads them (a listing, a tree,
    # a breadcrumb), but the panel listed the text's values only: a name in a title alone
    # was masked for the agent and missing from what the owner was told it gets masked.
    doc = vault.note(
        "# Invoice from Dr. Maria Gonzalez\nPaid in full.\n## Dr. Kofi Mensah\nAsked for a copy.",
        caller=OWNER,
        tags=["maria.gonzalez@example.com"],
    ).doc_id
    claude = known_caller(vault, "claude")
    [listed] = vault.docs(caller=claude).documents
    assert (listed.title, listed.tags) == ("Invoice from <PERSON_1>", ("<EMAIL_ADDRESS_1>",))
    _, masking = vault.pii.masking_for(doc, claude, caller=OWNER)
    assert [(row.value, row.kind, row.count) for row in masking.masked] == [
        ("maria.gonzalez@example.com", "EMAIL_ADDRESS", 1),
        ("Dr. Kofi Mensah", "PERSON", 1),
        ("Dr. Maria Gonzalez", "PERSON", 1),  # the title is the first heading: counted once
    ]
    # What is masked in a label goes the way the agent reads it: unmarked, it is shown.
    vault.pii.unmark(doc, "Dr. Maria Gonzalez", caller=OWNER)
    _, masking = vault.pii.masking_for(doc, claude, caller=OWNER)
    assert "Dr. Maria Gonzalez" not in [row.value for row in masking.masked]
    assert vault.docs(caller=claude).documents[0].title == "Invoice from Dr. Maria Gonzalez"


def test_the_agent_panel_counts_a_title_as_far_as_the_agent_reads_it(vault: Vault) -> None:
    # Titles are clipped after gating: a value past the cut reaches the agent neither
    # masked nor shown, and the panel counted it all the same.
    title = (
        f"Notes from the long planning meeting about the garden shed and the fence; call {PHONE}"
    )
    doc = vault.note("# Shed plans\nBody.\n## Fence\nMore.", caller=OWNER, title=title).doc_id
    claude = known_caller(vault, "claude")
    listed = vault.docs(caller=claude).documents[0].title
    assert listed.endswith("…") and "PHONE" not in listed
    _, masking = vault.pii.masking_for(doc, claude, caller=OWNER)
    assert masking.masked == ()
    # A title that is also a heading is read whole in the tree: there it counts (once in
    # the text, once in the heading).
    first = vault.note(f"{title}\nMore text.", caller=OWNER).doc_id
    _, masking = vault.pii.masking_for(first, claude, caller=OWNER)
    assert [(row.value, row.count) for row in masking.masked] == [(PHONE, 2)]


def test_unmarks_stored_before_kinds_were_kept_mean_every_kind(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with fake_vault(path) as vault:
        doc = vault.note("Ask Dr. Rivers.", caller=OWNER).doc_id
        vault.pii.unmark(doc, "Dr. Rivers", caller=OWNER, kind="PERSON")
    conn = connect(path)
    conn.execute("DELETE FROM schema_migrations WHERE version = 15")
    conn.commit()
    conn.close()
    with fake_vault(path) as vault:  # migrates again: the old row meant every kind
        [override] = vault.pii.overrides(caller=OWNER, target=doc)
        assert override.kind == "*"
