"""Matching statements as a gated caller sees them, how a query is embedded to rank them,
and who a write is by.

A gated caller's words are matched against statements after the gate, placeholders in
place of masked values, so no form of a masked value can match; a source filter compares
against the source as the caller sees it. Ranking is by shared words (no vectors: the
stored vectors are of the text as written).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from privault.caller import Caller
from privault.retrieval.embedder import Embedder
from privault.statements.model import Embed
from privault.statements.ranking import overlap_scores
from privault.vault.statement_results import GatedStatement

if TYPE_CHECKING:
    from privault.statements import Statement
    from privault.vault.reading import Reading


def author_of(caller: Caller) -> str:
    """Who a write is by: '' for the owner, else the agent's name."""
    return "" if caller.is_owner else caller.name


def as_seen(
    shown: Sequence[GatedStatement], text: str | None, source: str | None = None
) -> list[GatedStatement]:
    """Gated statements matching `source` (as shown) and sharing words with `text`, best
    first (ties keep the order given); every one when neither is given."""
    kept = [item for item in shown if source is None or item.statement.source == source]
    if not text or not text.strip():
        return kept
    scores = overlap_scores({str(i): item.statement.content for i, item in enumerate(kept)}, text)
    ranked = sorted(scores, key=lambda key: (-scores[key], int(key)))
    return [kept[int(key)] for key in ranked]


def best_seen(
    every: Sequence[Statement],
    gate: Callable[[Sequence[Statement]], list[GatedStatement]],
    reading: Reading,
    query: str,
    limit: int,
    fits: Callable[[list[GatedStatement]], bool] | None = None,
) -> list[GatedStatement]:
    """The `limit` statements of `every` that best match `query` as the caller sees them,
    dropped from the end until they `fits`. Matching gates every one; only those returned
    count as held back: the reading forgets the rest, and the chosen are gated again
    (their placeholders keep their numbers, so their text is the same)."""
    mark = reading.count_mark()
    shown = as_seen(gate(every), query)[:limit]
    while shown and fits is not None and not fits(shown):
        shown.pop()
    reading.forget_since(mark)
    by_id = {statement.id: statement for statement in every}
    return gate([by_id[item.statement.id] for item in shown])


def query_embedder(embedder: Embedder) -> Embed:
    """What statement ranking embeds a query with: the embedder's query path, which gives
    the passage path's vector at about half the cost and shares it with the search the
    statements join (the embedder keeps a query's vector for a moment)."""
    return lambda texts: [embedder.embed_query(text).tolist() for text in texts]
