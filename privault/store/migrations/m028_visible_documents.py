"""What a search asks of each candidate's document, answered from an index.

Every search checks its few hundred candidate windows against the caller's filters
(`index_reads.visible_chunks`): their document must be current, on a shelf the caller
sees, of the kind and dates asked for. Those columns sit after `body` in a document's
row, so for a long document (a mail, a page) SQLite walked the body's overflow pages to
reach them: with 9 KB bodies at 116k sections, 8.3 ms for 600 candidates against 5.0 ms
from this covering index.

It also notes that every code has its residual where that is so (a new vault): older
vaults get theirs from the background indexer, which notes it when done.
"""

STEPS = [
    "CREATE INDEX documents_visible ON documents (id, current, shelf, kind, created_at)",
    "INSERT INTO meta (key, value) SELECT 'vector_residuals_complete', '1'"
    " WHERE NOT EXISTS (SELECT 1 FROM chunk_codes k WHERE NOT EXISTS"
    " (SELECT 1 FROM chunk_residuals r WHERE r.chunk_id = k.chunk_id))"
    " ON CONFLICT (key) DO NOTHING",
]
