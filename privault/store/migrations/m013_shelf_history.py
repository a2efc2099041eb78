"""Each shelf row remembers which versions of it its writer had seen.

`seen` is a JSON object, device id → the highest clock of that device's versions of this
shelf seen when this version was written (see `privault.sync.access`). Merges use it to
tell a deliberate loosening of a shelf's access settings (made after seeing the stricter
version) from a concurrent one, which must not win.
"""

STEPS = [
    "ALTER TABLE shelves ADD COLUMN seen TEXT NOT NULL DEFAULT '{}'",
]
