"""The facade's document operations on a real vault file (fake embedder and detector)."""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from privault.caller import Caller
from privault.errors import AccessDenied, InputError, ModelError, NotFound
from privault.filters import Filters
from privault.privacy.detector import FakeDetector
from privault.retrieval.embedder import FakeEmbedder
from privault.store import documents
from privault.store.connection import write
from privault.timeutil import parse_time
from privault.vault import Vault
from tests.helpers import fake_vault

OWNER = Caller.owner()
AGENT = Caller.agent("claude")


def _counts(vault) -> tuple[int, int, int, int]:
    tables = ("documents", "sections", "chunks_fts", "chunks_vec")
    return tuple(vault.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables)


def _created(vault, doc_id: str) -> int:
    found = documents.get(vault.conn, doc_id)
    assert found is not None
    return found.created_at


def test_note_unchanged_is_a_no_op(vault) -> None:
    first = vault.note("# Plan\nWater the tomatoes.", caller=OWNER)
    before = _counts(vault)
    again = vault.note("# Plan\nWater the tomatoes.", caller=OWNER)
    assert (first.status, again.status) == ("added", "unchanged")
    assert again.doc_id == first.doc_id
    assert _counts(vault) == before


def test_changed_file_replaces_its_sections_in_place(vault, tmp_path: Path) -> None:
    path = tmp_path / "garden.md"
    path.write_text("# Garden\n## Beds\nCarrots\n## Tools\nSpade")
    first = vault.add([path], caller=OWNER).added[0]
    path.write_text("# Garden\n## Beds\nLeeks and beans")
    second = vault.add([path], caller=OWNER).added[0]
    assert (first.status, second.status) == ("added", "updated")
    assert second.doc_id == first.doc_id
    assert [n.heading for n in vault.tree(first.doc_id, caller=OWNER).nodes] == ["Garden", "Beds"]
    assert vault.search("spade", caller=OWNER).results == ()
    assert vault.search("leeks", caller=OWNER).results[0].text == "Leeks and beans"
    assert vault.status().index.healthy


def test_a_file_whose_front_matter_date_changed_is_updated_with_it(vault, tmp_path: Path) -> None:
    path = tmp_path / "boiler.md"
    text = "# Boiler\nService booked with Zorbulon."
    path.write_text(f"---\ncreated: 2024-05-01\n---\n{text}")
    first = vault.add([path], caller=OWNER).added[0]
    assert vault.search("Zorbulon", caller=OWNER).results  # the vector index is loaded
    path.write_text(f"---\ncreated: 2021-03-15\n---\n{text}")  # the same text
    second = vault.add([path], caller=OWNER).added[0]
    assert (first.status, second.status) == ("added", "updated")
    assert second.doc_id == first.doc_id
    assert _created(vault, first.doc_id) == parse_time("2021-03-15")
    march = (parse_time("2021-03-01"), parse_time("2021-04-01"))
    hits = vault.search("Zorbulon", caller=OWNER, filters=Filters(since=march[0], until=march[1]))
    assert [hit.doc_id for hit in hits.results] == [first.doc_id]
    # New chunks carry the new date into the vector index loaded before the change.
    vault.vectors.refresh(vault.conn)
    query = vault.embedder.embed_query("Zorbulon")
    assert vault.vectors.search(query, 5, march, conn=vault.conn)
    assert vault.status().index.healthy
    assert vault.add([path], caller=OWNER).added[0].status == "unchanged"


def test_a_file_without_a_date_keeps_the_one_it_was_added_with(vault, tmp_path: Path) -> None:
    path = tmp_path / "tools.md"
    path.write_text("# Tools\nSpade and rake.")
    first = vault.add([path], caller=OWNER).added[0]
    before = _counts(vault), _created(vault, first.doc_id)
    again = vault.add([path], caller=OWNER).added[0]  # no front matter: no date of its own
    assert (again.status, again.doc_id) == ("unchanged", first.doc_id)
    after = _counts(vault), _created(vault, first.doc_id)
    assert after == before


def test_a_note_written_again_with_another_date_is_the_same_note(vault) -> None:
    # A note is known by its text (and author), not by a source that may re-date it:
    # the same text again is a no-op and keeps the date it was first stored with, for
    # an agent's note too (a repeat writes nothing).
    text = "# Plan\nWater the tomatoes."
    first = vault.note(text, caller=OWNER, created_at=parse_time("2024-05-01"))
    before = _counts(vault)
    again = vault.note(text, caller=OWNER, created_at=parse_time("2021-03-15"))
    assert (again.status, again.doc_id) == ("unchanged", first.doc_id)
    assert _created(vault, first.doc_id) == parse_time("2024-05-01")
    assert _counts(vault) == before
    mine = vault.note("Ask about the boiler.", caller=AGENT, created_at=parse_time("2024-05-01"))
    repeat = vault.note("Ask about the boiler.", caller=AGENT, created_at=parse_time("2021-03-15"))
    assert (repeat.status, repeat.doc_id) == ("unchanged", mine.doc_id)


