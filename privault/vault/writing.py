"""The document write path behind `Vault.note`, `Vault.add` and `Vault.file_page`.

Heavy work (sectioning, embedding, PII detection) runs before the write lock is taken;
the transaction then only compares hashes and inserts. Unchanged content is a no-op;
changed content, or a new date from a file's front matter or an export, replaces a
document's sections under the same id, so owner overrides and links survive; a changed web
page becomes a new version and the old one stays readable.

The two heavy engines run at once: the chunks are embedded on other threads while the
detector scans sections and labels on this one (onnxruntime releases the GIL), and only
the masked windows, which need the spans, are embedded after. Every document is still
written in one transaction with its spans, vectors and masked entries.

A deferred write (`background=True`) stores the text, sections and keyword rows at once,
with no model at all, and queues the rest in the same transaction (`store.index_queue`):
`vault.indexing` finishes it later, and until then gated callers see none of it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from privault.errors import InputError, NotFound
from privault.retrieval.extract import SUPPORTED_SUFFIXES, extract_file
from privault.store import documents, index_queue, label_spans, sections
from privault.store.connection import Connection, write
from privault.store.sections import IndexedSection
from privault.timeutil import now_ms, parse_time, to_ms
from privault.vault import ingest
from privault.vault.added import Added
from privault.vault.ingest import Draft

T = TypeVar("T")

if TYPE_CHECKING:  # a deferred write needs neither: capturing a note imports no model code
    import numpy as np

    from privault.retrieval.embedder import Embedder
    from privault.vault.detection import Scan
    from privault.vault.privacy import PrivacyRuntime


def note_draft(item: Mapping[str, Any], max_bytes: int) -> Draft:
    """A validated note from a mapping with `text` and optional title, tags, shelf, kind,
    created_at, metadata, source and untrusted."""
    text = ingest.check_text(item.get("text") or "", "note", max_bytes)
    return Draft(
        kind=item.get("kind") or "note",
        title=ingest.stored_title(item.get("title") or "") or ingest.default_title(text),
        text=text,
        shelf=ingest.check_shelf(item.get("shelf") or "default"),
        tags=ingest.check_tags(item.get("tags") or ()),
        created_at=to_ms(item.get("created_at"), "created_at"),
        metadata=dict(item.get("metadata") or {}),
        untrusted=bool(item.get("untrusted")),
        source=item.get("source"),
        author=str(item.get("author") or ""),
    )


def file_draft(
    path: Path, shelf: str | None, tags: tuple[str, ...], max_bytes: int
) -> Draft | None:
    """A file's text as a draft; InputError says why a file cannot be read.

    A Markdown file's front matter gives its title, tags (added to `tags`), created date
    and, when `shelf` is None (none chosen), its shelf. The statement tables and shelf
    settings of a Markdown export are not documents: None.
    """
    extracted = extract_file(path, max_bytes)
    front = extracted.front
    if front is not None and not front.document:
        return None
    created = None
    if front is not None and front.created:
        try:
            created = parse_time(front.created)
        except InputError:
            # A date privault cannot read or keep (outside years 1000-9999) is the file's
            # business, not an error: the file is added, dated when it is added.
            created = None
    return Draft(
        kind="file",
        title=ingest.stored_title(extracted.title),
        text=extracted.text,
        shelf=ingest.check_shelf(shelf or (front.shelf if front and front.shelf else "default")),
        tags=ingest.check_tags([*tags, *(front.tags if front else ())]),
        source=str(path),
        created_at=created,
    )


def page_draft(
    url: str, title: str, text: str, shelf: str, metadata: dict[str, object], max_bytes: int
) -> Draft:
    """A fetched web page as a draft: untrusted, keyed by its URL."""
    return Draft(
        kind="page",
        title=ingest.stored_title(title) or ingest.stored_title(url),
        text=ingest.check_text(text, "page", max_bytes),
        shelf=ingest.check_shelf(shelf),
        source=url,
        untrusted=True,
        metadata=metadata,
    )


def _existing(conn: Connection, draft: Draft) -> documents.Document | None:
    # An agent's note is "the same note" only as one it wrote itself: matching the owner's
    # text would confirm that the owner wrote exactly that.
    return documents.find_current(
        conn,
        shelf=draft.shelf,
        source=draft.source,
        content_hash=draft.content_hash,
        author=draft.author,
    )


def _dated_by_source(draft: Draft, versioned: bool) -> bool:
    """Whether a draft's date and metadata are its source's, to follow when they change.

    A file's and an imported item's are (its front matter or the export says when it was
    written). A note without a source is known by its text (and author, see `_existing`):
    the same text again is the same note, a no-op that keeps the date it was stored with,
    so an agent repeating its note writes nothing. A web page that changes is a new version.
    """
    return draft.source is not None and not versioned


def _needs_sections(existing: documents.Document, draft: Draft, versioned: bool) -> bool:
    """Whether writing a draft over `existing` takes new sections: its text or title
    changed, or its source's date did (never written in place, see `update_content`)."""
    if existing.content_hash != draft.content_hash:
        return True
    return (
        _dated_by_source(draft, versioned)
        and draft.created_at is not None
        and draft.created_at != existing.created_at
    )


