"""Sync through the facade (`vault.sync`): bundles, sync folders, Markdown export.

Owner only: a bundle holds every row of the vault in clear once decrypted, and importing
rewrites shelves, policies and overrides, so no agent may do either (there is no MCP
surface). Imported documents and statements are indexed, embedded and scanned for PII
here, by this device's models, before the write lock is taken; nothing derived is taken
from a bundle.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from privault.caller import Caller
from privault.errors import AccessDenied, BundleError, InputError, PolicyError
from privault.privacy.policy import MODE_RANK
from privault.statements.vectors import embed_many
from privault.store import sections, sync_read, sync_state
from privault.store.connection import IntegrityError, write
from privault.store.migrations import applied_version, known_migrations
from privault.store.sections import IndexedSection
from privault.sync import bundle as bundles
from privault.sync import bundle_reader as reader
from privault.sync import folder as sync_folder
from privault.sync.bundle_writer import BundleWriter, Envelope
from privault.sync.merge import MergeReport, merge
from privault.sync.stamping import clock_ahead, iter_rows_since, stamp_changes
from privault.timeutil import now_ms
from privault.vault import ingest
from privault.vault.context import VaultContext
from privault.vault.ingest import Draft
from privault.vault.markdown_export import MarkdownReport, export_markdown
from privault.vault.statements import VaultStatements
from privault.vault.sync_results import ExportReport, ImportReport, SyncReport

# An import merges this many rows (or about this many characters of them) per transaction:
# the documents among them are cut, embedded and scanned together, before the lock.
IMPORT_BATCH_ROWS = 500
IMPORT_BATCH_CHARS = 4 << 20


# What a sync report names the rows that waited in this vault, merged again, by.
WAITING_ROWS = "rows waiting from earlier imports"


def _imported(
    path: str, device: str, rows: int, merged: MergeReport, refused: Sequence[str]
) -> ImportReport:
    """What a merge of a bundle's rows (or of the rows waiting, `WAITING_ROWS`) did."""
    return ImportReport(
        path,
        device,
        rows,
        dict(sorted(merged.applied.items())),
        merged.unchanged,
        merged.forgotten,
        merged.waiting,
        tuple(sorted(set(merged.stricter))),
        (*refused, *merged.refused),
        merged.ahead,
    )


def _owner(caller: Caller) -> None:
    if not caller.is_owner:
        raise AccessDenied("only the owner can export, import or sync the vault")


def _draft(data: dict[str, Any]) -> Draft:
    """What a synced document's scan reads of it, as of a local write's draft."""
    return Draft(
        kind=data["kind"],
        title=data["title"],
        text=data["body"],
        author=data.get("author", ""),
        tags=tuple(data["tags"]),
    )


