"""Unmarks name the kinds they are about.

Until now an unmark dropped every span of its value, whatever the kind, and its `kind`
column held a placeholder. From here on the column says which kinds the value is not
(comma-separated), and `*` says "every kind" — which is what each earlier unmark meant.
The rows keep their keys, so nothing new needs syncing.
"""

STEPS = ["UPDATE pii_overrides SET kind = '*' WHERE action = 'unmark'"]