def _metadata_changed(existing: documents.Document, draft: Draft, versioned: bool) -> bool:
    """Whether a draft's source now gives other metadata than `existing` holds (compared
    as stored: JSON, where a tuple is a list)."""
    if not _dated_by_source(draft, versioned):
        return False
    given: dict[str, Any] = json.loads(json.dumps(draft.metadata))
    return given != existing.metadata


def _in_place(
    conn: Connection,
    draft: Draft,
    existing: documents.Document,
    versioned: bool,
    now: int,
    labels: Scan | None,
) -> Added:
    """A draft that keeps its document's sections: unchanged, or only its metadata (and
    tags) written. Metadata is written in place: no index row or in-memory mirror holds
    it, unlike the date. New tags are stored with their spans (`retag`)."""
    count = sections.section_count(conn, existing.id)
    if not _metadata_changed(existing, draft, versioned):
        return Added(existing.id, "unchanged", existing.title, count, draft.source)
    documents.set_metadata(conn, existing.id, dict(draft.metadata), now)
    retag(conn, existing, draft.tags, now, labels)
    return Added(existing.id, "updated", draft.title, count, draft.source)


def retag(
    conn: Connection,
    doc: documents.Document,
    tags: Sequence[str],
    now: int,
    labels: Scan | None = None,
) -> None:
    """Make a document's tags `tags`, and store new ones with their spans: `labels` (its
    labels scanned before the lock), or without those, its labels are queued for the
    indexer, as a deferred write's are. A gated caller's tag filter finds only a tag
    scanned (`store.narrowing`): a tag stored without spans would be found by no agent."""
    documents.set_tags(conn, doc.id, tags)
    if set(tags) == set(doc.tags):
        return
    if labels is None:
        index_queue.enqueue(conn, doc.id, [], now)
    else:
        label_spans.replace(conn, doc.id, labels.labels, labels.detector_version)


