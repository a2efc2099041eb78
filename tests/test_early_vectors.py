"""Read your own writes: the owner finds a queued note by meaning before the indexer runs.

The fake embedder hashes the first five letters of each word, so "dentistry" is near a
note about a "dentist" while the keyword index (porter stems) does not match them: a hit
for such a query can only come from the vector leg.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from helpers import FakeEngineRunner, fake_vault, run_cli

from privault.caller import Caller
from privault.interfaces.cli import app
from privault.retrieval import early
from privault.retrieval.early import EarlyWindows
from privault.retrieval.embedder import FakeEmbedder
from privault.store import connection
from privault.vault import Vault

OWNER = Caller.owner()
AGENT = Caller.agent("claude")
NOTE = "Dentist appointment booked for Thursday morning; bring the insurance card."
QUERY = "dentistry"  # shares no keyword stem with NOTE, only the fake embedder's prefix


@pytest.fixture(autouse=True)
def _fresh_process_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    # What an earlier test embedded in this process is remembered by text: start empty.
    monkeypatch.setattr(early, "_remembered", early._Remembered(early._REMEMBERED))


class CountingEmbedder(FakeEmbedder):
    """The fake embedder, counting the passages it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.passages: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.passages += list(texts)
        return super().embed(texts)


def _vault(path: Path, embedder: FakeEmbedder | None = None) -> Vault:
    from privault.privacy.detector import FakeDetector

    return Vault.open(
        path,
        models_dir=path.parent / "models",
        embedder=embedder or FakeEmbedder(),
        detector_factory=FakeDetector,
        privacy={"agent_default": "standard", "agents": {"open": "open"}},
    )


def _drain(vault: Vault) -> None:
    while not (step := vault.indexing.step(caller=OWNER)).idle:
        assert step.error is None, step.error


def _stored(vault: Vault) -> int:
    return int(vault.conn.execute("SELECT count(*) FROM early_vectors").fetchone()[0])


def test_the_owner_finds_a_queued_note_by_meaning_at_once(tmp_path: Path) -> None:
    with _vault(tmp_path / "v.db") as vault:
        added = vault.note(NOTE, caller=OWNER, background=True)
        assert vault.status().indexing.sections == 1  # nothing embedded it yet
        found = vault.search(QUERY, caller=OWNER)
        assert [hit.doc_id for hit in found.results] == [added.doc_id]
        assert found.unsearchable == 0
        pack = vault.context(QUERY, caller=OWNER)
        assert [s.doc_id for s in pack.sections] == [added.doc_id]
        assert pack.to_dict()["unsearchable"] == 0


def test_without_the_query_time_vectors_the_query_finds_nothing(tmp_path: Path) -> None:
    # The control: the same query on the same queued note through the keyword leg alone.
    with _vault(tmp_path / "v.db") as vault:
        vault.note(NOTE, caller=OWNER, background=True)
        assert vault.search(QUERY, caller=Caller.agent("open")).results == ()
        _drain(vault)
        assert len(vault.search(QUERY, caller=Caller.agent("open")).results) == 1


def test_gated_callers_never_get_queued_text_by_meaning(tmp_path: Path) -> None:
    with _vault(tmp_path / "v.db") as vault:
        vault.note(NOTE, caller=OWNER, background=True)
        for caller in (AGENT, Caller.agent("open")):
            found = vault.search(QUERY, caller=caller)
            assert found.results == () and found.unsearchable == 0
            assert vault.context(QUERY, caller=caller).sections == ()
        assert _stored(vault) == 0  # no gated search embedded anything


def test_vectors_computed_at_query_time_are_kept_and_reused_by_the_indexer(
    tmp_path: Path,
) -> None:
    embedder = CountingEmbedder()
    with _vault(tmp_path / "v.db", embedder) as vault:
        vault.note(NOTE, caller=OWNER, background=True)
        vault.search(QUERY, caller=OWNER)
        assert _stored(vault) == 1 and len(embedder.passages) == 1
        vault.search("dentists", caller=OWNER)  # read back, not embedded again
        assert len(embedder.passages) == 1
        _drain(vault)
        # The indexer embedded no window again; the rows went with the queued chunks.
        assert [p for p in embedder.passages if "Dentist" in p] == embedder.passages[:1]
        assert _stored(vault) == 0
        assert len(vault.search(QUERY, caller=Caller.agent("open")).results) == 1


