"""Statements through the facade: callers, write-time scanning and the privacy gate."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from privault import statements as st
from privault.caller import Caller
from privault.errors import AccessDenied, InputError
from privault.privacy.detector import FakeDetector
from privault.retrieval.embedder import FakeEmbedder
from privault.statements import NewStatement
from privault.store.connection import rows
from privault.vault import Vault
from privault.vault.statement_results import statements_block

OWNER = Caller.owner()
AGENT = Caller.agent("helper")  # unlisted: the `standard` policy (redact)
STRICT = Caller.agent("careful")  # `strict` (refuse)
READER = Caller.agent("reader", read_only=True)
PRIVACY = {"agents": {"careful": "strict"}}


@pytest.fixture
def vault(tmp_path: Path) -> Iterator[Vault]:
    """A vault with the fake embedder and the fake detector, statement entities known."""
    opened = Vault.open(
        tmp_path / "v.db",
        models_dir=tmp_path,
        embedder=FakeEmbedder(),
        detector_factory=FakeDetector,
        privacy=PRIVACY,
    )
    yield opened
    opened.close()


def dump(data: object) -> str:
    return json.dumps(data, ensure_ascii=False)


def test_owner_sees_statements_as_written(vault: Vault) -> None:
    added = vault.statements.add(
        "Ana Lima is the billing contact, ana@example.com",
        caller=OWNER,
        entities=["Ana Lima"],
        source="crm",
        metadata={"channel": "ana@example.com", "priority": 2},
        valid_from="2026-03-01T09:00:00+01:00",
    )
    data = added.to_dict()
    assert data["statement"]["content"] == "Ana Lima is the billing contact, ana@example.com"
    assert data["statement"]["entities"] == ["Ana Lima"]
    assert data["statement"]["valid_from"] == "2026-03-01T08:00:00Z"
    assert data["statement"]["label"] == "current" and data["statement"]["current"] is True
    assert data["statement"]["withheld"] is False
    assert data["mode"] == "off" and data["held_back"] == {}
    got = vault.statements.get(added.statement.statement.id, caller=OWNER).to_dict()
    assert got["statement"]["metadata"] == {"channel": "ana@example.com", "priority": 2}


def test_agent_under_standard_sees_placeholders_everywhere(vault: Vault) -> None:
    added = vault.statements.add(
        "Ana Lima is the billing contact, ana@example.com",
        caller=OWNER,
        entities=["Ana Lima"],
        source="call with ana@example.com",
        metadata={"channel": "ana@example.com", "priority": 2},
    )
    seen = vault.statements.get(added.statement.statement.id, caller=AGENT).to_dict()
    item = seen["statement"]
    assert item["content"] == "<PERSON_1> is the billing contact, <EMAIL_ADDRESS_1>"
    assert item["entities"] == ["<PERSON_1>"]  # the same person, the same placeholder
    assert item["source"] == "call with <EMAIL_ADDRESS_1>"
    assert item["metadata"] == {"channel": "<EMAIL_ADDRESS_1>", "priority": 2}
    assert seen["mode"] == "redact" and seen["policy"] == "standard"
    assert set(seen["held_back"]) == {"PERSON", "EMAIL_ADDRESS"}
    text = dump(seen)
    assert "Ana" not in text and "ana@" not in text


def test_strict_agent_gets_a_stub_for_a_statement_with_pii(vault: Vault) -> None:
    private = vault.statements.add(
        "The contact is reachable at ana@example.com", caller=OWNER, entities=["Ana Lima"]
    )
    public = vault.statements.add("The office closes at six", caller=OWNER, source="sign")
    found = vault.statements.query(caller=STRICT).to_dict()
    by_id = {item["id"]: item for item in found["statements"]}
    stub = by_id[private.statement.statement.id]
    assert stub["withheld"] is True
    assert stub["content"].startswith("[withheld by policy strict: contains ")
    assert "EMAIL_ADDRESS" in stub["content"] and "PERSON" in stub["content"]
    assert stub["entities"] == [] and stub["source"] is None and stub["metadata"] == {}
    assert by_id[public.statement.statement.id]["content"] == "The office closes at six"
    assert found["mode"] == "refuse" and found["withheld_sections"] == 1
    assert "ana@" not in dump(found) and "Ana" not in dump(found)


def test_a_name_only_in_entities_still_withholds_under_strict(vault: Vault) -> None:
    vault.statements.add("Prefers calls in the morning", caller=OWNER, entities=["Zora Quint"])
    found = vault.statements.query(caller=STRICT).to_dict()["statements"]
    assert found[0]["withheld"] is True and "Zora" not in dump(found)


def test_read_only_agent_cannot_write(vault: Vault) -> None:
    first = vault.statements.add("The office is in Porto", caller=OWNER)
    sid = first.statement.statement.id
    with pytest.raises(AccessDenied):
        vault.statements.add("The office is in Lisbon", caller=READER)
    with pytest.raises(AccessDenied):
        vault.statements.supersede(sid, "The office is in Lisbon", caller=READER)
    with pytest.raises(AccessDenied):
        vault.statements.invalidate(sid, caller=READER)
    with pytest.raises(AccessDenied):
        vault.statements.confirm(sid, caller=READER)
    assert vault.statements.stats(caller=OWNER).stats.total == 1
    # Reading is allowed.
    assert vault.statements.query(caller=READER).statements[0].statement.id == sid


def test_agent_writes_are_scanned_and_gated_back(vault: Vault) -> None:
    added = vault.statements.add("Reply to bob@example.org by Friday", caller=AGENT)
    assert added.statement.statement.content == "Reply to <EMAIL_ADDRESS_1> by Friday"
    stored = rows(vault.conn, "SELECT kind, detector_version FROM statement_spans")
    assert [item["kind"] for item in stored] == ["EMAIL_ADDRESS"]
    version = vault.privacy.detector.version.split("-", 1)[0]
    assert stored[0]["detector_version"].startswith(version)
    assert rows(vault.conn, "SELECT count(*) AS n FROM statement_scans")[0]["n"] == 1


def test_statement_entity_masks_a_note_for_an_agent(vault: Vault) -> None:
    vault.statements.add("Zora Quint approves the budget", caller=OWNER, entities=["Zora Quint"])
    vault.note("Lunch with Zora Quint about the budget", caller=OWNER, title="Lunch")
    hits = vault.search("budget lunch", caller=AGENT).to_dict()
    assert hits["results"], hits
    assert "<PERSON_1>" in hits["results"][0]["text"]
    assert "Zora" not in dump(hits)
    owner_hits = vault.search("budget lunch", caller=OWNER).to_dict()
    assert "Zora Quint" in owner_hits["results"][0]["text"]


def test_entity_learnt_after_the_note_was_written_still_masks_it(vault: Vault) -> None:
    vault.note("Dinner with Milo Brandt next week", caller=OWNER, title="Dinner")
    assert "Milo" in vault.search("dinner", caller=AGENT).to_dict()["results"][0]["text"]
    vault.statements.add("Milo Brandt is the new landlord", caller=OWNER, entities=["Milo Brandt"])
    after = vault.search("dinner", caller=AGENT).to_dict()
    assert "Milo" not in dump(after) and "<PERSON_1>" in after["results"][0]["text"]


def test_superseded_is_labelled_not_current(vault: Vault) -> None:
    old = vault.statements.add(
        "The account contact is Ana", caller=OWNER, valid_from="2026-01-01T00:00:00Z"
    )
    new = vault.statements.supersede(
        old.statement.statement.id,
        "The account contact is Ben",
        caller=OWNER,
        valid_from="2026-02-01T00:00:00Z",
    )
    chain = vault.statements.history(new.statement.statement.id, caller=OWNER).to_dict()
    assert [item["label"] for item in chain["statements"]] == ["NOT current", "current"]
    assert chain["statements"][0]["status"] == "superseded"
    reading = vault.privacy.reading(OWNER)
    now = vault.statements.for_context(reading, "account contact")
    assert [g.statement.content for g in now] == ["The account contact is Ben"]
    both = vault.statements.for_context(reading, "account contact", include_superseded=True)
    assert {g.label for g in both} == {"current", "NOT current"}
    back_then = vault.statements.query(caller=OWNER, valid_at="2026-01-15T00:00:00+00:00")
    assert [g.statement.content for g in back_then.statements] == ["The account contact is Ana"]


def test_for_context_shares_the_response_placeholders(vault: Vault) -> None:
    vault.statements.add("Zora Quint owns the roadmap", caller=OWNER, entities=["Zora Quint"])
    vault.statements.add("Ana Lima owns the budget", caller=OWNER, entities=["Ana Lima"])
    reading = vault.privacy.reading(AGENT)
    found = vault.statements.for_context(reading, "who owns the roadmap")
    assert found and found[0].statement.content.endswith("owns the roadmap")
    assert "Zora" not in found[0].statement.content
    privacy = reading.privacy()
    assert privacy.held_back.get("PERSON", 0) >= 1


def test_gated_queries_cannot_confirm_a_value(vault: Vault) -> None:
    vault.statements.add("Invoices go to ana@example.com", caller=OWNER, entities=["Ana Lima"])
    by_value = vault.statements.query(caller=AGENT, text="ana@example.com")
    assert by_value.statements == ()
    with pytest.raises(AccessDenied):
        vault.statements.query(caller=AGENT, entities=["Ana Lima"])
    owner = vault.statements.query(caller=OWNER, entities=["ana lima"])
    assert len(owner.statements) == 1
    words = vault.statements.query(caller=AGENT, text="invoices")
    assert words.statements[0].statement.content == "Invoices go to <EMAIL_ADDRESS_1>"


def test_times_are_parsed_and_naive_ones_refused(vault: Vault) -> None:
    with pytest.raises(InputError, match="no offset"):
        vault.statements.add("x holds", caller=OWNER, valid_from="2026-03-01T09:00:00")
    with pytest.raises(InputError, match="unparseable"):
        vault.statements.add("x holds", caller=OWNER, occurred_at="last tuesday")
    assert vault.statements.stats(caller=OWNER).stats.total == 0
    added = vault.statements.add("x holds", caller=OWNER, occurred_at=1_700_000_000_000)
    assert added.statement.statement.valid_from == 1_700_000_000_000


def test_invalidate_reason_is_scanned_and_gated(vault: Vault) -> None:
    added = vault.statements.add(
        "The lease runs until summer", caller=OWNER, valid_from="2025-01-01T00:00:00Z"
    )
    sid = added.statement.statement.id
    closed = vault.statements.invalidate(
        sid, caller=OWNER, valid_to="2026-01-01T00:00:00Z", reason="told by bob@example.org"
    )
    assert closed.statement.label == "NOT current"
    texts = rows(vault.conn, "SELECT texts FROM statement_scans WHERE statement_id = ?", (sid,))
    assert "told by bob@example.org" in json.loads(texts[0]["texts"])
    seen = vault.statements.history(sid, caller=AGENT).to_dict()["statements"][0]
    assert seen["invalidation_reason"] == "told by <EMAIL_ADDRESS_1>"


def test_never_scanned_statement_is_detected_live_then_rescanned(vault: Vault) -> None:
    raw = st.add(vault.conn, NewStatement("Write to carl@example.net", entities=["Carl Ode"]))
    vault.privacy.forget_known()
    seen = vault.statements.get(raw.id, caller=AGENT).statement.statement
    assert seen.content == "Write to <EMAIL_ADDRESS_1>" and seen.entities == ("<PERSON_1>",)
    assert vault.statements.rescan() == 1
    assert vault.statements.rescan() == 0
    assert rows(vault.conn, "SELECT kind FROM statement_spans")[0]["kind"] == "EMAIL_ADDRESS"


def test_entities_and_stats_are_gated(vault: Vault) -> None:
    vault.statements.add("Zora Quint leads sales", caller=OWNER, entities=["Zora Quint", "Sales"])
    vault.statements.add("Sales closes in March", caller=OWNER, entities=["sales"])
    owner = vault.statements.entities(caller=OWNER).to_dict()["entities"]
    assert owner == [
        {"name": "Sales", "key": "sales", "count": 2},
        {"name": "Zora Quint", "key": "zora quint", "count": 1},
    ]
    agent = vault.statements.entities(caller=AGENT, min_count=1).to_dict()
    assert [item["name"] for item in agent["entities"]] == ["<PERSON_1>", "<PERSON_2>"]
    assert [item["key"] for item in agent["entities"]] == ["<PERSON_1>", "<PERSON_2>"]
    strict = vault.statements.entities(caller=STRICT).to_dict()
    assert strict["entities"] == [] and strict["withheld_sections"] == 2
    stats = vault.statements.stats(caller=AGENT).to_dict()
    assert stats["total"] == 2 and stats["open"] == 2 and stats["mode"] == "redact"


def test_revise_and_dispute_through_the_facade(vault: Vault) -> None:
    city = vault.statements.add("Lives in Lisbn", caller=OWNER, entities=["Ana Lima"])
    fixed = vault.statements.revise(city.statement.statement.id, "Lives in Lisbon", caller=OWNER)
    assert fixed.statement.statement.entities == ("Ana Lima",)  # inherited
    other = vault.statements.add("Lives in Porto", caller=OWNER)
    pair = vault.statements.dispute(
        fixed.statement.statement.id, other.statement.statement.id, caller=OWNER, reason="both?"
    )
    assert all(item.statement.disputed_with for item in pair.statements)
    confirmed = vault.statements.confirm(other.statement.statement.id, caller=OWNER)
    assert confirmed.statement.statement.confirmed_count == 1
    assert vault.statements.stats(caller=OWNER).stats.disputed == 2


def test_statements_block_flags_what_is_not_current(vault: Vault) -> None:
    old = vault.statements.add(
        "The contact is Ana Lima", caller=OWNER, valid_from="2025-01-01T00:00:00Z"
    )
    vault.statements.supersede(
        old.statement.statement.id, "The contact is Ben", caller=OWNER, valid_from="2025-06-01"
    )
    reading = vault.privacy.reading(OWNER)
    found = vault.statements.for_context(reading, "contact", include_superseded=True)
    block = statements_block(found).splitlines()
    assert block[0] == "## Statements"
    assert "- The contact is Ben (since 2025-06-01; s_" in block[1]
    assert block[2].startswith("- [NOT current: superseded] The contact is Ana Lima (2025-01-01")
    assert statements_block([]) == ""


class CountingEmbedder(FakeEmbedder):
    """The fake embedder, counting passage batches and queries."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[list[str]] = []
        self.queries: list[str] = []

    def embed(self, texts):  # type: ignore[no-untyped-def]
        self.batches.append(list(texts))
        return super().embed(texts)

    def embed_query(self, text):  # type: ignore[no-untyped-def]
        self.queries.append(text)
        return super().embed_query(text)


