"""Current documents of one kind, newest first.

A listing filtered by kind walked the whole listing index (`documents_listing`) newest first,
checking each document's kind, until its page was full: for a kind few documents have (the
pages among 100,000 notes, or a kind with none at all) that is every current document, and
its "N of M" count read the whole table. With the kind first, both read that kind's rows only.
"""

STEPS = [
    "CREATE INDEX documents_kind_listing ON documents (kind, created_at DESC, id)"
    " WHERE current = 1",
]
