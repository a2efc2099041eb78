"""An index under every foreign key that had none.

Deleting a row makes SQLite look for rows that point at it. Where the pointing column has no
index, that look-up reads the whole table: forgetting one document read every document
twice (the check on `previous_id`, and the walk to newer versions of the page), ~0.3 s a
document at 100,000 sections, and a transaction forgetting thousands ran for many minutes.
The statement links and a watch run's job had the same gap. Partial indexes: the columns
are mostly empty.
"""

STEPS = [
    "CREATE INDEX documents_previous ON documents (previous_id) WHERE previous_id IS NOT NULL",
    "CREATE INDEX statements_revised_by ON statements (revised_by) WHERE revised_by IS NOT NULL",
    "CREATE INDEX statements_revises ON statements (revises) WHERE revises IS NOT NULL",
    "CREATE INDEX statements_superseded_by ON statements (superseded_by)"
    " WHERE superseded_by IS NOT NULL",
    "CREATE INDEX statements_supersedes ON statements (supersedes) WHERE supersedes IS NOT NULL",
    "CREATE INDEX watch_runs_job ON watch_runs (job_id) WHERE job_id IS NOT NULL",
]