def test_a_query_is_embedded_as_a_query_not_as_a_passage(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    with Vault.open(
        tmp_path / "v.db", models_dir=tmp_path, embedder=embedder, detector_factory=FakeDetector
    ) as vault:
        vault.statements.add("The boiler was serviced in May", caller=OWNER, entities=["boiler"])
        assert embedder.batches == [["The boiler was serviced in May"]]  # written: a passage
        embedder.batches.clear()
        found = vault.statements.query(caller=OWNER, text="boiler service").statements
        assert [item.statement.content for item in found] == ["The boiler was serviced in May"]
        facts = vault.search("boiler service", caller=OWNER).statements
        assert [item.statement.content for item in facts] == ["The boiler was serviced in May"]
        assert embedder.batches == []  # no passage batch on the read path
        assert embedder.queries.count("boiler service") == 3  # the query, the search, its facts


@pytest.mark.parametrize("stored", ["not json", "[1, 2]", "[" * 100_000])
def test_a_statement_whose_stored_metadata_is_not_an_object_does_not_break_reads(
    vault: Vault, stored: str
) -> None:
    """Merged from another device before synced rows were checked: the statement reads
    with empty metadata, and the vault's other reads go on."""
    added = vault.statements.add("The boiler is serviced every March", caller=OWNER)
    vault.statements.add("The gate code changed in May", caller=OWNER)
    with vault.conn:
        vault.conn.execute(
            "UPDATE statements SET metadata = ? WHERE id = ?",
            (stored, added.statement.statement.id),
        )
    got = vault.statements.get(added.statement.statement.id, caller=OWNER).to_dict()
    assert got["statement"]["metadata"] == {}
    contents = {s["content"] for s in vault.statements.query(caller=OWNER).to_dict()["statements"]}
    assert {"The boiler is serviced every March", "The gate code changed in May"} <= contents
    vault.search("boiler", caller=OWNER)  # raised for every caller, on every call
