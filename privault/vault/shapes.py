"""Sections as a gated caller reads them: whether one is cut, and where an excerpt is.

A search hit comes back whole or as an excerpt, and a context pack takes a section whole
or in windows. Decided on the stored text, both told the caller how long the values
masked for it were: a section just over a limit as stored and under it as read came back
cut. So both are decided on the section's *masked shape* — every value masked for the
caller as `<KIND>` (`spans.masked_text`) — and an excerpt is cut there and mapped back to
stored offsets, for the gate to apply the caller's policy to.

Not closed here: the windows themselves are the indexed chunks, cut at write time (before
any value is detected) by the stored text's token counts. Which chunk of a long line or a
run of short lines matched, where it starts and ends, and its score can still move with a
masked value's length; closing that takes chunks cut on the masked shape (see
docs/security.md).
"""

from __future__ import annotations

from privault.spans import from_masked, masked_text, to_masked
from privault.store.sections import SectionRow
from privault.vault.reading import Reading


class Shapes:
    """The masked shapes of the sections one response cuts (kept for the response)."""

    def __init__(self, reading: Reading) -> None:
        self._reading = reading
        self._texts: dict[int, str] = {}

    def text(self, section: SectionRow) -> str:
        """The section's text with each masked value as `<KIND>`."""
        if section.id not in self._texts:
            self._texts[section.id] = masked_text(section.text, self._reading.masks(section))
        return self._texts[section.id]

    def to_shape(self, section: SectionRow, span: tuple[int, int]) -> tuple[int, int]:
        """A stored span's place in the masked shape."""
        masks = self._reading.masks(section)
        return to_masked(masks, span[0]), to_masked(masks, span[1])

    def to_stored(self, section: SectionRow, span: tuple[int, int]) -> tuple[int, int]:
        """A span of the masked shape in stored offsets."""
        masks = self._reading.masks(section)
        return from_masked(masks, span[0]), from_masked(masks, span[1])
