"""No timing presence oracle: an agent's search does the same work whether the vault holds
a masked value or another value of the same shape in its place.

Work is counted in SQLite virtual-machine steps (a progress handler called at every step),
which the machine's load does not change. A gated search that found the plain rows of
masked windows and dropped them afterwards did work in proportion to how often the vault
holds the searched value: a name the vault holds took measurably longer to not find than
an absent one.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmarks.presence import vm_steps
from privault import Caller, Vault
from privault.retrieval import fts
from privault.store import integrity, keyword_pruning
from privault.store.connection import write
from privault.store.migrations import migrate
from tests.helpers import fake_vault

OWNER = Caller.owner()
AGENT = Caller.agent("claude")
HELD = "dana.quill@kazormail.org"
ABSENT = "vik.lonmir@senboxes.net"  # the same shape, and no word in common


def build(path: Path, value: str) -> Vault:
    """A vault whose owner wrote `value` into many notes and statements, among as many
    without it."""
    vault = fake_vault(path)
    notes = [{"text": f"Write to {value} about the invoice of flat {i}."} for i in range(60)]
    notes += [{"text": f"The rent of flat {i} is due; mind the padlock."} for i in range(60)]
    vault.note_many(notes, caller=OWNER)
    for i in range(20):
        vault.statements.add(f"Invoice {i} went to {value}", caller=OWNER, entities=["org:Agency"])
        vault.statements.add(f"The rent of flat {i} is due", caller=OWNER, entities=["org:Agency"])
    return vault


def work(vault: Vault, probe: str) -> dict[str, int]:
    """Steps of an agent's searches for `probe`, warmed once so caches are filled alike."""
    calls: dict[str, Callable[[], object]] = {
        "search": lambda: vault.search(f"{probe} rent", caller=AGENT),
        "search alone": lambda: vault.search(probe, caller=AGENT),
        "context": lambda: vault.context(f"{probe} rent", caller=AGENT, budget=300),
        "statements": lambda: vault.statements.query(caller=AGENT, text=probe),
    }
    for call in calls.values():
        call()
    return {name: vm_steps(vault, call) for name, call in calls.items()}


def test_an_agents_search_for_a_held_value_does_no_more_work_than_for_an_absent_one(
    tmp_path: Path,
) -> None:
    with build(tmp_path / "held.db", HELD) as held, build(tmp_path / "other.db", ABSENT) as other:
        # Within one vault: the held value against an absent one of the same shape.
        probing = work(held, HELD)
        assert probing == work(held, ABSENT)
        # The same probe against a vault holding another value in its place. Document ids
        # are random, and looking up a list of them can take a step more or less; finding
        # and dropping the held value's 60 plain rows took ~8% more.
        elsewhere = work(other, HELD)
        for name, count in probing.items():
            assert abs(count - elsewhere[name]) <= count // 1000, (name, count, elsewhere[name])


def test_the_owner_finds_the_held_value_by_its_words(tmp_path: Path) -> None:
    """The plain view still holds the text: the owner's search finds what agents cannot."""
    with build(tmp_path / "held.db", HELD) as vault:
        mine = vault.search(f"{HELD} rent", caller=OWNER).results
        theirs = vault.search(HELD, caller=AGENT).results
    assert mine and all(HELD in hit.text for hit in mine[:5])
    assert not any(HELD in hit.text for hit in theirs)


def _as_before_migration_26(vault: Vault) -> None:
    """Put the gated keyword rows back where they were before migration 26: masked text in
    `chunks_fts` at `-chunk_id`, none for windows without a masked entry."""
    conn = vault.conn
    with write(conn):
        conn.execute(
            "INSERT INTO chunks_fts (rowid, text) SELECT -g.rowid, g.text FROM gated_fts g"
            " JOIN masked_chunks m ON m.chunk_id = g.rowid"
        )
        conn.execute("DROP TABLE gated_fts")
        conn.execute("DELETE FROM schema_migrations WHERE version = 26")


def test_migration_26_moves_gated_rows_to_their_own_table(tmp_path: Path) -> None:
    with build(tmp_path / "v.db", HELD) as vault:
        vault.note(f"Queued: write to {HELD} about the boiler.", caller=OWNER, background=True)
        conn = vault.conn
        gated = sorted(conn.execute("SELECT rowid, text FROM gated_fts").fetchall())
        plain = sorted(conn.execute("SELECT rowid, text FROM chunks_fts").fetchall())
        replies = [
            vault.search(f"{HELD} rent boiler", caller=caller).to_dict()["results"]
            for caller in (AGENT, OWNER)
        ]
        _as_before_migration_26(vault)
        assert conn.execute("SELECT count(*) FROM chunks_fts WHERE rowid < 0").fetchone()[0] > 0
        migrate(conn)
        assert sorted(conn.execute("SELECT rowid, text FROM gated_fts").fetchall()) == gated
        assert sorted(conn.execute("SELECT rowid, text FROM chunks_fts").fetchall()) == plain
        assert not any(integrity.half_written(conn).values())
        assert vault.status().index.healthy
        again = [
            vault.search(f"{HELD} rent boiler", caller=caller).to_dict()["results"]
            for caller in (AGENT, OWNER)
        ]
    assert again == replies
    # The queued note has a plain row (the owner finds it) and no gated one yet.
    assert any("boiler" in text for _, text in plain)
    assert not any("boiler" in text for _, text in gated)


def test_a_pruned_keyword_ranking_does_the_same_work_for_a_held_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large vault's keyword ranking counts words and proves its ranking in the gated
    table alone: pruning (on here at any size) keeps a held value's work that of an
    absent one, and it does prune these rankings."""
    monkeypatch.setattr(keyword_pruning, "MIN_ROWS", 0)
    proved: list[bool] = []
    ranked = keyword_pruning.ranked

    def spy(*args: Any, **kwargs: Any) -> list[tuple[int, float]] | None:
        found = ranked(*args, **kwargs)
        proved.append(found is not None)
        return found

    monkeypatch.setattr(keyword_pruning, "ranked", spy)
    diary = "tomatoes courgettes beans compost watering weeding mulch " * 3
    with fake_vault(tmp_path / "held.db") as held:
        notes = [{"text": f"Write to {HELD} about the boiler invoice {i}."} for i in range(60)]
        # More rows hold both words than a search ranks (120), under long ones without.
        notes += [{"text": f"The shed {i} needs a padlock and a hinge."} for i in range(150)]
        notes += [{"text": f"Garden diary {i}: {diary}"} for i in range(400)]
        held.note_many(notes, caller=OWNER)

        def probe(value: str) -> int:  # the keyword leg alone: the vector leg's
            # candidates differ with the query's words, held or not
            query = f"{value} padlock hinge"
            return vm_steps(held, lambda: fts.ranked(held.conn, query, 120, "masked"))

        probe(HELD), probe(ABSENT)  # warmed alike: each probe's word counts kept once
        assert probe(HELD) == probe(ABSENT)
    assert proved and all(proved)
