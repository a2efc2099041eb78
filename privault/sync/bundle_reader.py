"""Reading a bundle without holding it in memory: authenticated, checked, then streamed.

The file is the one `privault.sync.bundle` lays out and `privault.sync.bundle_writer`
writes. It is read in three passes over a private copy, so memory holds a block and a row
at a time, whatever the bundle's size:

1. the ciphertext is copied into a spool (an unnamed temporary file, so what was
   authenticated is what is read later, whatever happens to the file meanwhile) while its
   AES-GCM tag is checked. Nothing decrypted is looked at before the tag has passed: the
   plaintext of a file whose tag fails may be whatever its author chose;
2. every row is read once and checked (its shape, the digest of all of them), so one
   malformed row refuses the whole bundle before anything is written; a well-shaped row
   outside the bounds a local write keeps (`privault.sync.row_bounds`) is set aside and
   reported instead, and the rest of the bundle merges;
3. the rows are read again, for the merge, in batches, without those set aside.

The tag is checked again at the end of every read of the spool.
"""

from __future__ import annotations

import codecs
import hashlib
import hmac
import io
import json
import zlib
from collections.abc import Iterator
from typing import IO, Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from privault.errors import BundleError, InputError
from privault.sync.bundle import (
    MAGIC,
    Bundle,
    KeyCache,
    check_header,
    check_versions,
    key_check,
    read_header_from,
    unb64,
)
from privault.sync.row_bounds import RowRefused
from privault.sync.row_stream import RowList
from privault.sync.rows import Row

READ_BLOCK = 1 << 20  # bytes read, decrypted or inflated at a time
REFUSALS_SHOWN = 100  # rows set aside that are named one by one; the rest are counted
_TAG = 16  # bytes of an AES-GCM tag


def _row(item: Any, number: int) -> Row:
    """The row, `RowRefused` for one to set aside, BundleError for one that refuses all."""
    try:
        return Row.from_list(item)
    except RowRefused:
        raise
    except InputError as exc:
        raise BundleError(f"the bundle's row {number} is malformed: {exc}") from None


def _canonical(item: Any) -> bytes:
    try:
        return json.dumps(item, sort_keys=True, separators=(",", ":")).encode()
    except (ValueError, TypeError, RecursionError):
        raise BundleError("the bundle's content is malformed (rows)") from None


