"""Moving a vault's rows between devices: clocks, bundles, merge rules, sync folders.

Each synced row (a document with its sections and tags, a statement version, a closure,
attestation or dispute, a shelf, a watch definition, an owner PII override, a tombstone)
has a stable id, the device that last changed it and a hybrid logical clock. A bundle
carries rows encrypted; importing merges row by row, the higher clock winning, except that
a tombstone always wins. Nothing here reads configuration or prints.
"""
