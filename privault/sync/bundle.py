"""The bundle file: rows of a vault, compressed, encrypted and authenticated.

Layout: the magic `PVBUNDLE`, a 4-byte big-endian header length, a JSON header, then the
ciphertext. The header is readable without the key (format and schema, so a newer bundle
is refused with "upgrade privault" before anyone types a passphrase; the scrypt salt; the
size and sha256 of the ciphertext, so a truncated or damaged file is named as such) and it
is bound to the ciphertext as AES-GCM associated data, so changing one byte of it breaks
decryption too. The plaintext is zlib-compressed JSON carrying the rows and their own
sha256. The key is derived from a secret (a passphrase, or the vault's key) with scrypt
and a fresh salt per bundle; a short HMAC of the key in the header tells a wrong secret
apart from a tampered file. Nothing in the header says anything about the rows' content.
This module lays bundles out and checks their header; `privault.sync.bundle_reader`
reads them and `privault.sync.bundle_writer` writes them.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
import json
import re
import struct
from dataclasses import dataclass
from typing import IO, Any

from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from privault.errors import BundleError, InputError
from privault.sync.rows import Row

MAGIC = b"PVBUNDLE"
FORMAT = 1  # the row format this code writes and reads
SCRYPT = {"n": 2**15, "r": 8, "p": 1}  # ~32 MiB, ~0.1 s: cheap once, costly to guess at
# The only scrypt costs a bundle may name. The header is read before anything is
# authenticated, so whoever can drop a file into a sync folder chooses what it says:
# a cost outside this set is refused before any derivation (n=2^20 would be a GiB of
# memory, p=2^20 a day of CPU, n=3 an exception). The larger entry leaves room to raise
# the default; each costs at most ~64 MiB and a fraction of a second.
ACCEPTED_SCRYPT = frozenset({(2**15, 8, 1), (2**16, 8, 1)})
_MAX_HEADER = 64 * 1024
_DEVICE = re.compile(r"^dev_[0-9a-f]{12}\Z")
_HEADER_INTS = ("schema", "since", "cursor", "created_at", "size")


@dataclass(frozen=True)
class Bundle:
    """A decrypted bundle: who wrote it, the local change numbers it covers, its rows."""

    device: str
    schema: int
    since: int
    cursor: int
    created_at: int
    rows: tuple[Row, ...]


class KeyCache:
    """Keys derived from one secret, by salt: scrypt runs once per salt in a session."""

    def __init__(self, secret: str) -> None:
        if not secret:
            raise InputError("a bundle needs a passphrase (or the vault key); none was given")
        self._secret = secret.encode()
        self._keys: dict[bytes, bytes] = {}

    def key(self, salt: bytes, params: dict[str, int]) -> bytes:
        """The 256-bit key for this salt and scrypt cost."""
        cache_key = salt + json.dumps(params, sort_keys=True).encode()
        if cache_key not in self._keys:
            kdf = Scrypt(salt=salt, length=32, n=params["n"], r=params["r"], p=params["p"])
            self._keys[cache_key] = kdf.derive(self._secret)
        return self._keys[cache_key]


def b64(data: bytes) -> str:
    """Bytes as base64 text (header fields)."""
    return base64.b64encode(data).decode("ascii")


def unb64(text: Any, what: str) -> bytes:
    """A base64 header field's bytes, or BundleError naming the field."""
    if not isinstance(text, str):
        raise BundleError(f"the bundle's header is damaged ({what})")
    try:
        return base64.b64decode(text, validate=True)
    except ValueError:
        raise BundleError(f"the bundle's header is damaged ({what})") from None


def key_check(key: bytes) -> bytes:
    """A short HMAC of the key: tells a wrong secret apart from a tampered file."""
    return hmac.new(key, b"privault bundle key check", hashlib.sha256).digest()[:16]


