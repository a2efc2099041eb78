"""What was imported from another app, so importing the same export again is idempotent.

* `imported_items`: one row per item of a source (a ChatGPT conversation, a mail, a mem0
  memory), keyed by the source kind and the source's own id (or a content hash where it
  has none). `scope` groups the items of one source (an Obsidian vault's folder name, a
  mailbox's file name; '' where the kind has one source per owner): an item of that scope
  that a later import of it does not find is reported as deleted at the source.
  `item_hash` is a digest of the item as parsed: equal means skipped before any
  sectioning. The item became a document
  (`doc_id`) or a statement chain (`chain_id`, with `statement_id` its current version).
* `imported_links`: the links an imported document makes (an Obsidian `[[wikilink]]`, a
  mail's reply-to), by the target's source key, so a link resolves to whatever document
  holds that source now — one imported later included.
"""

STEPS = [
    """CREATE TABLE imported_items (
        kind         TEXT NOT NULL,
        source_key   TEXT NOT NULL,
        scope        TEXT NOT NULL DEFAULT '',
        shelf        TEXT NOT NULL,
        item_hash    TEXT NOT NULL,
        doc_id       TEXT REFERENCES documents(id) ON DELETE SET NULL,
        chain_id     TEXT,
        statement_id TEXT,
        detail       TEXT NOT NULL DEFAULT '{}',  -- what the importer needs next time (JSON)
        imported_at  INTEGER NOT NULL,
        seen_at      INTEGER NOT NULL,
        PRIMARY KEY (kind, source_key)
    ) WITHOUT ROWID""",
    "CREATE INDEX imported_items_scope ON imported_items (kind, scope)",
    "CREATE INDEX imported_items_doc ON imported_items (doc_id) WHERE doc_id IS NOT NULL",
    """CREATE TABLE imported_links (
        doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        label  TEXT NOT NULL,          -- the link as written ('Other note', a Message-ID)
        target TEXT NOT NULL,          -- the target's document source ('obsidian:…')
        PRIMARY KEY (doc_id, target, label)
    ) WITHOUT ROWID""",
    "CREATE INDEX imported_links_target ON imported_links (target)",
]
