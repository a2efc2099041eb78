"""Sections as a masking caller reads them: where windows start and end.

A search excerpt, a context pack's choice between a whole section and windows of it, and
the windows themselves are all cut somewhere. Cut on the stored text, each told the
caller how long the values masked for it were: a section just over a limit stored and
under it as read came back cut, and a window cut at a stored token count ended earlier
the longer a masked name. So each is decided on the section's *masked shape* — every
value masked for the caller as `<KIND>` (`spans.masked_text`) — and only then mapped back
to stored offsets, for the gate to apply the caller's policy to.
"""

from __future__ import annotations

from privault.retrieval.sectioning import ChunkDraft, split_chunks
from privault.spans import Span, from_masked, masked_text, to_masked
from privault.store.sections import SectionRow
from privault.vault.reading import Reading


class Shapes:
    """The masked shapes of the sections one response cuts (kept for the response)."""

    def __init__(self, reading: Reading) -> None:
        self._reading = reading
        self._masks: dict[int, list[Span]] = {}
        self._texts: dict[int, str] = {}
        self._windows: dict[int, list[ChunkDraft]] = {}

    def masks(self, section: SectionRow) -> list[Span]:
        """What the caller reads masked in the section (none: it reads it as stored)."""
        if section.id not in self._masks:
            self._masks[section.id] = self._reading.masks(section)
        return self._masks[section.id]

    def text(self, section: SectionRow) -> str:
        """The section's text with each masked value as `<KIND>`."""
        if section.id not in self._texts:
            self._texts[section.id] = masked_text(section.text, self.masks(section))
        return self._texts[section.id]

    def to_stored(self, section: SectionRow, span: tuple[int, int]) -> tuple[int, int]:
        """A span of the masked shape in stored offsets."""
        masks = self.masks(section)
        return from_masked(masks, span[0]), from_masked(masks, span[1])

    def window(self, section: SectionRow, chunk: tuple[int, int]) -> tuple[int, int]:
        """The indexed window `chunk` (stored offsets, cut on the stored text) as the
        caller's shape cuts it, in the shape's offsets: the window of the masked text
        that ends where `chunk` does, or else holds its end."""
        masks = self.masks(section)
        if not masks:
            return chunk
        if section.id not in self._windows:
            self._windows[section.id] = split_chunks(self.text(section))
        end = to_masked(masks, chunk[1])
        windows = self._windows[section.id]
        ending = [w for w in windows if w.end == end] or [
            w for w in windows if w.start <= end <= w.end
        ]
        return (ending[0].start, ending[0].end) if ending else (to_masked(masks, chunk[0]), end)
