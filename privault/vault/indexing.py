"""Background indexing: finishing what deferred writes left in the index queue.

A deferred write (`privault note`, `privault add`, a long file) stores a document's text
and keyword rows at once and queues the rest (`store.index_queue`); until it is done, gated
callers get none of it (`vault.reading`). `VaultIndexing.step` finishes one batch: it
claims rows under a lease, scans the sections and labels with the detector while their
windows are embedded on other threads, builds the masked entries from the spans, and
stores all of it in one transaction that also deletes the rows. A section rewritten or
deleted meanwhile is left alone (its own write queued or stored it anew); a batch that
fails is retried after a backoff and, failing too often, listed as dead.

`privault index`, the worker the CLI starts in the background and `privault serve` all
call `step` until it is idle. Work comes in stages, each a method that finishes one
batch; `step` runs the first stage that finds any, so a stage added later (another index)
needs no change to those loops.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from privault.caller import Caller
from privault.errors import AccessDenied
from privault.spans import Span
from privault.store import (
    documents,
    early_vectors,
    index_queue,
    masked_index,
    pii,
    sections,
    strong_codes,
    vector_residuals,
)
from privault.store import label_spans as label_store
from privault.store.connection import write
from privault.timeutil import now_ms
from privault.vault import gated_index, ingest, writing
from privault.vault.context import VaultContext
from privault.vault.labels import document_labels, found_in, scan_text
from privault.vault.status import IndexingStatus

if TYPE_CHECKING:
    import numpy as np

BATCH = 128  # queue rows claimed per step: labels and sections, oldest first
BATCH_CHARS = 24_000  # and about this much section text (a few seconds of work; a long
# file's sections go in several steps, so progress shows and a lease is never outlived)
LEASE_MS = 2 * 60_000  # far beyond a batch's work (see BATCH_CHARS)
# And this much more per character claimed: a section longer than a batch is claimed
# alone, and 1.1 MB of notes dense with names takes about six minutes (0.33 ms a char).
# A worker killed on another host leaves its rows until the lease ends (one on this host
# only until the next claim), so no lease runs past `LEASE_MAX_MS`.
LEASE_MS_PER_CHAR = 1.0
LEASE_MAX_MS = 60 * 60_000
SCAN_STAGE = "PII scan and embedding"
RESIDUALS_STAGE = "residual codes of older windows"
STRONG_CODES_STAGE = "strong codes of older windows"


@dataclass(frozen=True)
class IndexStep:
    """What one `step` did: which stage worked, how much it finished, what is left."""

    stage: str  # '' when there was nothing to do
    done: int  # sections and label sets finished by this step
    remaining: int  # sections still queued
    error: str | None = None  # the batch failed (it is retried after a backoff)

    @property
    def idle(self) -> bool:
        """Whether no stage had anything to do."""
        return not self.stage


@dataclass(frozen=True)
class _Labels:
    """A document whose labels a claim scans, as read when the claim began."""

    doc_id: str
    author: str
    content_hash: str
    headings: tuple[str, ...]
    labels: tuple[str, ...]
    body: str
    opening: str  # its first section's text (a title made from its first line)


@dataclass(frozen=True)
class _Section:
    """A claimed section as read, with the windows it is indexed by today."""

    row: sections.SectionRow
    chunks: tuple[tuple[int, int, int], ...]
    chunk_texts: tuple[str, ...]


class VaultIndexing:
    """The index queue of one open vault: its state, and the work that empties it."""

    def __init__(self, context: VaultContext) -> None:
        self._context = context
        self._conn = context.conn
        self._stages: tuple[tuple[str, Callable[[int], int | None]], ...] = (
            (SCAN_STAGE, self._scan_and_embed),
            (RESIDUALS_STAGE, self._fill_residuals),
            (STRONG_CODES_STAGE, self._fill_strong_codes),
        )

    def status(self) -> IndexingStatus:
        """What waits in the queue."""
        backlog = index_queue.backlog(self._conn)
        errors = tuple(index_queue.dead_errors(self._conn)) if backlog.dead else ()
        return IndexingStatus(
            backlog.sections, backlog.documents, backlog.dead, backlog.oldest_queued_at, errors
        )

    def retry_failed(self, *, caller: Caller) -> int:
        """Give every queued row that failed (too often, or waiting for its backoff) one
        more try at the next steps; owner only. The number of rows."""
        if not caller.is_owner:
            raise AccessDenied("only the owner can run the indexer")
        return index_queue.retry_failed(self._conn, now_ms())

    def has_work(self) -> bool:
        """Whether a step would find something to do now (backoffs and leases respected)."""
        conn = self._conn
        return (
            index_queue.has_claimable(conn, now_ms())
            or not vector_residuals.known_complete(conn)
            or not strong_codes.known_complete(conn)
        )

    def step(self, *, caller: Caller, limit: int = BATCH) -> IndexStep:
        """Finish one batch of the first stage that has work; owner only."""
        if not caller.is_owner:
            raise AccessDenied("only the owner can run the indexer")
        for stage, run in self._stages:
            try:
                done = run(limit)
            except _BatchFailed as failed:
                return IndexStep(stage, 0, self.status().sections, failed.reason)
            if done is not None:
                return IndexStep(stage, done, self.status().sections)
        return IndexStep("", 0, self.status().sections)

    # ---- the residuals stage --------------------------------------------------------

    def _fill_residuals(self, limit: int) -> int | None:
        """Residual codes for a batch of windows indexed before they existed (m027). The
        windows are not sections: the step reports none finished."""
        if vector_residuals.known_complete(self._conn):
            return None
        return None if vector_residuals.fill_some(self._conn) is None else 0

    def _fill_strong_codes(self, limit: int) -> int | None:
        """Int8 codes for a batch of strong rows written before they existed (m029)."""
        if strong_codes.known_complete(self._conn):
            return None
        return None if strong_codes.fill_some(self._conn) is None else 0

    # ---- the PII scan and embedding stage ------------------------------------------

    def _scan_and_embed(self, limit: int) -> int | None:
        conn = self._conn
        now = now_ms()
        index_queue.expire_leases(conn, gone_owners(index_queue.lease_owners(conn, now)), now)
        if not index_queue.has_claimable(conn, now):
            return None  # read-only when idle: serve asks every two seconds
        claimed = index_queue.claim(
            conn,
            now=now,
            lease_ms=LEASE_MS,
            lease_ms_per_char=LEASE_MS_PER_CHAR,
            lease_max_ms=LEASE_MAX_MS,
            limit=limit,
            max_chars=BATCH_CHARS,
            owner=LEASE_OWNER,
        )
        if claimed.empty:
            return None
        try:
            labels, queued = self._read(claimed)
            found = self._index(labels, queued)
            done = self._store(claimed, labels, queued, *found)
        except Exception as exc:
            reason = f"{type(exc).__name__}: {exc}"
            index_queue.fail(conn, claimed, reason, now=now_ms())
            raise _BatchFailed(reason) from exc
        except BaseException:  # interrupted: hand the rows back, not counted as a failure
            index_queue.release(conn, claimed)
            raise
        index_queue.release(conn, claimed)  # rows it could not finish (rewritten meanwhile)
        return done

    def _read(self, claimed: index_queue.Claimed) -> tuple[list[_Labels], list[_Section]]:
        conn = self._conn
        labels = []
        for doc_id in claimed.label_docs:
            doc = documents.get(conn, doc_id)
            if doc is None:
                continue
            tree = sections.sections_of(conn, doc_id)
            headings = tuple(s.heading for s in tree)
            labels.append(
                _Labels(
                    doc_id,
                    doc.author,
                    doc.content_hash,
                    headings,
                    tuple(document_labels(doc.title, headings, doc.tags)),
                    documents.body(conn, doc_id) or "",
                    tree[0].text if tree else "",
                )
            )
        rows = sections.sections_by_ids(conn, claimed.sections)
        queued = []
        for section_id in claimed.sections:
            if section_id in rows:
                row = rows[section_id]
                chunks, texts = ingest.chunk_section(row.breadcrumb, row.text)
                spans = tuple((c.start, c.end, c.tokens) for c in chunks)
                queued.append(_Section(row, spans, texts))
        return labels, queued

    def _index(
        self, labels: Sequence[_Labels], queued: Sequence[_Section]
    ) -> tuple[dict[str, dict[str, list[Span]]], list[list[Span]], np.ndarray, list[tuple]]:
        """Spans of every label and section (the detector on this thread, the windows
        embedded beside it), then the masked entries the spans call for."""
        privacy = self._context.privacy
        embedder = self._context.embedder
        privacy.refresh()
        texts = [(item.row.author, item.row.text) for item in queued]
        for doc in labels:
            texts += [(doc.author, scan_text(label, doc.body, doc.opening)) for label in doc.labels]
        windows = [text for item in queued for text in item.chunk_texts]
        vectors, found = self._embed_while(windows, [item.row.id for item in queued], texts)
        section_spans = found[: len(queued)]
        label_found: dict[str, dict[str, list[Span]]] = {}
        offset = len(queued)
        for doc in labels:
            hits = found[offset : offset + len(doc.labels)]
            label_found[doc.doc_id] = {
                label: found_in(label, doc.opening, spans)
                for label, spans in zip(doc.labels, hits, strict=True)
            }
            offset += len(doc.labels)
        masked_plans = [
            gated_index.masked_windows(
                privacy.masker,
                item.row.breadcrumb,
                item.row.text,
                item.chunks,
                spans,
                self._label_lookup(item.row.doc_id, label_found),
                owner_text=item.row.author == "",
            )
            for item, spans in zip(queued, section_spans, strict=True)
        ]
        masked_vectors = embedder.embed([text for plan in masked_plans for _, text in plan])
        masked, at = [], 0
        for plan in masked_plans:
            masked.append(
                tuple(
                    (position, text, masked_vectors[at + i])
                    for i, (position, text) in enumerate(plan)
                )
            )
            at += len(plan)
        return label_found, section_spans, vectors, masked

    def _embed_while(
        self, windows: list[str], section_ids: list[int], texts: list[tuple[str, str]]
    ) -> tuple[np.ndarray, list[list[Span]]]:
        """Vectors of `windows` while the detector scans `texts`: a window the owner's
        search already embedded (same section, same text) takes that vector instead."""
        import numpy as np

        embedder = self._context.embedder
        privacy = self._context.privacy
        stored = early_vectors.for_sections(self._conn, section_ids, embedder.name)
        reused = {
            text: np.frombuffer(blob, dtype=np.float32)
            for text, blob in stored.items()
            if len(blob) == embedder.dim * 4
        }
        todo = [text for text in windows if text not in reused]
        fresh, found = writing.embed_while(embedder, todo, lambda: privacy.detect_by_author(texts))
        if not reused:
            return fresh, found
        vectors = np.zeros((len(windows), embedder.dim), dtype=np.float32)
        rest = iter(fresh)
        for position, text in enumerate(windows):
            vectors[position] = reused[text] if text in reused else next(rest)
        return vectors, found

    def _label_lookup(
        self, doc_id: str, scanned: dict[str, dict[str, list[Span]]]
    ) -> Callable[[str], Sequence[Span]]:
        """A section's breadcrumb spans: scanned in this batch, or stored earlier (the claim
        takes a section only once its document's labels are done or claimed with it)."""
        if doc_id in scanned:
            fresh = scanned[doc_id]
            return lambda label: fresh.get(label, ())
        return lambda label: self._context.privacy.label_spans_of(doc_id, label)

    def _store(
        self,
        claimed: index_queue.Claimed,
        labels: Sequence[_Labels],
        queued: Sequence[_Section],
        label_found: dict[str, dict[str, list[Span]]],
        section_spans: Sequence[list[Span]],
        vectors: np.ndarray,
        masked: Sequence[tuple],
    ) -> int:
        conn = self._conn
        privacy = self._context.privacy
        done, offset = 0, 0
        with write(conn):
            masked_index.record_builder_if_empty(conn, gated_index.fingerprint(privacy.masker))
            for doc in labels:
                current = documents.get(conn, doc.doc_id)
                if (
                    current is None
                    or current.content_hash != doc.content_hash
                    or tuple(document_labels(current.title, doc.headings, current.tags))
                    != doc.labels  # retitled or retagged meanwhile: not these labels' spans
                    or not index_queue.held_labels(conn, claimed, doc.doc_id)
                ):
                    continue  # rewritten meanwhile: its write queued the labels again
                version = privacy.detector_for(doc.author).version
                label_store.replace(conn, doc.doc_id, label_found[doc.doc_id], version)
                index_queue.finish_labels(conn, claimed, doc.doc_id)
                done += 1
            for item, spans, entries in zip(queued, section_spans, masked, strict=True):
                count = len(item.chunks)
                window_vectors = vectors[offset : offset + count]
                offset += count
                row = item.row
                if sections.section_text(conn, row.id) != row.text:
                    continue  # deleted or rewritten: its own write took the row with it
                if not index_queue.held_section(conn, claimed, row.id):
                    continue
                pii.save_spans(conn, row.id, spans, privacy.detector_for(row.author).version)
                sections.replace_chunks(
                    conn, row.id, item.chunks, item.chunk_texts, window_vectors, entries
                )
                index_queue.finish_section(conn, claimed, row.id)
                done += 1
        return done


LEASE_OWNER = f"{socket.gethostname()}:{os.getpid()}"


def gone_owners(owners: Sequence[str]) -> list[str]:
    """Lease owners on this host whose process no longer runs (killed mid-batch): their
    rows need not wait for the lease to run out. A process id taken again by another
    process looks alive, which only means waiting for the lease, as on another host."""
    host = socket.gethostname()
    gone = []
    for owner in owners:
        name, _, pid = owner.rpartition(":")
        if name != host or not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            gone.append(owner)
        except OSError:  # alive, but another user's: leave it
            continue
    return gone


class _BatchFailed(Exception):
    """A batch failed; its rows were recorded as failed (retried after a backoff)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
