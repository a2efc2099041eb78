"""Numbered schema migrations.

Each module `mNNN_name.py` in this package defines `STEPS`, a list of SQL statements, and
is applied once, in order, inside one transaction together with its row in
`schema_migrations`. A vault whose newest migration is beyond what this code knows was
written by a newer privault and is refused rather than half-understood.

A migration that rebuilds a table other tables point at sets `FOREIGN_KEYS_OFF = True`:
SQLite's way to change such a table is to copy it into a new one, drop the old and rename
the new, and with foreign keys on, dropping the old table would cascade into every row
that points at it. Foreign keys are switched off around its transaction (the pragma is a
no-op inside one), and `PRAGMA foreign_key_check` must find nothing before it commits.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass

from privault.errors import VaultError
from privault.store.connection import Connection, write
from privault.timeutil import now_ms


@dataclass(frozen=True)
class Migration:
    """One numbered schema step."""

    version: int
    name: str
    steps: tuple[str, ...]
    foreign_keys_off: bool = False


def known_migrations() -> list[Migration]:
    """Every migration shipped with this code, oldest first."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        if not (info.name.startswith("m") and info.name[1:4].isdigit()):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        found.append(
            Migration(
                int(info.name[1:4]),
                info.name[5:],
                tuple(module.STEPS),
                bool(getattr(module, "FOREIGN_KEYS_OFF", False)),
            )
        )
    found.sort(key=lambda migration: migration.version)
    versions = [migration.version for migration in found]
    if len(set(versions)) != len(versions):
        raise RuntimeError(f"two migrations share a number: {versions}")
    return found


def applied_version(conn: Connection) -> int:
    """The newest migration recorded in the file (0 for a new file)."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_migrations'"
    ).fetchone()
    if not exists:
        return 0
    (version,) = conn.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()
    return int(version)


def _applied(conn: Connection) -> set[int]:
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_migrations'"
    ).fetchone()
    if not exists:
        return set()
    return {int(version) for (version,) in conn.execute("SELECT version FROM schema_migrations")}


def migrate(conn: Connection) -> int:
    """Apply every known migration the file lacks, in order; return the newest version.

    Each is checked by number, not against the highest applied one, so a migration that
    arrives with a lower number than one already applied is still applied.
    """
    migrations = known_migrations()
    latest = migrations[-1].version if migrations else 0
    applied = _applied(conn)
    current = max(applied, default=0)
    if current > latest:
        raise VaultError(
            f"this vault was written by a newer privault (schema {current}, this one knows "
            f"{latest}); upgrade privault to open it"
        )
    if applied >= {migration.version for migration in migrations}:
        return current
    for migration in migrations:
        if migration.version in applied:
            continue
        if migration.foreign_keys_off:
            conn.execute("PRAGMA foreign_keys = OFF")
        try:
            _apply(conn, migration)
        finally:
            if migration.foreign_keys_off:
                conn.execute("PRAGMA foreign_keys = ON")
    return latest


def _dangling(conn: Connection) -> int:
    return len(conn.execute("PRAGMA foreign_key_check").fetchall())


def _apply(conn: Connection, migration: Migration) -> None:
    with write(conn):
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)"
        )
        # Re-read inside the lock: another process may have migrated meanwhile.
        if migration.version in _applied(conn):
            return
        # Rows that already point at nothing are not this migration's to judge; new ones are.
        before = _dangling(conn) if migration.foreign_keys_off else 0
        for step in migration.steps:
            conn.execute(step)
        if migration.foreign_keys_off and _dangling(conn) > before:
            raise VaultError(
                f"migration {migration.version} would leave rows pointing at nothing; "
                "the vault is unchanged"
            )
        conn.execute(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
            (migration.version, migration.name, now_ms()),
        )
