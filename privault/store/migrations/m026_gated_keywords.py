"""Gated callers' keyword rows get an FTS table of their own: `gated_fts`.

Until now a window's masked keyword row sat in `chunks_fts` at rowid `-chunk_id`, beside
the plain row, and a gated search dropped the plain rows of masked windows after FTS5 had
found them. So the work of a gated search grew with the number of windows whose *plain*
text matched — a name the vault holds cost measurably more than an absent one of the same
shape (a timing presence oracle), and bm25's statistics counted text the caller may not
see (an ordering one). Now `chunks_fts` holds the plain rows only (the owner's view) and
`gated_fts` what gated callers may see, at the chunk's id: its masked text where it has a
masked entry, its plain text where it needs none, and nothing for a window not scanned yet
(an empty masked entry).

The plain table is rebuilt rather than having its masked rows deleted: FTS5 deletes
leave tombstones that every later query reads past until a merge.
"""

STEPS = [
    "CREATE VIRTUAL TABLE gated_fts USING fts5(text, tokenize = 'porter unicode61')",
    "INSERT INTO gated_fts (rowid, text) SELECT -rowid, text FROM chunks_fts WHERE rowid < 0",
    "INSERT INTO gated_fts (rowid, text) SELECT f.rowid, f.text FROM chunks_fts f"
    " WHERE f.rowid > 0 AND NOT EXISTS (SELECT 1 FROM masked_chunks m WHERE m.chunk_id = f.rowid)",
    "CREATE VIRTUAL TABLE plain_fts_rebuilt USING fts5(text, tokenize = 'porter unicode61')",
    "INSERT INTO plain_fts_rebuilt (rowid, text) SELECT rowid, text FROM chunks_fts"
    " WHERE rowid > 0",
    "DROP TABLE chunks_fts",
    "ALTER TABLE plain_fts_rebuilt RENAME TO chunks_fts",
]
