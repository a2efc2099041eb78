"""The vault file: connection discipline, migrations, refusal of bad files, encryption."""

from __future__ import annotations

from pathlib import Path

import pytest

from privault.errors import InputError, VaultError
from privault.store.connection import IN_BATCH, connect, first_column_in, in_batches, write
from privault.store.migrations import applied_version, known_migrations, migrate


def test_connection_settings(tmp_path: Path) -> None:
    conn = connect(tmp_path / "v.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
    assert conn.execute("SELECT vec_version()").fetchone()[0].startswith("v")


def test_migrations_apply_once_and_are_recorded(tmp_path: Path) -> None:
    conn = connect(tmp_path / "v.db")
    latest = known_migrations()[-1].version
    assert migrate(conn) == latest
    assert migrate(conn) == latest
    versions = [v for (v,) in conn.execute("SELECT version FROM schema_migrations")]
    assert versions == [m.version for m in known_migrations()]


def test_newer_vault_is_refused(tmp_path: Path) -> None:
    conn = connect(tmp_path / "v.db")
    migrate(conn)
    conn.execute("INSERT INTO schema_migrations VALUES (999, 'future', 0)")
    with pytest.raises(VaultError, match="newer privault"):
        migrate(conn)
    assert applied_version(conn) == 999


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just some text, not SQLite " * 100)
    with pytest.raises(VaultError, match="not a database"):
        connect(path)
    assert path.read_text().startswith("just some text")


def test_write_rolls_back_on_error(conn) -> None:
    with pytest.raises(RuntimeError), write(conn):
        conn.execute("INSERT INTO meta (key, value) VALUES ('a', 'b')")
        raise RuntimeError("boom")
    assert conn.execute("SELECT count(*) FROM meta WHERE key = 'a'").fetchone()[0] == 0


def test_a_locked_vault_gives_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    first = connect(path)
    migrate(first)
    second = connect(path)
    second.execute("PRAGMA busy_timeout = 50")
    first.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(VaultError, match="locked"), write(second):
            pass
    finally:
        first.execute("ROLLBACK")


SECRET = "the-canary-sentence-zebra-quartz-4711"


def test_encrypted_vault_hides_text_and_needs_the_key(tmp_path: Path) -> None:
    path = tmp_path / "secret.db"
    conn = connect(path, key="correct horse battery staple")
    migrate(conn)
    with write(conn):
        conn.execute("INSERT INTO meta (key, value) VALUES ('canary', ?)", (SECRET,))
    # Read the bytes while the WAL still holds the write, then after a checkpoint.
    for suffix in ("", "-wal"):
        file = Path(f"{path}{suffix}")
        if file.exists():
            assert SECRET.encode() not in file.read_bytes()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert SECRET.encode() not in path.read_bytes()
    conn.close()

    with pytest.raises(VaultError, match="key is wrong"):
        connect(path, key="wrong key")
    with pytest.raises(VaultError, match="encrypted"):
        connect(path)
    reopened = connect(path, key="correct horse battery staple")
    assert reopened.execute("SELECT value FROM meta WHERE key = 'canary'").fetchone()[0] == SECRET


def test_a_key_that_is_not_utf8_is_refused_without_showing_it(tmp_path: Path) -> None:
    # A key set from bytes (os.environb) arrives with a lone surrogate for each bad byte.
    with pytest.raises(InputError, match="the key is not UTF-8") as refused:
        connect(tmp_path / "v.db", key="hunter2\udcff")
    assert "hunter2" not in str(refused.value)


def test_a_key_for_a_plain_vault_says_it_is_not_encrypted(tmp_path: Path) -> None:
    path = tmp_path / "plain.db"
    migrate(connect(path))
    with pytest.raises(VaultError, match="it is not encrypted") as refused:
        connect(path, key="a key for another vault")
    assert "key is wrong" not in str(refused.value)
    assert "a key for another vault" not in str(refused.value)


def test_a_key_ending_in_a_newline_is_the_key_it_was_created_with(tmp_path: Path) -> None:
    # 64 hex digits and a newline (a key read from a file) is a passphrase, as it has
    # always been: vaults created with one must go on opening with it.
    hex_key = "0123456789abcdef" * 4
    path = tmp_path / "v.db"
    migrate(connect(path, key=hex_key + "\n"))
    connect(path, key=hex_key + "\n").close()
    with pytest.raises(VaultError, match="the key is wrong") as refused:
        connect(path, key=hex_key)
    assert "ends with" not in str(refused.value)
    raw = tmp_path / "raw.db"
    migrate(connect(raw, key=hex_key))
    with pytest.raises(VaultError, match="ends with a newline or space") as refused:
        connect(raw, key=hex_key + "\n")
    assert hex_key not in str(refused.value)


def test_plain_vault_does_contain_the_text(tmp_path: Path) -> None:
    """The control for the encryption test: without a key the bytes are readable."""
    path = tmp_path / "plain.db"
    conn = connect(path)
    migrate(conn)
    with write(conn):
        conn.execute("INSERT INTO meta (key, value) VALUES ('canary', ?)", (SECRET,))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert SECRET.encode() in path.read_bytes()


def test_a_missing_lower_numbered_migration_is_still_applied(tmp_path: Path) -> None:
    conn = connect(tmp_path / "v.db")
    migrate(conn)
    conn.execute("DELETE FROM schema_migrations WHERE version = 2")
    conn.execute("DROP TABLE pii_overrides")
    conn.execute("DROP TABLE pii_scans")
    conn.execute("DROP TABLE pii_spans")
    migrate(conn)
    assert conn.execute("SELECT count(*) FROM pii_spans").fetchone()[0] == 0
    assert 2 in {v for (v,) in conn.execute("SELECT version FROM schema_migrations")}


@pytest.mark.parametrize("count", [0, 1, IN_BATCH - 1, IN_BATCH, IN_BATCH + 1, 3 * IN_BATCH + 7])
def test_in_batches_covers_every_value_once_in_order(conn, count: int) -> None:
    values = list(range(count))
    batches = list(in_batches(values))
    assert [v for batch, _ in batches for v in batch] == values
    assert all(
        0 < len(batch) <= IN_BATCH and marks.count("?") == len(batch) for batch, marks in batches
    )
    conn.execute("CREATE TEMP TABLE numbers (n INTEGER)")
    conn.executemany("INSERT INTO numbers VALUES (?)", [(v,) for v in range(0, 2 * count + 1, 2)])
    found = list(first_column_in(conn, "SELECT n FROM numbers WHERE n IN ({marks})", values))
    assert sorted(found) == [v for v in values if v % 2 == 0]
