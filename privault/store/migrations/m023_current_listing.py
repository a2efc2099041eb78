"""The listing index holds current documents only; older versions get one of their own.

The listing index began with `current`, a column with two values. With no statistics in the
file, SQLite judged `current = 1` a selective start and answered every look-up that names it
(is this note already here? this page's current version?) by walking all current documents:
~0.4 s a note at 100,000 sections, which made adding a batch of notes crawl. Partial indexes
say the same without offering `current` as a key: newest-first listing of current
documents, and the few older versions (`status` leaves their windows out of its counts).
"""

STEPS = [
    "DROP INDEX documents_listing",
    "CREATE INDEX documents_listing ON documents (created_at DESC, id) WHERE current = 1",
    "CREATE INDEX documents_old ON documents (id) WHERE current = 0",
]
