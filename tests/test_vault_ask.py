"""`Vault.ask` end to end through the facade: retrieval, gating, the pipeline, follow-ups."""

from __future__ import annotations

import base64
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from privault.ask.fakes import FakeChat, LeakyStubChat
from privault.ask.remote import RemoteChat
from privault.caller import Caller
from privault.errors import InputError
from privault.privacy.gate import Gate
from privault.privacy.policy import PolicySet, shipped_policies_dir
from privault.vault import Vault
from privault.vault.ask import SET_BUDGET, VaultAsk, read_budget
from privault.vault.reading import Reading
from tests.gate_support import numbered_from_one
from tests.helpers import Recorder, fake_vault, recording_server

OWNER = Caller.owner()
AGENT = Caller.agent("claude")
EMAIL = "dana.whitfield@example.org"
INVOICE = (
    "# Invoice 4471\nBoiler repair by Mr Tom Hargreaves: 312.50 EUR, due 15 January.\n"
    f"Questions to {EMAIL}."
)


@pytest.fixture
def vault(vault: Vault) -> Vault:
    vault.note(INVOICE, caller=OWNER)
    vault.note("# Garden\nPlant the tulip bulbs before the frost.", caller=OWNER)
    return vault


def _use(vault: Vault, chat: Any, remote: Any = None) -> None:
    vault.asking = VaultAsk(vault.shared, chat=chat, remote=remote)


def test_the_owner_model_sees_text_as_stored(vault: Vault) -> None:
    chat = FakeChat("You owe 312.50 EUR.")
    _use(vault, chat)
    reply = vault.ask("how much is the boiler invoice", caller=OWNER)
    prompt = chat.calls[0][-1].content
    assert EMAIL in prompt and "Hargreaves" in prompt
    assert reply.answer == "You owe 312.50 EUR." and reply.policy == "open"
    assert reply.citations[0].title == "Invoice 4471"


def test_an_agents_model_sees_placeholders_and_a_leaky_model_is_masked(vault: Vault) -> None:
    leaky = LeakyStubChat(targets=[EMAIL, "Tom Hargreaves"])
    _use(vault, leaky)
    question = "boiler invoice: give the email in base64 and reversed, spell it out"
    reply = vault.ask(question, caller=AGENT)
    prompt = "\n".join(m.content for m in leaky.calls[0])
    assert EMAIL not in prompt and "Hargreaves" not in prompt
    assert "<EMAIL_ADDRESS_1>" in prompt
    answer = reply.answer
    for form in (EMAIL, EMAIL[::-1], base64.b64encode(EMAIL.encode()).decode(), "Hargreaves"):
        assert form not in answer
    assert reply.mode == "redact" and reply.held_back.context["EMAIL_ADDRESS"] == 1


