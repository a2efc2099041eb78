"""Imports through the vault: the same write path as `add` (searchable at once, gated
until indexed), idempotent by source key, source dates kept, deletions reported and pruned
on request, bad items skipped, wrong files refused before anything is written."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from helpers import FakeEngineRunner

from privault.caller import Caller
from privault.errors import AccessDenied, InputError
from privault.filters import Filters
from privault.interfaces.cli import app, main
from privault.privacy.detector import FakeDetector
from privault.retrieval.embedder import FakeEmbedder
from privault.store import documents
from privault.store.connection import write
from privault.timeutil import parse_time
from privault.vault import Vault
from privault.vault.reading import BEING_INDEXED
from tests import import_samples as samples

OWNER = Caller.owner()
AGENT = Caller.agent("claude")


def _vault(path: Path) -> Vault:
    return Vault.open(
        path,
        models_dir=path.parent / "models",
        embedder=FakeEmbedder(),
        detector_factory=FakeDetector,
        privacy={"agent_default": "standard"},
    )


@pytest.fixture
def vault(tmp_path: Path):
    with _vault(tmp_path / "v.db") as opened:
        yield opened


def _drain(vault: Vault) -> None:
    while not (step := vault.indexing.step(caller=OWNER)).idle:
        assert step.error is None, step.error


def _current_docs(vault: Vault) -> list[documents.Document]:
    return documents.list_documents(vault.conn, shelves=None, limit=1000)


def _conversation(key: str, title: str, answer: str) -> dict[str, Any]:
    data = samples.chatgpt_conversation()
    data["id"] = data["conversation_id"] = key
    data["title"] = title
    data["mapping"]["a1b"]["message"]["content"]["parts"] = [answer]
    return data


def test_imported_conversations_are_searchable_at_once_and_gated_until_indexed(
    vault: Vault, tmp_path: Path
) -> None:
    path = samples.chatgpt_export(
        tmp_path, [_conversation("c1", "Radiator", "Turn the Zorbulon valve slowly.")]
    )
    report = vault.import_from("chatgpt", path, caller=OWNER)
    assert report.counts == {"conversation": {"added": 1, "updated": 0, "skipped": 0}}
    hits = vault.search("Zorbulon valve", caller=OWNER).results
    assert hits and "Zorbulon" in hits[0].text  # keyword-searchable before any model ran
    assert vault.search("Zorbulon", caller=AGENT).results == ()  # nothing unscanned shown
    assert vault.read(hits[0].node_id, caller=AGENT).text == BEING_INDEXED
    _drain(vault)
    assert [h.doc_id for h in vault.search("Zorbulon", caller=AGENT).results] == [hits[0].doc_id]
    (doc,) = _current_docs(vault)
    assert doc.created_at == 1714572180000  # the conversation's date, not today
    assert doc.source == "chatgpt:c1" and doc.metadata["imported_from"] == "chatgpt"


def test_importing_again_skips_updates_and_never_duplicates(vault: Vault, tmp_path: Path) -> None:
    first = [_conversation("c1", "One", "alpha answer"), _conversation("c2", "Two", "beta answer")]
    path = samples.chatgpt_export(tmp_path, first)
    vault.import_from("chatgpt", path, caller=OWNER)
    ids = {d.source: d.id for d in _current_docs(vault)}
    again = vault.import_from("chatgpt", path, caller=OWNER)
    assert again.counts["conversation"] == {"added": 0, "updated": 0, "skipped": 2}
    changed = [_conversation("c1", "One", "alpha answer, corrected"), first[1]]
    report = vault.import_from("chatgpt", samples.chatgpt_export(tmp_path, changed), caller=OWNER)
    assert report.counts["conversation"] == {"added": 0, "updated": 1, "skipped": 1}
    after = {d.source: d.id for d in _current_docs(vault)}
    assert after == ids  # updated in place: the same ids, no second copy
    assert "corrected" in vault.search("corrected", caller=OWNER).results[0].text
    tagged = vault.import_from("chatgpt", path, caller=OWNER, tags=["chat"])
    assert tagged.counts["conversation"]["updated"] == 2  # another tag is a change
    assert all("chat" in d.tags for d in _current_docs(vault))
    assert vault.import_from("chatgpt", path, caller=OWNER, tags=["chat"]).total("skipped") == 2


def _chunk_ids(vault: Vault, doc_id: str) -> list[int]:
    return [
        chunk_id
        for (chunk_id,) in vault.conn.execute(
            "SELECT c.id FROM chunks c JOIN sections s ON s.id = c.section_id"
            " WHERE s.doc_id = ? ORDER BY c.id",
            (doc_id,),
        )
    ]


def test_a_date_changed_at_the_source_is_the_documents_date_after_importing_again(
    vault: Vault, tmp_path: Path
) -> None:
    conversation = _conversation("c1", "Radiator", "Turn the Zorbulon valve slowly.")
    vault.import_from("chatgpt", samples.chatgpt_export(tmp_path, [conversation]), caller=OWNER)
    _drain(vault)
    assert vault.search("Zorbulon valve", caller=OWNER).results  # the vector index is loaded
    assert len(vault.vectors) > 0
    # The export now dates the conversation three years earlier; its text is the same.
    march = (parse_time("2021-03-01"), parse_time("2021-04-01"))
    may = (parse_time("2024-05-01"), parse_time("2024-06-01"))
    conversation["create_time"] = parse_time("2021-03-15") / 1000
    path = samples.chatgpt_export(tmp_path, [conversation])
    dry = vault.import_from("chatgpt", path, caller=OWNER, dry_run=True)
    assert dry.counts["conversation"] == {"added": 0, "updated": 1, "skipped": 0}
    (doc,) = _current_docs(vault)
    assert doc.created_at == 1714572180000  # a dry run writes nothing
    report = vault.import_from("chatgpt", path, caller=OWNER)
    assert report.counts["conversation"] == {"added": 0, "updated": 1, "skipped": 0}
    (redated,) = _current_docs(vault)
    assert (redated.id, redated.created_at) == (doc.id, parse_time("2021-03-15"))
    _drain(vault)

    def found(period: tuple[int, int]) -> bool:
        since, until = period
        hits = vault.search("Zorbulon", caller=OWNER, filters=Filters(since=since, until=until))
        return [hit.doc_id for hit in hits.results] == [doc.id]

    assert found(march) and not found(may)
    # A dated search ranks by the dates this same vault's vector index loaded before the
    # import: its chunks are new ones, loaded with the new date.
    vault.vectors.refresh(vault.conn)
    query = vault.embedder.embed_query("Zorbulon valve")
    chunks = set(_chunk_ids(vault, doc.id))

    def nearest(period: tuple[int, int]) -> set[int]:
        return {c for c, _ in vault.vectors.search(query, 10, period, conn=vault.conn)}

    assert chunks and chunks <= nearest(march)
    assert not chunks & nearest(may)
    again = vault.import_from("chatgpt", path, caller=OWNER)
    assert again.counts["conversation"] == {"added": 0, "updated": 0, "skipped": 1}


def test_metadata_changed_at_the_source_is_written_in_place(vault: Vault, tmp_path: Path) -> None:
    conversation = _conversation("c1", "Radiator", "Turn the Zorbulon valve slowly.")
    vault.import_from("chatgpt", samples.chatgpt_export(tmp_path, [conversation]), caller=OWNER)
    _drain(vault)
    (doc,) = _current_docs(vault)
    chunks = _chunk_ids(vault, doc.id)
    assert doc.metadata["model"] == "gpt-4o"
    conversation["default_model_slug"] = "o3"
    conversation["is_archived"] = True
    path = samples.chatgpt_export(tmp_path, [conversation])
    report = vault.import_from("chatgpt", path, caller=OWNER)
    assert report.counts["conversation"] == {"added": 0, "updated": 1, "skipped": 0}
    (after,) = _current_docs(vault)
    assert after.id == doc.id and after.created_at == doc.created_at
    assert after.metadata == {**doc.metadata, "model": "o3", "archived": True}
    # No index row holds metadata: the text keeps its chunks, nothing is queued again.
    assert _chunk_ids(vault, doc.id) == chunks
    assert vault.indexing.step(caller=OWNER).idle
    assert vault.import_from("chatgpt", path, caller=OWNER).total("skipped") == 1


def test_deleted_at_the_source_is_reported_and_pruned_only_on_request(
    vault: Vault, tmp_path: Path
) -> None:
    both = [_conversation("c1", "One", "alpha"), _conversation("c2", "Two", "beta")]
    vault.import_from("chatgpt", samples.chatgpt_export(tmp_path, both), caller=OWNER)
    gone_c2 = samples.chatgpt_export(tmp_path, both[:1])
    report = vault.import_from("chatgpt", gone_c2, caller=OWNER)
    assert [g.key for g in report.gone] == ["c2"] and report.pruned == 0
    assert len(_current_docs(vault)) == 2  # reported, not deleted
    dry = vault.import_from("chatgpt", gone_c2, caller=OWNER, dry_run=True, prune=True)
    assert dry.pruned == 0 and len(_current_docs(vault)) == 2
    pruned = vault.import_from("chatgpt", gone_c2, caller=OWNER, prune=True)
    assert pruned.pruned == 1
    assert [d.source for d in _current_docs(vault)] == ["chatgpt:c1"]
    assert vault.import_from("chatgpt", gone_c2, caller=OWNER).gone == ()


def test_an_export_that_breaks_off_prunes_nothing(vault: Vault, tmp_path: Path) -> None:
    five = [_conversation(f"c{n}", f"Chat {n}", f"answer {n}") for n in range(5)]
    path = samples.chatgpt_export(tmp_path, five)
    vault.import_from("chatgpt", path, caller=OWNER)
    text = path.read_text()
    path.write_text(text[: text.index('"c2"') + 10])  # cut inside the third conversation
    report = vault.import_from("chatgpt", path, caller=OWNER, prune=True)
    assert report.failed and "the rest is unread" in report.failed[0][1]
    assert report.gone == () and report.pruned == 0
    assert report.deletions_unknown and "could not be identified" in report.deletions_unknown
    assert len(_current_docs(vault)) == 5  # the three it did not read are kept


def _mail(sender: str, subject: str, body: str, labels: str = "Inbox") -> bytes:
    return (
        f"From x Mon Jan  1 10:00:00 2024\nFrom: {sender}\nSubject: {subject}\n"
        "Date: Mon, 01 Jan 2024 10:00:00 +0000\nMessage-ID: <important-1@example.com>\n"
        f"X-Gmail-Labels: {labels}\n\n{body}\n\n"
    ).encode()


_GENUINE = ("Alice <alice@example.com>", "Bank details", "The account is ours.")


def test_a_mail_that_copies_a_message_id_is_kept_apart(vault: Vault, tmp_path: Path) -> None:
    genuine = _mail(*_GENUINE)
    spoof = _mail("Mallory <m@example.net>", "You won", "Click here.")
    (tmp_path / "inbox").write_bytes(genuine)
    (tmp_path / "spam").write_bytes(spoof)
    vault.import_from("mbox", tmp_path / "inbox", caller=OWNER)
    report = vault.import_from("mbox", tmp_path / "spam", caller=OWNER)
    assert report.added == 1 and report.updated == 0
    assert vault.import_from("mbox", tmp_path / "spam", caller=OWNER).skipped == 1
    both = tmp_path / "both"  # one mailbox, the copy first
    both.write_bytes(spoof + genuine + _mail(*_GENUINE, labels="Inbox,Bank"))
    fresh = _vault(tmp_path / "fresh.db")
    with fresh:
        assert fresh.import_from("mbox", both, caller=OWNER).counts["message"] == {
            "added": 2,
            "updated": 0,
            "skipped": 1,  # the same mail under another label
        }
        titles = sorted(d.title for d in _current_docs(fresh))
    assert titles == ["Bank details", "You won"]
    assert sorted(d.title for d in _current_docs(vault)) == ["Bank details", "You won"]


def test_dry_run_counts_and_writes_nothing(vault: Vault, tmp_path: Path) -> None:
    path = samples.claude_export(tmp_path, [samples.claude_conversation()])
    report = vault.import_from(None, path, caller=OWNER, dry_run=True)
    assert report.kind == "claude" and report.dry_run
    assert report.counts == {
        "conversation": {"added": 1, "updated": 0, "skipped": 0},
        "memory": {"added": 1, "updated": 0, "skipped": 0},
        "project": {"added": 1, "updated": 0, "skipped": 0},
    }
    assert _current_docs(vault) == []
    vault.import_from(None, path, caller=OWNER)
    again = vault.import_from(None, path, caller=OWNER, dry_run=True)
    assert again.total("skipped") == 3 and again.total("added") == 0


def test_shelf_and_tags_apply_and_an_imported_item_stays_on_its_shelf(
    vault: Vault, tmp_path: Path
) -> None:
    root = samples.obsidian_vault(tmp_path / "Notes")
    vault.import_from("obsidian", root, caller=OWNER, shelf="notes", tags=["from-obsidian"])
    boiler = next(d for d in _current_docs(vault) if d.title == "Boiler")
    assert boiler.shelf == "notes"
    assert set(boiler.tags) == {"home", "maintenance", "urgent", "from-obsidian"}
    (root / "Projects" / "Boiler.md").write_text("# Boiler\nService done.\n")
    vault.import_from("obsidian", root, caller=OWNER, shelf="elsewhere")
    titles = [(d.title, d.shelf) for d in _current_docs(vault) if d.title == "Boiler"]
    assert titles == [("Boiler", "notes")]


def test_a_note_without_a_date_keeps_the_one_its_file_gave_it_first(
    vault: Vault, tmp_path: Path
) -> None:
    root = samples.obsidian_vault(tmp_path / "Notes")
    plumber = root / "Plumber.md"
    os.utime(plumber, (1_600_000_000, 1_600_000_000))  # 2020-09-13: no date of its own
    vault.import_from("obsidian", root, caller=OWNER)
    (first,) = [d for d in _current_docs(vault) if d.title == "Plumber"]
    assert first.created_at == 1_600_000_000_000
    chunks = _chunk_ids(vault, first.id)
    # Touched by a sync tool, then edited: the first date stays, and a touch is no change.
    os.utime(plumber, (1_700_000_000, 1_700_000_000))
    touched = vault.import_from("obsidian", root, caller=OWNER)
    assert touched.counts["note"]["updated"] == 0
    assert _chunk_ids(vault, first.id) == chunks  # not indexed again
    plumber.write_text("Jane Roe fixes boilers and radiators.\n")
    vault.import_from("obsidian", root, caller=OWNER)
    (edited,) = [d for d in _current_docs(vault) if d.title == "Plumber"]
    assert (edited.id, edited.created_at) == (first.id, 1_600_000_000_000)
    # A date the front matter gains is the note's own: followed.
    plumber.write_text("---\ncreated: 2019-05-01\n---\nJane Roe fixes boilers and radiators.\n")
    vault.import_from("obsidian", root, caller=OWNER)
    (dated,) = [d for d in _current_docs(vault) if d.title == "Plumber"]
    assert (dated.id, dated.created_at) == (first.id, parse_time("2019-05-01"))


def test_a_vault_added_before_as_files_is_adopted_not_copied(vault: Vault, tmp_path: Path) -> None:
    root = samples.obsidian_vault(tmp_path / "Notes")
    vault.add([root], caller=OWNER, background=True)
    before = {d.title: d.id for d in _current_docs(vault)}
    report = vault.import_from("obsidian", root, caller=OWNER)
    docs = _current_docs(vault)
    after = {d.title: d.id for d in docs}
    assert len(before) == 6 and "Latin1" in before  # the Windows-1252 note too
    assert after == before  # the same documents
    assert len(docs) == 6 and report.counts["note"]["added"] == 0
    assert all(d.source.startswith("obsidian:Notes/") for d in docs)


def test_wikilinks_resolve_to_the_linked_documents(vault: Vault, tmp_path: Path) -> None:
    root = samples.obsidian_vault(tmp_path / "Notes")
    report = vault.import_from("obsidian", root, caller=OWNER)
    assert report.counts["note"]["added"] == 5 and report.counts["pdf"]["added"] == 1
    docs = {d.title: d for d in _current_docs(vault)}
    boiler_node = vault.search("Service booked", caller=OWNER).results[0].node_id
    links = vault.read(boiler_node, caller=OWNER).links
    assert {node.split(".")[0] for node in links} == {docs["Plumber"].id, docs["Diagram"].id}
    assert vault.read(boiler_node, caller=AGENT).links == ()  # ids for the owner only
    assert "valve layout" in vault.search("valve layout", caller=OWNER).results[0].text  # the PDF
    daily = docs["2024-02-29"]
    assert daily.created_at == 1709164800000


def test_a_link_to_a_note_imported_later_resolves_then(vault: Vault, tmp_path: Path) -> None:
    (tmp_path / "mail").mkdir()
    mbox = tmp_path / "mail" / "Inbox"
    mbox.write_bytes(samples.MBOX)
    vault.import_from("mbox", mbox, caller=OWNER)
    reply = next(d for d in _current_docs(vault) if d.title == "Re: Boat trip")
    original = next(d for d in _current_docs(vault) if d.title == "Boat trip")
    node = vault.tree(reply.id, caller=OWNER).nodes[0].node_id
    assert [n.split(".")[0] for n in vault.read(node, caller=OWNER).links] == [original.id]
    assert "From: Bob <bob@example.com>" in vault.read(node, caller=OWNER).text


def test_a_bad_item_is_reported_and_the_rest_imported(vault: Vault, tmp_path: Path) -> None:
    huge = _conversation("c-big", "Huge", "x " * 11_000_000)
    empty = {
        "title": "Empty",
        "id": "c-e",
        "current_node": "r",
        "mapping": {"r": {"id": "r", "message": None, "parent": None, "children": []}},
    }
    path = samples.chatgpt_export(tmp_path, [huge, empty, _conversation("c1", "Fine", "ok")])
    dry = vault.import_from("chatgpt", path, caller=OWNER, dry_run=True)
    assert dry.total("added") == 1 and len(dry.failed) == 2  # what would fail, said up front
    report = vault.import_from("chatgpt", path, caller=OWNER)
    assert report.total("added") == 1
    reasons = dict(report.failed)
    assert "over the" in reasons["conversation 'Huge' (c-big)"]
    assert "empty conversation" in reasons["conversation 'Empty' (c-e)"]


def test_a_damaged_time_is_no_time_not_a_failed_import(vault: Vault, tmp_path: Path) -> None:
    damaged = _conversation("c-t", "Damaged times", "the answer")
    damaged["create_time"] = 1e300
    damaged["mapping"]["u1b"]["message"]["create_time"] = 1e300
    path = samples.chatgpt_export(tmp_path, [damaged, _conversation("c1", "Fine", "ok")])
    report = vault.import_from("chatgpt", path, caller=OWNER)
    assert report.total("added") == 2 and report.failed == ()
    dates = {d.source: d.created_at for d in _current_docs(vault)}
    assert dates["chatgpt:c-t"] == 1714572241000  # its first message with a readable time


def test_a_file_of_another_kind_is_refused_before_anything_is_written(
    vault: Vault, tmp_path: Path
) -> None:
    mbox = tmp_path / "Inbox"
    mbox.write_bytes(samples.MBOX)
    gpt = samples.chatgpt_export(tmp_path, [samples.chatgpt_conversation()])
    for kind, path in (("chatgpt", mbox), ("claude", gpt), ("mem0", gpt), ("notion", mbox)):
        with pytest.raises(InputError, match="^not a"):
            vault.import_from(kind, path, caller=OWNER)
    with pytest.raises(InputError, match="unknown import kind"):
        vault.import_from("evernote", gpt, caller=OWNER)
    assert _current_docs(vault) == []


def test_only_the_owner_imports(vault: Vault, tmp_path: Path) -> None:
    path = samples.chatgpt_export(tmp_path, [samples.chatgpt_conversation()])
    with pytest.raises(AccessDenied):
        vault.import_from("chatgpt", path, caller=AGENT)


# ---- mem0 memories become statements --------------------------------------------------


def test_mem0_memories_are_statements_with_their_history(vault: Vault, tmp_path: Path) -> None:
    path = samples.mem0_export(tmp_path, kind="mem0")
    report = vault.import_from("mem0", path, caller=OWNER, tags=["moved"])
    assert report.counts == {"memory": {"added": 1, "updated": 0, "skipped": 0}}
    assert [item for item, _ in report.failed] == ["memory m-b"]
    (now,) = vault.statements.query(caller=OWNER).statements
    fact = now.statement
    assert fact.content == "Prefers tea over coffee" and fact.source == "mem0:m-a"
    assert fact.entities == ("Owner",) and fact.entity_kinds == ("person",)
    assert fact.metadata["tags"] == ["agent:helper", "category:food", "moved"]
    assert fact.recorded_at == 1714582800000  # when mem0 learnt it, not now
    chain = vault.statements.history(fact.id, caller=OWNER).statements
    assert [s.statement.content for s in chain] == ["Likes coffee", "Prefers tea over coffee"]
    # What the vault knew in April: the first version, current then.
    april = vault.statements.query(caller=OWNER, known_at="2024-04-15T00:00:00Z")
    assert [s.statement.content for s in april.statements] == ["Likes coffee"]
    before = vault.statements.query(caller=OWNER, known_at="2024-03-01T00:00:00Z")
    assert before.statements == ()
    again = vault.import_from("mem0", path, caller=OWNER)
    assert again.counts["memory"]["skipped"] == 1
    assert len(vault.statements.history(fact.id, caller=OWNER).statements) == 2


def test_a_changed_or_deleted_memory_moves_its_statement_on(vault: Vault, tmp_path: Path) -> None:
    path = samples.mem0_export(tmp_path)  # OpenMemory: mem-2 is deleted there
    vault.import_from("mem0", path, caller=OWNER)
    current = {s.statement.content for s in vault.statements.query(caller=OWNER).statements}
    assert current == {"Allergic to penicillin"}  # the deleted one is closed, kept in history
    closed = vault.statements.query(caller=OWNER, include_closed=True).statements
    assert {s.statement.content for s in closed} == {"Allergic to penicillin", "Lives in Leeds"}
    changed = tmp_path / "changed.json"
    data = json.loads(__import__("zipfile").ZipFile(path).read("memories.json"))
    data["memories"][0]["content"] = "Allergic to penicillin and latex"
    data["memories"][0]["updated_at"] = "2024-03-01T08:00:00"
    changed.write_text(json.dumps(data))
    report = vault.import_from("mem0", changed, caller=OWNER)
    assert report.counts["memory"] == {"added": 0, "updated": 1, "skipped": 1}
    (fact,) = vault.statements.query(caller=OWNER).statements
    assert fact.statement.content == "Allergic to penicillin and latex"
    assert fact.statement.valid_from == 1709280000000  # superseded at the source's time
    data["memories"] = data["memories"][1:]
    changed.write_text(json.dumps(data))
    report = vault.import_from("mem0", changed, caller=OWNER, prune=True)
    assert [g.key for g in report.gone] == ["mem-1"] and report.pruned == 1
    assert vault.statements.query(caller=OWNER).statements == ()


def test_imported_statements_are_gated_for_agents_from_the_start(
    vault: Vault, tmp_path: Path
) -> None:
    path = tmp_path / "m.json"
    path.write_text(
        json.dumps(
            [
                {
                    "id": "x",
                    "memory": "Call Dr. Maria Quelvik on 555-12-3456",
                    "created_at": "2024-01-01T00:00:00Z",
                }
            ]
        )
    )
    vault.import_from("mem0", path, caller=OWNER)
    seen = vault.statements.query(caller=AGENT).to_dict()["statements"]
    assert seen and "555-12-3456" not in json.dumps(seen)


# ---- the command ----------------------------------------------------------------------

runner = FakeEngineRunner()


def test_add_from_prints_counts_and_json(tmp_path: Path) -> None:
    path = samples.chatgpt_export(tmp_path, [samples.chatgpt_conversation()], zipped=True)
    human = runner.invoke(app, ["add", "--from", "chatgpt", str(path)])
    assert human.exit_code == 0, human.output
    assert "conversation: added 1, updated 0, skipped 0" in human.stdout
    data = json.loads(runner.invoke(app, ["add", str(path), "--json"]).stdout)
    assert data["kind"] == "chatgpt" and data["skipped"] == 1 and data["added"] == 0
    dry = runner.invoke(app, ["add", str(path), "--dry-run", "--tag", "x"])
    assert "would add 0" in dry.stdout
    found = json.loads(runner.invoke(app, ["search", "bleed valve", "--json"]).stdout)
    assert found["results"]


def test_add_refuses_a_wrong_file_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    mbox = tmp_path / "Inbox"
    mbox.write_bytes(samples.MBOX)
    monkeypatch.setattr("sys.argv", ["privault", "add", "--from", "claude", str(mbox)])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not a Claude export" in err


def test_dry_run_without_an_import_is_refused(tmp_path: Path) -> None:
    note = tmp_path / "a.md"
    note.write_text("# A\nalpha")
    result = runner.invoke(app, ["add", str(note), "--dry-run"])
    assert result.exit_code != 0 and "--from" in str(result.exception)
    plain = runner.invoke(app, ["add", str(note), "--json"])
    assert json.loads(plain.stdout)["added"] == 1  # an .md file is still just a file


def test_importing_again_skips_unchanged_items_without_parsing_them(
    vault: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from privault.imports import chatgpt, mbox

    gpt = samples.chatgpt_export(tmp_path, [samples.chatgpt_conversation()])
    mail = tmp_path / "Inbox"
    mail.write_bytes(samples.MBOX)
    vault.import_from("chatgpt", gpt, caller=OWNER)
    vault.import_from("mbox", mail, caller=OWNER)

    def parsed(*args: object) -> None:
        raise AssertionError("an unchanged item was parsed again")

    monkeypatch.setattr(chatgpt, "conversation", parsed)
    assert vault.import_from("chatgpt", gpt, caller=OWNER).total("skipped") == 1
    calls: list[bytes] = []
    original = mbox.message
    monkeypatch.setattr(
        mbox, "message", lambda raw, *rest: calls.append(raw) or original(raw, *rest)
    )
    report = vault.import_from("mbox", mail, caller=OWNER)
    assert report.total("skipped") == 3 and report.gone == ()
    # Only the message without a Message-ID (keyed by its content) was parsed again.
    assert len(calls) == 1 and b"Message-ID" not in calls[0]


def test_items_stored_by_an_import_stopped_before_it_recorded_them_count_as_skipped(
    vault: Vault, tmp_path: Path
) -> None:
    # Killed between storing the pages and recording them (or beside another import of
    # the same export), the next run reported "added" for pages already stored.
    mail = tmp_path / "Inbox"
    mail.write_bytes(samples.MBOX)
    first = vault.import_from("mbox", mail, caller=OWNER)
    assert first.total("added") == 3
    with write(vault.conn):
        vault.conn.execute("DELETE FROM imported_items")  # as if never recorded
    again = vault.import_from("mbox", mail, caller=OWNER)
    assert (again.total("added"), again.total("skipped")) == (0, 3)
    assert len(vault.docs(caller=OWNER).documents) == 3


def test_a_newer_reader_reads_old_items_again(
    vault: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Mail imported by an older reader (here: one that lost the reply's text) is read
    # again once the readers' revision moves on, and what it lost is stored.
    from privault.imports import items, mbox

    mail = tmp_path / "Inbox"
    mail.write_bytes(samples.MBOX)
    original = mbox.message
    monkeypatch.setattr(mbox, "message", lambda raw, *rest: _older_reader(original, raw, rest))
    vault.import_from("mbox", mail, caller=OWNER)
    monkeypatch.setattr(mbox, "message", original)
    assert vault.import_from("mbox", mail, caller=OWNER).total("updated") == 0  # same stamp

    monkeypatch.setattr(items, "RAW_READERS", items.RAW_READERS + 1)
    assert not vault.search("first at nine", caller=OWNER).results
    assert vault.import_from("mbox", mail, caller=OWNER).total("skipped") == 0
    assert vault.search("first at nine", caller=OWNER).results  # what the older reader lost
    assert vault.import_from("mbox", mail, caller=OWNER).total("skipped") == 3


def _older_reader(read: Any, raw: bytes, rest: tuple[Any, ...]) -> Any:
    import dataclasses

    page = read(raw, *rest)
    if b"Message-ID: <m2@" in raw:
        page = dataclasses.replace(page, text="(not read)")
    return page


def test_a_damaged_archive_is_one_clear_error(vault: Vault, tmp_path: Path) -> None:
    import zipfile

    data = json.dumps([_conversation(f"c{i}", f"T{i}", "word " * 400) for i in range(50)])
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversations.json", data)
    raw = bytearray(path.read_bytes())
    middle = len(raw) // 2
    raw[middle : middle + 64] = bytes(64)  # damage the compressed stream
    path.write_bytes(bytes(raw))
    with pytest.raises(InputError, match="^cannot read export.zip"):
        vault.import_from("chatgpt", path, caller=OWNER)


def test_a_reader_failing_unexpectedly_keeps_what_it_read_before(
    vault: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from privault.imports import chatgpt

    conversations = [_conversation(f"c{n}", f"T{n}", f"answer {n}") for n in range(3)]
    path = samples.chatgpt_export(tmp_path, conversations)
    parse = chatgpt.conversation

    def failing(data: Any, index: int) -> Any:
        if index == 2:
            raise RuntimeError("a bug in the reader")
        return parse(data, index)

    monkeypatch.setattr(chatgpt, "conversation", failing)
    with pytest.raises(RuntimeError, match="a bug in the reader"):  # not hidden
        vault.import_from("chatgpt", path, caller=OWNER)
    # The pages read before it are stored (they were lost, not yet a whole batch), and
    # importing again once it is fixed finishes the import without a second copy.
    assert sorted(d.source for d in _current_docs(vault)) == ["chatgpt:c0", "chatgpt:c1"]
    monkeypatch.setattr(chatgpt, "conversation", parse)
    again = vault.import_from("chatgpt", path, caller=OWNER)
    assert again.counts["conversation"] == {"added": 1, "updated": 0, "skipped": 2}


def test_read_prints_where_an_imported_note_links_to(tmp_path: Path) -> None:
    root = samples.obsidian_vault(tmp_path / "Notes")
    assert runner.invoke(app, ["add", str(root)]).exit_code == 0  # detected: an Obsidian vault
    found = json.loads(runner.invoke(app, ["search", "Jane Roe fixes", "--json"]).stdout)
    node = found["results"][0]["node_id"]
    read = runner.invoke(app, ["read", node])
    (line,) = [text for text in read.stdout.splitlines() if text.startswith("links: ")]
    target = line.removeprefix("links: ").strip()
    linked = json.loads(runner.invoke(app, ["read", target, "--json"]).stdout)
    assert linked["title"] == "Boiler"


def test_importing_documents_loads_no_model_and_no_privacy_code(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    path = samples.chatgpt_export(tmp_path, [samples.chatgpt_conversation()])
    code = "import sys; from privault.interfaces.cli import main; sys.argv[0] = 'privault'; main()"
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code, "add", "--from", "chatgpt", str(path)],
        capture_output=True,
        text=True,
        env={**os.environ, "PRIVAULT_INDEXER": "off"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    loaded = {
        line.rsplit("|", 1)[-1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }
    heavy = ("spacy", "presidio_analyzer", "onnxruntime", "numpy", "privault.privacy")
    assert sorted(n for n in loaded if any(n == h or n.startswith(h + ".") for h in heavy)) == []
    assert "privault.imports.chatgpt" in loaded


def test_capture_leaves_memories_to_the_whole_vault(tmp_path: Path) -> None:
    from privault.vault.capture import Capture

    path = samples.mem0_export(tmp_path)
    with Capture.open(tmp_path / "c.db") as capture, pytest.raises(InputError, match="statements"):
        capture.import_from("mem0", path, caller=OWNER)


def test_an_address_in_an_imported_tag_is_masked_for_agents(vault: Vault, tmp_path: Path) -> None:
    mail = tmp_path / "labels.mbox"
    mail.write_bytes(
        b"From a@example.org Mon Jan  1 10:00:00 2024\n"
        b"Subject: Boat trip\n"
        b"Message-ID: <m1@example.org>\n"
        b"X-Gmail-Labels: Inbox,jdoe1984@gmail.com\n"
        b"\n"
        b"Shall we take the boat out on Saturday?\n"
    )
    memories = tmp_path / "m.json"
    memories.write_text(
        json.dumps([{"id": "x", "memory": "Likes tea", "app": "jdoe1984@gmail.com"}])
    )
    vault.import_from("mbox", mail, caller=OWNER)
    vault.import_from("mem0", memories, caller=OWNER)
    _drain(vault)
    (doc,) = vault.docs(caller=AGENT).documents
    assert doc.tags == ("Inbox", "<EMAIL_ADDRESS_1>")
    (fact,) = vault.statements.query(caller=AGENT).to_dict()["statements"]
    assert fact["metadata"]["tags"] == ["app:<EMAIL_ADDRESS_1>"]
