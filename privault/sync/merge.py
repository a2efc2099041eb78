"""Merging rows from another device: the rules, applied row by row.

1. Last writer wins per row: the version with the higher hybrid logical clock is kept;
   clocks end with the device id, so every device picks the same winner, whatever order
   bundles arrive in. Importing a row already held (same clock) changes nothing.
2. A tombstone wins over every edit of its document, older or newer: what the owner
   forgot on one device never comes back from another. Later versions of a forgotten
   page are forgotten with it.
3. Statements are append-only: a version is inserted once and its content never changes;
   only its window end and supersede/revise links follow the newest clock. Closures,
   attestations and disputes are rows of their own, so two devices' confirmations both
   survive.
4. A watch's reach to private addresses is never taken from a bundle, and is lost when
   another device changes anything but when the watch runs; a watch whose kind or target
   another device changed keeps running here only where a local add would accept that
   target (`_watch_here`).
5. A shelf's access settings (restricted, private, policy) merge toward the stricter
   side: a version that loosens them wins only when it was written after seeing the
   stricter one (`privault.sync.access`); a concurrent one leaves them strict.
6. A row that points at one not yet here (a new page version before its predecessor, a
   supersede before the statement it closes) waits in `sync_pending` and is applied by a
   later import; nothing half-linked is written.
7. A row whose clock is more than `MAX_AHEAD_MS` ahead of this device's time waits the
   same way, until an import after that time. Taken at once, it would move this device's
   clock that far ahead for good (every later change of its would be stamped after it),
   and a shelf version could claim to have seen versions other devices have not written
   yet: a loosening that wins over their restrictions to come (`sync.access`). A device
   whose clock is wrong by more than that has its changes wait, counted in `ahead`. A
   version waiting so hides no other version of its row (one sent now merges now), and a
   tombstone never waits: forgetting loosens nothing.

Derived data is recomputed, never trusted from a bundle: chunks and vectors of sections,
statement vectors, PII spans (by this device's detector version).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from privault.errors import InputError
from privault.store import sync_read, sync_state, sync_write
from privault.store.connection import Connection, write
from privault.sync.access import ShelfVersion, covers, merge_shelf
from privault.sync.hlc import Stamp, receive
from privault.sync.rows import KINDS, Row, content_hash, newer, references
from privault.sync.stamping import load_clock, save_clock, stamp_changes

# How far ahead of this device's time a row's clock may be and still merge now (rule 7):
# wider than the drift of clocks kept by a time server, far narrower than a wrong date.
MAX_AHEAD_MS = 3_600_000


class Derivations(Protocol):
    """What the facade computes for imported rows: indexes, vectors and PII spans."""

    def prepare_documents(self, items: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
        """Per document id, its sections cut, embedded and scanned (before the lock)."""

    def prepare_labels(self, items: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
        """Per document id, its labels scanned (its sections stay as held; before the lock)."""

    def store_document(self, doc_id: str, data: dict[str, Any], prepared: Any) -> None:
        """Write a document's sections, index rows and spans, or its label spans alone
        (inside the lock)."""

    def statement_vectors(self, items: Sequence[tuple[str, str]]) -> dict[str, bytes]:
        """Per statement id, the embedding of its content (before the lock)."""

    def policy_rank(self, name: str | None) -> int:
        """How strictly a shelf policy gates (higher: stricter; None: no policy of its own)."""


@dataclass
class MergeReport:
    """What an import did."""

    applied: dict[str, int] = field(default_factory=dict)
    unchanged: int = 0  # rows this vault already held at that clock or newer
    forgotten: int = 0  # rows of documents this vault holds a tombstone for
    waiting: int = 0  # rows still waiting for what they point at
    new_statements: list[str] = field(default_factory=list)  # to scan for PII
    # Names that may be new known entities (the owner's statement entities, owner marks).
    known_values: list[str] = field(default_factory=list)
    # Shelves whose access settings were kept stricter than the incoming version's.
    stricter: list[str] = field(default_factory=list)
    # Rows parked by an earlier import that no longer pass their checks: dropped, and named.
    refused: list[str] = field(default_factory=list)
    ahead: int = 0  # rows waiting because their clock is ahead of this device's (rule 7)

    def count(self, kind: str) -> None:
        """Count one applied row."""
        self.applied[kind] = self.applied.get(kind, 0) + 1

    @property
    def total(self) -> int:
        """Rows applied."""
        return sum(self.applied.values())


def _latest(rows: Iterable[Row]) -> dict[tuple[str, str], Row]:
    best: dict[tuple[str, str], Row] = {}
    for row in rows:
        key = (row.kind, row.id)
        if key not in best or row.hlc > best[key].hlc:
            best[key] = row
    return best


def _waiting(conn: Connection, refused: list[str] | None = None) -> list[Row]:
    """Rows parked by earlier imports, checked again like any row from a bundle. One that
    no longer passes (parked by a version that checked less) is never applied: it is named
    in `refused` and, like every row waiting before a merge, unparked by it."""
    found = []
    for item in sync_state.pending(conn):
        try:
            found.append(Row.from_list(list(item)))
        except InputError as exc:  # RowRefused too
            if refused is not None:
                refused.append(f"a row waiting since an earlier import: {exc}")
    return found


def _held_shelf(conn: Connection, name: str) -> ShelfVersion | None:
    """The shelf version this vault holds (stamped: `merge` stamps local edits first)."""
    known = sync_state.known(conn, [("shelf", name)]).get(("shelf", name))
    if known is None:
        return None
    return ShelfVersion(known[0], known[1], sync_read.payload(conn, "shelf", name))


def _candidates(
    conn: Connection, rows: Iterable[Row], now: int, refused: list[str] | None = None
) -> tuple[dict[tuple[str, str], Row], dict[tuple[str, str], Row]]:
    """(to merge, to wait): of the rows given and those parked, the newest version of each
    row that beats what this vault holds, for a shelf also an older one this vault had not
    seen (it may be stricter: see `sync.access`); and apart, the newest version of each
    row that is ahead of `now` (`_ahead`) and beats what this vault holds, which waits
    (rule 7). A version ahead never hides one that is not: a restriction sent now merges
    now. Parked rows that no longer pass their checks are named in `refused`."""
    given = [*rows, *_waiting(conn, refused)]
    best = _latest(row for row in given if not _ahead(row, now))
    later = _latest(row for row in given if _ahead(row, now))
    held = sync_state.known(conn, [*best, *later])
    found = {}
    for key, row in best.items():
        if newer(row, (held.get(key) or (None,))[0]):
            found[key] = row
        elif row.kind == "shelf" and key in held:
            mine = _held_shelf(conn, row.id)
            theirs = ShelfVersion(row.hlc, row.origin, row.payload)
            if mine is not None and not covers(mine.history, theirs.history):
                found[key] = row
    waits = {key: row for key, row in later.items() if newer(row, (held.get(key) or (None,))[0])}
    return found, waits


def _ahead(row: Row, now: int) -> bool:
    """Whether a row's clock is more than `MAX_AHEAD_MS` ahead of `now` (rule 7). Never a
    tombstone: forgetting loosens nothing, and what the owner forgot must not stay
    readable for as long as another device's clock is wrong."""
    return row.kind != "tombstone" and row.stamp.wall > now + MAX_AHEAD_MS


