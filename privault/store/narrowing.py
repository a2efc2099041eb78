"""The SQL of what a caller narrows documents to, written once.

The search index's reads (`index_reads.Filters`) and the document listings
(`documents.DocumentFilter`) both narrow by shelves, hidden shelves and a `Filters` value;
both take their conditions from here, so a search and a listing given the same narrowing
select the same documents.
"""

from __future__ import annotations

from collections.abc import Sequence

from privault.filters import Filters


def conditions(
    chosen: Filters,
    shelves: Sequence[str] | None,
    hidden: Sequence[str],
    documents: str = "",
    masked_kinds: Sequence[str] | None = None,
    tag_denied: bool = False,
) -> tuple[list[str], list[object]]:
    """SQL conditions over the documents table (its columns prefixed `documents`, e.g.
    "d.") and their parameters: on one of `shelves` (None: any; empty: none), on none of
    `hidden`, and `chosen`'s kind, tag and creation window (`until` exclusive).
    `chosen.shelf` is not read here: the caller has folded it into `shelves`.

    With `masked_kinds` (a gated caller's), the tag matches only where it was scanned, its
    document's labels wait for no scan, and its stored spans hold none of those kinds: a
    tag masked (or withheld) in every reply must not be found by asking for it
    (`tag="maria@example.com"` would tell whether the vault holds it). With `tag_denied`
    (the tag holds a value masked in the owner's text alone: a deny-list value, a known
    entity), it matches only documents an agent wrote."""
    where: list[str] = []
    params: list[object] = []
    if shelves is not None:
        where.append(f"{documents}shelf IN ({','.join('?' * len(shelves))})" if shelves else "0")
        params.extend(shelves)
    if hidden:
        where.append(f"{documents}shelf NOT IN ({','.join('?' * len(hidden))})")
        params.extend(hidden)
    if chosen.kind:
        where.append(f"{documents}kind = ?")
        params.append(chosen.kind)
    if chosen.tag and masked_kinds is not None:
        # Scanned (a tag never scanned is scanned when read), its document's labels not
        # waiting for a scan (shown as being indexed), and no stored span of those kinds.
        kinds = ",".join("?" * len(masked_kinds)) or "NULL"
        where.append(
            f"{documents}id IN (SELECT t.doc_id FROM document_tags t WHERE t.tag = ?"
            " AND EXISTS (SELECT 1 FROM label_spans l"
            " WHERE l.doc_id = t.doc_id AND l.label = t.tag)"
            " AND NOT EXISTS (SELECT 1 FROM index_queue q"
            " WHERE q.doc_id = t.doc_id AND q.section_id IS NULL)"
            " AND NOT EXISTS (SELECT 1 FROM label_spans l, json_each(l.spans) j"
            " WHERE l.doc_id = t.doc_id AND l.label = t.tag"
            f" AND json_extract(j.value, '$[2]') IN ({kinds})))"
        )
        params.extend((chosen.tag, *masked_kinds))
    elif chosen.tag:
        where.append(f"{documents}id IN (SELECT doc_id FROM document_tags WHERE tag = ?)")
        params.append(chosen.tag)
    if chosen.tag and tag_denied:
        where.append(f"{documents}author != ''")
    if chosen.since is not None:
        where.append(f"{documents}created_at >= ?")
        params.append(chosen.since)
    if chosen.until is not None:
        where.append(f"{documents}created_at < ?")
        params.append(chosen.until)
    return where, params
