"""The one way privault opens its SQLite file.

Every connection — CLI, MCP server, scheduler, tests — comes from `connect()`, so every one
has the same discipline: WAL (readers never block the writer), `synchronous=FULL` (the file
is the source of truth, not a cache), foreign keys on, a busy timeout so concurrent writers
queue instead of failing, and sqlite-vec loaded. Writes go through `write()`, which opens
`BEGIN IMMEDIATE` so that a writer takes the lock before it reads what it will change.

Within one process, writers to the same file also queue on one lock (`writer_lock`) before
they ask SQLite for its write lock. A server holds several connections to the file (one per
concurrent reader, one writer); without it, two of them wanting to write at once would meet
in SQLite's busy handler, which sleeps and polls (up to 100 ms a turn) instead of handing the
lock over when it is free. Other processes still queue through `BEGIN IMMEDIATE` and the
busy timeout.

The driver is sqlcipher3: the stdlib `sqlite3` of some Python builds cannot load extensions,
and SQLCipher gives optional encryption at rest with a key that is never stored.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlcipher3 import dbapi2 as sqlite

from privault.errors import WRITABLE, VaultError, storage_fault, utf8_text

if TYPE_CHECKING:  # sqlcipher3 ships no type hints; its connection is DB-API like sqlite3's
    from sqlite3 import Connection
else:
    Connection = sqlite.Connection
DatabaseError = sqlite.DatabaseError
OperationalError = sqlite.OperationalError
IntegrityError = sqlite.IntegrityError

BUSY_TIMEOUT_MS = 15_000
SQLITE_HEADER = b"SQLite format 3\x00"  # how every unencrypted SQLite file begins
# `$` also matches before a final newline, so 64 hex digits and a newline become
# `x'…\n'`, which SQLCipher takes as a passphrase (not a raw key). Vaults were created
# with such keys: matching only the digits would lock them out.
_HEX_KEY = re.compile(r"^[0-9a-fA-F]{64}$")
_WRITER_LOCKS: dict[str, threading.RLock] = {}  # resolved file path -> its writers' lock
_WRITER_LOCKS_GUARD = threading.Lock()
_COMPANIONS_GUARD = threading.Lock()


class VaultConnection(sqlite.Connection):
    """A connection from `connect()`: it knows the lock its file's writers share.

    (The driver's own class takes no attributes and no weak references; this one does,
    so caches can remember a connection without keeping it alive.)"""

    writer_lock: threading.RLock
    opened: tuple[Path, str | None]  # (file, key): what `companion` opens again
    companion_connection: Connection | None = None
    read_only: str | None = None  # why this process may not write the file, if it may not

    def close(self) -> None:
        if self.companion_connection is not None:
            self.companion_connection.close()
            self.companion_connection = None
        super().close()


def _writer_lock_for(target: Path) -> threading.RLock:
    if str(target) == ":memory:":
        return threading.RLock()  # every in-memory connection is a database of its own
    key = str(target.resolve())
    with _WRITER_LOCKS_GUARD:
        return _WRITER_LOCKS.setdefault(key, threading.RLock())


def writer_lock(conn: Connection) -> threading.RLock | None:
    """The in-process lock every writer of this connection's file takes (None for a
    connection not made by `connect()`)."""
    return getattr(conn, "writer_lock", None)


@functools.cache
def vec_extension() -> str:
    """The sqlite-vec loadable extension shipped in its package, found without importing
    the package (whose `__init__` imports numpy: a note captured from the CLI needs none)."""
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        raise VaultError("sqlite-vec is not installed; reinstall privault")
    return os.path.normpath(os.path.join(list(spec.submodule_search_locations)[0], "vec0"))


def _key_pragma(key: str) -> str:
    """A PRAGMA key statement; a 64-hex-digit key is used raw, anything else as a passphrase."""
    if _HEX_KEY.match(key):
        return f"PRAGMA key = \"x'{key}'\""
    return "PRAGMA key = '" + key.replace("'", "''") + "'"


def _unreadable(target: Path, key: str | None) -> str:
    """Why SQLite could not read the file, in words that say what to do. A key given for
    a plain file fails as a wrong key would: the file's first bytes tell them apart."""
    if not key:
        return (
            "it is not a database, or it is encrypted "
            "(set PRIVAULT_KEY or store the key in the OS keyring)"
        )
    try:
        with open(target, "rb") as file:
            plain = file.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        plain = False
    if plain:
        return (
            "it is not encrypted, but a key was given (unset PRIVAULT_KEY to open it; "
            "encryption is chosen when a vault is created)"
        )
    if key != key.rstrip():
        return "the key is wrong (it ends with a newline or space, which is part of the key)"
    return "the key is wrong"


