"""Deferred writes and the background indexer: searchable at once for the owner, withheld
from every gated caller until scanned, then exactly what a foreground write stores."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from privault.caller import Caller
from privault.interfaces.cli import app
from privault.privacy.detector import DetectorConfig, FakeDetector
from privault.retrieval.embedder import FakeEmbedder
from privault.spans import Span
from privault.store import index_queue, index_reads
from privault.store.connection import write
from privault.timeutil import now_ms
from privault.vault import Vault
from privault.vault.capture import Capture
from privault.vault.reading import BEING_INDEXED, LABEL_BEING_INDEXED
from tests.helpers import FakeEngineRunner

OWNER = Caller.owner()
AGENT = Caller.agent("claude")
NOTE = "# Dentist Zorbulon\nCall Dr. Maria Quelvik on 555-12-3456 about the crown.\n## Later\nPay"


def _vault(path: Path, detector_factory: Any = FakeDetector) -> Vault:
    return Vault.open(
        path,
        models_dir=path.parent / "models",
        embedder=FakeEmbedder(),
        detector_factory=detector_factory,
        privacy={"agent_default": "standard"},
    )


def _drain(vault: Vault) -> int:
    done = 0
    while not (step := vault.indexing.step(caller=OWNER)).idle:
        assert step.error is None, step.error
        done += step.done
    return done


def test_a_deferred_note_is_searchable_by_the_owner_at_once(tmp_path: Path) -> None:
    with _vault(tmp_path / "v.db") as vault:
        added = vault.note(NOTE, caller=OWNER, background=True)
        assert added.status == "added" and added.sections == 2
        hits = vault.search("crown", caller=OWNER).results
        assert [hit.doc_id for hit in hits] == [added.doc_id]
        assert "Maria Quelvik" in hits[0].text  # the owner's own text, as written
        status = vault.status()
        assert status.indexing.sections == 2 and status.indexing.documents == 1
        assert status.index.pending_chunks > 0 and status.index.healthy
        assert vault.conn.execute("SELECT count(*) FROM pii_scans").fetchone()[0] == 0


def test_gated_callers_get_nothing_of_an_unscanned_note(tmp_path: Path) -> None:
    with _vault(tmp_path / "v.db") as vault:
        added = vault.note(NOTE, caller=OWNER, background=True, tags=["zorbulon"])
        for word in ("crown", "Quelvik", "Zorbulon", "dentist", "pay"):
            found = vault.search(word, caller=AGENT)
            assert found.results == (), word
            assert vault.context(word, caller=AGENT).sections == ()
        # Not in the masked view of either index leg: nothing to match, in any form.
        assert index_reads.keyword_ranked(vault.conn, ['"crown"'], 10, "masked") == []
        assert index_reads.keyword_ranked(vault.conn, ['"crown"'], 10, "plain") != []
        masked = vault.shared.engines.vectors_for("masked")
        masked.refresh(vault.conn)
        assert len(masked) == 0  # no vector either: nothing to embed the text by yet
        node = f"{added.doc_id}.1"
        read = vault.read(node, caller=AGENT)
        assert read.text == BEING_INDEXED and read.privacy.withheld_sections == 1
        assert set(read.breadcrumb) == {LABEL_BEING_INDEXED}
        tree = vault.tree(added.doc_id, caller=AGENT)
        assert tree.title == LABEL_BEING_INDEXED
        assert {node.heading for node in tree.nodes} == {LABEL_BEING_INDEXED}
        listed = vault.docs(caller=AGENT).documents
        assert [(e.title, e.tags) for e in listed] == [
            (LABEL_BEING_INDEXED, (LABEL_BEING_INDEXED,))
        ]
        # The owner's view is the text as written.
        assert "Quelvik" in vault.read(node, caller=OWNER).text
        assert vault.tree(added.doc_id, caller=OWNER).title == "Dentist Zorbulon"


def test_an_unscanned_note_answers_as_an_absent_one(tmp_path: Path) -> None:
    """No presence oracle: a vault holding an unscanned note answers a gated caller's
    searches for its words exactly as a vault without it does."""
    with _vault(tmp_path / "a.db") as holding, _vault(tmp_path / "b.db") as empty:
        holding.note(NOTE, caller=OWNER, background=True)
        for word in ("crown", "Quelvik", "555-12-3456", "Maria Quelvik"):
            one = holding.search(word, caller=AGENT).to_dict()
            other = empty.search(word, caller=AGENT).to_dict()
            assert one == other, word


def test_indexed_later_is_what_a_foreground_write_stores(tmp_path: Path) -> None:
    texts = [NOTE, "Lunch with Mr. John Smith at noon", "# Call mum", "plain words only"]
    with _vault(tmp_path / "now.db") as now, _vault(tmp_path / "later.db") as later:
        now.note_many([{"text": t} for t in texts], caller=OWNER)
        later.note_many([{"text": t} for t in texts], caller=OWNER, background=True)
        assert _drain(later) > 0
        assert _stored(now) == _stored(later)
        assert later.status().indexing.sections == 0
        assert later.status().index.pending_chunks == 0 and later.status().index.healthy
        for word in ("crown", "lunch", "mum", "words"):
            got = [h.text for h in later.search(word, caller=AGENT).results]
            want = [h.text for h in now.search(word, caller=AGENT).results]
            assert got == want and got, word


def _stored(vault: Vault) -> dict[str, Any]:
    """What a vault holds, without ids or times: spans, labels, index windows."""
    conn = vault.conn
    spans = conn.execute(
        "SELECT s.node_id, p.field, p.start, p.end, p.kind, p.source FROM pii_spans p "
        "JOIN sections s ON s.id = p.section_id"
    ).fetchall()
    labels = conn.execute("SELECT label, spans FROM label_spans").fetchall()
    windows = conn.execute(
        "SELECT 'plain', text FROM chunks_fts UNION ALL SELECT 'gated', text FROM gated_fts"
    ).fetchall()
    vectors = conn.execute(
        "SELECT count(*), count(DISTINCT m.chunk_id) FROM chunks c "
        "LEFT JOIN masked_chunks m ON m.chunk_id = c.id"
    ).fetchone()
    node = {d: i for i, (d,) in enumerate(conn.execute("SELECT id FROM documents ORDER BY title"))}
    return {
        "spans": sorted((node[n.split(".")[0]], *rest) for n, *rest in spans),
        "labels": sorted(labels),
        "windows": sorted(windows),
        "chunks": vectors,
    }


def test_a_note_rewritten_while_it_is_scanned_keeps_its_new_text_unscanned(
    tmp_path: Path,
) -> None:
    """The indexer saves spans only against the text it scanned: a note rewritten between
    the claim and the save gets no spans of its old text, and stays queued."""
    rewrite: list[Any] = []

    class Rewriting(FakeDetector):
        def __init__(self, config: DetectorConfig | None = None) -> None:
            super().__init__(config)

        def detect_many(self, texts: Sequence[str]) -> list[list[Span]]:
            if rewrite:
                rewrite.pop()()
            return super().detect_many(texts)

    with _vault(tmp_path / "v.db", detector_factory=Rewriting) as vault:
        first = vault.note("Old text with Dr. Olga Petrova", caller=OWNER, background=True)
        old_ids = _section_ids(vault)
        rewrite.append(
            lambda: vault.note(
                "New text without names", caller=OWNER, title=first.title, background=True
            )
        )
        # The rewrite is a new note (another text, so another document): the old one is
        # done, the new one waits, untouched by the old text's spans.
        step = vault.indexing.step(caller=OWNER)
        assert step.error is None
        new_ids = [sid for sid in _section_ids(vault) if sid not in old_ids]
        assert new_ids and index_queue.pending_sections(vault.conn, new_ids) == set(new_ids)
        assert vault.conn.execute(
            f"SELECT count(*) FROM pii_scans WHERE section_id IN ({','.join('?' * len(new_ids))})",
            new_ids,
        ).fetchone() == (0,)
        _drain(vault)
        assert index_queue.backlog(vault.conn).sections == 0


def test_an_update_between_claim_and_save_is_left_to_its_own_write(tmp_path: Path) -> None:
    """A file re-added with new text (same document, same path) while the indexer scans
    its old text: the old text's spans are stored nowhere, the new text waits its turn."""
    rewrite: list[Any] = []

    class Rewriting(FakeDetector):
        def __init__(self, config: DetectorConfig | None = None) -> None:
            super().__init__(config)

        def detect_many(self, texts: Sequence[str]) -> list[list[Span]]:
            if rewrite:
                rewrite.pop()()
            return super().detect_many(texts)

    path = tmp_path / "plan.md"
    path.write_text("# Plan\nMeet Dr. Olga Petrova on Monday\n", encoding="utf-8")
    with _vault(tmp_path / "v.db", detector_factory=Rewriting) as vault:
        added = vault.add([path], caller=OWNER, background=True).added[0]

        def change() -> None:
            path.write_text("# Plan\nMeet nobody at all\n", encoding="utf-8")
            assert vault.add([path], caller=OWNER, background=True).added[0].status == "updated"

        rewrite.append(change)
        vault.indexing.step(caller=OWNER)
        # The old text's sections are gone; the new ones wait, with no spans and no vectors.
        rows = vault.conn.execute(
            "SELECT s.id, s.text FROM sections s WHERE s.doc_id = ?", (added.doc_id,)
        ).fetchall()
        assert [text for _, text in rows if text] == ["Meet nobody at all"]
        assert index_queue.pending_sections(vault.conn, [sid for sid, _ in rows])
        assert vault.read(f"{added.doc_id}.1", caller=AGENT).text == BEING_INDEXED
        assert index_queue.labels_pending(vault.conn, [added.doc_id, "d0"]) == {added.doc_id}
        _drain(vault)
        assert vault.read(f"{added.doc_id}.1", caller=AGENT).text == "Meet nobody at all"
        assert index_queue.labels_pending(vault.conn, [added.doc_id]) == set()