def store_drafts(
    conn: Connection,
    embedder: Embedder | None,
    scanner: PrivacyRuntime | None,
    drafts: Sequence[Draft],
    *,
    versioned: bool = False,
    background: bool = False,
) -> list[Added]:
    """Write drafts in one transaction; return what happened to each, in order.

    With `background`, nothing is scanned or embedded here (`embedder` and `scanner` may be
    None): the documents are stored keyword-searchable and queued for the indexer.
    """
    results: dict[int, Added] = {}
    pending: list[tuple[int, Draft]] = []
    in_place: list[tuple[int, Draft]] = []  # only their metadata changed
    retagged: list[tuple[int, Draft]] = []  # and their tags: labels scanned before the lock
    for index, draft in enumerate(drafts):
        existing = _existing(conn, draft)
        if existing is None or _needs_sections(existing, draft, versioned):
            pending.append((index, draft))
        elif _metadata_changed(existing, draft, versioned):
            in_place.append((index, draft))
            if set(draft.tags) != set(existing.tags) and not background:
                retagged.append((index, draft))
        else:
            results[index] = Added(
                existing.id,
                "unchanged",
                existing.title,
                sections.section_count(conn, existing.id),
                draft.source,
            )
    todo = [draft for _, draft in pending]
    scans: list[Scan | None]
    if background or not todo:
        indexed, scans = ingest.plan_many(todo), [None] * len(todo)
    else:
        assert embedder is not None and scanner is not None
        indexed, found = index_and_scan(todo, embedder, scanner)
        scans = list(found)
    planned = {
        index: (made, scan) for (index, _), made, scan in zip(pending, indexed, scans, strict=True)
    }
    relabelled: dict[int, Scan] = {}
    if retagged:
        assert scanner is not None
        plans = ingest.plan_many([draft for _, draft in retagged])
        jobs = [
            (draft, [section.heading for section in plan], plan[0].text if plan else "")
            for (_, draft), plan in zip(retagged, plans, strict=True)
        ]
        found_labels = scanner.scan_labels(jobs)
        relabelled = {
            index: labels for (index, _), labels in zip(retagged, found_labels, strict=True)
        }
    # In the drafts' order: the same source twice in one batch ends as the later one.
    work = sorted(pending + in_place, key=lambda item: item[0])
    now = now_ms()
    with write(conn):
        for index, draft in work:
            made, scan = planned.get(index, (None, None))
            # Re-read under the lock: another writer may have stored the same content, or
            # changed or forgotten a document whose metadata alone was to change (its
            # sections are then cut here and left to the indexer, as a deferred write's).
            existing = _existing(conn, draft)
            if existing is not None and not _needs_sections(existing, draft, versioned):
                results[index] = _in_place(
                    conn, draft, existing, versioned, now, relabelled.get(index, scan)
                )
                continue
            drafted = made if made is not None else ingest.plan_many([draft])[0]
            doc_id, status = _upsert(conn, draft, existing, versioned, now)
            section_ids = sections.replace_sections(conn, doc_id, drafted)
            if scan is None:
                index_queue.enqueue(conn, doc_id, section_ids, now)
            else:
                assert scanner is not None
                index_queue.drop_document(conn, doc_id)  # labels scanned here, not later
                scanner.store_scan(doc_id, section_ids, scan)
            results[index] = Added(doc_id, status, draft.title, len(drafted), draft.source)
    return [results[index] for index in range(len(drafts))]


def index_and_scan(
    drafts: Sequence[Draft], embedder: Embedder, scanner: PrivacyRuntime
) -> tuple[list[list[IndexedSection]], list[Scan]]:
    """Drafts sectioned, embedded and scanned, with their masked entries: the chunks are
    embedded on other threads while this one runs the detector."""
    plans = ingest.plan_many(drafts)
    vectors, scans = embed_while(
        embedder, ingest.chunk_texts(plans), lambda: scanner.scan_drafts(drafts, plans)
    )
    indexed = ingest.embed_plans(plans, vectors)
    return scanner.with_masked_entries(drafts, indexed, scans, embedder), scans


