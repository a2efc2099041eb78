"""Follow-up tokens of ask replies that have been redeemed (each may be used once).

The HMAC secret that signs the tokens lives in `meta` under `followup_secret`, created
lazily by `privault.ask.followup` on first use.
"""

STEPS = [
    """CREATE TABLE followup_tokens_used (
        token_id   TEXT PRIMARY KEY,
        used_at    INTEGER NOT NULL,              -- ms UTC
        expires_at INTEGER NOT NULL               -- rows past this can be pruned: expired anyway
    ) WITHOUT ROWID""",
]
