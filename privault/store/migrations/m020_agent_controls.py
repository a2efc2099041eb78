"""What the owner changes about an agent after registering it, and snoozed reminders.

`agents.policy` is a policy the owner chose for the agent inside the vault (from the CLI or
the page); it wins over the configuration's entry for that agent, so a change takes effect
on the agent's next call without editing a file. `agents.paused_at` stops an agent without
revoking its token: its calls are refused, with a reason, until it is resumed.
`reminders.snoozed_until` keeps a reminder off the due list until that time.
"""

STEPS = [
    "ALTER TABLE agents ADD COLUMN policy TEXT",  # NULL: the configuration decides
    "ALTER TABLE agents ADD COLUMN paused_at INTEGER",  # ms UTC; NULL while it may call
    "ALTER TABLE reminders ADD COLUMN snoozed_until INTEGER",  # ms UTC; NULL: due now
]
