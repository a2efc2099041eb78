"""Writing a bundle without holding it in memory: rows streamed through zlib and AES-GCM.

The file is the one `privault.sync.bundle` reads (format 1), byte for byte in layout: its
header names the ciphertext's size and is the AES-GCM associated data, so it must be
final before the first byte is encrypted, yet the compressed size is known only once
the last row is in. So the compressed rows go first to a spool — an unnamed temporary
file beside the bundle, encrypted under a one-time key that never leaves this process,
so nothing readable touches the disk — and are then re-encrypted under the bundle's key
behind the finished header. Memory holds one row and one block at a time, whatever the
vault's size; the disk briefly holds the compressed rows twice.

The rows' digest is the sha256 of their canonical JSON list. Each row is written in that
canonical form (sorted keys, no spaces), so the digest is taken over exactly the bytes
written between the list's brackets.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import struct
import zlib
from dataclasses import dataclass
from typing import IO

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from privault.errors import BundleError
from privault.sync import bundle as layout
from privault.sync.bundle import MAGIC, Bundle, KeyCache, b64, key_check
from privault.sync.rows import Row

BLOCK = 1 << 20  # bytes copied from the spool at a time
_TAG = 16  # bytes of an AES-GCM tag


@dataclass(frozen=True)
class Envelope:
    """What a bundle's header says besides its keys: who wrote it and which changes."""

    device: str
    schema: int
    since: int  # the local change number the rows start after
    cursor: int  # the local change number they run up to
    created_at: int


class BundleWriter:
    """One bundle being written: `add` rows one at a time, then `seal_into` a file.

    Rows are compressed and encrypted into the spool as they come; `seal_into` writes the
    finished bundle and can run after the transaction that read the rows has ended."""

    def __init__(self, keys: KeyCache, spool: IO[bytes], *, salt: bytes | None = None) -> None:
        self._keys = keys
        self._salt = salt or os.urandom(16)
        self._spool = spool
        self._spool_key = os.urandom(32)
        self._spool_nonce = os.urandom(12)
        self._spooling = Cipher(
            algorithms.AES(self._spool_key), modes.GCM(self._spool_nonce)
        ).encryptor()
        self._compress = zlib.compressobj(6)
        self._digest = hashlib.sha256(b"[")
        self._spooled = 0  # compressed bytes in the spool
        self.rows = 0
        self._write(b'{"rows":[')

    def _write(self, plain: bytes) -> None:
        self._spool_bytes(self._compress.compress(plain))

    def _spool_bytes(self, compressed: bytes) -> None:
        if compressed:
            self._spool.write(self._spooling.update(compressed))
            self._spooled += len(compressed)

    def add(self, row: Row) -> None:
        """Append one row."""
        text = json.dumps(row.as_list(), sort_keys=True, separators=(",", ":")).encode()
        if self.rows:
            text = b"," + text
        self._digest.update(text)
        self._write(text)
        self.rows += 1

    def seal_into(self, out: IO[bytes], envelope: Envelope) -> int:
        """Write the finished bundle to `out` (once); return the bytes written."""
        self._digest.update(b"]")
        self._write(b'],"rows_sha256":"' + self._digest.hexdigest().encode() + b'"}')
        self._spool_bytes(self._compress.flush())
        self._spooling.finalize()
        spool_tag = self._spooling.tag
        cost = layout.SCRYPT  # format and cost are read when writing: the one place each is set
        key = self._keys.key(self._salt, cost)
        nonce = os.urandom(12)
        header = {
            "format": layout.FORMAT,
            "schema": envelope.schema,
            "device": envelope.device,
            "since": envelope.since,
            "cursor": envelope.cursor,
            "created_at": envelope.created_at,
            "kdf": {"name": "scrypt", "salt": b64(self._salt), **cost},
            "key_check": b64(key_check(key)),
            "nonce": b64(nonce),
            "size": self._spooled + _TAG,
        }
        head = json.dumps(header, sort_keys=True).encode()
        out.write(MAGIC + struct.pack(">I", len(head)) + head)
        sealing = Cipher(algorithms.AES(key), modes.GCM(nonce)).encryptor()
        sealing.authenticate_additional_data(MAGIC + head)
        unspooling = Cipher(
            algorithms.AES(self._spool_key), modes.GCM(self._spool_nonce)
        ).decryptor()
        self._spool.seek(0)
        left = self._spooled
        while left:
            block = self._spool.read(min(BLOCK, left))
            if not block:
                raise BundleError("the bundle's temporary copy was cut short while writing")
            left -= len(block)
            out.write(sealing.update(unspooling.update(block)))
        try:
            unspooling.finalize_with_tag(spool_tag)
        except InvalidTag:
            raise BundleError("the bundle's temporary copy changed while writing") from None
        out.write(sealing.finalize() + sealing.tag)
        return len(MAGIC) + 4 + len(head) + self._spooled + _TAG


def seal(bundle: Bundle, keys: KeyCache, *, salt: bytes | None = None) -> bytes:
    """A bundle of rows already in memory, as file bytes (small bundles and tests)."""
    writer = BundleWriter(keys, io.BytesIO(), salt=salt)
    for row in bundle.rows:
        writer.add(row)
    out = io.BytesIO()
    writer.seal_into(
        out,
        Envelope(bundle.device, bundle.schema, bundle.since, bundle.cursor, bundle.created_at),
    )
    return out.getvalue()