def test_folder_add_reports_each_file(vault, tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.md").write_text("# A\nalpha text")
    (folder / "sub" / "b.txt").write_text("beta text")
    (folder / "empty.md").write_text("  ")
    (folder / "bin.txt").write_bytes(b"\x00\x01")
    (folder / ".hidden.md").write_text("secret")
    (folder / "skip.png").write_bytes(b"png")
    report = vault.add([folder], caller=OWNER)
    assert report.count("added") == 2
    reasons = dict(report.failed)
    assert set(reasons) == {
        str((folder / "empty.md").resolve()),
        str((folder / "bin.txt").resolve()),
    }
    assert "empty" in reasons[str((folder / "empty.md").resolve())]
    again = vault.add([folder], caller=OWNER)
    assert again.count("unchanged") == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("   \n\t", "empty"),
        ("x" * 3000, "over the 2000-byte limit"),
        ("bad\x00byte", "NUL"),
    ],
)
def test_bad_notes_leave_the_vault_unchanged(tmp_path: Path, text: str, message: str) -> None:
    with fake_vault(tmp_path / "v.db", max_note_bytes=2000) as vault:
        before = _counts(vault)
        with pytest.raises(InputError, match=message):
            vault.note(text, caller=OWNER)
        assert _counts(vault) == before


@pytest.mark.parametrize(
    ("shelf", "tags"), [("Bad Shelf", ()), ("ok", ("bad tag!",)), ("ok", ("home\n",))]
)
def test_bad_shelf_or_tag_is_refused(vault, shelf: str, tags: tuple[str, ...]) -> None:
    with pytest.raises(InputError):
        vault.note("text", caller=OWNER, shelf=shelf, tags=tags)


def test_search_filters(vault) -> None:
    vault.note(
        "Invoice from the plumber, 120 euros",
        caller=OWNER,
        tags=["money"],
        created_at=parse_time("2026-01-10T00:00:00Z"),
    )
    vault.note(
        "Invoice from the electrician, 300 euros",
        caller=OWNER,
        shelf="work",
        created_at=parse_time("2026-03-10T00:00:00Z"),
    )

    def titles(**chosen: Any) -> set[str]:
        found = vault.search("invoice", caller=OWNER, filters=Filters(**chosen))
        return {hit.text for hit in found.results}

    assert len(titles()) == 2
    assert titles(shelf="work") == {"Invoice from the electrician, 300 euros"}
    assert titles(tag="money") == {"Invoice from the plumber, 120 euros"}
    assert titles(since=parse_time("2026-02-01T00:00:00Z")) == {
        "Invoice from the electrician, 300 euros"
    }
    assert titles(until=parse_time("2026-02-01T00:00:00Z")) == {
        "Invoice from the plumber, 120 euros"
    }
    assert titles(kind="file") == set()
    hit = vault.search("plumber", caller=OWNER).results[0]
    assert hit.to_dict().keys() >= {"node_id", "doc_id", "title", "breadcrumb", "text", "score"}


def test_long_sections_come_back_as_bounded_excerpts(vault) -> None:
    filler = "\n".join(f"Line {i} about nothing in particular at all." for i in range(200))
    vault.note(f"# Log\n{filler}\nThe zeppelin landed at noon.\n{filler}", caller=OWNER)
    hit = vault.search("zeppelin", caller=OWNER).results[0]
    assert hit.excerpt
    assert "zeppelin" in hit.text
    assert len(hit.text) < 2000


def test_context_respects_budget_and_counts_drops(vault) -> None:
    for i in range(30):
        vault.note(f"Meeting note {i}: the budget review moved to room {i}. " * 5, caller=OWNER)
    pack = vault.context("budget review meeting", caller=OWNER, budget=200)
    assert pack.used_tokens <= 200
    assert pack.sections
    assert pack.dropped > 0
    assert vault.embedder.count_tokens(pack.text) <= pack.used_tokens
    data = pack.to_dict()
    assert data.keys() >= {"text", "sections", "used_tokens", "dropped"}


def test_read_tree_forget_and_tombstone(vault) -> None:
    added = vault.note("# Trip\n## Day 1\nLisbon\n## Day 2\nPorto", caller=OWNER)
    tree = vault.tree(added.doc_id, caller=OWNER)
    day2 = [n for n in tree.nodes if n.heading == "Day 2"][0]
    view = vault.read(day2.node_id, caller=OWNER)
    assert view.text == "Porto" and view.breadcrumb == ("Trip", "Day 2")
    assert vault.forget(added.doc_id, caller=OWNER)
    with pytest.raises(NotFound):
        vault.read(day2.node_id, caller=OWNER)
    assert vault.search("Porto", caller=OWNER).results == ()
    tomb = vault.conn.execute("SELECT kind FROM tombstones WHERE id = ?", (added.doc_id,))
    assert tomb.fetchone()[0] == "document"
    assert _counts(vault) == (0, 0, 0, 0)


