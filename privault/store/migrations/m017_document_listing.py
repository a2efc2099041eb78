"""An index for listing documents newest first.

The owner's page lists documents a page at a time, newest first, by keyset (the last row's
created_at and id). Without an index in that order SQLite reads and sorts every current
document for each page: about a tenth of a second at 100,000 documents.
"""

STEPS = ["CREATE INDEX documents_listing ON documents (current, created_at DESC, id)"]
