"""The audit log keeps what each call asked: its arguments, as a JSON object.

Until now a row said which tool ran and what it returned, so a hundred searches read as a
hundred identical "memory_search · ok" lines. Arguments are kept as the agent sent them
(long values clipped, tokens left out): the owner may read everything in the vault, and
this is what the agent brought to it. Rows written before have none.
"""

STEPS = ["ALTER TABLE audit ADD COLUMN args TEXT NOT NULL DEFAULT '{}'"]
