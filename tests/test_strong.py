"""The strong model's two stages with the deterministic fakes: the background pass is
complete, idempotent and crash-safe, `context` fuses its leg and falls back while coverage
is incomplete, and gated callers are ranked by strong vectors of masked text only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from privault import Caller, Vault
from privault.models.fakes import FakeStrongEmbedder
from privault.privacy.detector import FakeDetector
from privault.retrieval.embedder import FakeEmbedder
from privault.retrieval.strong import partial_ranking, strong_input
from privault.store import strong_index
from privault.store.index_reads import Filters as IndexFilters
from privault.vault import finding
from privault.vault.results import ContextPack
from tests.gate_support import normal_form

OWNER = Caller.owner()
AGENT = Caller.agent("claude")
LINES = [
    "Caroline: I went to the support group yesterday and it was powerful.",
    "Melanie: I painted a lake sunrise last year.",
    "Caroline: my friends gave me a necklace for my birthday.",
    "Melanie: we went camping in the mountains with the kids.",
    "Caroline: I am researching adoption agencies.",
]


def strong_vault(path: Path, strong: Any | None = None, **settings: Any) -> Vault:
    """A real vault file with the fake fast embedder, fake detector and a fake strong one."""
    return Vault.open(
        path,
        models_dir=path.parent / "models",
        embedder=FakeEmbedder(),
        detector_factory=FakeDetector,
        strong_embedder=strong if strong is not None else FakeStrongEmbedder(),
        **settings,
    )


def test_the_pass_covers_every_window_once(tmp_path: Path) -> None:
    strong = FakeStrongEmbedder()
    with strong_vault(tmp_path / "v.db", strong) as vault:
        vault.note("\n".join(LINES), caller=OWNER, title="Chat")
        assert vault.strong.coverage().covered == 0
        seen: list[tuple[int, int]] = []
        report = vault.strong.index(caller=OWNER, progress=lambda d, t: seen.append((d, t)))
        coverage = vault.strong.coverage()
        assert coverage.complete and coverage.covered == coverage.windows == len(LINES)
        assert report.windows == len(LINES) and report.remaining == 0
        assert seen[-1] == (len(LINES), len(LINES))
        calls = strong.calls
        again = vault.strong.index(caller=OWNER)
        assert (again.windows, again.embedded, strong.calls) == (0, 0, calls)
        assert vault.status().to_dict()["strong"]["complete"] is True


def test_a_re_cut_index_reuses_the_vectors_it_had(tmp_path: Path) -> None:
    strong = FakeStrongEmbedder()
    with strong_vault(tmp_path / "v.db", strong) as vault:
        vault.note("\n".join(LINES), caller=OWNER, title="Chat")
        vault.strong.index(caller=OWNER)
        calls = strong.calls
        vault.reindex(caller=OWNER)  # new chunk ids for the same windows
        assert vault.strong.coverage().covered == 0
        report = vault.strong.index(caller=OWNER)
        assert report.windows == len(LINES) and report.embedded == 0
        assert strong.calls == calls


class Failing(FakeStrongEmbedder):
    """Fails on the n-th call, as a killed process would stop mid-pass."""

    def __init__(self, fail_at: int) -> None:
        super().__init__()
        self.fail_at = fail_at
        self.rounds = 0

    def embed_documents(self, texts: Any) -> np.ndarray:
        self.rounds += 1
        if self.rounds == self.fail_at:
            raise RuntimeError("killed")
        return super().embed_documents(texts)


def test_a_pass_that_dies_loses_only_its_round_and_resumes(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    with strong_vault(path, Failing(fail_at=2)) as vault:
        vault.note("\n".join(LINES), caller=OWNER, title="Chat")
        with pytest.raises(RuntimeError):
            vault.strong.index(caller=OWNER, round_windows=2)
        assert vault.strong.coverage().covered == 2  # the first round landed whole
    with strong_vault(path) as vault:
        report = vault.strong.index(caller=OWNER)
        assert report.windows == len(LINES) - 2 and vault.strong.coverage().complete


class Oracle(FakeStrongEmbedder):
    """A strong model that alone ties "zebra" lines to questions about striped animals."""

    def embed_documents(self, texts: Any) -> np.ndarray:
        self.calls += len(texts)
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in zip(rows, texts, strict=True):
            row[0 if "zebra" in text.lower() else 1] = 1.0
        return rows

    def embed_query(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        vector[0 if "striped" in text else 2] = 1.0
        return vector


def _without_the_model(path: Path, notes: list[str], query: str) -> ContextPack:
    """The context pack for `query` from a vault of `notes` with no strong model at all."""
    with Vault.open(
        path,
        models_dir=path.parent / "models",
        embedder=FakeEmbedder(),
        detector_factory=FakeDetector,
    ) as plain:
        for text in notes:
            plain.note(text, caller=OWNER, title="Trip")
        return plain.context(query, caller=OWNER, budget=1000)


def test_context_uses_the_strong_leg_and_falls_back_without_it(tmp_path: Path) -> None:
    target = "We saw zebras crossing the road at dawn."
    text = "\n".join([*LINES, target])
    query = "which striped animal did they see"
    with strong_vault(tmp_path / "a.db", Oracle()) as vault:
        vault.note(text, caller=OWNER, title="Trip")
        before = vault.context(query, caller=OWNER, budget=1000)  # nothing covered yet
        assert target not in before.text  # no word of the query: no other leg finds it
        vault.strong.index(caller=OWNER)
        packs = {}
        for mode in ("leg", "rerank"):
            finding.STRONG_MODE = mode
            try:
                packs[mode] = vault.context(query, caller=OWNER, budget=1000)
            finally:
                finding.STRONG_MODE = "leg"
        searched = vault.search(query, caller=OWNER)  # the fast path has no strong leg
    assert target in packs["leg"].text
    # Re-ranking orders what the fast legs found: a window they never found stays out.
    assert target not in packs["rerank"].text
    assert all(target not in hit.text for hit in searched.results)
    without = _without_the_model(tmp_path / "b.db", [text], query)
    assert [s.text for s in before.sections] == [s.text for s in without.sections]


def test_a_partial_ranking_keeps_the_places_of_windows_not_reached() -> None:
    shortlist = [10, 11, 12, 13, 14]  # the fast legs' order
    covered = {11, 13, 20, 21}  # 20 and 21: windows the fast legs did not find
    ranked = [21, 13, 20, 11]  # the strong index's order of what it covers
    assert partial_ranking(shortlist, covered, ranked) == [10, 21, 12, 13, 14, 20, 11]
    assert partial_ranking(shortlist, set(), []) == shortlist  # nothing covered: the fast order
    everything = set(shortlist) | covered
    assert partial_ranking(shortlist, everything, ranked) == ranked  # complete: its own order


def test_a_partial_strong_index_ranks_only_what_it_covers(tmp_path: Path) -> None:
    """While the strong pass has covered only some windows, it re-orders those; a window it
    has not reached keeps the place the fast legs gave it instead of falling behind the
    covered ones, however little those have to do with the question."""
    first = "Day seven: did we see an animal on the road? The road, the road!"
    target = "We saw zebras crossing the road at dawn."
    query = "which striped animal did they see on the road"
    notes = [
        first,  # the oldest: the pass reaches it last
        *(f"Road trip day {i}: fuel and snacks on the road." for i in range(6)),
        "Shopping list: milk and bread.",
        target,
    ]
    with strong_vault(tmp_path / "a.db", Oracle()) as vault:
        for text in notes:
            vault.note(text, caller=OWNER, title="Trip")
        vault.strong.index(caller=OWNER, limit=len(notes) - 1)  # every note but the first
        assert not vault.strong.coverage().complete
        finder = finding.Finder.of(vault.shared)
        fast = finder.hits(query, IndexFilters(), 20)
        partial = finder.hits(query, IndexFilters(), 20, strong=True)
    fast_order = [hit.chunk_id for hit in fast]
    partial_order = [hit.chunk_id for hit in partial]
    (unreached,) = [hit.chunk_id for hit in partial if hit.strong_similarity is None]
    # The fast legs rank the first note first; the strong model has not read it, and it
    # stays first (as a whole leg, the covered target would take its place).
    assert fast_order[0] == partial_order[0] == unreached
    # The fast legs rank the target below the road trip's days (its line says "road" once);
    # the strong model lifts it above several, and the shopping list stays below them.
    zebra = next(hit.chunk_id for hit in partial if (hit.strong_similarity or 0) > 0.5)
    assert partial_order.index(zebra) < fast_order.index(zebra) - 2
    shopping = next(h.chunk_id for h in partial if h.keyword_rank is h.vector_rank is None)
    assert partial_order[-1] == shopping


def test_a_partial_strong_leg_brings_in_only_windows_the_filters_allow(tmp_path: Path) -> None:
    """The partial leg adds windows the fast legs did not find; each passes the filters."""
    query = "which striped animal did they see"
    with strong_vault(tmp_path / "a.db", Oracle()) as vault:
        for day in range(4):
            vault.note(f"Day {day}: fuel and snacks.", caller=OWNER, title="Trip", shelf="trips")
        vault.note("Zebras at the fence of the zoo.", caller=OWNER, title="Zoo", shelf="zoo")
        vault.note("A zebra crossing by the school.", caller=OWNER, title="Town", shelf="trips")
        vault.strong.index(caller=OWNER, limit=2)  # the two newest: one zebra per shelf
        assert not vault.strong.coverage().complete
        finder = finding.Finder.of(vault.shared)
        trips = finder.hits(query, IndexFilters(shelves=("trips",)), 10, strong=True)
        everywhere = finder.hits(query, IndexFilters(), 10, strong=True)
        texts = dict(vault.conn.execute("SELECT id, text FROM sections").fetchall())
    zebras = [hit for hit in everywhere if (hit.strong_similarity or 0) > 0.5]
    # No word of the query is in either: the strong leg alone brings them in, first.
    assert len(zebras) == 2 and everywhere[0] in zebras
    assert [texts[h.section_id] for h in trips if (h.strong_similarity or 0) > 0.5] == [
        "A zebra crossing by the school."
    ]


def test_a_partial_strong_leg_ranks_what_the_filters_allow_not_what_they_drop(
    tmp_path: Path,
) -> None:
    """Its best windows elsewhere (another shelf) take no place of the covered windows the
    filters let through: with nothing better it knows on this shelf, the fast order stands
    (a window it has not reached got the places the others left)."""
    query = "which striped animal did they see"
    with strong_vault(tmp_path / "a.db", Oracle()) as vault:
        for i in range(3):  # on the trips shelf, the fast legs' order: A, then B, then C
            words = "striped animal see " * (3 - i)
            vault.note(f"Trip {'ABC'[i]}: {words}", caller=OWNER, title="Trip", shelf="trips")
        for i in range(14):  # elsewhere, what the strong model ranks first
            vault.note(f"Zebra {i} at the zoo.", caller=OWNER, title="Zoo", shelf="zoo")
        vault.strong.index(caller=OWNER)
        uncover = "DELETE FROM strong_chunks WHERE chunk_id IN (SELECT c.id FROM chunks c"
        uncover += " JOIN sections s ON s.id = c.section_id WHERE s.text LIKE 'Trip %: %' AND"
        uncover += " s.text NOT LIKE 'Trip B%')"
        vault.conn.execute(uncover)  # A and C not reached, B reached
        assert not vault.strong.coverage().complete
        finder = finding.Finder.of(vault.shared)
        trips = IndexFilters(shelves=("trips",))
        fast = [hit.chunk_id for hit in finder.hits(query, trips, 3)]
        partial = finder.hits(query, trips, 3, strong=True)
    assert [hit.chunk_id for hit in partial] == fast
    assert [hit.strong_similarity is not None for hit in partial] == [False, True, False]


def _masked_rows(vault: Vault) -> dict[int, bytes]:
    index = vault.shared.engines.strong_vectors_for("masked")
    assert index is not None
    index.refresh(vault.conn)
    return dict(strong_index.vectors_after(vault.conn, 0, "masked"))


def test_gated_callers_are_ranked_by_strong_vectors_of_masked_text(tmp_path: Path) -> None:
    strong = FakeStrongEmbedder()
    email = "dana.quill@kazor-post.com"
    line = f"Write to {email} about the invoice."
    with strong_vault(tmp_path / "v.db", strong) as vault:
        vault.note(f"Contacts\n{line}\nThe plumber came on Monday.", caller=OWNER, title="T")
        vault.context("warm up", caller=AGENT, budget=200)  # builds the masked entries
        vault.strong.index(caller=OWNER)
        masked = _masked_rows(vault)
        plain = dict(strong_index.vectors_after(vault.conn, 0, "plain"))
        masked_text = vault.conn.execute(  # test-only peek at the masked entry
            "SELECT g.text FROM gated_fts g JOIN masked_chunks m ON m.chunk_id = g.rowid"
        ).fetchall()
        (written,) = vault.conn.execute("SELECT created_at FROM documents").fetchone()
    assert masked_text, "the window with the email has a masked entry"
    (entry,) = [text for (text,) in masked_text if "invoice" in strong_input(text)]
    assert email not in entry
    expected = strong.embed_documents([strong_input(entry, written)])[0]
    leaked = strong.embed_documents([strong_input(line, written)])[0]
    expected, leaked = expected.astype(np.float32).tobytes(), leaked.astype(np.float32).tobytes()
    assert expected in masked.values()
    assert leaked in plain.values() and leaked not in masked.values()


def test_no_strong_presence_oracle(tmp_path: Path) -> None:
    """An agent's context pack is the same whichever email the vault holds."""

    def reply(folder: str, email: str) -> Any:
        path = tmp_path / folder / "v.db"
        path.parent.mkdir()
        with strong_vault(path) as vault:
            vault.note(
                f"Contacts\nWrite to {email} about the invoice.\nThe plumber came on Monday.",
                caller=OWNER,
                title="T",
            )
            vault.context("warm up", caller=AGENT, budget=200)
            vault.strong.index(caller=OWNER)
            probe = "dana.quill@kazor-post.com invoice"
            return normal_form(vault.context(probe, caller=AGENT, budget=60).to_dict())

    assert reply("a", "dana.quill@kazor-post.com") == reply("b", "lon.vik@zorbu-post.com")


