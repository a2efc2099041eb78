"""Statements: bi-temporal episodic memory — what holds, since when, and since when we knew.

Notes and pages say what was written; statements say what holds. Each statement has a
world window (`valid_from`/`valid_to`) and a vault window (`recorded_at`/`invalidated_at`),
so `valid_at` and `known_at` reconstruct any past view and nothing is ever deleted:
`supersede` closes the old statement where the new one opens; `revise` replaces wording in
vault time only; `confirm` and `dispute` attach attestations and conflicts.

Every function takes a migrated `Connection`, times as UTC epoch ms, and an injectable
`now_ms` for tests. Text returned here is ungated: the `Vault` facade applies the privacy
gate before any of it reaches a caller.
"""

from privault.statements.model import (
    ORDERS,
    Embed,
    EntityCount,
    NewStatement,
    Statement,
    entity_key,
)
from privault.statements.operations import (
    add,
    confirm,
    dispute,
    index_embeddings,
    invalidate,
    revise,
    supersede,
)
from privault.statements.query import (
    StatementStats,
    entities,
    get,
    history,
    known_entity_names,
    query,
    stats,
)

__all__ = [
    "ORDERS",
    "Embed",
    "EntityCount",
    "NewStatement",
    "Statement",
    "StatementStats",
    "add",
    "confirm",
    "dispute",
    "entities",
    "entity_key",
    "get",
    "history",
    "index_embeddings",
    "invalidate",
    "known_entity_names",
    "query",
    "revise",
    "stats",
    "supersede",
]
