"""Queue the labels of documents holding a tag no scan took.

A gated caller's tag filter finds a tag only where its scan is stored (`store.narrowing`):
one never scanned is detected when read, and could be masked there while the filter found
it. Tags of documents written before tags were scanned, and of documents synced from
another device before synced tags were, have no stored scan, so agents' tag filters missed
them. Their documents' labels are queued for the background indexer, which scans title,
headings and tags and stores them; until then agents read those labels as being indexed.
"""

STEPS = [
    "INSERT INTO index_queue (doc_id, section_id, available_at, queued_at)"
    " SELECT DISTINCT t.doc_id, NULL, CAST(strftime('%s', 'now') AS INTEGER) * 1000,"
    " CAST(strftime('%s', 'now') AS INTEGER) * 1000"
    " FROM document_tags t JOIN documents d ON d.id = t.doc_id AND d.current = 1"
    " WHERE NOT EXISTS (SELECT 1 FROM label_spans l WHERE l.doc_id = t.doc_id AND l.label = t.tag)"
    " AND NOT EXISTS (SELECT 1 FROM index_queue q WHERE q.doc_id = t.doc_id"
    " AND q.section_id IS NULL)",
]
