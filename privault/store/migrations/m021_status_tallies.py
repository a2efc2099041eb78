"""Counters that `status` reads instead of counting the vault.

`status` used to count every section's scan state and every window's masked entry and strong
vector on each call: most of a second at 100,000 sections, ten at a million. The counts that
need a join or a scan over the whole vault are kept in `tallies`, moved by triggers in the
same transaction as the rows they count, so they are always exact:

* `scans:<detector version>`: `pii_scans` rows scanned by that version (a re-scan moves one
  row from its old version to the new);
* `masked_vectors`: `masked_chunks` rows that hold a vector (an empty one waits for the
  indexer).

Everything else `status` reports is an index count or a join over the few rows that are
exceptions (older versions of changed pages, queued sections, text written by agents).
No statement writes these tables with REPLACE (whose implicit delete fires no trigger).
"""

STEPS = [
    """CREATE TABLE tallies (
        name TEXT PRIMARY KEY,
        n    INTEGER NOT NULL
    ) WITHOUT ROWID""",
    "INSERT INTO tallies (name, n) SELECT 'scans:' || detector_version, count(*) "
    "FROM pii_scans GROUP BY detector_version",
    "INSERT INTO tallies (name, n) "
    "SELECT 'masked_vectors', count(*) FROM masked_chunks WHERE length(embedding) > 0",
    """CREATE TRIGGER tallies_scan_added AFTER INSERT ON pii_scans BEGIN
        INSERT INTO tallies (name, n) VALUES ('scans:' || NEW.detector_version, 1)
            ON CONFLICT (name) DO UPDATE SET n = n + 1;
    END""",
    """CREATE TRIGGER tallies_scan_removed AFTER DELETE ON pii_scans BEGIN
        UPDATE tallies SET n = n - 1 WHERE name = 'scans:' || OLD.detector_version;
    END""",
    """CREATE TRIGGER tallies_scan_changed AFTER UPDATE OF detector_version ON pii_scans
    WHEN NEW.detector_version IS NOT OLD.detector_version BEGIN
        UPDATE tallies SET n = n - 1 WHERE name = 'scans:' || OLD.detector_version;
        INSERT INTO tallies (name, n) VALUES ('scans:' || NEW.detector_version, 1)
            ON CONFLICT (name) DO UPDATE SET n = n + 1;
    END""",
    """CREATE TRIGGER tallies_masked_added AFTER INSERT ON masked_chunks
    WHEN length(NEW.embedding) > 0 BEGIN
        UPDATE tallies SET n = n + 1 WHERE name = 'masked_vectors';
    END""",
    """CREATE TRIGGER tallies_masked_removed AFTER DELETE ON masked_chunks
    WHEN length(OLD.embedding) > 0 BEGIN
        UPDATE tallies SET n = n - 1 WHERE name = 'masked_vectors';
    END""",
    """CREATE TRIGGER tallies_masked_changed AFTER UPDATE OF embedding ON masked_chunks
    WHEN (length(NEW.embedding) > 0) != (length(OLD.embedding) > 0) BEGIN
        UPDATE tallies SET n = n + CASE WHEN length(NEW.embedding) > 0 THEN 1 ELSE -1 END
            WHERE name = 'masked_vectors';
    END""",
    # Documents written by agents: the few sections whose scan version is the agent one.
    "CREATE INDEX documents_authored ON documents (id) WHERE author != ''",
]
