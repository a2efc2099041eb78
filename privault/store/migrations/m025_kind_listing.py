"""Current documents of one kind, newest first: the documents page filtered by kind.

The page walks current documents newest first through `documents_listing` and stops when
it is full; filtered by a kind the vault holds few of (or none), the walk read every
current document to fill it: 0.2–0.4 s at 50,000 documents, growing with the vault. This
index starts the walk at the kind.
"""

STEPS = [
    "CREATE INDEX documents_kind_listing ON documents (kind, created_at DESC, id)"
    " WHERE current = 1",
]
