"""Turning local changes into stamped rows, and reading rows out for a bundle.

Triggers mark changed rows dirty with the time of the change; `stamp_changes` reads each
one back, and only a row whose content hash differs from what was last recorded gets a
new clock (the device's hybrid logical clock ticked at the change's own time) and the
next local change number. A write that changed nothing, or an import that wrote a row
exactly as it arrived, therefore costs no new clock and is not sent again.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from privault.store import sync_read, sync_state, sync_write
from privault.store.connection import Connection, write
from privault.sync.access import ShelfVersion
from privault.sync.hlc import Stamp, receive, tick
from privault.sync.rows import Row, content_hash


def load_clock(conn: Connection) -> Stamp | None:
    """The device's clock as last saved."""
    text = sync_state.meta_get(conn, sync_state.CLOCK_KEY)
    return Stamp.parse(text) if text else None


def clock_ahead(conn: Connection, now: int) -> int:
    """How many ms the device's clock is ahead of `now` (0 when it is not). A hybrid clock
    never goes back, so a change stamped while the system clock was wrong keeps every
    later change of this device as far ahead, until real time catches up."""
    clock = load_clock(conn)
    return max(0, clock.wall - now) if clock is not None else 0


def save_clock(conn: Connection, clock: Stamp | None) -> None:
    """Save the device's clock (inside a write)."""
    if clock is not None:
        sync_state.meta_set(conn, sync_state.CLOCK_KEY, clock.text())


STAMP_BATCH = 2000  # dirty marks stamped at a time: memory stays flat after a big import
ROW_BATCH = 500  # rows read at a time for a bundle


def stamp_changes(conn: Connection) -> int:
    """Give every really changed row a clock and a change number; return how many.

    Marks are taken oldest first, a batch at a time (each batch's marks are cleared before
    the next is read), so a vault with every row dirty is stamped in flat memory."""
    with write(conn):
        marks = sync_state.dirty(conn, limit=STAMP_BATCH)
        if not marks:
            return 0
        me = sync_state.device_id(conn)
        clock = load_clock(conn)
        seq = sync_state.last_seq(conn)
        stamped = 0
        while marks:
            keys = [(kind, row_id) for kind, row_id, _ in marks]
            previous = sync_state.known(conn, keys)
            for kind, row_id, at in marks:
                payload = sync_read.payload(conn, kind, row_id)
                digest = content_hash(payload)
                before = previous.get((kind, row_id))
                if (before is None and digest == "") or (
                    before is not None and before[2] == digest
                ):
                    continue
                if kind == "shelf" and payload is not None and before is not None:
                    # This version replaces the one recorded: it has seen that one's history.
                    seen = ShelfVersion(before[0], before[1], payload).history
                    if seen != payload["seen"]:
                        sync_write.set_shelf_seen(conn, row_id, seen)
                        digest = content_hash(sync_read.payload(conn, kind, row_id))
                if before is not None:  # a change to a row is always later than the row
                    clock = receive(clock, Stamp.parse(before[0]), me)
                clock = tick(clock, at, me)
                seq += 1
                sync_state.record(conn, kind, row_id, clock.text(), me, digest, seq)
                stamped += 1
            # Also drops the mark `set_shelf_seen` just left.
            sync_state.clear_dirty(conn, keys)
            marks = sync_state.dirty(conn, limit=STAMP_BATCH)
        sync_state.meta_set(conn, sync_state.SEQ_KEY, str(seq))
        save_clock(conn, clock)
        return stamped


def iter_rows_since(
    conn: Connection, since: int, *, skip_origins: Iterable[str] = ()
) -> Iterator[Row]:
    """Rows changed after local change number `since` (except those last changed by one of
    `skip_origins`), with their content as it is now, in change order, read a batch at a
    time; ahead of the first document or statement on a shelf with a row, that shelf's
    row, changed or not (`_shelf_row`), which may then come again in its own place.
    Iterate inside the transaction that stamped them."""
    skipped = list(skip_origins)
    after = since
    sent: set[str] = set()  # shelves whose row went ahead of their documents
    while page := sync_state.changed_since(conn, after, skip_origins=skipped, limit=ROW_BATCH):
        for kind, row_id, hlc, who, seq in page:
            row = Row(kind, row_id, hlc, who, sync_read.payload(conn, kind, row_id))
            shelf = row.payload.get("shelf") if row.payload and kind != "shelf" else None
            if isinstance(shelf, str) and shelf not in sent:
                sent.add(shelf)
                yield from _shelf_row(conn, shelf)
            if kind == "shelf":
                sent.add(row_id)
            yield row
            after = seq


def _shelf_row(conn: Connection, name: str) -> Iterator[Row]:
    """The stamped row of shelf `name`, if it has one: sent again ahead of the first row on
    it that a bundle carries. A shelf with no row is public, so a device that got a note
    on a restricted shelf before the shelf's own row (an earlier bundle lost, late, or
    not yet wholly synced) would show it to every agent; a row it holds already changes
    nothing there."""
    known = sync_state.known(conn, [("shelf", name)]).get(("shelf", name))
    payload = sync_read.payload(conn, "shelf", name) if known else None
    if known and payload is not None:
        yield Row("shelf", name, known[0], known[1], payload)


def rows_since(conn: Connection, since: int, *, skip_origins: Iterable[str] = ()) -> list[Row]:
    """`iter_rows_since` as a list (for a few rows: tests and small bundles)."""
    return list(iter_rows_since(conn, since, skip_origins=skip_origins))
