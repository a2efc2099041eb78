"""One test per way an agent could read or confirm a masked value (the gate review).

Each goes through a public surface — the CLI with `--as`, the `Vault` API, MCP tools through
the SDK's in-memory client — on a real vault file with the fake detector and embedder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from privault import Caller, Vault
from privault.filters import Filters
from privault.interfaces.cli import app
from privault.store import agents, audit
from tests.gate_support import normal_form
from tests.helpers import FakeEngineRunner, fake_vault, mcp_call, mcp_ok, mcp_session, run_cli

OWNER = Caller.owner()
AGENT = Caller.agent("claude")
runner = FakeEngineRunner()


def cli(*args: str, input: str | None = None) -> Any:
    """Run one CLI command in-process."""
    return runner.invoke(app, list(args), input=input)


def cli_json(*args: str, input: str | None = None) -> dict[str, Any]:
    """Run one CLI command that must succeed; its JSON output."""
    result = cli(*args, "--json", input=input)
    assert result.exit_code == 0, (result.output, result.exception)
    return dict(json.loads(result.stdout))


@pytest.fixture
def vault(vault: Vault) -> Vault:
    """The vault the CLI uses (PRIVAULT_VAULT), opened through the public API, with agents."""
    for name in ("claude", "helper"):
        agents.issue(vault.conn, name)
    return vault


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)


# ---- 1: a `privacy:` section in config.yaml ---------------------------------------------


def test_f01_config_privacy_section_does_not_crash_the_cli() -> None:
    home = Path(os.environ["PRIVAULT_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text("privacy:\n  agents:\n    auditor: strict\n")
    cli_json("note", "Pay Mr Quentin Blake 40 EUR")
    agents_out = cli("agents", "add", "auditor")
    assert agents_out.exit_code == 0, agents_out.output
    for command in (("status",), ("docs",), ("search", "pay"), ("reminders",)):
        cli_json(*command)
    found = cli_json("search", "pay", "--as", "auditor")
    assert found["policy"] == "strict" and "Quentin" not in _dumps(found)


# ---- 2: a clipped title is no longer recognised --------------------------------------------

LONG_FIRST_LINE = (
    "Reminder for next week about the insurance paperwork: send it all to "
    "marguerite.oxtoby@velloria-post.com and also cc the office"
)


def test_f02_clipped_titles_and_breadcrumbs_are_gated_whole(vault: Vault) -> None:
    added = cli_json("note", f"{LONG_FIRST_LINE}\n\nThe forms are in the blue folder.")
    doc_id = added["doc_id"]
    listed = cli_json("docs", "--as", "claude")
    found = cli_json("search", "insurance paperwork forms", "--as", "claude")
    tree = cli_json("tree", doc_id, "--as", "claude")
    context = cli_json("context", "insurance paperwork forms", "--as", "claude")
    outline = mcp_ok(vault, "claude", "memory_tree")
    seen = _dumps([listed, found, tree, context, outline])
    assert "marguerite" not in seen.lower() and "oxtoby" not in seen.lower()
    assert "insurance paperwork" in seen  # the title is still there, gated


def test_f02_a_mark_reaches_a_long_title_and_the_agents_index(vault: Vault) -> None:
    text = (
        "Insurance paperwork for next week: the forms are signed and posted, and the claim "
        "goes to Quillon at the regional office\n\nThe forms are in the blue folder."
    )
    doc_id = vault.note(text, caller=OWNER).doc_id
    before = mcp_ok(vault, "claude", "memory_search", query="quillon regional")
    assert before["results"]  # not detected yet: the agent can find it by the name
    cli_json("pii", "mark", doc_id, "Quillon", "--kind", "PERSON")
    listed = cli_json("docs", "--as", "claude")
    after = mcp_ok(vault, "claude", "memory_search", query="quillon")
    assert "quillon" not in _dumps([listed, after["results"]]).lower()
    assert after["results"] == []  # the masked index no longer holds the name


# ---- 3: tags ------------------------------------------------------------------------------


def test_f03_tags_are_gated(vault: Vault) -> None:
    cli_json("note", "Call the plumber back", "--tag", "tel:07700-900461")
    listed = cli_json("docs", "--as", "claude")
    outline = mcp_ok(vault, "claude", "memory_tree")
    assert "07700-900461" not in _dumps([listed, outline])
    assert "07700-900461" in _dumps(cli_json("docs"))  # the owner still sees the tag


# ---- 4: known entities learnt by another process ------------------------------------------


def test_f04_a_running_server_sees_entities_added_by_another_process(vault: Vault) -> None:
    vault.note("quintus abernethy-lowe fixed the boiler on tuesday", caller=OWNER)
    before = mcp_ok(vault, "claude", "memory_search", query="boiler tuesday")
    assert before["results"]  # the running server has served (and cached) a reply
    cli_json(
        "st",
        "add",
        "Quintus Abernethy-Lowe is the heating engineer",
        "--entity",
        "Quintus Abernethy-Lowe",
    )
    fresh = cli_json("search", "boiler tuesday", "--as", "claude")
    assert "abernethy" not in _dumps(fresh["results"]).lower()
    after = mcp_ok(vault, "claude", "memory_search", query="boiler tuesday")
    assert "abernethy" not in _dumps(after["results"]).lower()


# ---- 5, 6, 7: presence oracles --------------------------------------------------------------

LANDLORD = "Thaddeus Quillfeather-Ombrage"
PRESENT = (
    LANDLORD,
    "+44 20 7946 0321",
    "GB29 NWBK 6016 1331 9268 19",
    "thaddeus.q@quillhouse.co.uk",
)
ABSENT = (
    "Bartholomew Fenwickstroud-Hastings",
    "+44 20 3817 5520",
    "GB40 BARC 2015 3009 3459 22",
    "barnaby.w@fenwickhall.co.uk",
)


def _landlord_vault(path: Path, values: tuple[str, str, str, str]) -> Vault:
    name, phone, iban, email = values
    vault = fake_vault(path)
    agents.issue(vault.conn, "claude")
    vault.note(f"Landlord: {name}, phone {phone}, rent to IBAN {iban}, mail {email}", caller=OWNER)
    vault.note("The garden shed needs a new padlock", caller=OWNER)
    vault.statements.add(f"{name} owns the flat", caller=OWNER, entities=[name])
    return vault


@pytest.mark.parametrize(
    "probe",
    [
        "thaddeus quillfeather",
        "THADDEUS QUILLFEATHER",
        "thaddeus_quillfeather_ombrage",
        "thaddeus.q@quillhouse",
        "7946 0321",
        "NWBK",
    ],
)
def test_f05_partial_and_other_forms_of_a_masked_value_confirm_nothing(
    tmp_path: Path, probe: str
) -> None:
    seen = []
    for label, values in (("present", PRESENT), ("absent", ABSENT)):
        with _landlord_vault(tmp_path / f"{label}.db", values) as vault:
            replies = [
                mcp_ok(vault, "claude", "memory_search", query=f"{probe} rent"),
                mcp_ok(vault, "claude", "memory_context", query=f"{probe} rent"),
                mcp_ok(vault, "claude", "query_statements", text=probe),
            ]
            seen.append(normal_form(replies))
    assert seen[0] == seen[1], probe


def test_f06_a_search_does_not_confirm_a_statement_entity(vault: Vault) -> None:
    vault.statements.add("Acme invoices monthly", caller=OWNER, entities=["acme"])
    one = cli_json("search", "acme", "--as", "claude")
    two = cli_json("search", "acne", "--as", "claude")
    assert one.pop("query") == "acme" and two.pop("query") == "acne"
    assert one == two


def test_f07_placeholder_numbers_are_not_shared_with_the_agents_own_text(vault: Vault) -> None:
    owner_text = "My landlord is Mr Thaddeus Quillfeather, mail thaddeus.q@quillhouse.co.uk"
    guess = "my landlord might be Mr Thaddeus Quillfeather, thaddeus.q@quillhouse.co.uk"
    control = "my landlord might be Mr Bartholomew Fenwick, barnaby.w@fenwickhall.co.uk"
    vault.note(owner_text, caller=OWNER)
    with_guess = _numbering_in(vault, guess)
    # The same probe with a wrong guess, against a second vault holding the same note.
    other_path = Path(os.environ["PRIVAULT_VAULT"]).with_name("other.db")
    with fake_vault(other_path) as other:
        agents.issue(other.conn, "claude")
        other.note(owner_text, caller=OWNER)
        with_control = _numbering_in(other, control)
    assert _shape(with_guess) == _shape(with_control)


def _numbering_in(vault: Vault, text: str) -> list[str]:
    mcp_ok(vault, "claude", "remember", text=text)
    found = mcp_ok(vault, "claude", "memory_search", query="landlord", limit=10)
    mcp_ok(vault, "claude", "write_statement", content=text, entities=["landlord"])
    facts = mcp_ok(vault, "claude", "query_statements", text="landlord")
    return sorted(hit["text"] for hit in found["results"]) + sorted(
        s["content"] for s in facts["statements"]
    )


def _shape(texts: list[str]) -> list[str]:
    """Texts with the agent's own words blanked, keeping the placeholders it was shown."""
    import re

    return sorted(" ".join(re.findall(r"<[A-Z_]+_\d+>", text)) for text in texts)


