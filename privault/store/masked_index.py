"""The state of the masked index entries: which masker built them, and which are missing.

Gated callers search masked entries (see `sections`); a window that should have one and
has not is matched through its plain entry, text and all — a presence oracle. So the
vault records which masker (a fingerprint of the combined gated policy) built its entries,
and can list the sections whose entries are missing:

* `stale_masking` (set by migration m009 on a vault indexed before masked entries existed)
  or a fingerprint that differs from the current masker's: every section whose entries
  depend on the masker is rebuilt (`sections_to_remask`);
* otherwise, sections holding a stored span the masker hides but no masked entry at all
  (`unmasked_sections`): entries deleted, or written by a process that failed half-way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from privault.store.connection import Connection, write

FINGERPRINT_KEY = "masked_index"
STALE_KEY = "stale_masking"

# Chunks of sections the indexer has finished: a queued section's windows hold an empty
# masked entry whatever the masker (see `sections`), so they say nothing of which built them.
_SCANNED = "NOT EXISTS (SELECT 1 FROM index_queue q WHERE q.section_id = c.section_id)"

_NO_MASKED_ENTRY = (
    "NOT EXISTS (SELECT 1 FROM chunks c JOIN masked_chunks m ON m.chunk_id = c.id"
    " WHERE c.section_id = s.id)"
)


def built_by(conn: Connection) -> str | None:
    """The fingerprint of the masker that built the entries (None: not recorded)."""
    found = conn.execute("SELECT value FROM meta WHERE key = ?", (FINGERPRINT_KEY,)).fetchone()
    return str(found[0]) if found else None


def needs_rebuild(conn: Connection, fingerprint: str) -> bool:
    """Whether the entries may have been built by another masker (or not at all)."""
    if conn.execute("SELECT 1 FROM meta WHERE key = ?", (STALE_KEY,)).fetchone():
        return True
    recorded = built_by(conn)
    if recorded is None:  # written before fingerprints were kept, or nothing written yet
        return (
            conn.execute(f"SELECT 1 FROM chunks c WHERE {_SCANNED} LIMIT 1").fetchone() is not None
        )
    return recorded != fingerprint


def record_builder(conn: Connection, fingerprint: str, *, replace: bool = False) -> None:
    """Record the masker that built the entries; without `replace`, only if none is yet
    (a write keeps the record of the full build it joins). A full build clears
    `stale_masking` too."""
    with write(conn):
        verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
        conn.execute(f"{verb} INTO meta (key, value) VALUES (?, ?)", (FINGERPRINT_KEY, fingerprint))
        if replace:
            conn.execute("DELETE FROM meta WHERE key = ?", (STALE_KEY,))


def record_builder_if_empty(conn: Connection, fingerprint: str) -> None:
    """Record the masker of a vault about to get its first entries (nothing else to trust;
    windows still queued for the indexer have none yet)."""
    with write(conn):
        conn.execute(
            "INSERT OR IGNORE INTO meta (key, value) SELECT ?, ? "
            f"WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE {_SCANNED})",
            (FINGERPRINT_KEY, fingerprint),
        )


def sections_to_remask(conn: Connection) -> list[int]:
    """Current sections whose masked entries depend on the masker: those holding a stored
    span, in a document with a stored label span, or with masked entries already."""
    return [
        int(section_id)
        for (section_id,) in conn.execute(
            "SELECT s.id FROM sections s JOIN documents d ON d.id = s.doc_id "
            "WHERE d.current = 1 AND ("
            " EXISTS (SELECT 1 FROM pii_spans p WHERE p.section_id = s.id)"
            " OR EXISTS (SELECT 1 FROM label_spans l WHERE l.doc_id = s.doc_id AND l.spans != '[]')"
            " OR NOT " + _NO_MASKED_ENTRY + ") ORDER BY s.id"
        )
    ]


def sections_mentioning(
    conn: Connection, values: Sequence[str], *, unmasked: bool = False
) -> list[int]:
    """Current sections whose plain keyword entries hold any of `values` as a phrase (in
    any casing, any punctuation between its words), with `unmasked` only those without
    any masked entry: where a policy's deny-list value stands in the owner's text (a
    deny-list never judges an agent's own words, `Gate.apply`: an agent's notes would be
    looked at again at every start, and how long that takes would tell it what the list
    holds). Such a value is masked when read and no stored span marks it, so neither
    `sections_to_remask` nor `unmasked_sections` finds the sections that need masked
    entries for it."""
    # The keyword index folds case with older Unicode data than Python: a value is also
    # looked for in the casings Python gives it (Georgian "ალი" written "ᲐᲚᲘ").
    spelled = {form for value in values for form in _casings(value)}
    phrases = {" ".join(re.findall(r"\w+", form)) for form in spelled} - {""}
    if not phrases:
        return []
    expression = " OR ".join(f'"{phrase}"' for phrase in sorted(phrases))
    return [
        int(section_id)
        for (section_id,) in conn.execute(
            "SELECT DISTINCT c.section_id FROM chunks_fts f JOIN chunks c ON c.id = f.rowid"
            " JOIN sections s ON s.id = c.section_id JOIN documents d ON d.id = s.doc_id"
            " WHERE chunks_fts MATCH ? AND d.current = 1 AND d.author = ''"
            + (f" AND {_NO_MASKED_ENTRY}" if unmasked else "")
            + " ORDER BY c.section_id",
            (expression,),
        )
    ]


def _casings(value: str) -> tuple[str, ...]:
    return (value, value.lower(), value.upper(), value.casefold(), value.title())


def unmasked_sections(
    conn: Connection, counted: Sequence[tuple[str, float]], ner: bool
) -> list[int]:
    """Current sections without any masked entry that hold a stored span (in their text,
    or in their document's labels) of a counted `(kind, minimum score)`; `ner` False:
    spans found by NER do not count. An over-approximation: overrides and allow-lists
    are applied by the caller, which checks each section before rebuilding it."""
    if not counted:
        return []
    params: list[object] = [item for pair in counted for item in pair]

    def counts(kind: str, score: str, source: str) -> str:
        matched = " OR ".join(f"({kind} = ? AND {score} >= ?)" for _ in counted)
        return f"({matched})" + ("" if ner else f" AND {source} != 'ner'")

    text_spans = conn.execute(
        "SELECT DISTINCT s.id FROM pii_spans p JOIN sections s ON s.id = p.section_id "
        "JOIN documents d ON d.id = s.doc_id WHERE d.current = 1 AND "
        f"{counts('p.kind', 'p.score', 'p.source')} AND {_NO_MASKED_ENTRY}",
        params,
    ).fetchall()
    in_json = counts(*(f"json_extract(j.value, '$[{i}]')" for i in (2, 3, 4)))
    label_spans = conn.execute(
        "SELECT s.id FROM sections s JOIN documents d ON d.id = s.doc_id "
        "WHERE d.current = 1 AND s.doc_id IN (SELECT l.doc_id FROM label_spans l, "
        f"json_each(l.spans) j WHERE {in_json}) AND {_NO_MASKED_ENTRY}",
        params,
    ).fetchall()
    return sorted({int(sid) for (sid,) in text_spans} | {int(sid) for (sid,) in label_spans})
