"""A search ranks its keywords on a second connection to the vault file (the companion)
while the vector leg runs on the first: the same hits either way, for every caller."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks.presence import vm_steps
from privault import Caller, Vault
from privault.filters import EVERYTHING
from privault.models import cores
from privault.retrieval import fts, search
from privault.store.connection import DatabaseError, companion, connect, write
from privault.store.migrations import migrate
from privault.timeutil import parse_time
from tests.helpers import fake_vault

OWNER = Caller.owner()
AGENT = Caller.agent("claude")


def _hits(vault: Vault, queries: list[str]) -> list[list[tuple[str, float]]]:
    """Each query's hits (node id, score), for the owner and for an agent."""
    return [
        [(hit.node_id, hit.score) for hit in vault.search(q, caller=c).results]
        for q in queries
        for c in (OWNER, AGENT)
    ]


def _hits_alone(
    vault: Vault, queries: list[str], monkeypatch: pytest.MonkeyPatch
) -> list[list[tuple[str, float]]]:
    """`_hits` as a search without the companion finds them."""
    inline = search.companion
    monkeypatch.setattr(search, "companion", lambda conn: None)
    try:
        return _hits(vault, queries)
    finally:
        monkeypatch.setattr(search, "companion", inline)


def _plumbing_notes(count: int) -> list[dict[str, str]]:
    notes = [{"text": f"The plumber fixed the boiler in flat {i}."} for i in range(count)]
    return notes + [
        {"text": f"Call Dana Quill on invoice {i}: dana@example.org"} for i in range(count)
    ]


def test_the_companion_reads_the_same_file_and_cannot_write(tmp_path: Path) -> None:
    conn = connect(tmp_path / "v.db", key="correct horse battery staple")
    migrate(conn)
    with write(conn):
        conn.execute("INSERT INTO meta (key, value) VALUES ('probe', 'seen')")
    beside = companion(conn)
    assert beside is not None and beside is not conn
    assert companion(conn) is beside  # opened once, then kept
    assert beside.execute("SELECT value FROM meta WHERE key = 'probe'").fetchone() == ("seen",)
    with pytest.raises(DatabaseError):
        beside.execute("INSERT INTO meta (key, value) VALUES ('other', 'x')")
    conn.close()
    with pytest.raises(DatabaseError):  # closed with the connection it serves
        beside.execute("SELECT 1")


def test_no_companion_where_it_would_not_see_what_the_connection_sees(tmp_path: Path) -> None:
    memory = connect(":memory:")
    assert companion(memory) is None
    memory.close()
    conn = connect(tmp_path / "v.db")
    migrate(conn)
    with write(conn):  # uncommitted rows: only this connection sees them
        assert companion(conn) is None
    assert companion(conn) is not None
    conn.close()


