"""Context packs through the facade: pieces shaped by the question, the thread followed,
packs sized to relevance under a cap (fake embedder and detector, real vault file)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from privault.caller import Caller
from privault.models.fakes import FakeStrongEmbedder
from privault.retrieval import relevance
from privault.vault import Vault, packs
from privault.vault.bounds import DEFAULT_CONTEXT_BUDGET
from privault.vault.results import ContextPack
from tests.gate_support import numbered_from_one, placeholder_numbers
from tests.helpers import fake_vault

OWNER = Caller.owner()
PLACEHOLDER = re.compile(r"<([A-Z][A-Z_]*?)(?:_\d+)?>")  # in a reply's JSON: no masks carried
FILLER = [
    "Bea: The weather report says rain for the weekend again.",
    "Cal: My printer jammed twice this morning before the meeting.",
    "Bea: The bakery on the corner sells rye bread on Tuesdays.",
    "Cal: The train was delayed by twenty minutes because of signals.",
]


def _chat(lines: list[str], repeat: int = 3) -> str:
    """A long chat (well over a whole-section's size) with `lines` in its middle."""
    return "\n".join(FILLER * repeat + lines + FILLER * repeat)


@pytest.fixture
def vault(tmp_path: Path):
    with fake_vault(tmp_path / "vault.db") as opened:
        yield opened


def test_a_set_question_packs_lines_and_a_fact_question_windows(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(packs, "SET_PIECE", "line")
    monkeypatch.setattr(packs, "SET_REPEAT_DISCOUNT", 0.8)
    before = "Dan: My cousin repaired the old fence at the farm."
    camping = "Anna: We went camping at the lake with the kids."
    vault.note(_chat([before, camping]), caller=OWNER, title="Chat")
    as_set = vault.context("Where has Anna gone camping?", caller=OWNER, fill=True)
    as_fact = vault.context("Where did Anna go camping?", caller=OWNER, fill=True)
    assert camping in as_set.text and camping in as_fact.text
    assert before in as_fact.text  # the window: the matched line and the two before it
    assert before not in as_set.text.split(camping)[0].splitlines()[-1:]  # a line alone


def _yoga(vault: Vault) -> None:
    vault.note(_chat(["John: I went to yoga on Sunday with Okafor."]), caller=OWNER, title="A")
    vault.note(_chat(["Okafor: My knees still hurt, what a class."], 2), caller=OWNER, title="B")
    for i in range(12):
        vault.note(_chat([f"Eve: Yoga mats number {i} were on sale."], 1), caller=OWNER)


def test_the_thread_is_followed_to_windows_naming_the_same_person(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the strong model ranked the best hits, a context pack follows the names they
    mention; `FOLLOW_TOP = 0` never follows, nor does an index larger than
    `FOLLOW_MAX_ROWS` (the second keyword ranking costs too much there)."""
    question = "Who did John go to yoga with?"
    with fake_vault(tmp_path / "v.db", strong_embedder=FakeStrongEmbedder()) as vault:
        _yoga(vault)
        vault.strong.index(caller=OWNER)
        followed = vault.context(question, caller=OWNER, budget=300)
        monkeypatch.setattr(packs, "FOLLOW_MAX_ROWS", 10)
        too_large = vault.context(question, caller=OWNER, budget=300)
        monkeypatch.setattr(packs, "FOLLOW_MAX_ROWS", 10**9)
        monkeypatch.setattr(packs, "FOLLOW_TOP", 0)
        unfollowed = vault.context(question, caller=OWNER, budget=300)
    assert "My knees still hurt" in followed.text
    assert "My knees still hurt" not in unfollowed.text
    assert too_large.text == unfollowed.text


def test_the_thread_is_not_followed_without_the_strong_model(vault: Vault) -> None:
    """The fast embedder alone picks the names to follow less well: measured on LoCoMo,
    following them lost questions whose evidence was packed before."""
    _yoga(vault)
    pack = vault.context("Who did John go to yoga with?", caller=OWNER, budget=400, fill=True)
    assert "My knees still hurt" not in pack.text


def test_set_questions_pack_windows_by_default(vault: Vault) -> None:
    before = "Dan: My cousin repaired the old fence at the farm."
    camping = "Anna: We went camping at the lake with the kids."
    vault.note(_chat([before, camping]), caller=OWNER, title="Chat")
    pack = vault.context("Where has Anna gone camping?", caller=OWNER, fill=True)
    assert f"{before}\n{camping}" in pack.text


def test_context_is_capped_and_stops_where_matches_get_clearly_weaker(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Forty notes share one word with the question: each leg scores them well under the
    # kiln note, so the pack stops after it instead of filling the budget with them. The
    # fake embedder's cosines lie closer together than a real model's (0.45 against
    # 0.32 here): the margin is set for it.
    monkeypatch.setattr(relevance, "UNSCORED", relevance.Margins(fast=0.1, keyword_share=0.3))
    vault.note("Kiln firing schedule: the pottery kiln fires on Friday at noon.", caller=OWNER)
    for i in range(40):
        vault.note(
            f"Errand {i}: parcel {i} waits at the post office counter near the bakery, and "
            "the library across town runs its yearly fire drill during the lunch break.",
            caller=OWNER,
        )
    sized = vault.context("When does the pottery kiln fire?", caller=OWNER)
    filled = vault.context("When does the pottery kiln fire?", caller=OWNER, fill=True)
    assert sized.budget == DEFAULT_CONTEXT_BUDGET
    assert "pottery kiln fires on Friday" in sized.text
    assert sized.used_tokens < filled.used_tokens <= DEFAULT_CONTEXT_BUDGET
    assert len(sized.sections) < len(filled.sections)
    assert sized.dropped == 0  # nothing relevant was left out for lack of room


def test_held_back_counts_what_the_pack_returns_not_what_it_tried(vault: Vault) -> None:
    """Packing gates every piece it tries against the budget; the agent's `held_back`
    (and its audit row) count only the placeholders of the pack it gets."""
    from collections import Counter

    from privault.store import agents, audit
    from tests.helpers import mcp_ok

    agents.issue(vault.conn, "bob")
    for number in range(12):
        vault.note(
            f"# Invoice {number}\nThe invoice {number} for the boiler goes to "
            f"billing{number}@example.com and copy{number}@example.com.",
            caller=Caller.owner(),
        )
    pack = mcp_ok(vault, "bob", "memory_context", query="boiler invoice", budget=80)
    shown = Counter(match.group(1) for match in PLACEHOLDER.finditer(pack["text"]))
    assert pack["dropped"] > 0 and shown["EMAIL_ADDRESS"] > 0
    assert pack["held_back"] == dict(shown)
    row = audit.entries(vault.conn, agent="bob")[0]
    assert row.held_back == dict(shown)


def placeholders_in(reply: object) -> dict[str, int]:
    """Kind -> placeholders in every string of an MCP reply."""
    from collections import Counter

    found: Counter[str] = Counter()

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.update(match.group(1) for match in PLACEHOLDER.finditer(value))
        elif isinstance(value, dict):
            for key, item in value.items():
                if key not in ("held_back", "policy", "mode"):
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(reply)
    return dict(found)


def test_held_back_counts_the_statements_returned_not_every_one_matched(vault: Vault) -> None:
    """A gated caller's statements are matched as it sees them, so every one is gated;
    `held_back` counts only the few the reply carries."""
    from privault.interfaces.agents import known_caller
    from privault.store import agents
    from tests.helpers import mcp_ok

    agents.issue(vault.conn, "bob")
    for number in range(15):
        vault.statements.add(
            f"Supplier {number} invoices go to desk{number}@example.com",
            caller=Caller.owner(),
            entities=[f"Supplier {number}"],
        )
    vault.note("# Boiler\nThe boiler invoice is paid.", caller=Caller.owner())
    bob = known_caller(vault, "bob")
    found = vault.search("supplier invoices", caller=bob)
    texts = [
        text for s in found.statements for text in (s.statement.content, *s.statement.entities)
    ]
    texts += [str(text) for hit in found.results for text in (hit.title, hit.text, *hit.breadcrumb)]
    shown = placeholders_in(texts)
    assert 0 < len(found.statements) < 15 and shown.get("EMAIL_ADDRESS")
    assert found.privacy.held_back == shown
    # Over MCP too: the reply's held_back counts the placeholders the reply carries.
    reply = mcp_ok(vault, "bob", "memory_search", query="supplier invoices")
    assert reply["statements"] and reply["held_back"] == placeholders_in(reply)


def _agent(vault: Vault, name: str = "bob") -> Caller:
    """A registered agent, as the MCP server resolves it (the default `standard` policy)."""
    from privault.interfaces.agents import known_caller
    from privault.store import agents

    agents.issue(vault.conn, name)
    return known_caller(vault, name)


def _every_text(pack: ContextPack) -> list[str]:
    """Every string of a pack an agent reads."""
    texts = [str(pack.text)]
    for section in pack.sections:
        texts += [str(section.title), str(section.text), *map(str, section.breadcrumb)]
    for item in pack.statements:
        texts += [str(item.statement.content), *map(str, item.statement.entities)]
    return texts


def test_a_window_left_out_of_a_pack_takes_no_placeholder_number(vault: Vault) -> None:
    """The best match holds an address but does not fit the budget; the next one fits.
    Its address is `<EMAIL_ADDRESS_1>`: a `_2` alone would tell the agent a masked address
    was in text it was not shown."""
    bob = _agent(vault)
    late = "and the boiler man said the invoice is late " * 8
    vault.note(
        f"# Boiler invoice\nThe boiler invoice goes to ann@example.com, {late}", caller=OWNER
    )
    vault.note("# Boiler\nThe boiler invoice copy goes to bob@example.com.", caller=OWNER)
    pack = vault.context("boiler invoice", caller=bob, budget=60, fill=True)
    assert pack.dropped == 1 and "invoice copy" in pack.text
    assert placeholder_numbers(*_every_text(pack)) == {"EMAIL_ADDRESS": {1}}


def test_statements_left_out_of_a_pack_take_no_placeholder_number(vault: Vault) -> None:
    """Statements come first, in half the budget; those dropped to fit give their numbers
    back, so the statements and sections the pack carries are numbered from 1."""
    bob = _agent(vault)
    for number in range(4):
        vault.statements.add(
            f"Boiler invoice {number} goes to desk{number}@example.com and the boiler firm "
            "wants it paid before the end of the month",
            caller=OWNER,
            entities=[f"Boiler invoice {number}"],
        )
    vault.note("# Boiler\nThe boiler invoice copy goes to copy@example.com.", caller=OWNER)
    pack = vault.context("boiler invoice", caller=bob, budget=80, fill=True)
    assert 0 < len(pack.statements) < 4 and "invoice copy" in pack.text
    assert numbered_from_one(*_every_text(pack))


def test_every_pack_is_numbered_from_one_and_a_value_keeps_its_number(vault: Vault) -> None:
    """Across budgets, what a pack carries is numbered from 1 for each kind with none
    missing, and one address has one number in every window and section showing it."""
    bob = _agent(vault)
    for number in range(8):
        extra = "the boiler firm asked twice about the unpaid invoice again " * (number % 3 * 3)
        vault.note(
            f"# Boiler invoice {number}\nThe boiler invoice {number} goes to "
            f"desk{number}@example.com and a copy to office@example.com; {extra}",
            caller=OWNER,
        )
    for budget in range(50, 400, 25):
        pack = vault.context("boiler invoice", caller=bob, budget=budget, fill=True)
        assert numbered_from_one(*_every_text(pack)), budget
        office = set(re.findall(r"a copy to (<EMAIL_ADDRESS_\d+>)", pack.text))
        assert len(office) <= 1, (budget, office)