def embed_while(
    embedder: Embedder, texts: Sequence[str], work: Callable[[], T]
) -> tuple[np.ndarray, T]:
    """Vectors of `texts`, embedded on another thread while `work()` runs on this one
    (onnxruntime releases the GIL; the vault's embedder spreads a long list over two
    threads, see `vault.embedding`); returns both results."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="privault-write") as pool:
        vectors = pool.submit(embedder.embed, list(texts))
        result = work()
        return vectors.result(), result


def _upsert(
    conn: Connection,
    draft: Draft,
    existing: documents.Document | None,
    versioned: bool,
    now: int,
) -> tuple[str, str]:
    """Update a changed document in place, or insert it (as a new version for pages)."""
    if existing and not versioned:
        documents.update_content(
            conn,
            existing.id,
            title=draft.title,
            text=draft.text,
            content_hash=draft.content_hash,
            created_at=existing.created_at if draft.created_at is None else draft.created_at,
            metadata=dict(draft.metadata),
            updated_at=now,
        )
        documents.set_tags(conn, existing.id, draft.tags)
        return existing.id, "updated"
    doc_id = documents.new_id("d")
    if existing:
        documents.retire(conn, existing.id)
    documents.insert_document(
        conn,
        documents.Document(
            id=doc_id,
            kind=draft.kind,
            title=draft.title,
            source=draft.source,
            shelf=draft.shelf,
            tags=draft.tags,
            content_hash=draft.content_hash,
            created_at=draft.created_at if draft.created_at is not None else now,
            updated_at=now,
            untrusted=draft.untrusted,
            current=True,
            previous_id=existing.id if existing else None,
            metadata=dict(draft.metadata),
            author=draft.author,
        ),
        draft.text,
    )
    return doc_id, "updated" if existing else "added"


def reindex(
    conn: Connection,
    embedder: Embedder,
    *,
    progress: Callable[[int, int], None] | None = None,
    batch: int = 64,
) -> tuple[int, int]:
    """Cut and embed every current section's chunks again with today's chunking.

    Sections, node ids and PII spans stay; only chunks and their index rows change. Each
    batch is its own transaction, so readers and writers carry on in between; a section
    edited meanwhile is skipped (its new text was indexed by the edit). Returns (sections,
    chunks) written; `progress(done, total)` is called after each batch.
    """
    # Sections still queued are left to the indexer: their chunks must keep the empty masked
    # entry that hides them from gated callers until they are scanned.
    current = sections.current_section_ids(conn)
    queued = index_queue.pending_sections(conn, current)
    todo = [sid for sid in current if sid not in queued]
    written = chunks = 0
    for start in range(0, len(todo), batch):
        rows = sections.sections_by_ids(conn, todo[start : start + batch])
        plans = ingest.rechunk(
            [(row.id, row.breadcrumb, row.text) for row in rows.values()], embedder
        )
        with write(conn):
            for section_id, spans, texts, vectors in plans:
                if sections.section_text(conn, section_id) != rows[section_id].text:
                    continue
                sections.replace_chunks(conn, section_id, spans, texts, vectors)
                written, chunks = written + 1, chunks + len(spans)
        if progress:
            progress(min(start + batch, len(todo)), len(todo))
    with write(conn):
        sections.clear_stale_chunking(conn)
    return written, chunks


def file_batches(
    files: Sequence[Path],
    shelf: str | None,
    tags: tuple[str, ...],
    max_bytes: int,
    *,
    check: Callable[[str], None],
    failed: list[tuple[str, str]],
    progress: Callable[[str], None] | None = None,
    batch: int = 16,
) -> Iterator[list[Draft]]:
    """The drafts of `files` (see `expand_paths`), `batch` files at a time; a file that
    cannot be read, or whose shelf `check` refuses, goes into `failed` with the reason."""
    for start in range(0, len(files), batch):
        drafts = []
        for file in files[start : start + batch]:
            try:
                draft = file_draft(file, shelf, tags, max_bytes)
                if draft is not None:
                    check(draft.shelf)
                    drafts.append(draft)
            except (InputError, NotFound) as exc:
                failed.append((str(file), str(exc)))
            if progress:
                progress(str(file))
        yield drafts


def expand_paths(paths: Sequence[str | Path]) -> tuple[list[Path], list[tuple[str, str]]]:
    """Files to add (folders walked, hidden entries skipped) and paths that failed at once."""
    files: list[Path] = []
    failed: list[tuple[str, str]] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            try:
                for item in sorted(path.rglob("*")):
                    if any(part.startswith(".") for part in item.relative_to(path).parts):
                        continue
                    if item.is_file() and item.suffix.lower() in SUPPORTED_SUFFIXES:
                        files.append(item.resolve())
            except OSError as exc:
                failed.append((str(path), f"cannot list folder ({exc.strerror or exc})"))
        elif path.exists():
            files.append(path.resolve())
        else:
            failed.append((str(path), "no such file or folder"))
    return list(dict.fromkeys(files)), failed