def _section_ids(vault: Vault) -> list[int]:
    return [sid for (sid,) in vault.conn.execute("SELECT id FROM sections ORDER BY id")]


def test_a_failing_batch_is_retried_then_dead_then_retried_by_the_owner(tmp_path: Path) -> None:
    broken = [True]

    class Failing(FakeDetector):
        def __init__(self, config: DetectorConfig | None = None) -> None:
            super().__init__(config)

        def detect_many(self, texts: Sequence[str]) -> list[list[Span]]:
            if broken[0]:
                raise RuntimeError("the detector broke")
            return super().detect_many(texts)

    with _vault(tmp_path / "v.db", detector_factory=Failing) as vault:
        vault.note("Some words", caller=OWNER, background=True)
        step = vault.indexing.step(caller=OWNER)
        assert step.error and "the detector broke" in step.error
        assert vault.indexing.step(caller=OWNER).idle  # backing off: nothing claimable now
        for _ in range(index_queue.MAX_ATTEMPTS - 1):
            with write(vault.conn):
                vault.conn.execute("UPDATE index_queue SET available_at = 0")
            assert vault.indexing.step(caller=OWNER).error
        status = vault.status().indexing  # the labels, claimed alone after the first
        assert status.dead == 1 and "the detector broke" in status.errors[0]
        assert status.sections == 1  # the section waits for its document's labels
        assert vault.search("words", caller=AGENT).results == ()  # still withheld
        broken[0] = False
        assert vault.indexing.step(caller=OWNER).idle  # dead rows wait for the owner
        assert vault.indexing.retry_failed(caller=OWNER) == 2  # the section had failed once
        assert _drain(vault) == 2
        assert vault.status().indexing.sections == 0
        assert [h.text for h in vault.search("words", caller=AGENT).results] == ["Some words"]