def test_restricted_shelf_is_invisible_to_other_agents(vault) -> None:
    with write(vault.conn):
        vault.conn.execute(
            "INSERT INTO shelves (name, restricted, created_at) VALUES ('health', 1, 0)"
        )
    added = vault.note("Blood test results are fine", caller=OWNER, shelf="health")
    node = vault.tree(added.doc_id, caller=OWNER).nodes[0].node_id
    nurse = Caller.agent("nurse", shelves={"health"})
    assert vault.search("blood test", caller=nurse).results
    assert vault.search("blood test", caller=AGENT).results == ()
    with pytest.raises(NotFound, match="no section"):
        vault.read(node, caller=AGENT)
    with pytest.raises(NotFound, match="no document"):
        vault.tree(added.doc_id, caller=AGENT)
    with pytest.raises(NotFound):
        vault.note("sneak in", caller=AGENT, shelf="health")


def test_read_only_agent_cannot_write(vault) -> None:
    with pytest.raises(AccessDenied):
        vault.note("hello", caller=Caller.agent("viewer", read_only=True))


def test_agent_gets_redacted_text_everywhere(vault) -> None:
    added = vault.note("# Call Dr Alice Smith\nHer email is alice@example.com.", caller=OWNER)
    hit = vault.search("email", caller=AGENT).results[0]
    assert "alice@example.com" not in hit.text and "<EMAIL_ADDRESS_1>" in hit.text
    assert "Alice" not in hit.title and "Alice" not in " ".join(hit.breadcrumb)
    tree = vault.tree(added.doc_id, caller=AGENT)
    assert "Alice" not in tree.title
    pack = vault.context("email", caller=AGENT, budget=200)
    assert "alice@example.com" not in pack.text and "Alice" not in pack.text
    owner_hit = vault.search("email", caller=OWNER).results[0]
    assert "alice@example.com" in owner_hit.text


def test_query_pii_is_not_used_for_matching(vault) -> None:
    vault.note("Contact: bob@example.org for the keys", caller=OWNER)
    response = vault.search("bob@example.org", caller=AGENT)
    # Agents search the masked index: the value is not there to match, and nothing is
    # said about the query (what a scan of it reported could confirm a known name).
    assert response.privacy.held_back == {}
    assert response.results == ()
    assert vault.search("bob@example.org", caller=OWNER).results


def _writer(path: str, worker: int, count: int) -> None:
    from tests.helpers import fake_vault as open_fake

    with open_fake(Path(path)) as vault:
        for i in range(count):
            vault.note(f"worker {worker} note {i}", caller=Caller.owner())


def test_three_processes_writing_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    fake_vault(path).close()
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_writer, args=(str(path), w, 15)) for w in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    with fake_vault(path) as vault:
        assert vault.conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 45
        assert vault.status().index.healthy


def test_forgetting_a_page_removes_every_version(vault) -> None:
    first = vault.file_page(url="http://example.org/p", title="P", text="version one", caller=OWNER)
    second = vault.file_page(
        url="http://example.org/p", title="P", text="version two", caller=OWNER
    )
    assert second.doc_id != first.doc_id
    assert vault.forget(first.doc_id, caller=OWNER)
    assert _counts(vault) == (0, 0, 0, 0)
    tombs = {i for (i,) in vault.conn.execute("SELECT id FROM tombstones")}
    assert tombs == {first.doc_id, second.doc_id}


class ThreadNotingEmbedder(FakeEmbedder):
    """The fake embedder, noting which thread embeds each query; `fail` makes it raise."""

    def __init__(self) -> None:
        super().__init__()
        self.query_threads: list[str] = []
        self.fail = False

    def embed_query(self, text: str) -> np.ndarray:
        self.query_threads.append(threading.current_thread().name)
        if self.fail:
            raise ModelError("the embedder is gone")
        return super().embed_query(text)


def test_a_search_embeds_its_query_beside_the_keyword_leg(tmp_path: Path) -> None:
    embedder = ThreadNotingEmbedder()
    vault = Vault.open(
        tmp_path / "v.db",
        models_dir=tmp_path / "models",
        embedder=embedder,
        detector_factory=FakeDetector,
    )
    try:
        vault.note("# Boiler\n\nThe boiler invoice is due in May.", caller=OWNER)
        found = vault.search("boiler invoice", caller=OWNER)
        assert [hit.title for hit in found.results] == ["Boiler"]
        assert any(name.startswith("privault-query") for name in embedder.query_threads)
        assert threading.current_thread().name not in embedder.query_threads
        embedder.fail = True  # the worker's error reaches the caller as it is
        with pytest.raises(ModelError, match="the embedder is gone"):
            vault.search("garden budget", caller=OWNER)
    finally:
        vault.close()


def test_an_address_spelled_in_entities_in_a_page_title_is_masked(vault, tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    prose = "We planted roses along the fence and watered them every evening. " * 4
    path.write_text(
        "<html><head><title>Mail jdoe1984&#64;gmail&#46;com now</title></head>"
        f"<body><p>{prose}</p></body></html>"
    )
    added = vault.add([path], caller=OWNER).added[0]
    assert vault.tree(added.doc_id, caller=AGENT).title == "Mail <EMAIL_ADDRESS_1> now"