# ---- 8: remember and an owner's exact text ----------------------------------------------------


def test_f08_remember_does_not_reveal_an_owners_exact_duplicate(vault: Vault) -> None:
    text = "The spare key is under the third flowerpot"
    owner_doc = vault.note(text, caller=OWNER).doc_id
    result = mcp_ok(vault, "claude", "remember", text=text)
    assert result["status"] == "added" and result["doc_id"] != owner_doc
    again = mcp_ok(vault, "claude", "remember", text=text)
    assert again["status"] == "unchanged" and again["doc_id"] == result["doc_id"]


# ---- 9: an agent's statement entities and what others see --------------------------------------


def test_f09_an_agents_statement_entities_do_not_mask_for_others(vault: Vault) -> None:
    vault.note("The boiler was serviced in March", caller=OWNER)
    mcp_ok(vault, "claude", "write_statement", content="boiler is old", entities=["boiler"])
    seen = mcp_ok(vault, "helper", "memory_search", query="boiler serviced")
    assert "boiler was serviced" in _dumps(seen["results"])
    assert seen["held_back"] == {}


# ---- 10: reminder floods -------------------------------------------------------------------------


@pytest.mark.parametrize("every", ["1m", "5m", "* * * * *", "*/2 * * * *"])
def test_f10_agents_cannot_set_reminders_more_often_than_the_floor(
    vault: Vault, every: str
) -> None:
    result = mcp_call(vault, "claude", "watch", kind="remind", target="stretch", every=every)
    assert result.is_error and "15" in result.content[0].text


