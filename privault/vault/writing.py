"""The document write path behind `Vault.note`, `Vault.add` and `Vault.file_page`.

Heavy work (sectioning, embedding, PII detection) runs before the write lock is taken;
the transaction then only compares hashes and inserts. Unchanged content is a no-op;
changed content replaces a document's sections under the same id, so owner overrides and
links survive; a changed web page becomes a new version and the old one stays readable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from privault.errors import InputError
from privault.retrieval.embedder import Embedder
from privault.retrieval.extract import SUPPORTED_SUFFIXES, extract_file
from privault.store import documents, sections
from privault.store.connection import Connection, write
from privault.timeutil import now_ms, parse_time
from privault.vault import ingest
from privault.vault.ingest import Draft
from privault.vault.privacy import PrivacyRuntime
from privault.vault.results import Added


def note_draft(item: Mapping[str, Any], max_bytes: int) -> Draft:
    """A validated note from a mapping with `text` and optional title, tags, shelf, kind,
    created_at, metadata, source and untrusted."""
    text = ingest.check_text(item.get("text") or "", "note", max_bytes)
    return Draft(
        kind=item.get("kind") or "note",
        title=(item.get("title") or "").strip() or ingest.default_title(text),
        text=text,
        shelf=ingest.check_shelf(item.get("shelf") or "default"),
        tags=ingest.check_tags(item.get("tags") or ()),
        created_at=item.get("created_at"),
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
    and, when `shelf` is None (none chosen), its shelf. The statement tables of a
    Markdown export are not a document: None.
    """
    extracted = extract_file(path, max_bytes)
    front = extracted.front
    if front is not None and front.statements:
        return None
    created = None
    if front is not None and front.created:
        try:
            created = parse_time(front.created)
        except InputError:
            created = None  # a date privault cannot read is the file's business, not an error
    return Draft(
        kind="file",
        title=extracted.title,
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
        title=title.strip() or url,
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


def store_drafts(
    conn: Connection,
    embedder: Embedder,
    scanner: PrivacyRuntime,
    drafts: Sequence[Draft],
    *,
    versioned: bool = False,
) -> list[Added]:
    """Write drafts in one transaction; return what happened to each, in order."""
    results: dict[int, Added] = {}
    pending: list[tuple[int, Draft]] = []
    for index, draft in enumerate(drafts):
        existing = _existing(conn, draft)
        if existing and existing.content_hash == draft.content_hash:
            results[index] = Added(
                existing.id,
                "unchanged",
                existing.title,
                sections.section_count(conn, existing.id),
                draft.source,
            )
        else:
            pending.append((index, draft))
    todo = [draft for _, draft in pending]
    indexed = ingest.index_many(todo, embedder) if todo else []
    scans = scanner.scan_drafts(todo, indexed) if todo else []
    indexed = scanner.with_masked_entries(todo, indexed, scans, embedder) if todo else []
    now = now_ms()
    with write(conn):
        for (index, draft), drafted, scan in zip(pending, indexed, scans, strict=True):
            # Re-read under the lock: another writer may have stored the same content.
            existing = _existing(conn, draft)
            if existing and existing.content_hash == draft.content_hash:
                results[index] = Added(
                    existing.id, "unchanged", existing.title, len(drafted), draft.source
                )
                continue
            doc_id, status = _upsert(conn, draft, existing, versioned, now)
            section_ids = sections.replace_sections(conn, doc_id, drafted)
            scanner.store_scan(doc_id, section_ids, scan)
            results[index] = Added(doc_id, status, draft.title, len(drafted), draft.source)
    return [results[index] for index in range(len(drafts))]


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
    todo = sections.current_section_ids(conn)
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