def test_a_text_the_indexer_cannot_read_does_not_kill_the_rows_beside_it(
    tmp_path: Path,
) -> None:
    class Choking(FakeDetector):
        def detect_many(self, texts: Sequence[str]) -> list[list[Span]]:
            if any("poison" in text for text in texts):
                raise RuntimeError("cannot read this")
            return super().detect_many(texts)

    with _vault(tmp_path / "v.db", detector_factory=Choking) as vault:
        for text in ("Some words", "A poison text", "More words"):
            vault.note(text, caller=OWNER, background=True)
        assert "cannot read this" in (vault.indexing.step(caller=OWNER).error or "")
        for _ in range(3 * index_queue.MAX_ATTEMPTS):
            with write(vault.conn):
                vault.conn.execute("UPDATE index_queue SET available_at = 0")
            vault.indexing.step(caller=OWNER)
        status = vault.status().indexing
        # the poisoned note's labels (its title) dead, and its section waiting behind them
        assert (status.dead, status.sections) == (1, 1)
        found = {hit.text for hit in vault.search("words", caller=AGENT).results}
        assert found == {"Some words", "More words"}
        assert vault.indexing.retry_failed(caller=OWNER) == 2
        assert "cannot read this" in (vault.indexing.step(caller=OWNER).error or "")
        assert vault.indexing.step(caller=OWNER).idle  # one more try only: dead again
        assert vault.status().indexing.dead == 1