def test_a_vault_without_the_model_has_no_strong_leg(tmp_path: Path) -> None:
    with Vault.open(
        tmp_path / "v.db",
        models_dir=tmp_path / "models",
        embedder=FakeEmbedder(),
        detector_factory=FakeDetector,
    ) as vault:
        vault.note("\n".join(LINES), caller=OWNER)
        report = vault.strong.index(caller=OWNER)
        assert report.model is None and report.windows == 0
        assert vault.status().to_dict()["strong"]["model"] is None
        assert vault.context("painted sunrise", caller=OWNER).text


def test_only_the_owner_runs_the_pass(tmp_path: Path) -> None:
    from privault.errors import AccessDenied

    with strong_vault(tmp_path / "v.db") as vault, pytest.raises(AccessDenied):
        vault.strong.index(caller=AGENT)


@pytest.mark.parametrize(
    ("indexed", "expected"),
    [
        ("Chat › 8 May\nA: one\nB: two\nC: three", "C: three"),
        ("only line", "only line"),
        ("label\nA: <PERSON> said hi\n", "A: <PERSON> said hi"),
        ("label\n   ", "label"),
    ],
)
def test_strong_input_is_the_entry_s_own_line(indexed: str, expected: str) -> None:
    assert strong_input(indexed) == expected