def _ready(conn: Connection, todo: dict[tuple[str, str], Row]) -> set[tuple[str, str]]:
    """Rows whose references are in the vault or in this batch and ready themselves.

    The greatest such set: rows are dropped only while one points at something neither
    here nor coming, so rows that point at each other (a statement and the version that
    supersedes it) are applied together; foreign keys are checked at commit.
    """
    cache: dict[tuple[str, str], bool] = {}

    def present(ref: tuple[str, str]) -> bool:
        if ref not in cache:
            cache[ref] = sync_write.exists(conn, *ref)
        return cache[ref]

    ready = set(todo)
    dropped = True
    while dropped:
        dropped = False
        for key in list(ready):
            if not all(ref in ready or present(ref) for ref in references(todo[key])):
                ready.discard(key)
                dropped = True
    return ready


def merge(
    conn: Connection, rows: Sequence[Row], derive: Derivations, now: Callable[[], int]
) -> MergeReport:
    """Merge rows from bundles into the vault, in one transaction."""
    stamp_changes(conn)  # local edits get their clocks before they compete
    report = MergeReport()
    at = now()
    first, later = _candidates(conn, rows, at)
    report.unchanged = sum(1 for key in _latest(rows) if key not in first and key not in later)
    docs: dict[str, list[tuple[str, dict[str, Any]]]] = {"sections": [], "labels": []}
    for row in first.values():
        if row.kind == "document" and row.payload is not None:
            needed = _to_derive(conn, row)
            if needed:
                docs[needed].append((row.id, row.payload))
    prepared = derive.prepare_documents(docs["sections"]) if docs["sections"] else {}
    prepared.update(derive.prepare_labels(docs["labels"]) if docs["labels"] else {})
    new_statements = [
        (row.id, str(row.payload["content"]))
        for row in first.values()
        if row.kind == "statement"
        and row.payload is not None
        and not sync_write.exists(conn, "statement", row.id)  # content never changes
    ]
    vectors = derive.statement_vectors(new_statements) if new_statements else {}
    with write(conn):
        stamp_changes(conn)  # a write between the two reads is stamped too
        todo, later = _candidates(conn, rows, at, report.refused)
        report.ahead = len(later)
        ready = _ready(conn, todo)
        waited = [(kind, row_id) for kind, row_id, *_ in sync_state.pending(conn)]
        sync_write.defer_foreign_keys(conn)
        me = sync_state.device_id(conn)
        clock = load_clock(conn)
        seq = sync_state.last_seq(conn)
        done: list[tuple[str, str]] = []
        for key in sorted(ready, key=lambda k: _order(todo[k])):
            row = todo[key]
            if row.kind == "shelf":
                outcome = merge_shelf(
                    _held_shelf(conn, row.id),
                    ShelfVersion(row.hlc, row.origin, row.payload),
                    derive.policy_rank,
                    me,
                )
                if outcome.action == "keep":  # the held version stands; nothing recorded
                    report.unchanged += 1
                    continue
                if outcome.action == "merge":
                    # Stricter than either: written, and left marked as a local change
                    # (after the incoming version), so it is stamped and sent on.
                    sync_write.put_shelf(conn, row.id, outcome.payload)
                    report.count(row.kind)
                    report.stricter.append(row.id)
                    seq += 1
                    sync_state.record(conn, row.kind, row.id, row.hlc, row.origin, _hash(row), seq)
                    clock = receive(clock, Stamp.parse(row.hlc), me)
                    continue
            applied = _apply(conn, row, derive, prepared, vectors, now, report)
            if applied:
                report.count(row.kind)
            else:
                report.forgotten += 1
            seq += 1
            sync_state.record(conn, row.kind, row.id, row.hlc, row.origin, _hash(row), seq)
            if row.stamp.wall <= at + MAX_AHEAD_MS:  # a tombstone ahead moves no clock
                clock = receive(clock, row.stamp, me)
            done.append(key)
        sync_state.unpark(conn, waited)  # applied, beaten by a newer version, or parked again
        # One version a row waits: a version ahead outlives one parked for what it points
        # at (it is newer, and merges over it when its time comes).
        for row in [*(row for key, row in todo.items() if key not in ready), *later.values()]:
            sync_state.park(conn, row.kind, row.id, row.hlc, row.origin, row.payload)
        # The triggers marked what the import wrote; those rows are recorded as they came.
        sync_state.clear_dirty(conn, done)
        sync_state.meta_set(conn, sync_state.SEQ_KEY, str(seq))
        save_clock(conn, clock)
        report.waiting = len(sync_state.pending(conn))
    return report


