"""The structural gate: who wrote what, masked index entries, statements on shelves.

* `author` on documents, statements and watches: '' for the owner, else the agent's name.
  Text an agent wrote is gated without the vault's known entities (matching it against
  them would tell the agent what the vault knows) and numbered in a scope of its own.
* `masked_chunks`: an index window holding a value that gated callers may not see gets a
  second entry — its text with unnumbered placeholders, in `chunks_fts` at rowid
  `-chunk_id`, and its vector here. Gated callers search those entries instead of the
  plain ones, so no form of a masked value can match it. Vaults indexed before are marked
  `stale_masking` until `privault reindex` builds the entries.
* statements get a `shelf` (visibility and policy like documents), and entities a `kind`
  (person, organisation, place, other): only identifying kinds are known entities.
* `known_generation` in `meta` moves whenever known entities change, so every process
  drops its cached detector on its next request.
"""

STEPS = [
    "ALTER TABLE documents ADD COLUMN author TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE statements ADD COLUMN author TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE statements ADD COLUMN shelf TEXT NOT NULL DEFAULT 'default'",
    "ALTER TABLE watches ADD COLUMN author TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE statement_entities ADD COLUMN kind TEXT NOT NULL DEFAULT 'person'",
    """CREATE TABLE masked_chunks (
        chunk_id  INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
        embedding BLOB NOT NULL
    )""",
    "INSERT OR REPLACE INTO meta (key, value) VALUES ('known_generation', '1')",
    "INSERT OR REPLACE INTO meta (key, value) "
    "SELECT 'stale_masking', '1' WHERE EXISTS (SELECT 1 FROM chunks)",
]
