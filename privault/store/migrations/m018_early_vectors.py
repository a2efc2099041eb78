"""Vectors a search computed for windows the indexer had not reached yet.

The owner's search embeds the newest queued sections' windows at query time, so a note is
found by meaning the moment it is written (`store.early_vectors`). Those vectors are kept
here for the indexer, keyed by the chunk they were computed from: chunks never change
after they are written (an edit writes new ones), so a row names exactly the text it was
embedded from, and deleting the chunk deletes the row. `embedder` names the model, so a
vault opened with another embedder never reuses them.
"""

STEPS = [
    """CREATE TABLE early_vectors (
        chunk_id  INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
        embedder  TEXT NOT NULL,
        embedding BLOB NOT NULL
    )""",
]
