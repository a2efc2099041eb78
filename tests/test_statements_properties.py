"""Property tests over random operation sequences.

Invariants: at any (valid_at, known_at) at most one version of a chain holds; no statement
ever disappears from `--all`; a refused operation changes no row; the SQL filters agree
with `Statement.holds_at` on the as-of views.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from contextlib import closing
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from privault import statements as st
from privault.errors import Conflict, InputError
from privault.statements import NewStatement
from privault.store.connection import Connection, connect, rows
from privault.store.migrations import migrate
from tests.helpers import examples

DAY = 86_400_000
START = 1_735_689_600_000  # 2025-01-01T00:00:00Z
KINDS = ("add", "supersede", "revise", "invalidate", "confirm", "dispute")
TABLES = ("statements", "statement_closures", "statement_attestations", "statement_disputes")

operation = hs.tuples(
    hs.sampled_from(KINDS),
    hs.integers(0, 40),  # which statement
    hs.integers(0, 40),  # which other statement (dispute) / window length
    hs.integers(0, 4),  # days the clock moves first (0: same millisecond)
    hs.integers(-8, 8),  # where a window starts or ends, in days from now
    hs.booleans(),  # give an explicit valid_to
)


def _snapshot(conn: Connection) -> list[list[dict[str, object]]]:
    return [rows(conn, f"SELECT * FROM {table} ORDER BY 1") for table in TABLES]


def _apply(conn: Connection, op: tuple, ids: list[str], now: int) -> None:
    kind, pick, other, _, offset, bounded = op
    moment = now + offset * DAY
    length = (other % 5) * DAY
    if kind == "add" or not ids:
        st.add(
            conn,
            NewStatement(
                f"fact {len(ids)}",
                entities=[f"e{pick % 3}"],
                valid_from=moment,
                valid_to=moment + length if bounded else None,
            ),
            now_ms=now,
        )
        return
    target = ids[pick % len(ids)]
    if kind == "supersede":
        end = moment + length if bounded else None
        st.supersede(
            conn, target, NewStatement(f"new {target}", valid_from=moment, valid_to=end), now_ms=now
        )
    elif kind == "revise":
        st.revise(conn, target, NewStatement(f"reworded {target}"), now_ms=now)
    elif kind == "invalidate":
        st.invalidate(conn, target, valid_to=moment, reason="random", now_ms=now)
    elif kind == "confirm":
        st.confirm(conn, target, now_ms=now)
    else:
        st.dispute(conn, target, ids[other % len(ids)], now_ms=now)


def _all_ids(conn: Connection, known: int) -> set[str]:
    found = st.query(conn, include_closed=True, limit=None, known_at=known, now_ms=known)
    return {s.id for s in found}


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(hs.lists(operation, min_size=1, max_size=25))
def test_random_sequences_keep_the_invariants(ops: list[tuple]) -> None:
    with tempfile.TemporaryDirectory() as folder, closing(connect(Path(folder) / "p.db")) as conn:
        migrate(conn)
        _check(conn, ops)


def _check(conn: Connection, ops: list[tuple]) -> None:
    now = START
    moments = []
    ever: set[str] = set()
    for op in ops:
        now += op[3] * DAY
        ids = sorted(ever)
        before = _snapshot(conn)
        try:
            _apply(conn, op, ids, now)
        except (InputError, Conflict):
            assert _snapshot(conn) == before, f"refused {op[0]} changed rows"
        moments.append(now)
        listed = _all_ids(conn, now)
        assert ever <= listed, "a statement disappeared from --all"
        ever = listed

    points = sorted(
        {p for m in moments for p in (m - 1, m, m + 1)}
        | {START + d * DAY + e for d in range(-10, 120) for e in (-1, 0)}
    )
    for known in sorted(set(moments)):
        views = st.query(conn, include_closed=True, limit=None, known_at=known, now_ms=known)
        for view in views:
            assert view.valid_to is None or view.valid_to >= view.valid_from
        for valid in points:
            holding = Counter(v.chain_id for v in views if v.holds_at(valid))
            assert max(holding.values(), default=0) <= 1, (known, valid, holding)

    # The SQL filter and the Python view agree, on a sample of (known, valid) pairs.
    for known in sorted(set(moments))[::3]:
        views = st.query(conn, include_closed=True, limit=None, known_at=known, now_ms=known)
        for valid in points[:: max(1, len(points) // 12)]:
            by_sql = st.query(conn, valid_at=valid, known_at=known, limit=None, now_ms=known)
            assert {s.id for s in by_sql} == {v.id for v in views if v.holds_at(valid)}