def _order(row: Row) -> tuple[int, int, str]:
    """Apply order: kinds that others point at first; statements in the order they were
    recorded, so local row numbers follow history as they do on the device that wrote them."""
    recorded = (row.payload or {}).get("recorded_at") if row.kind == "statement" else 0
    return KINDS.index(row.kind), int(recorded or 0), row.id


def _to_derive(conn: Connection, row: Row) -> str | None:
    """What of a document must be derived here: "sections" when they must be cut,
    embedded and scanned (a new date too: the vector mirrors keep each chunk's date by its
    id, `documents.update_content`); "labels" when only its tags or title changed: they are
    scanned as every write scans them (a gated caller's tag filter finds only a tag
    scanned, `store.narrowing`) and the costly part is skipped; None when only its shelf or
    metadata changed."""
    held = sync_read.payload(conn, "document", row.id)
    data = row.payload or {}
    if held is None or any(
        held[name] != data[name] for name in ("sections", "current", "created_at")
    ):
        return "sections"
    if any(held[name] != data[name] for name in ("tags", "title")):
        return "labels"
    return None


def _hash(row: Row) -> str:
    return content_hash(row.payload)


def _apply(
    conn: Connection,
    row: Row,
    derive: Derivations,
    prepared: dict[str, Any],
    vectors: dict[str, bytes],
    now: Callable[[], int],
    report: MergeReport,
) -> bool:
    """Write one row; False when a tombstone stopped it."""
    data = row.payload
    if row.kind == "tombstone":
        if data is not None:
            sync_write.delete_document(conn, row.id, int(data["deleted_at"]))
        return True
    if row.kind == "document":
        if data is None:
            return True  # a document only goes through its tombstone
        if sync_write.is_tombstoned(conn, row.id) is not None:
            return False
        previous = data.get("previous_id")
        forgotten = sync_write.is_tombstoned(conn, previous) if previous else None
        if forgotten is not None:  # a version of a page this vault forgot
            sync_write.delete_document(conn, row.id, forgotten)
            return False
        sync_write.put_document(conn, row.id, data)
        if row.id in prepared:  # absent: its sections are already exactly these
            derive.store_document(row.id, data, prepared[row.id])
        if not data["current"]:
            sync_write.unindex_document(conn, row.id)
        return True
    if row.kind == "statement":
        if data is not None:
            seq = sync_write.put_statement(conn, row.id, data)
            if seq is not None:
                report.new_statements.append(row.id)
                if not data.get("author"):
                    report.known_values.extend(entity[1] for entity in data["entities"])
                if row.id in vectors:
                    sync_write.put_statement_vector(conn, seq, vectors[row.id])
        return True
    if row.kind == "shelf":
        sync_write.put_shelf(conn, row.id, data)
    elif row.kind == "watch":
        data, runs_here = _watch_here(conn, row.id, data)
        sync_write.put_watch(conn, row.id, data, now(), runs_here=runs_here)
    elif row.kind == "pii_override":
        sync_write.put_pii_override(conn, row.id, data)
        if data is not None:
            report.known_values.append(data["value"])
    elif data is None:  # closures, attestations and disputes are never taken back
        return True
    elif row.kind == "closure":
        sync_write.put_closure(conn, row.id, data)
    elif row.kind == "attestation":
        sync_write.put_attestation(conn, row.id, data)
    elif row.kind == "dispute":
        sync_write.put_dispute(conn, row.id, data)
    return True


