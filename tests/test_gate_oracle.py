"""No presence oracle, as a property: an agent cannot tell a vault holding a masked value V
from one holding a value V' of the same shape in its place.

Two vaults are built alike except for that value; the agent then probes both with V in
every form it might try (case, spacing, `_`-joined, parts of it) through search, context,
statement queries, notes and statements it writes, document trees, and entity lists. Every
reply, with ids and clock times normalised, must be the same in both.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privault import Caller, Vault
from privault.vault.finding import EXCERPT_CHARS
from tests.gate_support import normal_form
from tests.helpers import examples, fake_vault

OWNER = Caller.owner()
AGENT = Caller.agent("claude")
SYLLABLES = ("ka", "zor", "bu", "lon", "qua", "xel", "mir", "tov", "sen", "dra", "vik", "olu")
word = st.lists(st.sampled_from(SYLLABLES), min_size=2, max_size=4).map("".join)


def _iban(bank: str, sort: str, account: str) -> str:
    """A GB IBAN with a valid check number, grouped in fours."""
    body = f"{bank}{sort}{account}GB00"
    digits = "".join(str(int(ch, 36)) for ch in body)
    check = 98 - int(digits) % 97
    raw = f"GB{check:02d}{bank}{sort}{account}"
    return " ".join(raw[i : i + 4] for i in range(0, len(raw), 4))


names = st.tuples(word, word).map(lambda p: f"{p[0].capitalize()} {p[1].capitalize()}")
emails = st.tuples(word, word, word).map(lambda p: f"{p[0]}.{p[1]}@{p[2]}-post.com")
phones = st.integers(0, 9999).map(lambda n: f"+44 20 7946 {n:04d}")
ibans = st.tuples(
    st.text("ABCDEFGHJKLMNPQRSTUVWXYZ", min_size=4, max_size=4),
    st.integers(0, 999_999),
    st.integers(0, 99_999_999),
).map(lambda p: _iban(p[0], f"{p[1]:06d}", f"{p[2]:08d}"))


def variants(value: str) -> list[str]:
    """Forms of a value an agent might search or write: case, spacing, joins and parts."""
    parts = value.replace("@", " ").replace(".", " ").split()
    forms = [value, value.lower(), value.upper(), "_".join(parts), " ".join(parts)]
    forms += [parts[0], parts[-1], " ".join(parts[:2])]
    if "@" in value:
        forms.append(value.rsplit(".", 1)[0])  # without its top-level domain
    compact = value.replace(" ", "")
    if compact.replace("+", "").isdigit():
        forms += [compact[-8:], compact[-8:-4] + " " + compact[-4:]]
    return list(dict.fromkeys(form for form in forms if form.strip()))


def build(path: Path, value: str, *, is_name: bool) -> Vault:
    """A vault whose owner wrote `value` in a note and a statement."""
    vault = fake_vault(path)
    vault.note(f"Landlord details: {value}. Rent is due on the first.", caller=OWNER)
    vault.note("The garden shed needs a new padlock before winter.", caller=OWNER)
    entities = [f"person:{value}"] if is_name else ["org:Landlord Agency"]
    vault.statements.add(f"The landlord is {value}", caller=OWNER, entities=entities)
    return vault


def probe(vault: Vault, value: str) -> list[Any]:
    """Every reply the agent gets while probing for `value` in all its forms."""
    replies: list[Any] = []
    for form in variants(value):
        replies.append(vault.search(f"{form} rent", caller=AGENT).to_dict())
        replies.append(vault.context(f"{form} rent", caller=AGENT, budget=300).to_dict())
        replies.append(vault.statements.query(caller=AGENT, text=form).to_dict())
    for form in variants(value)[:3]:
        replies.append(vault.note(f"my guess: {form}", caller=AGENT).to_dict())
        wrote = vault.statements.add(f"guess {form}", caller=AGENT, entities=[form])
        replies.append(wrote.to_dict())
    replies.append(vault.search("guess landlord", caller=AGENT).to_dict())
    for doc in vault.docs(caller=AGENT).documents:  # each section's length among the rest
        replies.append(vault.tree(doc.doc_id, caller=AGENT).to_dict())
    replies.append(vault.statements.entities(caller=AGENT).to_dict())
    replies.append(vault.statements.query(caller=AGENT, text="guess").to_dict())
    return replies


def indistinguishable(
    tmp: Path, kind: str, value: str, control: str, *, is_name: bool = False
) -> None:
    """The agent's replies probing for `value` are the same whether the vault holds it or
    `control` in its place."""
    if value.casefold() == control.casefold():
        return
    seen = []
    for label, held in (("with", value), ("without", control)):
        path = tmp / f"{kind}-{label}-{abs(hash((value, control)))}.db"
        with build(path, held, is_name=is_name) as vault:
            seen.append(normal_form(probe(vault, value)))
    assert seen[0] == seen[1], (kind, value, control)


SETTINGS = settings(
    max_examples=examples(8),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _check(tmp_path: Path, kind: str, is_name: bool = False) -> Callable[[str, str], None]:
    def run(value: str, control: str) -> None:
        indistinguishable(tmp_path, kind, value, control, is_name=is_name)

    return run


@SETTINGS
@given(value=names, control=names)
def test_a_known_name_cannot_be_confirmed(tmp_path: Path, value: str, control: str) -> None:
    _check(tmp_path, "name", is_name=True)(value, control)


@SETTINGS
@given(value=emails, control=emails)
def test_an_email_cannot_be_confirmed(tmp_path: Path, value: str, control: str) -> None:
    _check(tmp_path, "email")(value, control)


@SETTINGS
@given(value=phones, control=phones)
def test_a_phone_number_cannot_be_confirmed(tmp_path: Path, value: str, control: str) -> None:
    _check(tmp_path, "phone")(value, control)


@SETTINGS
@given(value=ibans, control=ibans)
def test_an_iban_cannot_be_confirmed(tmp_path: Path, value: str, control: str) -> None:
    _check(tmp_path, "iban")(value, control)


SHORT_EMAIL = "ka.zor@bu-post.com"
LONG_EMAIL = "kazor.bulon.mirtov.sendra.vikolu@quaxel-dramir-post.com"


def _replies_about(tmp: Path, text: str, query: str, policy: str) -> list[Any]:
    """The agent's search and context replies for `query`, once the owner wrote `text`
    with the short e-mail in it and once with the long one (agents under `policy`)."""
    seen = []
    for label, email in (("short", SHORT_EMAIL), ("long", LONG_EMAIL)):
        with fake_vault(tmp / f"{label}.db", {"agent_default": policy}) as vault:
            vault.note(text.replace("EMAIL", email), caller=OWNER)
            search = vault.search(query, caller=AGENT).to_dict()
            context = vault.context(query, caller=AGENT, budget=2000).to_dict()
            seen.append(normal_form([search, context]))
    return seen


@pytest.mark.parametrize("policy", ["standard", "strict"])  # masking, refusing
def test_whether_a_search_hit_is_an_excerpt_does_not_tell_a_masked_values_length(
    tmp_path: Path, policy: str
) -> None:
    # Stored, the note is under the excerpt limit with the short address and over it with
    # the long one; as the agent reads it (`<EMAIL_ADDRESS_1>`) it is the same text.
    lines = [f"Oil gate {n}." for n in range(110)]
    lines[2] = "Write to EMAIL about the spare padlock for the garden shed."
    text = "\n".join(lines)
    assert len(text.replace("EMAIL", SHORT_EMAIL)) < EXCERPT_CHARS
    assert len(text.replace("EMAIL", LONG_EMAIL)) > EXCERPT_CHARS
    short, long = _replies_about(tmp_path, text, "spare padlock", policy)
    assert "EMAIL_ADDRESS" in str(short)
    assert short == long


@pytest.mark.parametrize("policy", ["standard", "strict"])
def test_whether_a_section_is_packed_whole_does_not_tell_a_masked_values_length(
    tmp_path: Path, policy: str
) -> None:
    # 150 tokens around the address: whole with the short one (9 tokens), over the
    # whole-section limit with the long one, and 153 tokens as the agent reads it.
    words = " ".join(f"w{n}" for n in range(140))
    text = f"Padlock list.\nWrite to EMAIL about the spare padlock.\n{words}"
    short, long = _replies_about(tmp_path, text, "spare padlock", policy)
    assert "EMAIL_ADDRESS" in str(short)
    assert short == long