def rows_digest(rows: list[list[Any]]) -> str:
    """sha256 of the rows' canonical JSON list (sorted keys, no spaces), taken a row at a
    time: the whole list's JSON is never held (hundreds of MB for a large vault)."""
    if not isinstance(rows, list):  # not rows at all: the digest of what it is
        return hashlib.sha256(
            json.dumps(rows, sort_keys=True, separators=(",", ":")).encode()
        ).hexdigest()
    digest = hashlib.sha256(b"[")
    for number, item in enumerate(rows):
        if number:
            digest.update(b",")
        digest.update(json.dumps(item, sort_keys=True, separators=(",", ":")).encode())
    digest.update(b"]")
    return digest.hexdigest()


def read_header_from(source: IO[bytes]) -> tuple[dict[str, Any], bytes]:
    """(header, its bytes) from the start of a bundle, or BundleError naming what is wrong;
    `source` is left at the first byte of the ciphertext."""
    start = source.read(len(MAGIC) + 4)
    if not start.startswith(MAGIC):
        raise BundleError("not a privault bundle (no PVBUNDLE signature)")
    if len(start) < len(MAGIC) + 4:
        raise BundleError("the bundle is truncated (no header)")
    (size,) = struct.unpack(">I", start[len(MAGIC) :])
    if size > _MAX_HEADER:
        raise BundleError("the bundle is truncated or damaged (header)")
    head = source.read(size)
    if len(head) < size:
        raise BundleError("the bundle is truncated or damaged (header)")
    try:
        header = json.loads(head)
    except (ValueError, RecursionError):
        raise BundleError("the bundle's header is damaged (not JSON)") from None
    if not isinstance(header, dict):
        raise BundleError("the bundle's header is damaged (not an object)")
    return header, head


def read_header(data: bytes) -> tuple[dict[str, Any], bytes, bytes]:
    """(header, its bytes, ciphertext) of a bundle in memory, or BundleError."""
    source = io.BytesIO(data)
    header, head = read_header_from(source)
    return header, head, data[source.tell() :]


def check_versions(header: dict[str, Any], schema: int) -> None:
    """Refuse a bundle written by a newer privault, before any key is asked for."""
    found = header.get("format")
    if not isinstance(found, int) or found < 1:
        raise BundleError("the bundle's header is damaged (format)")
    if found > FORMAT:
        raise BundleError(
            f"this bundle has format {found}, newer than this privault reads ({FORMAT}); "
            "upgrade privault to import it"
        )
    written = header.get("schema")
    if not isinstance(written, int):
        raise BundleError("the bundle's header is damaged (schema)")
    if written > schema:
        raise BundleError(
            f"this bundle comes from a vault with schema {written}, newer than this privault "
            f"knows ({schema}); upgrade privault to import it"
        )


def check_header(header: dict[str, Any], size: int) -> tuple[dict[str, int], bytes]:
    """Every header field's type and bounds, before any key is derived: (scrypt cost, salt)."""
    for name in _HEADER_INTS:
        value = header.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**63:
            raise BundleError(f"the bundle's header is damaged ({name})")
    device = header.get("device")
    if not isinstance(device, str) or not _DEVICE.match(device):
        raise BundleError("the bundle's header is damaged (device)")
    if size != header["size"]:
        raise BundleError(
            f"the bundle is truncated or damaged ({size} bytes of ciphertext, "
            f"the header says {header['size']})"
        )
    kdf = header.get("kdf")
    if not isinstance(kdf, dict) or kdf.get("name") != "scrypt":
        raise BundleError("the bundle's header is damaged (kdf)")
    cost = tuple(kdf.get(name) for name in ("n", "r", "p"))
    if not all(type(v) is int for v in cost) or cost not in ACCEPTED_SCRYPT:
        raise BundleError(
            "the bundle's header names a key-derivation cost this privault does not use "
            "(damaged, or not written by privault)"
        )
    salt = unb64(kdf.get("salt"), "salt")
    if len(salt) != 16:
        raise BundleError("the bundle's header is damaged (salt)")
    return dict(zip(("n", "r", "p"), cost, strict=True)), salt
