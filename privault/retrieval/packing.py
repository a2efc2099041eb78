"""Context packing: the best pieces of the best sections, inside an explicit token budget.

Pieces are added in fused rank order, one chunk window at a time, so a section's weaker
chunks never push out another section's strong one. Small sections come whole. Nothing is
cut silently: every candidate that did not fit is counted in `dropped`.

A pack is put together from gated texts (its headers and windows) with `assembled`, so
it keeps where the gate put its placeholders.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from privault.privacy.gate import Gated, assembled

WHOLE_SECTION_TOKENS = 160  # a section this short is clearer whole than in pieces


@dataclass(frozen=True)
class Piece:
    """One candidate window: a chunk span of a section (or the whole section)."""

    section_id: int
    start: int
    end: int
    score: float = 0.0  # how strongly the ranking found it (its fused score)


@dataclass
class PackedSection:
    """A section in the pack, with the windows of it that made it in."""

    section_id: int
    header: str
    windows: list[tuple[int, int, str]] = field(default_factory=list)  # start, end, text

    def render(self) -> Gated:
        """Header line, then the windows in text order, gaps marked with an ellipsis."""
        return assembled(self.header, "\n", self.body())

    def body(self) -> Gated:
        """The windows in text order, gaps marked with an ellipsis."""
        parts: list[str] = []
        previous_end: int | None = None
        for start, end, text in sorted(self.windows):
            if previous_end is not None:
                parts.append("\n…\n" if start > previous_end + 1 else "\n")
            parts.append(text)
            previous_end = end
        return assembled(*parts)


@dataclass(frozen=True)
class Pack:
    """What fitted: sections with their rendered text, the tokens used, what was dropped."""

    sections: list[PackedSection]
    used_tokens: int
    dropped: int
    budget: int

    @property
    def text(self) -> Gated:
        """The whole pack as one text, sections separated by blank lines."""
        between: list[str] = []
        for section in self.sections:
            between += ["\n\n", section.render()] if between else [section.render()]
        return assembled(*between)


def _nothing_to_undo() -> Callable[[], None]:
    return lambda: None


def pack(
    pieces: Sequence[Piece],
    budget: int,
    *,
    header: Callable[[int], str],
    window_text: Callable[[Piece], str],
    count_tokens: Callable[[str], int],
    checkpoint: Callable[[], Callable[[], None]] = _nothing_to_undo,
) -> Pack:
    """Pack pieces (best first) into `budget` tokens.

    `header(section_id)` gives a section's header line and `window_text(piece)` the text a
    reader may see for a window (already gated), so counts are of what is returned.
    `checkpoint()` is called before a piece's texts are made and gives what undoes them,
    called when the piece does not fit: the gate numbers each value it shows, and a
    number a dropped window took would be missing from the pack.
    """
    chosen: dict[int, PackedSection] = {}
    used = 0
    dropped = 0
    seen: set[tuple[int, int, int]] = set()
    for piece in pieces:
        key = (piece.section_id, piece.start, piece.end)
        if key in seen:
            continue
        seen.add(key)
        packed = chosen.get(piece.section_id)
        windows = packed.windows if packed else []
        if any(s <= piece.start and piece.end <= e for s, e, _ in windows):
            continue  # already inside a window of this section (e.g. the whole section)
        # Chunks overlap (a chunk repeats the line before it): a window that overlaps one
        # already packed is merged with it, so no line is shown or paid for twice.
        overlapping = [w for w in windows if w[0] < piece.end and piece.start < w[1]]
        if overlapping:
            start = min(piece.start, *(w[0] for w in overlapping))
            end = max(piece.end, *(w[1] for w in overlapping))
            piece = Piece(piece.section_id, start, end, piece.score)
        undo = checkpoint()
        text = window_text(piece)
        # Line breaks cost no tokens; a window touching none already packed in its section
        # opens a gap, marked by one "…".
        touching = [w for w in windows if w[0] <= piece.end + 1 and piece.start <= w[1] + 1]
        cost = count_tokens(text) - sum(count_tokens(w[2]) for w in overlapping)
        cost += 1 if windows and not touching else 0
        if packed is None:
            head = header(piece.section_id)
            cost += count_tokens(head)
        if used + cost > budget:
            undo()
            dropped += 1
            continue
        if packed is None:
            packed = chosen[piece.section_id] = PackedSection(piece.section_id, head)
        packed.windows = [w for w in packed.windows if w not in overlapping]
        packed.windows.append((piece.start, piece.end, text))
        used += cost
    return Pack(list(chosen.values()), used, dropped, budget)
