"""A tag an agent sees masked cannot be found by asking for it: the filter matches, for a
gated caller, only tags scanned, not waiting for a scan, whose stored spans hold no kind a
policy counts as identifying and that hold no value a policy denies or the vault knows."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

from privault import Caller, Vault
from privault.filters import Filters
from privault.privacy.detector import FakeDetector
from privault.privacy.policy import shipped_policies_dir
from privault.spans import Span
from privault.store import index_queue, label_spans
from privault.store.connection import write
from privault.timeutil import now_ms
from tests.helpers import fake_vault

OWNER = Caller.owner()
AGENT = Caller.agent("helper")  # unlisted: the `standard` policy (redact)
HELD = "maria@example.com"


def test_an_agent_cannot_find_a_masked_tag_by_asking_for_it(tmp_path: Path) -> None:
    with fake_vault(tmp_path / "v.db", privacy={"agent_default": "standard"}) as vault:
        vault.note("# Lunch\nLunch plans for Friday.", caller=OWNER, tags=[HELD, "food"])
        for caller, tag, found in (
            (OWNER, HELD, 1),
            (AGENT, HELD, 0),  # as for a tag the vault does not hold
            (AGENT, "absent@example.com", 0),
            (AGENT, "food", 1),
        ):
            chosen = Filters(tag=tag)
            hits = vault.search("lunch plans", caller=caller, filters=chosen).results
            listed = vault.docs(caller=caller, filters=chosen).documents
            counted = vault.documents.count(caller=caller, filters=chosen)
            assert (len(hits), len(listed), counted) == (found, found, found), (caller, tag)
        [seen] = vault.docs(caller=AGENT, filters=Filters(tag="food")).documents
        assert HELD not in seen.tags  # and the tag itself is masked where it is shown


def test_an_agent_cannot_find_a_tag_holding_a_denied_value(tmp_path: Path) -> None:
    """A policy's deny-list masks its values in the owner's text when it is read (no span
    is stored): a tag of the owner's holding one is masked in every reply, so asking for it
    finds nothing either. An agent's own words are never judged by the list (that would
    tell it what the list holds): its own tag is shown, and found, as written."""
    policies = tmp_path / "policies"
    shutil.copytree(shipped_policies_dir(), policies)
    standard = policies / "standard.yaml"
    denied = "deny:\n  - value: Falcon\n    kind: ORGANIZATION"
    standard.write_text(standard.read_text().replace("deny: []", denied))
    settings = {"privacy": {"agent_default": "standard"}, "policies_dir": policies}
    with fake_vault(tmp_path / "v.db", **settings) as vault:
        vault.note("# Lunch\nLunch plans for Friday.", caller=OWNER, tags=["project-falcon"])
        for caller, tag, found in (
            (OWNER, "project-falcon", 1),
            (AGENT, "project-falcon", 0),  # as for a tag the vault does not hold
            (AGENT, "project-heron", 0),
        ):
            assert _found(vault, caller, tag) == (found,) * 4, (caller, tag)
        [seen] = vault.docs(caller=AGENT).documents
        assert "falcon" not in " ".join(seen.tags).lower()  # masked where it is shown
        for tag in ("falcon-lunch", "heron-lunch"):  # denied or not: the same answer
            vault.note(f"Lunch plans, {tag}.", caller=AGENT, tags=[tag])
            assert _found(vault, AGENT, tag) == (1,) * 4, tag
            assert tag in vault.docs(caller=AGENT, filters=Filters(tag=tag)).documents[0].tags


def _found(vault: Vault, caller: Caller, tag: str) -> tuple[int, ...]:
    """How many hits, context sections, listed and counted documents a tag filter gives."""
    chosen = Filters(tag=tag)
    return (
        len(vault.search("lunch plans", caller=caller, filters=chosen).results),
        len(vault.context("lunch plans", caller=caller, filters=chosen).sections),
        len(vault.docs(caller=caller, filters=chosen).documents),
        vault.documents.count(caller=caller, filters=chosen),
    )


def test_an_agent_cannot_find_a_tag_masked_by_a_mark_or_waiting_for_its_scan(
    tmp_path: Path,
) -> None:
    """Readers mask a tag by more than its stored spans: a value the owner marked (a known
    entity, in the owner's text) and, until the labels are scanned, the whole tag (shown as
    being indexed). A filter that read the stored spans alone found such a tag while every
    reply hid it: present and absent values answered differently."""
    with fake_vault(tmp_path / "v.db", privacy={"agent_default": "standard"}) as vault:
        doc = vault.note("# Lunch\nLunch plans for Friday.", caller=OWNER, tags=["zed.quarry"])
        assert _found(vault, AGENT, "zed.quarry") == (1,) * 4  # nothing masks it yet
        vault.pii.mark(doc.doc_id, "zed.quarry", caller=OWNER, kind="PERSON")
        assert "zed.quarry" not in vault.docs(caller=AGENT).documents[0].tags
        assert _found(vault, AGENT, "zed.quarry") == (0,) * 4  # as for "yolanda.birch"
        assert _found(vault, OWNER, "zed.quarry") == (1,) * 4
    with fake_vault(tmp_path / "w.db", privacy={"agent_default": "standard"}) as vault:
        vault.note("Lunch plans.", caller=OWNER, tags=["ana.costa@example.com"], background=True)
        for tag in ("ana.costa@example.com", "absent.person@example.com"):
            listed = vault.docs(caller=AGENT, filters=Filters(tag=tag)).documents
            assert (len(listed), vault.documents.count(caller=AGENT, filters=Filters(tag=tag))) == (
                0,
                0,
            ), tag
        while vault.indexing.has_work():
            vault.indexing.step(caller=OWNER)
        assert (
            vault.documents.count(caller=AGENT, filters=Filters(tag="ana.costa@example.com")) == 0
        )
        vault.note("Lunch plans, team.", caller=OWNER, tags=["team-lunch"], background=True)
        assert vault.documents.count(caller=AGENT, filters=Filters(tag="team-lunch")) == 0
        while vault.indexing.has_work():
            vault.indexing.step(caller=OWNER)
        assert vault.documents.count(caller=AGENT, filters=Filters(tag="team-lunch")) == 1


SECRET = "pw-pw-pw-pw"
GATED = {"privacy": {"agent_default": "standard"}}


def _chat(tags: list[str], model: str) -> dict[str, object]:
    """A note known by its source: new metadata and tags are written in place."""
    text = "# Lunch\nLunch plans for Friday."
    return {"text": text, "source": "chat:1", "metadata": {"model": model}, "tags": tags}


def test_a_synced_documents_tags_are_found_as_a_local_writes_are(tmp_path: Path) -> None:
    """The sync intake scans a document's tags as a local write does, a change of its tags
    alone too: a tag stored without spans was found by no agent on the receiving device."""
    with fake_vault(tmp_path / "a.db", **GATED) as vault:
        vault.documents.note_many([_chat(["food", HELD], "m1")], caller=OWNER)
        vault.sync.export(tmp_path / "one.bundle", secret=SECRET, caller=OWNER)
        vault.documents.note_many([_chat(["drinks", "ana.costa@example.com"], "m2")], caller=OWNER)
        vault.sync.export(tmp_path / "two.bundle", secret=SECRET, caller=OWNER)
    with fake_vault(tmp_path / "b.db", **GATED) as vault:
        vault.sync.import_bundle(tmp_path / "one.bundle", secret=SECRET, caller=OWNER)
        assert _found(vault, AGENT, "food") == (1,) * 4
        assert _found(vault, AGENT, HELD) == (0,) * 4  # masked: as for a tag not held
        assert _found(vault, OWNER, HELD) == (1,) * 4
        report = vault.sync.import_bundle(tmp_path / "two.bundle", secret=SECRET, caller=OWNER)
        assert report.applied == {"document": 1}  # its tags and metadata alone
        assert _found(vault, AGENT, "drinks") == (1,) * 4
        assert _found(vault, AGENT, "ana.costa@example.com") == (0,) * 4
        assert _found(vault, OWNER, "ana.costa@example.com") == (1,) * 4
        assert _found(vault, AGENT, "food") == (0,) * 4


def test_tags_written_in_place_are_found_as_a_new_documents_are(tmp_path: Path) -> None:
    """A note whose metadata and tags alone change keeps its sections; its new tags are
    scanned before the lock (or, deferred, queued with its labels for the indexer)."""
    with fake_vault(tmp_path / "v.db", **GATED) as vault:
        vault.documents.note_many([_chat(["food"], "m1")], caller=OWNER)
        [again] = vault.documents.note_many([_chat(["drinks", HELD], "m2")], caller=OWNER)
        assert again.status == "updated"
        assert _found(vault, AGENT, "drinks") == (1,) * 4
        assert _found(vault, AGENT, HELD) == (0,) * 4
        assert _found(vault, OWNER, HELD) == (1,) * 4
        later = _chat(["snacks"], "m3")
        vault.documents.note_many([later], caller=OWNER, background=True)
        assert _found(vault, AGENT, "snacks") == (0,) * 4  # waiting for its scan
        while vault.indexing.has_work():
            vault.indexing.step(caller=OWNER)
        assert _found(vault, AGENT, "snacks") == (1,) * 4


def test_a_tag_no_scan_took_is_queued_by_the_migration_and_then_found(tmp_path: Path) -> None:
    """Tags written before tags were scanned, or synced before synced tags were, have no
    stored scan: agents' tag filters miss them (it fails closed). Migration 30 queues their
    documents' labels; once the indexer has scanned them, the filter finds them again."""
    from privault.store.migrations import known_migrations

    [migration] = [m for m in known_migrations() if m.version == 30]
    with fake_vault(tmp_path / "v.db", privacy={"agent_default": "standard"}) as vault:
        vault.note("# Lunch\nLunch plans for Friday.", caller=OWNER, tags=["food"])
        vault.note("# Drinks\nLunch plans: drinks with the team.", caller=OWNER, tags=["drinks"])
        with vault.conn:  # as such a vault holds them
            vault.conn.execute("DELETE FROM label_spans WHERE label = 'food'")
        assert _found(vault, AGENT, "food") == (0,) * 4
        with vault.conn:
            for step in migration.steps:
                vault.conn.execute(step)
        queued = vault.conn.execute("SELECT count(*) FROM index_queue").fetchone()[0]
        assert queued == 1  # the document whose tag lost its scan, not the other
        while vault.indexing.has_work():
            vault.indexing.step(caller=OWNER)
        assert _found(vault, AGENT, "food") == (1,) * 4
        assert _found(vault, AGENT, "drinks") == (1,) * 4


