"""Two writers on one vault file race to supersede the same statement: exactly one wins."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from privault import statements as st
from privault.errors import Conflict
from privault.statements import NewStatement
from privault.store.connection import connect
from privault.store.migrations import migrate


@pytest.mark.parametrize("round_number", range(5))
def test_concurrent_supersede_one_wins_one_conflicts(tmp_path: Path, round_number: int) -> None:
    path = tmp_path / "race.db"
    setup = connect(path)
    migrate(setup)
    target = st.add(setup, NewStatement("Bo is the contact", entities=["Bo"]))
    writers = [connect(path), connect(path)]
    start = threading.Barrier(len(writers))
    outcomes: list[object] = [None, None]

    def race(index: int) -> None:
        start.wait()
        try:
            outcomes[index] = st.supersede(
                writers[index], target.id, NewStatement(f"writer {index} wins")
            )
        except Conflict as exc:
            outcomes[index] = exc

    threads = [threading.Thread(target=race, args=(i,)) for i in range(len(writers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    winners = [o for o in outcomes if isinstance(o, st.Statement)]
    losers = [o for o in outcomes if isinstance(o, Conflict)]
    assert len(winners) == 1 and len(losers) == 1, outcomes
    assert "already superseded" in str(losers[0]) and winners[0].id in str(losers[0])
    chain = st.history(setup, target.id)
    assert [s.id for s in chain] == [target.id, winners[0].id]
    assert [s.content for s in st.query(setup, entities=["bo"])] == [winners[0].content]
    for connection in (*writers, setup):
        connection.close()
