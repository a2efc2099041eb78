"""Residual codes beside the int8 codes, so the vector leg's best rows score near-exactly.

`chunk_residuals` holds, for each row of `chunk_codes`, what that code leaves out of the
vector, coded again as int8 with a scale of its own (`store.vector_residuals`): its plain
entry, and its masked entry where the chunk has one. Rows are written with their codes
and go with their chunk; chunks coded before this migration get theirs from the
background indexer (`vector_residuals.fill_some`).
"""

STEPS = [
    """CREATE TABLE chunk_residuals (
        chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
        plain    BLOB NOT NULL,
        masked   BLOB
    )""",
]