def _interrupting(interrupt: list[Callable[[], object]]) -> type[FakeDetector]:
    """The fake detector, running the write put in `interrupt` inside its next scan (the
    indexer scans outside the lock)."""

    class Interrupted(FakeDetector):
        def detect_many(self, texts: Sequence[str]) -> list[list[Span]]:
            if interrupt:
                interrupt.pop()()
            return super().detect_many(texts)

    return Interrupted


def test_tags_written_while_the_indexer_scans_the_old_ones_are_found(tmp_path: Path) -> None:
    """The indexer scans a document's labels outside the lock. A foreground write that
    stores new tags with their spans meanwhile keeps them: the indexer stores spans only
    for the document's current labels (the older tags' spans were stored over the new
    ones, the row deleted, and no agent's filter ever found the new tag); it hands the row
    back, and the next step scans the labels as they are."""
    interrupt: list[Callable[[], object]] = []
    Interrupted = _interrupting(interrupt)

    with fake_vault(tmp_path / "v.db", detector_factory=Interrupted, **GATED) as vault:
        vault.documents.note_many([_chat(["food"], "m1")], caller=OWNER, background=True)
        interrupt.append(lambda: vault.documents.note_many([_chat(["drinks"], "m2")], caller=OWNER))
        while vault.indexing.has_work():
            assert vault.indexing.step(caller=OWNER).error is None
        assert not interrupt  # the write ran inside the indexer's scan
        [doc] = vault.docs(caller=OWNER).documents
        assert label_spans.get(vault.conn, doc.doc_id, "drinks") is not None
        assert label_spans.get(vault.conn, doc.doc_id, "food") is None
        assert _found(vault, AGENT, "drinks") == (1,) * 4
        assert _found(vault, AGENT, "food") == (0,) * 4


