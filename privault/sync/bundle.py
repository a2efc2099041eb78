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
This module reads bundles; `privault.sync.bundle_writer` writes them.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import struct
import zlib
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
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
_MAX_PLAIN = 2**30  # decompressed rows: a bundle of this size is far beyond any vault
_DEVICE = re.compile(r"^dev_[0-9a-f]{12}$")
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


def _unb64(text: Any, what: str) -> bytes:
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


def read_header(data: bytes) -> tuple[dict[str, Any], bytes, bytes]:
    """(header, its bytes, ciphertext), or BundleError naming what is wrong."""
    if not data.startswith(MAGIC):
        raise BundleError("not a privault bundle (no PVBUNDLE signature)")
    if len(data) < len(MAGIC) + 4:
        raise BundleError("the bundle is truncated (no header)")
    (size,) = struct.unpack(">I", data[len(MAGIC) : len(MAGIC) + 4])
    start = len(MAGIC) + 4
    if size > _MAX_HEADER or len(data) < start + size:
        raise BundleError("the bundle is truncated or damaged (header)")
    head = data[start : start + size]
    try:
        header = json.loads(head)
    except (ValueError, RecursionError):
        raise BundleError("the bundle's header is damaged (not JSON)") from None
    if not isinstance(header, dict):
        raise BundleError("the bundle's header is damaged (not an object)")
    return header, head, data[start + size :]


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


def _check_header(header: dict[str, Any], ciphertext: bytes) -> tuple[dict[str, int], bytes]:
    """Every header field's type and bounds, before any key is derived: (scrypt cost, salt)."""
    for name in _HEADER_INTS:
        value = header.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**63:
            raise BundleError(f"the bundle's header is damaged ({name})")
    device = header.get("device")
    if not isinstance(device, str) or not _DEVICE.match(device):
        raise BundleError("the bundle's header is damaged (device)")
    if len(ciphertext) != header["size"]:
        raise BundleError(
            f"the bundle is truncated or damaged ({len(ciphertext)} bytes of ciphertext, "
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
    salt = _unb64(kdf.get("salt"), "salt")
    if len(salt) != 16:
        raise BundleError("the bundle's header is damaged (salt)")
    return dict(zip(("n", "r", "p"), cost, strict=True)), salt


def _decompress(body: bytes) -> bytes:
    inflater = zlib.decompressobj()
    plain = inflater.decompress(body, _MAX_PLAIN)
    if inflater.unconsumed_tail or not inflater.eof:
        raise BundleError("the bundle's content is malformed (too large or incomplete)")
    return plain


def _rows(listed: Any) -> tuple[Row, ...]:
    if not isinstance(listed, list):
        raise BundleError("the bundle's content is malformed (rows)")
    rows = []
    for number, item in enumerate(listed, 1):
        try:
            rows.append(Row.from_list(item))
        except InputError as exc:
            raise BundleError(f"the bundle's row {number} is malformed: {exc}") from None
    return tuple(rows)


def open_bundle(data: bytes, keys: KeyCache, schema: int) -> Bundle:
    """Check, decrypt and parse a bundle; any damage refuses the whole of it.

    Until the key check and the AES-GCM tag have passed, nothing the file says is believed:
    its header is checked field by field (the scrypt cost against `ACCEPTED_SCRYPT`) before
    a key is derived. Every refusal, before or after decryption, is a BundleError."""
    header, head, ciphertext = read_header(data)
    check_versions(header, schema)
    params, salt = _check_header(header, ciphertext)
    checked = _unb64(header.get("key_check"), "key check")
    nonce = _unb64(header.get("nonce"), "nonce")
    if len(checked) != 16 or len(nonce) != 12:
        raise BundleError("the bundle's header is damaged (key check or nonce)")
    key = keys.key(salt, params)
    if not hmac.compare_digest(key_check(key), checked):
        raise BundleError("wrong passphrase or key for this bundle")
    try:
        body = AESGCM(key).decrypt(nonce, ciphertext, MAGIC + head)
    except (InvalidTag, ValueError):
        raise BundleError("the bundle was changed or damaged after it was written") from None
    try:
        content = json.loads(_decompress(body))
    except (ValueError, RecursionError, zlib.error):
        raise BundleError("the bundle's content is malformed (not compressed JSON)") from None
    del body  # the parsed rows are what is kept
    if not isinstance(content, dict) or set(content) != {"rows", "rows_sha256"}:
        raise BundleError("the bundle's content is malformed (not a row list)")
    try:
        digest = rows_digest(content["rows"])
    except (ValueError, TypeError, RecursionError):
        raise BundleError("the bundle's content is malformed (rows)") from None
    if digest != content["rows_sha256"]:
        raise BundleError("the bundle's rows do not match their hash")
    return Bundle(
        device=header["device"],
        schema=header["schema"],
        since=header["since"],
        cursor=header["cursor"],
        created_at=header["created_at"],
        rows=_rows(content["rows"]),
    )