def test_a_lost_lease_is_claimed_again(tmp_path: Path) -> None:
    with _vault(tmp_path / "v.db") as vault:
        vault.note("Some words", caller=OWNER, background=True)
        lost = index_queue.claim(vault.conn, now=now_ms(), lease_ms=60_000, limit=10)
        assert not lost.empty  # ... and its worker was killed
        assert vault.indexing.step(caller=OWNER).idle  # leased: nobody else takes it
        with write(vault.conn):  # the lease runs out
            vault.conn.execute("UPDATE index_queue SET lease_expires_at = ?", (now_ms() - 1,))
        assert vault.indexing.step(caller=OWNER).done == 2
        assert vault.status().indexing.sections == 0


def test_a_long_section_is_leased_for_as_long_as_its_text_takes(tmp_path: Path) -> None:
    with _vault(tmp_path / "v.db") as vault:
        vault.note("word " * 200_000, caller=OWNER, background=True)  # one section
        now = now_ms()
        claimed = index_queue.claim(
            vault.conn, now=now, lease_ms=1000, limit=10, lease_ms_per_char=0.5
        )
        assert len(claimed.sections) == 1 and claimed.label_docs
        expiries = {e for (e,) in vault.conn.execute("SELECT lease_expires_at FROM index_queue")}
        assert expiries == {now + 1000 + 500_000}  # 1,000,000 characters at 0.5 ms each
        index_queue.release(vault.conn, claimed)
        capped = index_queue.claim(
            vault.conn, now=now, lease_ms=1000, limit=10, lease_ms_per_char=0.5, lease_max_ms=9000
        )
        assert not capped.empty
        expiries = {e for (e,) in vault.conn.execute("SELECT lease_expires_at FROM index_queue")}
        assert expiries == {now + 9000}  # never longer than the longest lease


def test_only_the_owner_runs_the_indexer(tmp_path: Path) -> None:
    from privault.errors import AccessDenied

    with _vault(tmp_path / "v.db") as vault, pytest.raises(AccessDenied):
        vault.indexing.step(caller=AGENT)


def test_a_heading_alone_is_found_by_every_search(tmp_path: Path) -> None:
    with _vault(tmp_path / "v.db") as vault:
        added = vault.note("# Call mum", caller=OWNER)
        for caller in (OWNER, AGENT):
            hits = vault.search("mum", caller=caller).results
            assert [hit.doc_id for hit in hits] == [added.doc_id]
            assert vault.context("call mum", caller=caller).sections


def test_capture_needs_no_model_and_the_vault_finishes_it(tmp_path: Path) -> None:
    with Capture.open(tmp_path / "v.db") as capture:
        added = capture.note("Remember the milk", caller=OWNER, tags=["home"])
        assert capture.note("Remember the milk", caller=OWNER).status == "unchanged"
        assert capture.has_work()
    with _vault(tmp_path / "v.db") as vault:
        assert vault.search("milk", caller=AGENT).results == ()
        _drain(vault)
        assert [h.doc_id for h in vault.search("milk", caller=AGENT).results] == [added.doc_id]