def connect(path: str | Path, *, key: str | None = None, readonly: bool = False) -> Connection:
    """Open the vault file at `path` with privault's settings.

    `key` unlocks an encrypted vault. Raises `VaultError` with a line the user can act on
    when the file is not a database, the key is wrong or missing, or the file is locked.
    """
    target = Path(path)
    if key:
        utf8_text(key, "the key")  # SQLCipher takes it as UTF-8
    kept_from_writing = None
    if str(path) != ":memory:":
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise VaultError(f"cannot make the folder of vault {target}: {exc.strerror}") from None
        if not readonly and not _writable(target):
            # Opened for writing, SQLite falls back to reading and fails at the first
            # write, deep in a command: open it for reading, and refuse writes up front.
            readonly = True
            kept_from_writing = f"vault {target} is read-only for this user: {WRITABLE}"
    # A URI, unlike a path, reads "#", "?" and "%" as its own: the path is quoted.
    uri = f"{target.resolve().as_uri()}?mode=ro" if readonly else str(target)
    try:
        conn = sqlite.connect(
            uri,
            uri=readonly,
            isolation_level=None,
            check_same_thread=False,
            timeout=BUSY_TIMEOUT_MS / 1000,
            factory=VaultConnection,
        )
        conn.writer_lock = _writer_lock_for(target)
        conn.opened = (target, key)
        conn.read_only = kept_from_writing
    except sqlite.OperationalError as exc:
        raise VaultError(f"cannot open vault {target}: {_why(exc, target)}") from None
    try:
        if key:
            # A wrong key is our one-line VaultError; the library's own log lines of it
            # ("hmac check failed ...") would only precede it on stderr.
            conn.execute("PRAGMA cipher_log_level = NONE")
            conn.execute(_key_pragma(key))
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # Reading the schema is the first touch of the file: a wrong key or a file that is
        # not SQLite fails here, before any setting is written.
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        if not readonly:
            conn.execute("PRAGMA journal_mode = WAL").fetchone()
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.enable_load_extension(True)
        conn.load_extension(vec_extension())
        conn.enable_load_extension(False)
    except sqlite.DatabaseError as exc:
        conn.close()
        message = str(exc)
        if "not a database" in message or "encrypted" in message:
            raise VaultError(f"cannot read vault {target}: {_unreadable(target, key)}") from None
        if "locked" in message or "busy" in message:
            raise VaultError(f"vault {target} is locked by another writer; try again") from None
        raise VaultError(f"cannot open vault {target}: {_why(exc, target)}") from None
    return conn


def _writable(target: Path) -> bool:
    """Whether this process may write the vault: the file and the -wal and -shm files
    beside it (a read made them with the file's mode), where they exist."""
    files = [target, Path(f"{target}-wal"), Path(f"{target}-shm")]
    return all(os.access(file, os.W_OK) for file in files if file.exists())


def _why(exc: sqlite.DatabaseError, target: Path) -> str:
    """Why a vault could not be opened: SQLite's reason, or what stands behind it."""
    fault = storage_fault(exc)
    if fault is None and str(target) != ":memory:" and not os.access(target.parent, os.W_OK):
        return (
            f"its folder {target.parent} is read-only for this user (the vault keeps its "
            "-wal and -shm files beside it)"
        )
    return fault or str(exc)