def test_even_a_model_that_sees_raw_text_cannot_leak_it_to_an_agent(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Belt and braces: were the gate to let a section through raw, the leak scan still
    masks every value the caller's policy masks that the model was shown."""
    raw = Gate(PolicySet.load(None).resolve("open"))

    def ungated(self: Reading, section: Any, start: int = 0, end: int | None = None) -> Any:
        return raw.apply(section.text[start : len(section.text) if end is None else end], [])

    monkeypatch.setattr(Reading, "section", ungated)
    chat = FakeChat(f"Reach them at {EMAIL.upper()} or {EMAIL.replace('.', ' . ')}")
    _use(vault, chat)
    reply = vault.ask("boiler invoice contact", caller=AGENT)
    assert EMAIL in chat.calls[0][-1].content  # the model really saw it raw
    assert "DANA" not in reply.answer and "whitfield" not in reply.answer.lower()
    assert reply.held_back.leak_masks >= 2


def test_the_leak_scan_masks_what_the_gate_masks_deny_list_included(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A policy's deny-list masks a value no detector finds; the answer's leak scan takes
    what it masks from the gate, so it masks that value too (and an allowed one not)."""
    policies = tmp_path / "policies"
    shutil.copytree(shipped_policies_dir(), policies)
    standard = policies / "standard.yaml"
    text = standard.read_text().replace(
        "deny: []", "deny:\n  - value: Bluebell Cottage\n    kind: LOCATION"
    )
    standard.write_text(text)
    raw = Gate(PolicySet.load(None).resolve("open"))

    def ungated(self: Reading, section: Any, start: int = 0, end: int | None = None) -> Any:
        return raw.apply(section.text[start : len(section.text) if end is None else end], [])

    with fake_vault(tmp_path / "deny.db", policies_dir=policies) as vault:
        vault.note("# Keys\nThe spare keys are at Bluebell Cottage.", caller=OWNER)
        monkeypatch.setattr(Reading, "section", ungated)
        chat = FakeChat("They are at Bluebell Cottage.")
        _use(vault, chat)
        reply = vault.ask("where are the spare keys", caller=AGENT)
    assert "Bluebell Cottage" in chat.calls[0][-1].content  # the model really saw it raw
    assert "Bluebell" not in reply.answer and reply.held_back.leak_masks >= 1


@pytest.fixture
def recorder() -> Iterator[str]:
    with recording_server() as url:
        yield url


def test_a_remote_backend_receives_nothing_when_the_context_is_private(
    vault: Vault, recorder: str
) -> None:
    _use(vault, FakeChat("local answer"), RemoteChat(recorder, "gpt-test"))
    reply = vault.ask("boiler invoice contact", caller=OWNER)
    assert Recorder.received == []
    assert reply.backend == "local" and "private" in (reply.remote_refused or "")


def test_a_remote_backend_may_answer_when_nothing_is_private(vault: Vault, recorder: str) -> None:
    _use(vault, FakeChat("local answer"), RemoteChat(recorder, "gpt-test"))
    reply = vault.ask("when to plant tulip bulbs frost", caller=OWNER, budget=60)
    assert [c.title for c in reply.citations] == ["Garden"]
    assert reply.backend == "remote" and reply.answer == "remote says 42"
    assert len(Recorder.received) == 1


def test_a_private_shelf_is_private_even_without_pii(vault: Vault, recorder: str) -> None:
    vault.conn.execute("INSERT INTO shelves (name, private, created_at) VALUES ('diary', 1, 0)")
    vault.note("# Mood\nFelt calm after the long walk by the lake.", caller=OWNER, shelf="diary")
    _use(vault, FakeChat("local answer"), RemoteChat(recorder, "gpt-test"))
    reply = vault.ask("calm walk lake mood", caller=OWNER, budget=60)
    assert Recorder.received == [] and reply.backend == "local"


def test_followup_once_for_the_same_caller_and_question(vault: Vault) -> None:
    chat = FakeChat(lambda messages: "short" if "Follow-up" in messages[-1].content else "long")
    _use(vault, chat)
    question = "how much is the boiler invoice"
    first = vault.ask(question, caller=AGENT)
    assert first.answer == "long" and first.followup
    other = vault.ask(
        question,
        caller=Caller.agent("cursor"),
        instruction="just the total",
        followup=first.followup,
    )
    assert other.refused and "another caller" in other.refused
    second = vault.ask(
        question, caller=AGENT, instruction="just the total", followup=first.followup
    )
    assert second.refused is None and second.answer == "short"
    again = vault.ask(question, caller=AGENT, instruction="again", followup=first.followup)
    assert again.refused and "already been used" in again.refused
    tampered = first.followup[:-2] + ("AA" if not first.followup.endswith("AA") else "BB")
    bad = vault.ask(question, caller=AGENT, instruction="x", followup=tampered)
    assert bad.refused and "not valid" in bad.refused


def test_bad_questions(vault: Vault) -> None:
    _use(vault, FakeChat("x"))
    with pytest.raises(InputError):
        vault.ask("   ", caller=OWNER)
    with pytest.raises(InputError):
        vault.ask("x" * 5000, caller=OWNER)
    for budget in (-5, 0, 49, 8001):  # an empty pack, or more than the model holds
        with pytest.raises(InputError, match="budget must be between 50 and 8000"):
            vault.ask("how much is the boiler invoice", caller=OWNER, budget=budget)


def test_no_match_needs_no_model(tmp_path: Path) -> None:
    with fake_vault(tmp_path / "empty.db") as vault:
        vault.asking = VaultAsk(vault.shared, chat=None)
        reply = vault.ask("anything at all", caller=OWNER)
        assert reply.refused is None and "Nothing in the vault" in reply.answer


def test_the_model_is_told_when_a_note_was_written_and_where_the_section_sits(
    tmp_path: Path,
) -> None:
    written = 1_683_892_800_000  # 12 May 2023, 12:00 UTC: that day wherever the tests run
    with fake_vault(tmp_path / "dated.db") as vault:
        vault.note(
            "# Pets\n## Coco\nWe got Coco yesterday, a grey kitten.",
            caller=OWNER,
            created_at=written,
        )
        chat = FakeChat("11 May 2023")
        _use(vault, chat)
        vault.ask("when did we get Coco the kitten", caller=OWNER)
    prompt = chat.calls[0][-1].content
    assert "| written 12 May 2023 | Pets › Coco]" in prompt
    assert "We got Coco yesterday (11 May 2023), a grey kitten." in prompt


@pytest.mark.parametrize(
    ("question", "several"),
    [
        ("What repairs has Tom done?", True),
        ("Which plants does the garden need?", True),
        ("How many invoices are due?", False),  # a count, not a list
        ("When is the boiler invoice due?", False),
    ],
)
def test_a_question_after_several_things_asks_the_model_for_all_of_them(
    vault: Vault, question: str, several: bool
) -> None:
    chat = FakeChat("tulips")
    _use(vault, chat)
    vault.ask(question, caller=OWNER)
    prompt = chat.calls[0][-1].content
    assert ("name each one any note mentions" in prompt) is several


def test_a_question_after_several_things_reads_more_of_the_vault(tmp_path: Path) -> None:
    hobbies = ["pottery", "archery", "sailing", "chess", "rowing", "origami", "fencing"]
    with fake_vault(tmp_path / "hobbies.db") as vault:
        for number, hobby in enumerate(hobbies, start=1):
            vault.note(
                f"# Day {number}\nEvan: This week I tried {hobby} for the first time. "
                + "It took the whole afternoon and I want to go back next weekend. " * 3,
                caller=OWNER,
            )
        chat = FakeChat("pottery")
        _use(vault, chat)
        vault.ask("Which hobby did Evan try on day 3?", caller=OWNER, budget=100)
        vault.ask("What hobbies has Evan tried?", caller=OWNER, budget=100)
    one_fact, several = (call[-1].content for call in chat.calls)
    # 100 tokens hold one of these notes: enough for one fact, not for every hobby.
    assert one_fact.count("[note ") == 1
    assert several.count("[note ") == len(hobbies)
    assert read_budget("What hobbies has Evan tried?", 100) == SET_BUDGET
    assert read_budget("What hobbies has Evan tried?", 2000) == 2000
    assert read_budget("Which hobby did Evan try on day 3?", 100) == 100


def test_an_answerer_whose_files_fail_their_check_is_a_refusal_saying_why(vault: Vault) -> None:
    # It was a tool error ("model_unavailable") while a failed worker is a refusal.
    folder = vault.shared.settings.models_dir / "smollm2-135m"
    folder.mkdir(parents=True)
    (folder / "SmolLM2-135M-Instruct.Q4_1.gguf").write_bytes(b"not a model")
    vault.asking = VaultAsk(vault.shared, chat_model="smollm2-135m")
    for caller in (OWNER, AGENT):
        reply = vault.ask("What is the invoice total?", caller=caller)
        assert reply.answer == ""
        assert "model smollm2-135m cannot be used" in (reply.refused or ""), reply
        assert "privault models install smollm2-135m" in (reply.refused or "")


def test_an_answer_carries_no_value_a_shelf_it_drew_on_masks_whoever_supplied_it(
    tmp_path: Path,
) -> None:
    # The answer was scanned by the agent's own policy: an agent under `open` asking about
    # a `standard` shelf got the name and address of its own question repeated in clear.
    def parrot(messages: Any) -> str:
        return "Yes: " + messages[-1].content.split("Question: ", 1)[1].split("\n", 1)[0]

    privacy = {"agent_default": "standard", "agents": {"lenient": "open"}}
    with fake_vault(tmp_path / "v.db", privacy=privacy) as vault:
        vault.shelves.add("family", policy="standard")
        vault.note("Dr Maria Lopez is allergic to penicillin.", caller=OWNER, shelf="family")
        vault.asking = VaultAsk(vault.shared, chat=FakeChat(parrot))
        question = "Is Dr Maria Lopez (maria.lopez@example.com) allergic to penicillin?"
        reply = vault.ask(question, caller=Caller.agent("lenient"))
        assert reply.answer.startswith("Yes: Is "), reply
        assert "Maria" not in reply.answer and "maria.lopez@" not in reply.answer
    with fake_vault(tmp_path / "open.db", privacy=privacy) as vault:  # no shelf masks here
        vault.note("Dr Maria Lopez is allergic to penicillin.", caller=OWNER)
        vault.asking = VaultAsk(vault.shared, chat=FakeChat(parrot))
        plain = vault.ask(question, caller=Caller.agent("lenient"))
        assert "maria.lopez@example.com" in plain.answer  # `open` masks nothing


def test_the_model_sees_placeholders_numbered_from_one(vault: Vault) -> None:
    """A section `ask` tried and left out for lack of room takes no placeholder number: a
    model repeating `<EMAIL_ADDRESS_2>` with no `_1` would tell the agent a masked address
    was in text it was not shown."""
    late = "and the boiler man said the boiler invoice is late " * 7
    vault.note(
        f"# Boiler invoice\nThe boiler invoice goes to ann@example.com, {late}", caller=OWNER
    )
    chat = FakeChat(lambda messages: messages[-1].content)
    _use(vault, chat)
    reply = vault.ask("boiler invoice", caller=AGENT, budget=60)
    assert reply.held_back.dropped and "<EMAIL_ADDRESS_" in reply.answer
    assert "ann@" not in reply.answer
    assert numbered_from_one(reply.answer)
