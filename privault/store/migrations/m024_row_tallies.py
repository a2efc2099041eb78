"""Row counts of documents, sections, windows and strong-covered windows kept in `tallies`.

`count(*)` walks a whole index: ~20 ms a table at 300,000 sections once the pages have
left the connection's cache, and `status` needs these counts more than once. Kept
by triggers in the writes' own transactions (see migration `status_tallies`).
"""

_TABLES = ("documents", "sections", "chunks", "strong_chunks")

STEPS = [
    *(
        f"INSERT INTO tallies (name, n) SELECT 'rows:{table}', count(*) FROM {table}"
        for table in _TABLES
    ),
    *(
        f"""CREATE TRIGGER tallies_{table}_added AFTER INSERT ON {table} BEGIN
            UPDATE tallies SET n = n + 1 WHERE name = 'rows:{table}';
        END"""
        for table in _TABLES
    ),
    *(
        f"""CREATE TRIGGER tallies_{table}_removed AFTER DELETE ON {table} BEGIN
            UPDATE tallies SET n = n - 1 WHERE name = 'rows:{table}';
        END"""
        for table in _TABLES
    ),
]