def test_the_server_clock_runs_the_pass_in_rounds(tmp_path: Path, monkeypatch: Any) -> None:
    from privault.interfaces import scheduler

    path = tmp_path / "v.db"
    with strong_vault(path) as vault:
        vault.note("\n".join(LINES), caller=OWNER)
    monkeypatch.setattr(scheduler, "STRONG_BATCH", 2)
    clock = scheduler.Clock(lambda: strong_vault(path))
    clock._vault = strong_vault(path)  # the vault `start()` would open, without the timer
    try:
        clock.strong_index()
        assert clock._vault.strong.coverage().covered == 2
        for _ in range(3):
            clock.strong_index()
        assert clock._vault.strong.coverage().complete
    finally:
        clock.stop()


def test_the_server_clock_s_pass_steps_aside_while_calls_are_served(
    tmp_path: Path, monkeypatch: Any
) -> None:
    from privault.interfaces import scheduler

    path = tmp_path / "v.db"
    with strong_vault(path) as vault:
        vault.note("\n".join(LINES), caller=OWNER)
    monkeypatch.setattr(scheduler, "STRONG_STEP", 1)
    answers: list[bool] = []  # what `busy` says next, then False

    def busy() -> bool:
        return answers.pop(0) if answers else False

    clock = scheduler.Clock(lambda: strong_vault(path), busy=busy)
    clock._vault = strong_vault(path)
    try:
        answers[:] = [True]  # a call is being served: the tick does nothing
        clock.strong_index()
        assert clock._vault.strong.coverage().covered == 0
        answers[:] = [False, True]  # one step, then a call comes in
        clock.strong_index()
        assert clock._vault.strong.coverage().covered == 1
        clock.strong_index()  # idle: the rest
        assert clock._vault.strong.coverage().complete
    finally:
        clock.stop()


