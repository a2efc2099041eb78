"""The gate: the one place where a policy is applied to text before it leaves the vault.

A `Gate` lives for one response. Everything the response returns (titles, breadcrumbs,
section text, statements, citations) goes through the same gate, so a value gets the same
placeholder everywhere in that response (`<PERSON_1>` is one person throughout) and a
different response numbers afresh — placeholders cannot be joined across responses.

The gate never detects anything in stored text: it applies spans found at write time (plus
owner overrides). Only a caller's *query* is scanned live, because a query is new input.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from privault.privacy.policy import Policy
from privault.privacy.recognizers import known_entities_pattern
from privault.privacy.spans import Span, merge_spans, normalise_value


class SpanSource(Protocol):
    """Anything with `detect(text) -> list[Span]` (a `Detector` or a `FakeDetector`)."""

    def detect(self, text: str) -> list[Span]: ...


@dataclass(frozen=True)
class GatedText:
    """Text as a caller may see it, and what was held back from it."""

    text: str
    policy: str
    held_back: dict[str, int] = field(default_factory=dict)  # kind -> spans masked/withheld
    withheld: bool = False  # True when the whole text was replaced by a refusal stub


@dataclass(frozen=True)
class HeldBack:
    """A response's summary: the policy applied and everything it held back."""

    policy: str
    mode: str
    kinds: dict[str, int]
    texts_withheld: int
    query_kinds: tuple[str, ...]  # kinds removed from the caller's query


@dataclass(frozen=True)
class CleanQuery:
    """A caller's query with its PII removed, and the kinds that were removed."""

    text: str
    removed: tuple[str, ...]


class Gate:
    """Applies one policy to every text of one response."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self._placeholders: dict[str, str] = {}
        self._numbers: Counter[str] = Counter()
        self._held: Counter[str] = Counter()
        self._withheld = 0
        self._query_kinds: list[str] = []
        self._deny = (
            known_entities_pattern(entry.value for entry in policy.deny) if policy.deny else None
        )
        self._deny_kinds = {normalise_value(entry.value): entry.kind for entry in policy.deny}

    def apply(self, text: str, spans: Iterable[Span]) -> GatedText:
        """Gate one stored text using its stored spans (offsets into `text`)."""
        if self.policy.mode == "off" or not text:
            return GatedText(text, self.policy.name)
        chosen = self._spans_to_mask(text, spans)
        if not chosen:
            return GatedText(text, self.policy.name)
        counts = Counter(span.kind for span in chosen)
        self._held.update(counts)
        if self.policy.mode == "refuse":
            self._withheld += 1
            return GatedText(self._stub(counts), self.policy.name, dict(counts), withheld=True)
        pieces: list[str] = []
        cursor = 0
        for span in chosen:
            pieces.append(text[cursor : span.start])
            pieces.append(self._placeholder(text[span.start : span.end], span.kind))
            cursor = span.end
        pieces.append(text[cursor:])
        return GatedText("".join(pieces), self.policy.name, dict(counts))

    def query(self, query: str, detector: SpanSource) -> CleanQuery:
        """Remove PII from a gated caller's search query so it cannot confirm a value.

        Under `off` the query is used as given. Otherwise every identifying span (by this
        policy's kinds and thresholds, plus its deny-list) is cut out before matching.
        """
        if self.policy.mode == "off" or not query.strip():
            return CleanQuery(query, ())
        chosen = self._spans_to_mask(query, detector.detect(query))
        if not chosen:
            return CleanQuery(query, ())
        kept, cursor = [], 0
        for span in chosen:
            kept.append(query[cursor : span.start])
            cursor = span.end
        kept.append(query[cursor:])
        kinds = tuple(dict.fromkeys(span.kind for span in chosen))
        self._query_kinds.extend(kind for kind in kinds if kind not in self._query_kinds)
        return CleanQuery(" ".join("".join(kept).split()), kinds)

    def held_back(self) -> HeldBack:
        """What this gate has held back so far, for the response and the audit log."""
        return HeldBack(
            policy=self.policy.name,
            mode=self.policy.mode,
            kinds=dict(sorted(self._held.items())),
            texts_withheld=self._withheld,
            query_kinds=tuple(self._query_kinds),
        )

    def _spans_to_mask(self, text: str, spans: Iterable[Span]) -> list[Span]:
        """The policy's identifying spans plus deny-list hits, merged, minus allowed values."""
        picked = [s for s in spans if s.end <= len(text) and self.policy.counts(s)]
        if self._deny is not None:
            for match in self._deny.finditer(text):
                kind = self._deny_kinds.get(normalise_value(match.group(0)), "PERSON")
                picked.append(Span(match.start(), match.end(), kind, 1.0, "deny"))
        if self.policy.allow:
            picked = [s for s in picked if not self.policy.is_allowed(text[s.start : s.end])]
        return merge_spans(picked)

    def _placeholder(self, value: str, kind: str) -> str:
        key = normalise_value(value)
        if key not in self._placeholders:
            self._numbers[kind] += 1
            self._placeholders[key] = f"<{kind}_{self._numbers[kind]}>"
        return self._placeholders[key]

    def _stub(self, counts: Counter[str]) -> str:
        kinds = ", ".join(sorted(counts))
        return f"[withheld by policy {self.policy.name}: contains {kinds}]"