def test_a_vector_is_never_kept_for_text_that_changed_since(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    with _vault(tmp_path / "v.db", embedder) as vault:
        first = {"text": NOTE, "source": "notes://dentist"}
        vault.note_many([first], caller=OWNER, background=True)
        windows = EarlyWindows.read(vault.conn, embedder)
        windows.vectors()  # embedded from the text as it was read...
        changed = {"text": "The dentist moved to Friday.", "source": "notes://dentist"}
        assert vault.note_many([changed], caller=OWNER, background=True)[0].status == "updated"
        windows.keep(vault.conn)  # ...and the text changed before it could be kept
        assert _stored(vault) == 0
        before = len(embedder.passages)
        _drain(vault)
        assert any("Friday" in p for p in embedder.passages[before:])  # embedded afresh


def test_past_the_bound_the_answer_counts_what_is_not_searchable_yet(tmp_path: Path) -> None:
    with _vault(tmp_path / "v.db") as vault:
        oldest = vault.note("Dentist crown fitted last spring.", caller=OWNER, background=True)
        for number in range(early.SECTIONS + 2):
            vault.note(f"Garden shed paint, coat {number}.", caller=OWNER, background=True)
        found = vault.search(QUERY, caller=OWNER)
        assert found.unsearchable == 3
        assert oldest.doc_id not in {hit.doc_id for hit in found.results}
        assert found.to_dict()["unsearchable"] == 3
        assert vault.search("crown", caller=OWNER).results[0].doc_id == oldest.doc_id  # words
        _drain(vault)
        after = vault.search(QUERY, caller=OWNER)
        assert after.unsearchable == 0 and after.results[0].doc_id == oldest.doc_id


def test_a_search_does_not_wait_for_another_writer_to_keep_its_vectors(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    embedder = CountingEmbedder()
    with _vault(path, embedder) as vault:
        vault.note(NOTE, caller=OWNER, background=True)
        other = connection.connect(path)
        holding, release = threading.Event(), threading.Event()

        def hold() -> None:
            other.execute("BEGIN IMMEDIATE")
            holding.set()
            release.wait(10)
            other.execute("ROLLBACK")

        holder = threading.Thread(target=hold)
        holder.start()
        try:
            assert holding.wait(5)
            started = time.monotonic()
            found = vault.search(QUERY, caller=OWNER)
            assert time.monotonic() - started < 2  # the busy timeout is 15 s
            assert len(found.results) == 1
            assert _stored(vault) == 0  # skipped, not waited for
            assert len(embedder.passages) == 1
            vault.search(QUERY, caller=OWNER)  # remembered in this process meanwhile
            assert len(embedder.passages) == 1
        finally:
            release.set()
            holder.join()
            other.close()
        vault.search(QUERY, caller=OWNER)
        assert _stored(vault) == 1


def test_note_then_search_from_the_command_line(tmp_path: Path) -> None:
    runner = FakeEngineRunner()
    env = {"PRIVAULT_INDEXER": "off", "PRIVAULT_WARM": "off"}
    noted = runner.invoke(app, ["note", NOTE, "--json"], env=env)
    assert noted.exit_code == 0, noted.output
    doc_id = json.loads(noted.output)["doc_id"]
    found = runner.invoke(app, ["search", QUERY, "--json"], env=env)
    assert found.exit_code == 0, found.output
    assert [hit["doc_id"] for hit in json.loads(found.output)["results"]] == [doc_id]
    with fake_vault(Path(os.environ["PRIVAULT_VAULT"])) as vault:
        assert vault.status().indexing.sections == 1  # found before any indexer ran


@pytest.mark.real
def test_note_then_search_as_processes_with_the_real_embedder(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, env={"PRIVAULT_INDEXER": "off", "PRIVAULT_WARM": "off"})

    noted = run(
        "note",
        "The heat pump service is booked with Aldridge Heating for 3 March; bring the warranty"
        " card.",
        "--title",
        "heat pump",
        "--json",
    )
    assert noted.returncode == 0, noted.stderr
    doc_id = json.loads(noted.stdout)["doc_id"]
    found = run("search", "when is the boiler engineer coming", "--json")
    assert found.returncode == 0, found.stderr
    data = json.loads(found.stdout)
    assert data["results"] and data["results"][0]["doc_id"] == doc_id
    assert data["unsearchable"] == 0
