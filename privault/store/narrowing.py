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
    chosen: Filters, shelves: Sequence[str] | None, hidden: Sequence[str], documents: str = ""
) -> tuple[list[str], list[object]]:
    """SQL conditions over the documents table (its columns prefixed `documents`, e.g.
    "d.") and their parameters: on one of `shelves` (None: any; empty: none), on none of
    `hidden`, and `chosen`'s kind, tag and creation window (`until` exclusive).
    `chosen.shelf` is not read here: the caller has folded it into `shelves`."""
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
    if chosen.tag:
        where.append(f"{documents}id IN (SELECT doc_id FROM document_tags WHERE tag = ?)")
        params.append(chosen.tag)
    if chosen.since is not None:
        where.append(f"{documents}created_at >= ?")
        params.append(chosen.since)
    if chosen.until is not None:
        where.append(f"{documents}created_at < ?")
        params.append(chosen.until)
    return where, params