def test_search_finds_the_same_with_and_without_the_companion(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with fake_vault(tmp_path / "v.db") as vault:
        vault.note_many(_plumbing_notes(30), caller=OWNER)
        queries = ["boiler flat 7", "invoice Dana", "dana@example.org", "garden"]

        beside = _hits(vault, queries)
        assert vault.conn.companion_connection is not None  # the keyword leg ran beside
        monkeypatch.setattr(search, "companion", lambda conn: None)
        assert _hits(vault, queries) == beside
        assert any(beside)


def test_work_on_the_companion_is_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with fake_vault(tmp_path / "v.db") as vault:
        vault.note_many([{"text": f"Boiler service {i}"} for i in range(40)], caller=OWNER)
        vault.search("boiler", caller=OWNER)
        beside = vm_steps(vault, lambda: vault.search("boiler service", caller=OWNER))
        monkeypatch.setattr(search, "companion", lambda conn: None)
        inline = vm_steps(vault, lambda: vault.search("boiler service", caller=OWNER))
        assert abs(beside - inline) <= inline // 100


def test_a_failed_query_embedding_waits_for_the_keyword_leg(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The companion serves one search at a time: a search that fails before it collects
    its keyword leg still waits for it, so the next search never shares the connection."""
    with fake_vault(tmp_path / "v.db") as vault:
        vault.note_many([{"text": f"Boiler service {i}"} for i in range(20)], caller=OWNER)
        started, finished = threading.Event(), threading.Event()
        ranked = search.fts.ranked

        def slow_ranked(*args: Any, **kwargs: Any) -> list[tuple[int, float]]:
            started.set()
            time.sleep(0.3)
            found = ranked(*args, **kwargs)
            finished.set()
            return found

        def broken() -> np.ndarray:
            started.wait(5)
            raise RuntimeError("the embedder failed")

        monkeypatch.setattr(search.fts, "ranked", slow_ranked)
        index = vault.shared.engines.vectors_for("plain")
        with pytest.raises(RuntimeError, match="embedder failed"):
            search.hybrid(vault.conn, index, "boiler", broken, EVERYTHING, 10)
        assert finished.is_set()
        monkeypatch.setattr(search.fts, "ranked", ranked)
        assert vault.search("boiler service", caller=OWNER).results


def test_two_ranges_of_chunk_ids_rank_as_the_whole_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bm25 takes its statistics from the whole table in either range, so the merged
    rankings of `fts.split`'s two ranges are the ranking of the whole index, scores too."""
    with fake_vault(tmp_path / "v.db") as vault:
        words = ["boiler", "plumber", "invoice", "garden", "flat", "service"]
        texts = [" ".join(w for k, w in enumerate(words) if i % (k + 2) == 0) for i in range(80)]
        notes = [{"text": f"{text} note {i}"} for i, text in enumerate(texts)]
        vault.note_many(notes, caller=OWNER)
        index = vault.shared.engines.vectors_for("plain")
        index.refresh(vault.conn)
        low, high = index.id_span
        assert (low, high) == vault.conn.execute("SELECT min(id), max(id) FROM chunks").fetchone()
        assert fts.split(low, high) is None  # 80 chunks: one statement
        monkeypatch.setattr(fts, "SPLIT_MIN_CHUNKS", 10)
        ranges = fts.split(low, high)
        assert ranges is not None
        (start, middle), (middle_again, end) = ranges
        assert start < low < middle == middle_again <= high < end
        for query in ("boiler plumber", "garden", "flat service invoice"):
            whole = fts.ranked(vault.conn, query, 200)
            parts = [fts.ranked(vault.conn, query, 200, "plain", part) for part in ranges]
            assert all(parts) and len(whole) >= 16
            assert sorted(fts.merged(*parts, 200)) == sorted(whole)
            best = fts.merged(*parts, 7)  # ties may order differently; the scores may not
            assert [score for _, score in best] == [score for _, score in whole[:7]]
            assert {chunk for chunk, _ in best} <= {chunk for chunk, _ in whole}


def test_search_splits_its_keyword_leg_only_with_a_spare_core(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with fake_vault(tmp_path / "v.db") as vault:
        vault.note_many(_plumbing_notes(40), caller=OWNER)
        queries = ["boiler flat 7", "invoice Dana", "plumber", "garden"]

        whole = _hits(vault, queries)
        seen: list[tuple[int, int] | None] = []
        ranked = fts.ranked

        def spy(*args: Any, **kwargs: Any) -> list[tuple[int, float]]:
            seen.append(args[4] if len(args) > 4 else None)
            return ranked(*args, **kwargs)

        monkeypatch.setattr(fts, "ranked", spy)
        monkeypatch.setattr(fts, "SPLIT_MIN_CHUNKS", 10)
        monkeypatch.setattr(cores, "spare_core", lambda: False)
        assert _hits(vault, queries) == whole
        assert seen and all(part is None for part in seen)  # no idle core: one range
        seen.clear()
        monkeypatch.setattr(cores, "spare_core", lambda: True)
        assert _hits(vault, queries) == whole
        assert seen and all(part is not None for part in seen)
        assert len(seen) == 2 * len(queries) * 2


def test_a_keyword_ranking_pruning_proves_whole_is_ranked_whole_beside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a spare core, a large index's keywords are first offered to pruning on the
    companion; a ranking it proves whole is used as it is, and no range is ranked. One it
    cannot prove is ranked in the two ranges as before. The hits are the same."""
    with fake_vault(tmp_path / "v.db") as vault:
        # More rows hold two words than a search ranks (120), and long notes beside them
        # keep each word's bound under what its rows score.
        diary = "tomatoes courgettes beans compost watering weeding mulch " * 4
        vault.note_many(_plumbing_notes(150), caller=OWNER)
        vault.note_many([{"text": f"Garden diary {i}: {diary}"} for i in range(300)], caller=OWNER)
        queries = ["plumber boiler flat", "invoice", "call invoice"]
        whole = _hits(vault, queries)
        monkeypatch.setattr(search.fts.index_reads.keyword_pruning, "MIN_ROWS", 0)
        monkeypatch.setattr(fts, "SPLIT_MIN_CHUNKS", 10)
        monkeypatch.setattr(cores, "spare_core", lambda: True)
        proved: list[bool] = []
        seen: list[object] = []
        pruned, ranked = fts.pruned, fts.ranked

        def pruned_spy(*args: Any, **kwargs: Any) -> list[tuple[int, float]] | None:
            found = pruned(*args, **kwargs)
            proved.append(found is not None)
            return found

        def ranked_spy(*args: Any, **kwargs: Any) -> list[tuple[int, float]]:
            seen.append(args[4] if len(args) > 4 else None)
            return ranked(*args, **kwargs)

        monkeypatch.setattr(fts, "pruned", pruned_spy)
        monkeypatch.setattr(fts, "ranked", ranked_spy)
        assert _hits(vault, queries) == whole
        # "invoice" is one word: nothing to prune; the others are proved.
        assert proved == [True, True, False, False, True, True]
        assert len(seen) == 2 * proved.count(False) and None not in seen


@pytest.mark.parametrize("slower", ["keywords", "vectors"])
def test_a_dated_query_ranks_inside_its_period_once_on_the_thread_free_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, slower: str
) -> None:
    """The vectors inside a query's period are ranked once, by the companion when its
    keywords are done first, else by the search's own thread: the same hits as inline."""
    with fake_vault(tmp_path / "v.db") as vault:
        for month in range(1, 13):
            for day in (3, 17):
                vault.note(
                    f"Pottery class: glazing bowl number {month * day}, kiln at 1200 C.",
                    caller=OWNER,
                    created_at=parse_time(f"2023-{month:02d}-{day:02d}T18:00:00Z"),
                )
        queries = ["pottery in July 2023", "kiln on 17 March 2023", "glazing bowls"]
        alone = _hits_alone(vault, queries, monkeypatch)

        threads: list[str] = []
        nearest, ranked = search._nearest, fts.ranked

        def slow_nearest(conn: Any, *args: Any, **kwargs: Any) -> list[tuple[int, float]]:
            dated = len(args) > 3 and args[3] is not None
            threads.append(("dated " if dated else "") + threading.current_thread().name)
            if slower == "vectors" and not dated:
                time.sleep(0.05)
            return nearest(conn, *args, **kwargs)

        def slow_ranked(*args: Any, **kwargs: Any) -> list[tuple[int, float]]:
            if slower == "keywords" and "privault-keywords" in threading.current_thread().name:
                time.sleep(0.05)
            return ranked(*args, **kwargs)

        monkeypatch.setattr(search, "_nearest", slow_nearest)
        monkeypatch.setattr(fts, "ranked", slow_ranked)
        assert _hits(vault, queries) == alone
        assert any(alone)
        dated = [name for name in threads if name.startswith("dated ")]
        assert len(dated) == 4  # two dated queries, owner and agent: once each
        beside = ["privault-keywords" in name for name in dated]
        assert all(beside) if slower == "vectors" else not any(beside)


@pytest.mark.parametrize("pruning", [True, False])
def test_split_across_threads_a_dated_search_finds_what_it_finds_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pruning: bool
) -> None:
    """A large index's search on two threads (keywords pruned beside, or ranked in two
    ranges; the period's vectors on whichever thread is free first): the hits are those
    of a search without the companion, dated or not. Where the companion could not prune,
    the search's own thread ranks the rest of the keywords before the period's vectors."""
    with fake_vault(tmp_path / "v.db") as vault:
        vault.note_many(_plumbing_notes(60), caller=OWNER)
        for month in range(1, 13):
            vault.note(
                f"Pottery class: the plumber glazed bowl number {month}, kiln at 1200 C.",
                caller=OWNER,
                created_at=parse_time(f"2023-{month:02d}-09T18:00:00Z"),
            )
        queries = ["plumber kiln in July 2023", "plumber boiler flat", "glazed bowl invoice"]
        alone = _hits_alone(vault, queries, monkeypatch)
        monkeypatch.setattr(fts, "SPLIT_MIN_CHUNKS", 10)
        monkeypatch.setattr(cores, "spare_core", lambda: True)
        monkeypatch.setattr(
            search.fts.index_reads.keyword_pruning, "MIN_ROWS", 0 if pruning else 10**9
        )
        order: list[str] = []
        nearest, ranked = search._nearest, fts.ranked

        def nearest_spy(conn: Any, *args: Any, **kwargs: Any) -> list[tuple[int, float]]:
            if len(args) > 3 and args[3] is not None:
                order.append("period " + threading.current_thread().name)
            else:
                time.sleep(0.03)  # the companion knows by then whether it pruned
            return nearest(conn, *args, **kwargs)

        def ranked_spy(*args: Any, **kwargs: Any) -> list[tuple[int, float]]:
            if threading.current_thread() is threading.main_thread():
                time.sleep(0.1)  # the rest of the keywords outlasts the companion's range
                order.append("rest")
            elif len(args) > 4 and args[4] is not None:
                time.sleep(0.06)  # the companion's range outlasts the vector leg
            return ranked(*args, **kwargs)

        monkeypatch.setattr(search, "_nearest", nearest_spy)
        monkeypatch.setattr(fts, "ranked", ranked_spy)
        assert _hits(vault, queries) == alone
        assert all(alone)
        periods = [entry for entry in order if entry.startswith("period")]
        assert len(periods) == 2  # one dated query, owner and agent
        if not pruning:
            assert order.count("rest") == 2 * len(queries)
            assert all("privault-keywords" in entry for entry in periods)