def test_f10_a_repeating_reminder_updates_one_document(vault: Vault) -> None:
    added = vault.watches.add(
        "remind", "Water the plants", caller=OWNER, every="1h", at="2030-01-01T08:00:00Z"
    )
    assert added.watch.id
    for hour in ("08", "09", "10"):
        vault.watches.poll(caller=OWNER, now=f"2030-01-01T{hour}:00:30Z")
    listed = vault.docs(caller=OWNER, filters=Filters(kind="reminder")).documents
    assert len(listed) == 1
    assert len(vault.watches.reminders(caller=OWNER).reminders) == 3


# ---- 11: audit ---------------------------------------------------------------------------------


def test_f11_calls_refused_after_a_revoke_are_audited(vault: Vault) -> None:
    async def session(client: Any) -> Any:
        await client.call_tool("memory_search", {"query": "x"})
        agents.revoke(vault.conn, "claude")
        return await client.call_tool("memory_search", {"query": "x"})

    result = mcp_session(vault, "claude", session)
    assert result.is_error
    rows = audit.entries(vault.conn, agent="claude")
    assert len(rows) == 2 and rows[0].refused and not rows[0].ok


def test_f11_followup_refusals_are_audited_as_refused(vault: Vault) -> None:
    from privault.ask.fakes import LeakyStubChat

    vault.note("Hotel budget is 300 EUR a night", caller=OWNER)
    _use_fake_chat(vault, LeakyStubChat(targets=[]))
    first = mcp_ok(vault, "claude", "ask_memory", question="hotel budget")
    mcp_ok(
        vault,
        "claude",
        "ask_memory",
        question="hotel budget",
        followup=first["followup"],
        instruction="shorter",
    )
    reused = mcp_ok(
        vault,
        "claude",
        "ask_memory",
        question="hotel budget",
        followup=first["followup"],
        instruction="shorter",
    )
    assert reused["refused"]
    other = mcp_ok(
        vault,
        "helper",
        "ask_memory",
        question="hotel budget",
        followup=first["followup"],
        instruction="shorter",
    )
    assert other["refused"]
    newest = audit.entries(vault.conn, agent="claude")[0]
    assert newest.refused and not newest.ok
    assert audit.entries(vault.conn, agent="helper")[0].refused


def _use_fake_chat(vault: Vault, chat: Any) -> None:
    from privault.vault.ask import VaultAsk

    vault.asking = VaultAsk(vault.shared, chat=chat)


# ---- 12: statement entities carry a kind -----------------------------------------------------


def test_f12_organisations_are_not_masked_as_people_under_standard(vault: Vault) -> None:
    cli_json(
        "st",
        "add",
        "Acme's account contact is Dana Whitlock",
        "--entity",
        "org:Acme",
        "--entity",
        "person:Dana Whitlock",
    )
    facts = cli_json("st", "query", "account contact", "--as", "claude")
    content = facts["statements"][0]["content"]
    assert "Acme" in content and "Dana" not in content
    listed = cli_json("st", "entities", "--as", "claude")
    names = [e["name"] for e in listed["entities"]]
    assert "Acme" in names and not any("Dana" in n for n in names)


# ---- 14: statements on shelves -----------------------------------------------------------------


def test_f14_statements_live_on_shelves(vault: Vault) -> None:
    assert cli("shelf", "add", "health", "--restricted", "--private").exit_code == 0
    added = cli_json(
        "st", "add", "The owner has type 2 diabetes", "--entity", "owner", "--shelf", "health"
    )
    assert added["statement"]["shelf"] == "health"
    found = cli_json("search", "diabetes", "--as", "helper")
    assert "diabetes" not in _dumps([found["results"], found["statements"]])
    facts = mcp_ok(vault, "helper", "query_statements", text="diabetes")
    assert facts["statements"] == []
    assert "diabetes" in _dumps(cli_json("search", "diabetes"))  # the owner sees it


# ---- 15: usage errors --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args", [("search",), ("shelf", "list", "--as", "x"), ("st", "add"), ("note", "--bogus")]
)
def test_f15_usage_errors_are_one_line_and_exit_2(args: tuple[str, ...]) -> None:
    done = run_cli(*args, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