def test_cli_note_is_indexed_with_the_engines_it_was_given() -> None:
    runner = FakeEngineRunner()
    assert runner.invoke(app, ["agents", "add", "claude", "--json"]).exit_code == 0
    result = runner.invoke(app, ["note", NOTE, "--json"])
    assert result.exit_code == 0, result.output
    found = runner.invoke(app, ["search", "crown", "--as", "claude", "--json"])
    assert found.exit_code == 0, found.output
    texts = [hit["text"] for hit in json.loads(found.stdout)["results"]]
    assert texts and "Quelvik" not in texts[0] and "crown" in texts[0]
    status = json.loads(runner.invoke(app, ["status", "--json"]).stdout)
    assert status["indexing"]["sections"] == 0  # indexed by the command itself


def test_cli_index_runs_what_is_queued(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRIVAULT_INDEXER", "off")
    runner = FakeEngineRunner()
    assert runner.invoke(app, ["note", "Some words to index", "--json"]).exit_code == 0
    status = json.loads(runner.invoke(app, ["status", "--json"]).stdout)
    assert status["indexing"]["sections"] == 1
    result = runner.invoke(app, ["index", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "done": 2,
        "remaining": 0,
        "dead": 0,
        "errors": [],
        "strong": None,  # the fake engines bring no strong model
    }
    status = json.loads(runner.invoke(app, ["status", "--json"]).stdout)
    assert status["indexing"]["sections"] == 0 and status["index"]["healthy"]


def test_cli_index_retry_tries_what_failed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from privault.store.connection import connect

    monkeypatch.setenv("PRIVAULT_INDEXER", "off")
    runner = FakeEngineRunner()
    assert runner.invoke(app, ["note", "Some words to index", "--json"]).exit_code == 0
    conn = connect(Path(os.environ["PRIVAULT_VAULT"]))
    with write(conn):  # as if it had failed five times
        conn.execute("UPDATE index_queue SET status = 'dead', attempts = 5, last_error = 'x'")
    conn.close()
    waiting = runner.invoke(app, ["index"])
    assert waiting.exit_code == 0 and "1 sections left" in waiting.stdout
    assert "privault index --retry" in waiting.stdout
    result = runner.invoke(app, ["index", "--retry", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["done"] == 2


def test_the_rows_of_a_worker_killed_on_this_host_are_taken_over_at_once(tmp_path: Path) -> None:
    import socket
    import subprocess
    import sys

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # a process that held a lease and is no more
    with _vault(tmp_path / "v.db") as vault:
        vault.note("Some words", caller=OWNER, background=True)
        owner = f"{socket.gethostname()}:{gone.pid}"
        claimed = index_queue.claim(
            vault.conn, now=now_ms(), lease_ms=600_000, limit=10, owner=owner
        )
        assert not claimed.empty
        assert vault.indexing.step(caller=OWNER).done == 2  # no ten-minute wait
        alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            vault.note("More words", caller=OWNER, background=True)
            owner = f"{socket.gethostname()}:{alive.pid}"
            index_queue.claim(vault.conn, now=now_ms(), lease_ms=600_000, limit=10, owner=owner)
            assert vault.indexing.step(caller=OWNER).idle  # its worker lives: its rows wait
        finally:
            alive.kill()
            alive.wait()
        assert vault.indexing.step(caller=OWNER).done == 2


def test_a_torn_document_is_found(tmp_path: Path) -> None:
    from privault.store import integrity

    with _vault(tmp_path / "v.db") as vault:
        vault.note("Some words here", caller=OWNER)
        vault.note("Queued words", caller=OWNER, background=True)
        assert not any(integrity.half_written(vault.conn).values())
        with write(vault.conn):
            vault.conn.execute("DELETE FROM pii_scans")  # spans lost, nothing queued
            vault.conn.execute("DELETE FROM masked_chunks WHERE embedding = x''")
        torn = integrity.half_written(vault.conn)
        assert torn["sections_neither_scanned_nor_queued"] == 1
        assert torn["queued_windows_not_withheld"] == 1
        assert integrity.integrity_check(vault.conn) == "ok"