# The fields of a watch that say when it runs, not what it fetches or where what it fetches
# goes: another device may change these and this device's private reach stays.
_REACH_KEPT_ACROSS = frozenset({"schedule", "status", "max_catchup", "allow_private"})


def _watch_here(
    conn: Connection, watch_id: str, data: dict[str, Any] | None
) -> tuple[dict[str, Any] | None, bool]:
    """The definition of a synced watch as this device stores it, and whether it may keep
    running here.

    `allow_private` (loopback and LAN reach) is the owner's decision on each device, never
    a bundle's: this device's own value is kept, off for a watch new here, and it stays on
    only for the watch it was given for. Any change but to when it runs (its kind, target,
    options such as a search watch's `fetch_pages`, which fetches every result with the
    watch's reach, its shelf, which says who reads what it files, or a field a later
    version adds) takes it away: an allow-list, so a new way to widen what a watch fetches
    cannot keep it by default. A watch whose kind or target changed, or that lost its
    reach, keeps running only if its target passes the checks of a local add
    (`checked_target`, without private reach); a folder path another device set is never
    read here.
    """
    held = sync_read.payload(conn, "watch", watch_id)
    if data is None or held is None:  # removed, or new here: it does not run here anyway
        return (None if data is None else {**data, "allow_private": 0}), False
    fields = (set(held) | set(data)) - _REACH_KEPT_ACROSS
    if all(held.get(name) == data.get(name) for name in fields):
        return {**data, "allow_private": int(bool(held["allow_private"]))}, True
    same = (held["kind"], held["target"]) == (data["kind"], data["target"])
    return {**data, "allow_private": 0}, (same and not held["allow_private"]) or _reachable(data)


def _reachable(data: dict[str, Any]) -> bool:
    """Whether a local add would accept this target for a watch without private reach."""
    if data["kind"] == "folder":
        return False
    from privault.watches.manage import checked_target  # pulls in the HTTP client

    try:
        checked_target(data["kind"], data["target"], allow_private=False)
    except InputError:
        return False
    return True
