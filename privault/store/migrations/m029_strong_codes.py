"""An int8 code of each window's strong vectors, in a row keyed by the chunk id.

The strong leg of a large vault reads its shortlist back from the file (up to 4,096
windows at a million). A strong vector is 3 KB found through its digest: two lookups
among large rows, 4,096 of them in 155 ms at a million windows. Its int8 code (772 bytes)
keyed by the chunk id is one lookup: 15 ms (`store.strong_codes`).

A vault without strong rows has every code it needs and is noted complete; one with
strong rows gets their codes from the background indexer (`strong_codes.fill_some`).
"""

STEPS = [
    """CREATE TABLE strong_codes (
        chunk_id INTEGER PRIMARY KEY REFERENCES strong_chunks(chunk_id) ON DELETE CASCADE,
        plain    BLOB NOT NULL,
        masked   BLOB
    )""",
    "INSERT INTO meta (key, value) SELECT 'strong_codes_complete', '1'"
    " WHERE NOT EXISTS (SELECT 1 FROM strong_chunks) ON CONFLICT (key) DO NOTHING",
]