class OpenedBundle:
    """An authenticated bundle whose rows are read, on demand, from a private copy.

    `open_file` has already authenticated the ciphertext (its AES-GCM tag) while copying it
    into the spool, and read every row once (each row's shape, the rows' digest), so the
    rows read again by `rows()` or `batches()` are those checked: the spool is this
    process's unnamed file, and the tag is checked again at the end of every read."""

    def __init__(
        self, header: dict[str, Any], spool: IO[bytes], key: bytes, nonce: bytes, head: bytes
    ) -> None:
        self.device: str = header["device"]
        self.schema: int = header["schema"]
        self.since: int = header["since"]
        self.cursor: int = header["cursor"]
        self.created_at: int = header["created_at"]
        self.count = 0  # rows, known once checked
        self.set_aside = 0  # rows refused on their own, known once checked
        self._refusals: list[str] = []  # the first of them, one line each: "row N: why"
        self._spool = spool
        self._key, self._nonce, self._head = key, nonce, head
        self._size = header["size"] - _TAG
        self._tag = b""

    def _decryptor(self) -> Any:
        decryptor = Cipher(algorithms.AES(self._key), modes.GCM(self._nonce)).decryptor()
        decryptor.authenticate_additional_data(MAGIC + self._head)
        return decryptor

    def _authenticate(self, source: IO[bytes]) -> None:
        """Copy the ciphertext into the spool while checking its tag; nothing decrypted is
        looked at before the tag has passed."""
        decryptor = self._decryptor()
        left = self._size
        while left > 0:
            block = source.read(min(READ_BLOCK, left))
            if not block:
                raise BundleError("the bundle is truncated or damaged (it changed while read)")
            left -= len(block)
            decryptor.update(block)
            self._spool.write(block)
        self._tag = source.read(_TAG)
        if len(self._tag) != _TAG or source.read(1):
            raise BundleError("the bundle is truncated or damaged (it changed while read)")
        try:
            decryptor.finalize_with_tag(self._tag)
        except (InvalidTag, ValueError):
            raise BundleError("the bundle was changed or damaged after it was written") from None

    def _decrypted(self) -> Iterator[bytes]:
        decryptor = self._decryptor()
        self._spool.seek(0)
        left = self._size
        while left > 0:
            block = self._spool.read(min(READ_BLOCK, left))
            if not block:
                raise BundleError("the bundle's temporary copy was cut short while reading")
            left -= len(block)
            yield decryptor.update(block)
        try:
            decryptor.finalize_with_tag(self._tag)
        except InvalidTag:
            raise BundleError("the bundle's temporary copy changed while reading") from None

    def _text(self) -> Iterator[str]:
        inflater = zlib.decompressobj()
        text = codecs.getincrementaldecoder("utf-8")()
        try:
            for block in self._decrypted():
                while block:
                    # Bounded output per call: a small block may inflate a thousandfold.
                    yield text.decode(inflater.decompress(block, READ_BLOCK))
                    block = inflater.unconsumed_tail
            if not inflater.eof:
                raise BundleError("the bundle's content is malformed (incomplete)")
            yield text.decode(b"", final=True)
        except (zlib.error, UnicodeDecodeError):
            raise BundleError("the bundle's content is malformed (not compressed JSON)") from None

    def _rows(self) -> Iterator[tuple[Row, int]]:
        for number, (item, size) in enumerate(RowList(self._text()).rows(), 1):
            try:
                row = _row(item, number)
            except RowRefused:  # set aside (and reported) by `_check`
                continue
            yield row, size

    def _check(self) -> None:
        """Read every row once: its shape, and the digest of them all."""
        content = RowList(self._text())
        digest = hashlib.sha256(b"[")
        for number, (item, _) in enumerate(content.rows(), 1):
            digest.update(b"," + _canonical(item) if number > 1 else _canonical(item))
            try:
                _row(item, number)
            except RowRefused as exc:
                self.set_aside += 1
                if len(self._refusals) < REFUSALS_SHOWN:
                    self._refusals.append(f"row {number}: {exc}")
            self.count = number
        digest.update(b"]")
        if digest.hexdigest() != content.declared:
            raise BundleError("the bundle's rows do not match their hash")

    @property
    def refused(self) -> tuple[str, ...]:
        """The rows set aside, one line each (the first `REFUSALS_SHOWN`, then a count)."""
        more = self.set_aside - len(self._refusals)
        return (*self._refusals, *([f"and {more} more row(s)"] if more else []))

    def rows(self) -> Iterator[Row]:
        """Every row not set aside, in the bundle's order."""
        for row, _ in self._rows():
            yield row

    def batches(self, rows: int, chars: int) -> Iterator[list[Row]]:
        """The rows in order, in lists of at most `rows` rows and about `chars` characters."""
        batch: list[Row] = []
        held = 0
        for row, size in self._rows():
            batch.append(row)
            held += size
            if len(batch) >= rows or held >= chars:
                yield batch
                batch, held = [], 0
        if batch:
            yield batch


def open_file(source: IO[bytes], keys: KeyCache, schema: int, spool: IO[bytes]) -> OpenedBundle:
    """Check and authenticate the bundle in `source`, copying it into `spool` (a private,
    empty, readable and writable file); any damage refuses the whole of it.

    Until the key check and the AES-GCM tag have passed, nothing the file says is believed:
    its header is checked field by field (the scrypt cost against `ACCEPTED_SCRYPT`) before
    a key is derived, and nothing is decompressed or parsed before the tag has passed. Then
    every row is read once and checked. Every refusal is a BundleError. Memory holds a block
    and a row at a time, whatever the bundle's size."""
    header, head = read_header_from(source)
    check_versions(header, schema)
    start = source.tell()
    size = source.seek(0, io.SEEK_END) - start
    source.seek(start)
    params, salt = check_header(header, size)
    checked = unb64(header.get("key_check"), "key check")
    nonce = unb64(header.get("nonce"), "nonce")
    if len(checked) != 16 or len(nonce) != 12:
        raise BundleError("the bundle's header is damaged (key check or nonce)")
    key = keys.key(salt, params)
    if not hmac.compare_digest(key_check(key), checked):
        raise BundleError("wrong passphrase or key for this bundle")
    if size < _TAG:
        raise BundleError("the bundle was changed or damaged after it was written")
    opened = OpenedBundle(header, spool, key, nonce, head)
    opened._authenticate(source)
    opened._check()
    return opened


def open_bundle(data: bytes, keys: KeyCache, schema: int) -> Bundle:
    """Check, decrypt and parse a bundle held in memory (small bundles, tests); the same
    checks as `open_file`."""
    opened = open_file(io.BytesIO(data), keys, schema, io.BytesIO())
    return Bundle(
        device=opened.device,
        schema=opened.schema,
        since=opened.since,
        cursor=opened.cursor,
        created_at=opened.created_at,
        rows=tuple(opened.rows()),
    )