def test_the_index_command_runs_the_pass_and_status_shows_coverage(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from privault.interfaces.cli import app
    from privault.interfaces.cli.common import EngineChoice, using_engines

    engines = EngineChoice(
        embedder=FakeEmbedder(), detector_factory=FakeDetector, strong=FakeStrongEmbedder()
    )
    runner = CliRunner()
    with using_engines(engines):
        assert runner.invoke(app, ["note", "\n".join(LINES)]).exit_code == 0
        before = runner.invoke(app, ["status", "--json"])
        done = runner.invoke(app, ["index", "--json"])
        after = runner.invoke(app, ["status"])
    assert '"covered": 0' in before.output
    assert done.exit_code == 0 and '"remaining": 0' in done.output
    assert f"{len(LINES)} of {len(LINES)} windows (100%)" in after.output


def test_another_strong_model_starts_the_index_over(tmp_path: Path) -> None:
    class Other(FakeStrongEmbedder):
        name = "other-strong"

    path = tmp_path / "v.db"
    with strong_vault(path) as vault:
        vault.note("\n".join(LINES), caller=OWNER)
        vault.strong.index(caller=OWNER)
    with strong_vault(path, Other(dim=32)) as vault:
        # Not indexed by this model yet: no strong leg, and no vector of the other model.
        assert vault.context("painted sunrise", caller=OWNER).text
        report = vault.strong.index(caller=OWNER)
        assert report.windows == len(LINES) and vault.strong.coverage().complete
        index = vault.shared.engines.strong_vectors_for("plain")
        assert index is not None
        index.refresh(vault.conn)
        assert len(index) == len(LINES)


def _covered_docs(vault: Vault) -> set[str]:
    return {
        doc_id
        for (doc_id,) in vault.conn.execute(
            "SELECT DISTINCT s.doc_id FROM strong_chunks k JOIN chunks c ON c.id = k.chunk_id"
            " JOIN sections s ON s.id = c.section_id"
        )
    }


def test_the_pass_covers_notes_before_files_and_the_newest_first(tmp_path: Path) -> None:
    with strong_vault(tmp_path / "v.db") as vault:
        old = vault.note("An old note about the garden.", caller=OWNER, created_at=1_000)
        new = vault.note("A new note about the garden.", caller=OWNER, created_at=9_000)
        file = tmp_path / "imported.md"
        file.write_text("An imported file about the garden, the newest of all.\n")
        imported = vault.add([file], caller=OWNER).added[0]
        vault.strong.index(caller=OWNER, limit=1)
        assert _covered_docs(vault) == {new.doc_id}
        vault.strong.index(caller=OWNER, limit=1)
        assert _covered_docs(vault) == {new.doc_id, old.doc_id}
        vault.strong.index(caller=OWNER, limit=1)
        assert _covered_docs(vault) == {new.doc_id, old.doc_id, imported.doc_id}
        assert "newest first" in vault.status().to_dict()["strong"]["order"]


def test_the_owner_steers_the_pass_to_a_shelf_and_a_date(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from privault.interfaces.cli import app
    from privault.interfaces.cli.common import EngineChoice, using_engines

    path = tmp_path / "v.db"
    with strong_vault(path) as vault:
        work_old = vault.note("Old work plan.", caller=OWNER, shelf="work", created_at=1_000)
        work_new = vault.note(
            "New work plan.", caller=OWNER, shelf="work", created_at=1_700_000_000_000
        )
        vault.note("A newer note elsewhere.", caller=OWNER, created_at=1_800_000_000_000)
    engines = EngineChoice(
        embedder=FakeEmbedder(), detector_factory=FakeDetector, strong=FakeStrongEmbedder()
    )
    env = {"PRIVAULT_VAULT": str(path)}
    with using_engines(engines):
        done = CliRunner().invoke(
            app,
            ["index", "--strong", "--shelf", "work", "--since", "2023-01-01", "--json"],
            env=env,
        )
    assert done.exit_code == 0, done.output
    with strong_vault(path) as vault:
        assert _covered_docs(vault) == {work_new.doc_id}
        assert work_old.doc_id not in _covered_docs(vault)


def test_a_window_is_embedded_after_its_day_when_the_input_is_dated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from privault.retrieval import strong as strong_module

    written = 1683538560000  # 8 May 2023, 09:36 UTC
    monkeypatch.setattr(strong_module, "STRONG_INPUT", "dated-line")
    assert strong_input("Chat\nA: one\nB: two", written) == "8 May 2023: B: two"
    assert strong_input("Chat\nA: one\nB: two") == "B: two"  # no day known: the line alone
    monkeypatch.setattr(strong_module, "STRONG_INPUT", "line")
    assert strong_input("Chat\nA: one\nB: two", written) == "B: two"


def test_vectors_made_from_another_input_are_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from privault.retrieval import strong as strong_module

    engine = FakeStrongEmbedder()
    monkeypatch.setattr(strong_module, "STRONG_INPUT", "line")
    with strong_vault(tmp_path / "v.db", engine) as vault:
        vault.note("Trip\nWe flew to Lisbon.\nThe hotel was by the sea.", caller=OWNER, title="T")
        vault.strong.index(caller=OWNER)
        before = dict(strong_index.vectors_after(vault.conn, 0, "plain"))
        assert vault.strong.index(caller=OWNER).windows == 0  # nothing left to do
        monkeypatch.setattr(strong_module, "STRONG_INPUT", "dated-line")
        report = vault.strong.index(caller=OWNER)
        after = dict(strong_index.vectors_after(vault.conn, 0, "plain"))
        (written,) = vault.conn.execute("SELECT created_at FROM documents").fetchone()
        complete = vault.strong.coverage().complete
    assert before and report.windows == len(before) and complete
    assert set(after) == set(before)  # the same windows, each with a new vector
    assert not set(after.values()) & set(before.values())
    dated = engine.embed_documents([strong_input("The hotel was by the sea.", written)])[0]
    assert dated.astype(np.float32).tobytes() in after.values()


def test_what_agents_read_lately_is_covered_first(tmp_path: Path) -> None:
    from tests.helpers import mcp_ok

    with strong_vault(tmp_path / "v.db") as vault:
        new = vault.note("A new note about the garden.", caller=OWNER, created_at=9_000)
        file = tmp_path / "boiler.md"
        file.write_text("The boiler manual: bleed the radiators every autumn.\n")
        manual = vault.add([file], caller=OWNER).added[0]
        vault.agents.issue("claude")
        node = vault.conn.execute(
            "SELECT node_id FROM sections WHERE doc_id = ?", (manual.doc_id,)
        ).fetchone()[0]
        read = mcp_ok(vault, "claude", "memory_read", node_id=node)
        assert "bleed the radiators" in read["text"]
        vault.strong.index(caller=OWNER, limit=1)
        assert _covered_docs(vault) == {manual.doc_id}  # a file, yet read: first
        vault.strong.index(caller=OWNER, limit=1)
        assert _covered_docs(vault) == {manual.doc_id, new.doc_id}
        # Only reads inside the window count.
        (read_at,) = vault.conn.execute("SELECT max(at) FROM audit").fetchone()
        assert strong_index.recently_read(vault.conn, since=read_at) == [manual.doc_id]
        assert strong_index.recently_read(vault.conn, since=read_at + 1) == []
        assert "what agents read" in vault.status().to_dict()["strong"]["order"]


def test_hits_carry_what_each_leg_scored_them(tmp_path: Path) -> None:
    """Fused scores only say how high the legs ranked a window; each hit also carries the
    legs' own scores (bm25, the fast and the strong cosine), where that leg found it."""
    strong = FakeStrongEmbedder()
    query = "camping in the mountains"
    with strong_vault(tmp_path / "v.db", strong) as vault:
        vault.note("\n".join(LINES), caller=OWNER, title="Chat")
        vault.strong.index(caller=OWNER)
        finder = finding.Finder.of(vault.shared)
        hits = finder.hits(query, IndexFilters(), 10, strong=True)
        without = finder.hits(query, IndexFilters(), 10)  # the strong leg not asked for
    camping = float(strong.embed_query(query) @ strong.embed_documents([LINES[3]])[0])
    scored = [hit.strong_similarity for hit in hits]
    assert len(hits) == len(LINES) and None not in scored
    assert max(scored) == pytest.approx(camping, abs=1e-5)  # the camping line's own cosine
    # Only the windows holding the camping line have the query's words (its own, and the
    # next line's, which repeats it): the keyword leg scored those two alone.
    keyword = [hit for hit in hits if hit.keyword_score is not None]
    assert len(keyword) == 2 and all(hit.keyword_score > 0 for hit in keyword)
    assert camping in [pytest.approx(hit.strong_similarity, abs=1e-5) for hit in keyword]
    # Each leg's scores fall as its ranks rise.
    by_rank = sorted((h for h in hits if h.vector_rank is not None), key=lambda h: h.vector_rank)
    assert [h.similarity for h in by_rank] == sorted((h.similarity for h in by_rank), reverse=True)
    assert all(h.similarity is not None for h in by_rank)
    assert all(hit.strong_similarity is None for hit in without)
