"""The sync bookkeeping tables: row clocks, dirty marks, waiting rows, imported files.

See migration m010 for what each table holds. The device id, the device's clock and the
last local change number live in `meta`.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Sequence
from typing import Any

from privault.store.connection import Connection

DEVICE_KEY = "sync_device"
CLOCK_KEY = "sync_clock"
SEQ_KEY = "sync_seq"


def meta_get(conn: Connection, key: str) -> str | None:
    """One `meta` value, or None."""
    found = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return found[0] if found else None


def meta_set(conn: Connection, key: str, value: str) -> None:
    """Set one `meta` value (inside the caller's transaction)."""
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def device_id(conn: Connection) -> str:
    """This vault file's device id, made on first use (inside a write transaction)."""
    found = meta_get(conn, DEVICE_KEY)
    if found is None:
        found = "dev_" + secrets.token_hex(6)
        meta_set(conn, DEVICE_KEY, found)
    return found


def next_seq(conn: Connection) -> int:
    """The next local change number (inside a write transaction)."""
    value = int(meta_get(conn, SEQ_KEY) or 0) + 1
    meta_set(conn, SEQ_KEY, str(value))
    return value


def last_seq(conn: Connection) -> int:
    """The newest local change number (0 before any)."""
    return int(meta_get(conn, SEQ_KEY) or 0)


def dirty(conn: Connection, *, limit: int = -1) -> list[tuple[str, str, int]]:
    """Rows changed since they were last stamped: (kind, id, ms of the change), oldest
    first; at most `limit` of them (-1: all)."""
    return [
        (kind, row_id, int(at))
        for kind, row_id, at in conn.execute(
            "SELECT kind, id, at FROM sync_dirty ORDER BY at, kind, id LIMIT ?", (limit,)
        )
    ]


def clear_dirty(conn: Connection, keys: Iterable[tuple[str, str]]) -> None:
    """Forget dirty marks (after stamping, or after an import wrote the rows)."""
    conn.executemany("DELETE FROM sync_dirty WHERE kind = ? AND id = ?", list(keys))


def known(conn: Connection, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], Any]:
    """(clock, origin, hash) of rows already stamped, by (kind, id)."""
    found: dict[tuple[str, str], Any] = {}
    for kind, row_id in keys:
        hit = conn.execute(
            "SELECT hlc, origin, hash FROM sync_rows WHERE kind = ? AND id = ?", (kind, row_id)
        ).fetchone()
        if hit:
            found[(kind, row_id)] = (hit[0], hit[1], hit[2])
    return found


def record(
    conn: Connection, kind: str, row_id: str, hlc: str, origin: str, digest: str, seq: int
) -> None:
    """Store a row's clock, origin, content hash and local change number."""
    conn.execute(
        "INSERT INTO sync_rows (kind, id, hlc, origin, hash, seq) VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (kind, id) DO UPDATE SET hlc = excluded.hlc, origin = excluded.origin,"
        " hash = excluded.hash, seq = excluded.seq",
        (kind, row_id, hlc, origin, digest, seq),
    )


def changed_since(
    conn: Connection, since: int, *, skip_origins: Iterable[str] = (), limit: int = -1
) -> list[tuple[str, str, str, str, int]]:
    """(kind, id, clock, origin, change number) of rows whose local change number is above
    `since`, oldest change first, except those whose last change came from one of
    `skip_origins`; at most `limit` of them (-1: all)."""
    skipped = list(skip_origins)
    sql = "SELECT kind, id, hlc, origin, seq FROM sync_rows WHERE seq > ?"
    if skipped:
        sql += f" AND origin NOT IN ({','.join('?' * len(skipped))})"
    found = conn.execute(sql + " ORDER BY seq LIMIT ?", [since, *skipped, limit])
    return [(kind, row_id, hlc, origin, int(seq)) for kind, row_id, hlc, origin, seq in found]


def pending(conn: Connection) -> list[tuple[str, str, str, str, Any]]:
    """Rows that wait for what they point at: (kind, id, clock, origin, payload)."""
    return [
        (kind, row_id, hlc, origin, json.loads(payload))
        for kind, row_id, hlc, origin, payload in conn.execute(
            "SELECT kind, id, hlc, origin, payload FROM sync_pending"
        )
    ]


def park(conn: Connection, kind: str, row_id: str, hlc: str, origin: str, payload: Any) -> None:
    """Keep a row that cannot be applied yet (the newest version of it wins)."""
    conn.execute(
        "INSERT INTO sync_pending (kind, id, hlc, origin, payload) VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (kind, id) DO UPDATE SET hlc = excluded.hlc, origin = excluded.origin,"
        " payload = excluded.payload WHERE excluded.hlc > sync_pending.hlc",
        (kind, row_id, hlc, origin, json.dumps(payload)),
    )


def unpark(conn: Connection, keys: Iterable[tuple[str, str]]) -> None:
    """Drop waiting rows that were applied or lost to a newer version."""
    conn.executemany("DELETE FROM sync_pending WHERE kind = ? AND id = ?", list(keys))


def imported_files(conn: Connection, peer: str) -> set[str]:
    """Names of a peer's change files already imported."""
    return {name for (name,) in conn.execute("SELECT name FROM sync_files WHERE peer = ?", (peer,))}


def mark_imported(conn: Connection, peer: str, name: str, at: int) -> None:
    """Remember that a peer's change file was imported."""
    conn.execute(
        "INSERT OR IGNORE INTO sync_files (peer, name, imported_at) VALUES (?, ?, ?)",
        (peer, name, at),
    )