class _Derive:
    """Indexes, vectors and PII spans for imported rows, by this device's engines."""

    def __init__(self, shared: VaultContext) -> None:
        self.shared = shared

    def prepare_documents(self, items: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
        # Every section's chunks first, so the whole import embeds in one batch.
        pending: list[tuple[str, IndexedSection, int]] = []  # doc id, section, first text
        texts: list[str] = []
        for doc_id, data in items:
            cut = len(doc_id) + 1  # node ids are `<doc id>.<path>`
            for node, parent, position, depth, heading, crumb, text, start, end in data["sections"]:
                chunks, chunk_texts = ingest.chunk_section(crumb, text)
                section = IndexedSection(
                    path=node[cut:],
                    parent_path=parent[cut:] if parent else None,
                    position=position,
                    depth=depth,
                    heading=heading,
                    breadcrumb=tuple(crumb),
                    text=text,
                    start=start,
                    end=end,
                    chunks=tuple((c.start, c.end, c.tokens) for c in chunks),
                    chunk_texts=chunk_texts,
                    vectors=np.empty((0, 0), dtype=np.float32),  # filled below
                )
                pending.append((doc_id, section, len(texts)))
                texts.extend(chunk_texts)
        vectors = self.shared.embedder.embed(texts) if texts else None
        indexed: dict[str, list[IndexedSection]] = {doc_id: [] for doc_id, _ in items}
        for doc_id, section, offset in pending:
            mine = vectors[offset : offset + len(section.chunks)]  # type: ignore[index]
            indexed[doc_id].append(replace(section, vectors=mine))
        drafts = [_draft(data) for _, data in items]
        privacy = self.shared.privacy
        scans = privacy.scan_drafts(drafts, [indexed[doc_id] for doc_id, _ in items])
        # The same masked index entries a local write gets: gated callers search those.
        masked = privacy.with_masked_entries(
            drafts, [indexed[doc_id] for doc_id, _ in items], scans, self.shared.embedder
        )
        return {
            doc_id: (sections_of, scan)
            for (doc_id, _), sections_of, scan in zip(items, masked, scans, strict=True)
        }

    def prepare_labels(self, items: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
        # Sections are stored in position order: the first one opens the document.
        jobs = []
        for _, data in items:
            held = sorted(data["sections"], key=lambda section: section[2])
            jobs.append((_draft(data), [s[4] for s in held], held[0][6] if held else ""))
        scans = self.shared.privacy.scan_labels(jobs)
        return {doc_id: (None, scan) for (doc_id, _), scan in zip(items, scans, strict=True)}

    def store_document(self, doc_id: str, data: dict[str, Any], prepared: Any) -> None:
        indexed, scan = prepared
        if indexed is None:  # its labels alone
            self.shared.privacy.store_scan(doc_id, [], scan)
            return
        section_ids = sections.replace_sections(self.shared.conn, doc_id, indexed)
        self.shared.privacy.store_scan(doc_id, section_ids, scan)

    def statement_vectors(self, items: Sequence[tuple[str, str]]) -> dict[str, bytes]:
        def embed(texts: list[str]) -> list[list[float]]:
            found: list[list[float]] = self.shared.embedder.embed(texts).tolist()
            return found

        blobs = embed_many(embed, [content for _, content in items])
        return {statement_id: blob for (statement_id, _), blob in zip(items, blobs, strict=True)}

    def policy_rank(self, name: str | None) -> int:
        # A policy this device does not have gates everything, as a read under it would.
        if name is None:
            return -1
        try:
            mode = self.shared.privacy.policies.resolve(name).mode
        except PolicyError:
            return len(MODE_RANK)
        return MODE_RANK[mode]


class VaultSync:
    """Export, import and sync of one vault (owner only)."""

    def __init__(self, shared: VaultContext, statements: VaultStatements) -> None:
        self.shared = shared
        self.statements = statements
        self._keys: dict[str, bundles.KeyCache] = {}

    def _key_cache(self, secret: str) -> bundles.KeyCache:
        # Kept for the vault's lifetime, so `serve` derives each device's key once.
        if secret not in self._keys:
            self._keys[secret] = bundles.KeyCache(secret)
        return self._keys[secret]

    def _folder_salt(self) -> bytes:
        """This device's salt for its sync files: one key per device, derived once by
        each reader. (Each file still has its own random nonce.)"""
        conn = self.shared.conn
        with write(conn):
            salt = sync_state.meta_get(conn, "sync_salt")
            if salt is None:
                salt = os.urandom(16).hex()
                sync_state.meta_set(conn, "sync_salt", salt)
        return bytes.fromhex(salt)

    @property
    def device(self) -> str:
        """This vault file's device id."""
        with write(self.shared.conn):
            return sync_state.device_id(self.shared.conn)

    def _schema(self) -> int:
        return known_migrations()[-1].version

    def _fill(
        self,
        writer: BundleWriter,
        since: int,
        origins_skipped: set[str],
    ) -> Envelope:
        """Stream every change after `since` into `writer`; the envelope to seal it with."""
        conn = self.shared.conn
        with write(conn):  # stamping and reading in one transaction: rows match their clocks
            stamp_changes(conn)
            for found in iter_rows_since(conn, since, skip_origins=origins_skipped):
                writer.add(found)
            return Envelope(
                sync_state.device_id(conn),
                applied_version(conn),
                since,
                sync_state.last_seq(conn),
                now_ms(),
            )

    def export(
        self, path: str | Path, *, secret: str, caller: Caller, since: int = 0
    ) -> ExportReport:
        """Write every row changed after local change number `since` (0: all) to a bundle.

        The bundle is streamed to disk (memory does not grow with the vault) under a
        temporary name and renamed when complete: a failed export leaves no partial file
        and whatever was at `path` before."""
        _owner(caller)
        if since < 0:
            raise InputError("--since must be a cursor printed by an earlier export (>= 0)")
        target = Path(path).expanduser()
        if target.is_dir():
            raise InputError(f"cannot write {target}: it is a folder; name a file in it")
        keys = bundles.KeyCache(secret)
        try:
            # The file is opened first, so a path that cannot be written fails at once.
            with (
                sync_folder.atomic_file(target) as out,
                tempfile.TemporaryFile(dir=target.parent) as spool,
            ):
                writer = BundleWriter(keys, spool)
                envelope = self._fill(writer, since, set())
                size = writer.seal_into(out, envelope)
        except OSError as exc:
            raise InputError(f"cannot write {target}: {exc.strerror or exc}") from None
        return self._written(str(target), writer.rows, since, envelope.cursor, size)

    def _written(self, path: str, rows: int, since: int, cursor: int, size: int) -> ExportReport:
        """The report of a bundle written, with how far this device's clock is ahead."""
        ahead = clock_ahead(self.shared.conn, now_ms())
        return ExportReport(path, rows, since, cursor, size, ahead)

    def _merge(self, path: Path, keys: bundles.KeyCache) -> ImportReport:
        """Authenticate and check the bundle at `path` whole, then merge it in batches.

        Each batch is its own transaction, so memory and the write lock are bounded by a
        batch, not the bundle. A bundle that fails a check changes nothing; one interrupted
        mid-merge keeps the batches merged (rows merge in any order and any number of
        times), and importing it again completes it."""
        # The spool holds the ciphertext only (still encrypted), beside the vault file.
        with tempfile.TemporaryFile(dir=self.shared.path.parent) as spool:
            try:
                with sync_folder.open_file(path) as source:
                    opened = reader.open_file(source, keys, self._schema(), spool)
            except OSError as exc:
                raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
            total = MergeReport()
            merged = 0
            for batch in opened.batches(IMPORT_BATCH_ROWS, IMPORT_BATCH_CHARS):
                try:
                    report = merge(self.shared.conn, batch, _Derive(self.shared), now_ms)
                except IntegrityError as exc:  # this batch rolled back
                    raise BundleError(
                        f"the bundle's rows do not fit this vault ({exc}); "
                        f"{merged} of its {opened.count} rows were merged before"
                    ) from None
                merged += len(batch)
                self._after_merge(report)
                for kind, count in report.applied.items():
                    total.applied[kind] = total.applied.get(kind, 0) + count
                total.unchanged += report.unchanged
                total.forgotten += report.forgotten
                total.waiting = report.waiting
                total.ahead = report.ahead
                total.stricter.extend(report.stricter)
                total.refused.extend(report.refused)
            if not merged:  # a bundle of no rows: the rows waiting are merged all the same
                total = merge(self.shared.conn, [], _Derive(self.shared), now_ms)
                self._after_merge(total)
        return _imported(str(path), opened.device, opened.count, total, opened.refused)

    def _merge_waiting(self) -> ImportReport | None:
        """The rows parked by earlier imports, merged again (None: none waits, or none
        could merge yet): a row whose clock was ahead merges once its time has come, even
        when the device that sent it writes nothing more."""
        if not sync_state.pending(self.shared.conn):
            return None
        report = merge(self.shared.conn, [], _Derive(self.shared), now_ms)
        self._after_merge(report)
        if not (report.total or report.forgotten or report.refused):
            return None
        return _imported(WAITING_ROWS, "", 0, report, ())

    def _after_merge(self, report: MergeReport) -> None:
        """What a merged batch asks of the privacy layer, before the next batch is read."""
        if {"statement", "pii_override"} & set(report.applied):
            # New entities and marks are known entities: every process learns them, and the
            # owner's windows that hold them get their masked entries again.
            self.shared.privacy.known_changed(report.known_values, self.shared.embedder)
        if report.new_statements:
            self.statements.scan(report.new_statements)

    def import_bundle(self, path: str | Path, *, secret: str, caller: Caller) -> ImportReport:
        """Merge a bundle into the vault; a damaged, newer or wrongly keyed one changes nothing."""
        _owner(caller)
        return self._merge(Path(path).expanduser(), bundles.KeyCache(secret))

    def sync(self, folder: str | Path, *, secret: str, caller: Caller) -> SyncReport:
        """Write this device's new changes into `folder` and merge the other devices' files.

        A peer's file that is damaged, still arriving, or sealed with another passphrase, or
        whose merge fails in any other way, is reported and tried again next time; the
        others are merged. Rows refused on their own are named in their file's report.
        """
        _owner(caller)
        root = sync_folder.check_folder(Path(folder))
        keys = self._key_cache(secret)
        me = self.device
        # Rows that came from devices writing into this folder are theirs to publish.
        peers = set(sync_folder.devices(root)) - {me}
        written = self._write_changes(root, keys, peers)
        imported, refused = [], []
        done = {peer: sync_state.imported_files(self.shared.conn, peer) for peer in peers}
        for change in sync_folder.peer_files(root, me):
            if change.name in done.get(change.device, set()):
                continue
            try:
                imported.append(self._merge(change.path, keys))
            except (BundleError, InputError, OSError) as exc:
                refused.append((str(change.path), str(exc)))
                continue
            except Exception as exc:  # one bad file must not stop the others: named, retried
                refused.append((str(change.path), f"{type(exc).__name__}: {exc}"))
                continue
            with write(self.shared.conn):
                sync_state.mark_imported(self.shared.conn, change.device, change.name, now_ms())
        if not imported:  # a merge re-reads the rows waiting: none ran, so one runs now
            waited = self._merge_waiting()
            imported += [waited] if waited is not None else []
        if any(report.kept_stricter for report in imported):
            # A shelf merged stricter than either side is a change of this device's: written
            # now, not at its next sync, so one round leaves every device holding it.
            written = self._write_changes(root, keys, peers) or written
        return SyncReport(me, written, tuple(imported), tuple(refused))

    def _write_changes(
        self, root: Path, keys: bundles.KeyCache, peers: set[str]
    ) -> ExportReport | None:
        """This device's changes since its last file in `root`, as a new file (None: none)."""
        me = self.device
        since = sync_folder.written_up_to(root, me)
        with tempfile.TemporaryFile(dir=root) as spool:
            writer = BundleWriter(keys, spool, salt=self._folder_salt())
            envelope = self._fill(writer, since, peers)
            if not writer.rows:
                return None
            target = sync_folder.write_file(
                root, me, envelope.cursor, lambda out: writer.seal_into(out, envelope)
            )
            size = target.stat().st_size
            return self._written(str(target), writer.rows, since, envelope.cursor, size)

    def export_markdown(self, folder: str | Path, *, caller: Caller) -> MarkdownReport:
        """One Markdown file per document and the statement tables, into `folder`."""
        _owner(caller)
        return export_markdown(self.shared.conn, Path(folder))

    def dump(self) -> dict[str, dict[str, Any]]:
        """Every synced row's content by kind and id (what converged devices agree on)."""
        return sync_read.dump(self.shared.conn)