def companion(conn: Connection) -> Connection | None:
    """A second connection to `conn`'s file, for a read that runs on another thread while
    `conn` does other work (one search's two legs); opened on first use, closed with
    `conn`. None where it would not see what `conn` sees: an in-memory database, or inside
    a transaction whose writes are not committed yet."""
    if not isinstance(conn, VaultConnection) or conn.in_transaction:
        return None
    target, key = conn.opened
    if str(target) == ":memory:":
        return None
    with _COMPANIONS_GUARD:
        if conn.companion_connection is None:
            conn.companion_connection = connect(target, key=key, readonly=True)
        return conn.companion_connection


@contextmanager
def write(conn: Connection) -> Iterator[Connection]:
    """Run a block as one `BEGIN IMMEDIATE` transaction: all of it lands, or none of it.

    Nested use joins the outer transaction, so a repository function can be called both on
    its own and inside a larger write. Writers in this process queue on the file's
    `writer_lock` first (see the module docstring), for at most the busy timeout.
    """
    if conn.in_transaction:
        yield conn
        return
    refused = getattr(conn, "read_only", None)
    if refused:
        raise VaultError(refused)
    lock = writer_lock(conn)
    if lock is not None and not lock.acquire(timeout=BUSY_TIMEOUT_MS / 1000):
        raise VaultError("the vault is locked by another writer; try again")
    try:
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise VaultError("the vault is locked by another writer; try again") from None
            raise
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        else:
            conn.execute("COMMIT")
    finally:
        if lock is not None:
            lock.release()


@contextmanager
def write_if_free(conn: Connection) -> Iterator[bool]:
    """`write`, only if no writer holds the file now: yields whether the block's writes
    will land (when False the caller skips them). For writes a reader may leave out — a
    search keeping what it computed — which must never wait behind an import."""
    if conn.in_transaction or getattr(conn, "read_only", None):
        yield False  # a reader's extra must not join someone else's transaction
        return
    lock = writer_lock(conn)
    if lock is not None and not lock.acquire(blocking=False):
        yield False
        return
    try:
        began = False
        conn.execute("PRAGMA busy_timeout = 0")
        try:
            conn.execute("BEGIN IMMEDIATE")
            began = True
        except sqlite.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
        finally:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if not began:
            yield False
            return
        try:
            yield True
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        else:
            conn.execute("COMMIT")
    finally:
        if lock is not None:
            lock.release()


def rows(conn: Connection, sql: str, params: Any = ()) -> list[dict[str, Any]]:
    """Run a query and return its rows as dicts keyed by column name."""
    cursor = conn.execute(sql, params)
    names = [column[0] for column in cursor.description or ()]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


IN_BATCH = 500  # bound parameters per `IN (...)`: SQLite caps how many one statement takes


def in_batches(values: Sequence[Any]) -> Iterator[tuple[list[Any], str]]:
    """`values` in batches one `IN (...)` may bind, each with its `?,?,…` placeholders."""
    for start in range(0, len(values), IN_BATCH):
        batch = list(values[start : start + IN_BATCH])
        yield batch, ",".join("?" * len(batch))


def first_column_in(conn: Connection, sql: str, values: Sequence[Any]) -> Iterator[Any]:
    """The first column of `sql` run over `values` in batches; `sql` holds `{marks}` where
    the `IN (...)` list of one batch's placeholders goes."""
    for batch, marks in in_batches(values):
        yield from (found for (found,) in conn.execute(sql.format(marks=marks), batch))


def row(conn: Connection, sql: str, params: Any = ()) -> dict[str, Any] | None:
    """The first row of a query as a dict, or None."""
    cursor = conn.execute(sql, params)
    first = cursor.fetchone()
    if first is None:
        return None
    names = [column[0] for column in cursor.description or ()]
    return dict(zip(names, first, strict=True))
