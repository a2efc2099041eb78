"""Vectors of the second, stronger relevance model, computed after the write.

Writes index a window for keywords and the fast embedder at once; the strong model is
too slow for the write path, so a background pass fills these tables later:

* `strong_vectors`: one vector per distinct text embedded, keyed by a digest of the model
  name and the text. Content addressing makes the pass idempotent and lets a window that
  is re-cut or re-masked under a new chunk id reuse the vector it already had.
* `strong_chunks`: which vectors stand for a chunk: `plain` (what the owner searches) and,
  when the chunk has a masked entry, `masked` (what gated callers search). A row is
  written only with every vector it names, in one transaction, so a pass killed at any
  point leaves either the whole row or none; "chunks without a row" is all the work left.
  Deleting a chunk deletes its row.
"""

STEPS = [
    """CREATE TABLE strong_vectors (
        digest    BLOB PRIMARY KEY,
        embedding BLOB NOT NULL
    ) WITHOUT ROWID""",
    """CREATE TABLE strong_chunks (
        chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
        plain    BLOB NOT NULL,
        masked   BLOB
    )""",
    "CREATE INDEX strong_chunks_plain ON strong_chunks (plain)",
    "CREATE INDEX strong_chunks_masked ON strong_chunks (masked) WHERE masked IS NOT NULL",
]
