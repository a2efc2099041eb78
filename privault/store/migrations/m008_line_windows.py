"""Chunks became one window per line (a line with the two before it).

Vaults indexed before keep working with their old chunks, but find less; the `meta` row
`stale_chunking` marks them until `privault reindex` rebuilds every chunk and removes it.
A later change of chunking ships a migration like this one.
"""

STEPS = [
    "INSERT OR REPLACE INTO meta (key, value) "
    "SELECT 'stale_chunking', 'fixed-96' WHERE EXISTS (SELECT 1 FROM chunks)",
]