def test_synced_tags_stored_while_the_indexer_scans_the_old_ones_are_found(
    tmp_path: Path,
) -> None:
    """The same for a change of tags alone from another device (the sync's labels path)."""
    with fake_vault(tmp_path / "a.db", **GATED) as vault:
        vault.documents.note_many([_chat(["food"], "m1")], caller=OWNER)
        vault.sync.export(tmp_path / "one.bundle", secret=SECRET, caller=OWNER)
        vault.documents.note_many([_chat(["drinks"], "m2")], caller=OWNER)
        vault.sync.export(tmp_path / "two.bundle", secret=SECRET, caller=OWNER)
    interrupt: list[Callable[[], object]] = []
    Interrupted = _interrupting(interrupt)

    with fake_vault(tmp_path / "b.db", detector_factory=Interrupted, **GATED) as vault:
        vault.sync.import_bundle(tmp_path / "one.bundle", secret=SECRET, caller=OWNER)
        [doc] = vault.docs(caller=OWNER).documents
        with write(vault.conn):  # its labels queued again, as a detector change queues them
            index_queue.enqueue(vault.conn, doc.doc_id, [], now_ms())
        two = tmp_path / "two.bundle"
        interrupt.append(lambda: vault.sync.import_bundle(two, secret=SECRET, caller=OWNER))
        while vault.indexing.has_work():
            assert vault.indexing.step(caller=OWNER).error is None
        assert not interrupt
        assert _found(vault, AGENT, "drinks") == (1,) * 4
