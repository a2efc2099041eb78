"""Turning local changes into stamped rows, and reading rows out for a bundle.

Triggers mark changed rows dirty with the time of the change; `stamp_changes` reads each
one back, and only a row whose content hash differs from what was last recorded gets a
new clock (the device's hybrid logical clock ticked at the change's own time) and the
next local change number. A write that changed nothing, or an import that wrote a row
exactly as it arrived, therefore costs no new clock and is not sent again.
"""

from __future__ import annotations

from privault.store import sync_read, sync_state
from privault.store.connection import Connection, write
from privault.sync.hlc import Stamp, receive, tick
from privault.sync.rows import Row, content_hash


def load_clock(conn: Connection) -> Stamp | None:
    """The device's clock as last saved."""
    text = sync_state.meta_get(conn, sync_state.CLOCK_KEY)
    return Stamp.parse(text) if text else None


def save_clock(conn: Connection, clock: Stamp | None) -> None:
    """Save the device's clock (inside a write)."""
    if clock is not None:
        sync_state.meta_set(conn, sync_state.CLOCK_KEY, clock.text())


def stamp_changes(conn: Connection) -> int:
    """Give every really changed row a clock and a change number; return how many."""
    with write(conn):
        marks = sync_state.dirty(conn)
        if not marks:
            return 0
        me = sync_state.device_id(conn)
        clock = load_clock(conn)
        previous = sync_state.known(conn, [(kind, row_id) for kind, row_id, _ in marks])
        seq = sync_state.last_seq(conn)
        stamped = 0
        for kind, row_id, at in marks:
            digest = content_hash(sync_read.payload(conn, kind, row_id))
            before = previous.get((kind, row_id))
            if (before is None and digest == "") or (before is not None and before[2] == digest):
                continue
            if before is not None:  # a change to a row is always later than the row
                clock = receive(clock, Stamp.parse(before[0]), me)
            clock = tick(clock, at, me)
            seq += 1
            sync_state.record(conn, kind, row_id, clock.text(), me, digest, seq)
            stamped += 1
        sync_state.clear_dirty(conn, [(kind, row_id) for kind, row_id, _ in marks])
        sync_state.meta_set(conn, sync_state.SEQ_KEY, str(seq))
        save_clock(conn, clock)
        return stamped


def rows_since(conn: Connection, since: int, *, origin: str | None = None) -> list[Row]:
    """Rows changed after local change number `since` (only `origin`'s, when given), with
    their content as it is now. Call inside the transaction that stamped them."""
    return [
        Row(kind, row_id, hlc, who, sync_read.payload(conn, kind, row_id))
        for kind, row_id, hlc, who in sync_state.changed_since(conn, since, origin=origin)
    ]
