"""Every exception privault raises on purpose.

Expected outcomes (a gated section, a refused ask, a failed watch) are values, not
exceptions. What is raised here means a broken input or an operation that must not go on;
the interfaces turn each into one line on stderr (CLI) or a structured tool error (MCP).

    PrivaultError
    ├── VaultError              the vault file: not a database, newer schema, wrong key, locked
    ├── InputError              bad input from the caller: empty note, bad time, oversized file
    │   └── BundleError         a sync bundle that is damaged, newer, or needs another key
    ├── NotFound                no such document, node, statement or watch (or not visible to you)
    ├── Conflict                a concurrent change won; retry against the new state
    ├── PolicyError             a policy is missing, unparsable, invalid or unknown (fail closed)
    ├── AccessDenied            the caller may not do this (unknown agent, read-only, revoked)
    └── ModelError              a model file is missing or its sha256 does not match
        └── ModelUnavailable    the local model's worker stopped or hangs (or failed for good)
"""

from __future__ import annotations


class PrivaultError(Exception):
    """Base of every deliberate privault error. The message is one line a user can act on."""


class VaultError(PrivaultError):
    """The vault file cannot be used as it is."""


class InputError(PrivaultError, ValueError):
    """The caller gave input that cannot be stored or understood."""


class BundleError(InputError):
    """A bundle that cannot be imported: not a bundle, damaged, newer, or a wrong key.

    Raised before anything is written, so the vault is unchanged."""


class NotFound(PrivaultError, LookupError):
    """The thing asked for does not exist, or the caller may not know that it exists."""


class Conflict(PrivaultError):
    """Another writer changed the same record first."""


class PolicyError(PrivaultError):
    """A privacy policy could not be loaded or resolved; the operation is refused."""


class AccessDenied(PrivaultError, PermissionError):
    """The caller is not allowed to perform the operation."""


class ModelError(PrivaultError):
    """A model is not installed, or its file does not match its manifest."""


class ModelUnavailable(ModelError):
    """The local model's worker process died or stopped answering during this call.

    `failed` is False while it is being restarted (the next call may succeed) and True once
    it has stopped too often in a row or cannot load: callers then work without it.
    `cannot_load` says it is the second: its files or runtime, not a crash, are at fault."""

    def __init__(self, message: str, *, failed: bool = False, cannot_load: bool = False) -> None:
        super().__init__(message)
        self.failed = failed or cannot_load
        self.cannot_load = cannot_load


def utf8_text(text: str, what: str) -> str:
    """`text`, if UTF-8 can write it; else an `InputError` naming `what`. A byte that was not
    UTF-8, read from a terminal's arguments or standard input, arrives as a lone surrogate
    that would fail later, deep inside a tokenizer or a hash."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            f"{what} is not UTF-8 text (character {exc.start + 1} came from a byte that is not)"
        ) from None
    return text


# What a vault that may only be read needs (`store.connection`, `storage_fault`).
WRITABLE = (
    "make the file, its -wal and -shm files and their folder writable to write (reading "
    "commands still work; a running server picks that up when it starts again)"
)
# SQLite's result codes for a fault of the file or the disk under it (extended codes
# start with these): a driver's error names its code (`sqlite_errorname`).
_DAMAGED = ("SQLITE_CORRUPT", "SQLITE_NOTADB")
_UNWRITTEN = ("SQLITE_FULL", "SQLITE_IOERR")
_READ_ONLY = ("SQLITE_READONLY",)


def storage_fault(exc: BaseException) -> str | None:
    """What to do about a fault of the vault file or the disk under it, said to the owner,
    judged by the SQLite result code the driver's error carries; None for any other error
    (a bug keeps its own report: "no such column" is not the disk's fault)."""
    code = str(getattr(exc, "sqlite_errorname", "") or "")
    if code.startswith(_DAMAGED):
        return (
            f"the vault file is damaged ({exc}): stop writing to it, copy it aside with "
            "its -wal file, and restore a `privault export` bundle into a new vault "
            "(`privault import`); never put a vault file back beside another copy's -wal file"
        )
    if code.startswith(_UNWRITTEN):
        return (
            f"the vault could not be written ({exc}): free disk space (or raise the "
            "file size limit) and run the command again; what was stored before is kept"
        )
    if code.startswith(_READ_ONLY):
        return f"the vault is read-only for this user ({exc}): {WRITABLE}"
    return None
