"""Compact copies of the index vectors, for a vector search that scales.

`chunk_codes` holds each embedded chunk's vector quantised to int8 with a scale of its own
(`store.vector_codes`): its plain entry, and its masked entry where it has one. Searches
keep only the sign bits of these rows in memory and re-score a shortlist from here: a
quarter of the float32 bytes, in an ordinary table whose point lookups cost microseconds
(`vec0` point lookups cost tens). Rows are written with their chunk and go with it;
chunks embedded before this migration get theirs on the first search
(`vector_codes.backfill`).
"""

STEPS = [
    """CREATE TABLE chunk_codes (
        chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
        plain    BLOB NOT NULL,
        masked   BLOB
    )""",
]
