"""Matching statements as a gated caller sees them, how a query is embedded to rank them,
and who a write is by.

A gated caller's words are matched against statements after the gate, placeholders in
place of masked values, so no form of a masked value can match; a source filter compares
against the source as the caller sees it. Ranking is by shared words (no vectors: the
stored vectors are of the text as written). What each policy shows of each statement is
kept between replies (`SeenWords`), so a reply gates only the statements it returns.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from privault.caller import Caller
from privault.retrieval.embedder import Embedder
from privault.statements.model import Embed, entity_key, split_kind
from privault.statements.ranking import overlap_scores, stem_overlap, stems
from privault.vault.statement_gate import StatementGate, StatementScan, short_texts
from privault.vault.statement_results import GatedStatement

if TYPE_CHECKING:
    from privault.statements import Statement
    from privault.vault.reading import Reading


_Seen = tuple[frozenset[str], frozenset[str]]  # a statement's words and names as shown


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
    ranked: Sequence[Statement],
    gate: Callable[[Sequence[Statement]], list[GatedStatement]],
    reading: Reading,
    limit: int,
    fits: Callable[[list[GatedStatement]], bool] | None = None,
) -> list[GatedStatement]:
    """The first `limit` of the statements `ranked` as the caller sees them
    (`SeenWords.ranked`), dropped from the end until they `fits`. Only the statements
    returned are gated for the response, so only they count as held back and number
    values (those `fits` tried and dropped are undone)."""
    chosen = list(ranked[:limit])
    if fits is None:
        return gate(chosen)
    undo = reading.checkpoint()
    shown = gate(chosen)
    while shown and not fits(shown):
        shown.pop()
    undo()
    # Gated again in the same order: the ones kept get the numbers they had, so the text
    # `fits` measured is the text returned.
    return gate(chosen[: len(shown)])


class SeenWords:
    """Each statement's words and entity names as a gated caller's policy shows it, kept
    between replies.

    Matching a gated caller's query needs every statement as the caller sees it, so each
    reply used to gate the vault's whole statement list, most of an agent's search. The
    content a policy shows depends only on the policy, the statement's texts and author,
    its stored scan and the vault's known entities; its words and names are kept by policy and
    statement, with all of those but the known entities as the key, and every entry is
    dropped when the known entities change. So an entry is used only where gating would
    give the same words, and every word matched is one the caller would see. A statement
    never scanned is gated live each time (it is detected then, and scanned soon).
    Nothing here is returned, counted as held back or numbered in a reply.
    """

    LIMIT = 200_000  # entries kept before starting afresh (policies x statements)

    def __init__(self, known: Callable[[], Mapping[str, str]]) -> None:
        self._known = known  # the vault's known entities (a new mapping when they change)
        self._made_with: Mapping[str, str] | None = None
        self._entries: dict[tuple[str, str], tuple[Hashable, _Seen]] = {}

    def words(self, found: Sequence[Statement], gate: StatementGate) -> list[frozenset[str]]:
        """Each statement's words as `gate`'s caller sees it, in the order given."""
        return [words for words, _ in self._seen(found, gate)]

    def naming(
        self, found: Sequence[Statement], gate: StatementGate, names: Iterable[str]
    ) -> list[Statement]:
        """The statements that name every one of `names` as `gate`'s caller sees them: a
        masked name matches no form of its value. Every statement given is judged alike
        (never those whose stored names match first), so neither the answer nor its time
        depends on whether the vault holds a masked value asked for."""
        wanted = {entity_key(name) for name in names}
        seen = self._seen(found, gate)
        return [s for s, (_, named) in zip(found, seen, strict=True) if wanted <= named]

    def _seen(self, found: Sequence[Statement], gate: StatementGate) -> list[_Seen]:
        """Each statement's words and entity names (as keys) as `gate`'s caller sees it."""
        known = self._known()
        if known is not self._made_with or len(self._entries) > self.LIMIT:
            self._entries.clear()
            self._made_with = known
        scans = gate.scans(found)
        out = []
        for statement in found:
            policy = gate.reading.policy(statement.shelf)
            scan = scans.get(statement.id)
            inputs = (
                statement.content,
                statement.author,
                tuple(short_texts(statement)),
                None if scan is None else _scan_key(scan),
            )
            key = (policy.name, statement.id)
            entry = self._entries.get(key)
            if entry is None or entry[0] != inputs:
                shown = gate.seen(statement, scan, policy)
                names = frozenset(entity_key(split_kind(n)[1]) for n in shown.entities or ())
                entry = (inputs, (stems(shown.content), names))
                if scan is not None:
                    self._entries[key] = entry
            out.append(entry[1])
        return out

    def ranked(
        self, found: Sequence[Statement], gate: StatementGate, text: str | None
    ) -> list[Statement]:
        """The statements sharing words with `text` as `gate`'s caller sees them, best first
        (ties keep the order given), as `as_seen` ranks them; all of them without words."""
        if not text or not text.strip():
            return list(found)
        scores = stem_overlap(dict(enumerate(self.words(found, gate))), text)
        return [found[i] for i in sorted(scores, key=lambda i: (-scores[i], i))]


def _scan_key(scan: StatementScan) -> Hashable:
    return (scan.detector_version, scan.content, tuple(sorted(scan.texts.items())))


def query_embedder(embedder: Embedder) -> Embed:
    """What statement ranking embeds a query with: the embedder's query path, which gives
    the passage path's vector at about half the cost and shares it with the search the
    statements join (the embedder keeps a query's vector for a moment)."""
    return lambda texts: [embedder.embed_query(text).tolist() for text in texts]
