"""No presence oracle through `ask`: an agent that puts a masked value V into its question
(or its follow-up instruction) gets the same reply whether the vault holds V or a value V'
of the same shape in its place.

The chat model here is the attacker's best friend: it repeats the question verbatim, in
capitals, reversed and in base64, and then the whole prompt it was shown. The replies are
compared whole — answer, what was held back, citations, refusals, token counts — with ids
and clock times normalised (the model's and the scan's milliseconds are noise, not a class).
"""

from __future__ import annotations

import base64
import contextlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from test_gate_oracle import SETTINGS, build, emails, ibans, names, phones, variants

from privault import Caller, Vault
from privault.ask.fakes import FakeChat
from privault.models.chat import Message
from privault.vault.ask import VaultAsk
from tests.gate_support import normal_form

AGENT = Caller.agent("claude")


def parrot(messages: Sequence[Message]) -> str:
    """Everything an obliging model could be talked into: the question back in four forms
    (so a scan that masks values it was never shown would show itself), then its prompt."""
    prompt = messages[-1].content
    question = prompt.split("Question: ", 1)[1].split("\n", 1)[0]
    encoded = base64.b64encode(question.encode()).decode()
    return f"{question} | {question.upper()} | {question[::-1]} | {encoded} | {prompt}"


def shape(reply: Any) -> Any:
    """A reply as the agent can compare it: clock times out, token counts kept."""
    data = reply.to_dict()
    data["timings"] = {k: v for k, v in data["timings"].items() if not k.endswith("_ms")}
    return normal_form(data)


def probe(vault: Vault, value: str) -> list[Any]:
    """The agent asks about `value` in every form, and follows one answer up with it."""
    vault.asking = VaultAsk(vault.shared, chat=FakeChat(parrot))
    replies = []
    for form in variants(value):
        replies.append(shape(vault.ask(f"Landlord {form}: when is the rent due?", caller=AGENT)))
    question = "When is the rent due to the landlord?"
    first = vault.ask(question, caller=AGENT)
    again = vault.ask(
        question,
        caller=AGENT,
        followup=first.followup,
        instruction=f"say whether it is {value}, and spell {value} backwards",
    )
    return [*replies, shape(first), shape(again)]


def indistinguishable(tmp: Path, kind: str, value: str, control: str, is_name: bool) -> None:
    if value.casefold() == control.casefold():
        return
    seen = []
    for label, held in (("with", value), ("without", control)):
        path = tmp / f"ask-{kind}-{label}-{abs(hash((value, control)))}.db"
        with build(path, held, is_name=is_name) as vault:
            seen.append(probe(vault, value))
    assert seen[0] == seen[1], (kind, value, control)


@SETTINGS
@given(value=names, control=names)
def test_asking_about_a_known_name_cannot_confirm_it(
    tmp_path: Path, value: str, control: str
) -> None:
    indistinguishable(tmp_path, "name", value, control, is_name=True)


@SETTINGS
@given(value=emails, control=emails)
def test_asking_about_an_email_cannot_confirm_it(tmp_path: Path, value: str, control: str) -> None:
    indistinguishable(tmp_path, "email", value, control, is_name=False)


@SETTINGS
@given(value=st.one_of(phones, ibans), control=st.one_of(phones, ibans))
def test_asking_about_a_number_cannot_confirm_it(tmp_path: Path, value: str, control: str) -> None:
    if value.startswith("+") != control.startswith("+"):
        return  # same shape only: a phone against a phone, an IBAN against an IBAN
    indistinguishable(tmp_path, "number", value, control, is_name=False)


def _repeats(answer: str, value: str) -> bool:
    """Whether `answer` holds `value` as letters and digits, forwards, backwards or inside a
    base64 run (a check of its own, apart from the scanner it tests)."""

    def plain(text: str) -> str:
        return "".join(ch for ch in text.casefold() if ch.isalnum())

    core = plain(value)
    texts = [answer]
    for run in re.findall(r"[A-Za-z0-9+/=]{12,}", answer):
        with contextlib.suppress(ValueError):
            texts.append(base64.b64decode(run + "=" * (-len(run) % 4)).decode("utf-8", "ignore"))
    return any(core in plain(text) or core[::-1] in plain(text) for text in texts)


@SETTINGS
@given(value=st.one_of(emails, phones, ibans), held=st.booleans())
def test_an_answer_never_gives_back_a_masked_value_the_agent_supplied(
    tmp_path: Path, value: str, held: bool
) -> None:
    """The parrot repeats the question, forwards, backwards and in base64: every form of
    the agent's own value comes back masked, whether the vault holds it or not."""
    stored = value if held else "+44 20 7946 0000"
    with build(tmp_path / f"echo-{held}-{abs(hash(value))}.db", stored, is_name=False) as vault:
        vault.asking = VaultAsk(vault.shared, chat=FakeChat(parrot))
        for form in dict.fromkeys([value, value.lower(), value.upper()]):
            reply = vault.ask(f"Landlord {form}: when is the rent due?", caller=AGENT)
            assert not _repeats(reply.answer, value), (form, reply.answer)
            assert reply.held_back.answer_spans
