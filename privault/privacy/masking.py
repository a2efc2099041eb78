"""The text gated callers' search indexes hold: values masked before they are indexed.

Scrubbing a caller's query cannot close the presence oracle: a value has too many forms
(case, spacing, a part of it, a misspelling close enough for a vector). Instead a gated
caller searches an index of the text *as gated callers see it*: a window holding a masked
value is indexed a second time with unnumbered placeholders in its place (`<PERSON>`), and
gated callers match those entries. No form of a value can match what is not in the index,
and the query itself never needs to be scanned.

One masked view serves every gated caller: it masks what the strictest combination of the
vault's gated policies masks (`Policy.stricter`), so no gated caller can match a value its
own policy would have masked. The cost: a value one gated policy shows and another masks
is not searchable by either (it is still shown in the text that comes back).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import reduce

from privault.privacy.gate import Gate
from privault.privacy.policy import Policy, PolicySet
from privault.spans import Span


class IndexMasker:
    """Masks texts for the gated index under the strictest combination of gated policies."""

    def __init__(self, policies: PolicySet) -> None:
        gated = [policy for policy in policies if policy.mode != "off"]
        self.policy: Policy | None = reduce(Policy.stricter, gated) if gated else None
        self._gate = Gate(self.policy) if self.policy else None

    def masking(self, text: str, spans: Iterable[Span], *, owner_text: bool = True) -> list[Span]:
        """The merged spans `mask` replaces in `text` (deny-list hits found over all of
        it): a window of a longer text is masked as the whole is, cut to it."""
        if self._gate is None or not text:
            return []
        return self._gate.masking(text, spans, deny=owner_text)

    def mask(self, text: str, spans: Iterable[Span], *, owner_text: bool = True) -> str:
        """`text` with every value a gated caller may not see replaced by `<KIND>`.

        `owner_text` False: an agent's own text, matched without the policies' deny-lists
        (see `Gate.apply`).
        """
        if self._gate is None or not text:
            return text
        return self._gate.masked(text, spans, deny=owner_text)
