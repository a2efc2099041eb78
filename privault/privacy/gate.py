"""The gate: the one place where a policy is applied to text before it leaves the vault.

A `Gate` lives for one response. Everything the response returns (titles, breadcrumbs,
tags, section text, statements, citations) goes through the same gate, and comes out as
`Gated` text: a `str` only the gate can make, so a response type whose text fields are
typed `Gated` cannot carry text that skipped it (mypy checks the types; a test checks the
fields).

Placeholders are numbered per response and per *scope*. Text the owner wrote (and pages
their watches filed) shares one scope, so `<PERSON_1>` is one person throughout a response;
every text an agent wrote is a scope of its own. A value an agent writes therefore never
gets the number of the owner's value, whatever it is: numbering cannot confirm a guess.
A different response numbers afresh, so placeholders cannot be joined across responses.

Numbers are handed out in the order values are first shown, and only text the response
returns may keep one: a response that gates text to measure it and then leaves it out (a
context pack trying a window against its budget) undoes what that text numbered
(`mark`, `undo`). A number it kept would leave a gap (`<ADDRESS_2>` without
`<ADDRESS_1>`) telling the caller a masked value of that kind was in text it never saw.

The gate never detects anything in stored text: it applies spans found at write time (plus
owner overrides and known entities).

Gated text carries where the gate put each placeholder and stub (`Gated.masks`), through
clipping and joining: a note that quotes `<PERSON_1>`, or an agent that writes one to make
the owner think something was masked, holds text that only looks like a mask, and the
owner's page draws and counts only the gate's own.
"""

from __future__ import annotations

import itertools
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from re import Pattern

from privault.privacy.policy import Policy
from privault.privacy.recognizers import denied_key, denied_pattern, known_entities_pattern
from privault.spans import Span, masked_text, merge_spans, normalise_value

_SEAL = object()
OWNER_SCOPE = ""  # placeholders of owner-written text; agent-written text uses its own id


@dataclass(frozen=True)
class Mask:
    """Where a gate put a placeholder in the text it returned, and its kind. A refusal stub
    is one mask for each kind it withholds, each over the whole stub (`stub`)."""

    start: int
    end: int
    kind: str
    stub: bool = False

    def moved(self, offset: int) -> Mask:
        """The same mask `offset` characters further on (its text placed after others)."""
        return Mask(self.start + offset, self.end + offset, self.kind, self.stub)


class Gated(str):
    """Text that went through a gate. Only this module makes one (`Gate.apply`, `clip`).

    `masks`: the placeholders and stubs the gate put in it, in order (none: a class default,
    so most texts carry no attribute of their own)."""

    masks: tuple[Mask, ...] = ()

    def __new__(cls, value: str, seal: object = None, masks: tuple[Mask, ...] = ()) -> Gated:
        if seal is not _SEAL:
            raise TypeError("Gated text is made by the gate only")
        made = super().__new__(cls, value)
        if masks:
            made.masks = masks
        return made

    # Copies of gated text are gated text (dataclasses.asdict deep-copies its values).
    def __copy__(self) -> Gated:
        return self

    def __deepcopy__(self, memo: object) -> Gated:
        return self

    def __reduce__(self) -> tuple[object, tuple[str, tuple[Mask, ...]]]:
        return (_restore, (str(self), self.masks))


def _restore(value: str, masks: tuple[Mask, ...] = ()) -> Gated:
    """Gated text read back from a pickle of gated text."""
    return Gated(value, _SEAL, masks)


def clip(text: Gated, limit: int) -> Gated:
    """Gated text cut to `limit` characters (an ellipsis marks the cut).

    Clipping happens after gating, never before: a value cut in half is no longer
    recognised, so detection always sees the whole text and only its gated form is cut.
    A placeholder is never cut in half either.
    """
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    opened = cut.rfind("<")
    if opened > cut.rfind(">"):
        cut = cut[:opened]
    cut = cut.rstrip()
    # A stub cut short still withholds its kinds.
    kept = tuple(
        Mask(mask.start, min(mask.end, len(cut)), mask.kind, mask.stub)
        for mask in text.masks
        if mask.start < len(cut)
    )
    return Gated(cut + "…", _SEAL, kept)


def _values_shown(whole: Gated, shown: Gated) -> int:
    """How many of the values masked in `whole` its clipped form `shown` holds: a
    placeholder is cut whole or not at all (`clip`), so those ending before the ellipsis."""
    cut = len(shown) - 1
    return sum(1 for _ in itertools.takewhile(lambda mask: mask.end <= cut, whole.masks))


def joined(separator: str, parts: Iterable[Gated]) -> Gated:
    """Gated texts joined by a fixed separator (a breadcrumb line, a context header)."""
    between: list[str] = []
    for part in parts:
        between += [separator, part] if between else [part]
    return assembled(*between)


def assembled(*parts: str) -> Gated:
    """Gated texts and the vault's own words put together as one text (a context pack: its
    headers, windows and statements), each gated part's masks moved to its new place.
    Nothing in it skipped a gate: the words in between are the vault's own."""
    masks: list[Mask] = []
    at = 0
    for part in parts:
        if isinstance(part, Gated):
            masks.extend(mask.moved(at) for mask in part.masks)
        at += len(part)
    return Gated("".join(parts), _SEAL, tuple(masks))


def literal(text: str) -> Gated:
    """A constant the vault itself writes (a stub, `<FOLDER>`): never caller or stored text."""
    return Gated(text, _SEAL)


@dataclass(frozen=True)
class GatedText:
    """Text as a caller may see it, and what was held back from it."""

    text: Gated
    policy: str
    held_back: dict[str, int] = field(default_factory=dict)  # kind -> spans masked/withheld
    withheld: bool = False  # True when the whole text was replaced by a refusal stub


@dataclass(frozen=True)
class GateMark:
    """What a gate had numbered and counted at one moment (see `Gate.undo`)."""

    numbered: int  # values given a number
    numbers: dict[str, int]  # kind -> the last number given
    held: dict[str, int]
    withheld: int


@dataclass(frozen=True)
class HeldBack:
    """A response's summary: the policy applied and everything it held back."""

    policy: str
    mode: str
    kinds: dict[str, int]
    texts_withheld: int


class Gate:
    """Applies one policy to every text of one response."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self._placeholders: dict[tuple[str, str], str] = {}
        self._numbered: list[tuple[str, str]] = []  # their keys, in the order numbered
        self._numbers: Counter[str] = Counter()
        self._held: Counter[str] = Counter()
        self._withheld = 0
        self._deny = denied_pattern(entry.value for entry in policy.deny) if policy.deny else None
        self._deny_kinds = {denied_key(entry.value): entry.kind for entry in policy.deny}
        allowed = [value for value in policy.allow if value.strip()]
        self._allow = known_entities_pattern(allowed) if allowed else None

    def apply(
        self,
        text: str,
        spans: Iterable[Span],
        *,
        scope: str = OWNER_SCOPE,
        window: tuple[int, int] | None = None,
    ) -> GatedText:
        """Gate one stored text using its stored spans (offsets into `text`).

        `scope` is whose text it is (see the module docstring): the policy's deny-list is
        applied to the owner's text only, since matching an agent's own words against it
        would tell the agent what the list holds. `window`: only `text[start:end]` is
        gated and returned, and `spans` are what this gate's `masking` chose over the
        whole text; those reaching into the window are masked as they are, cut to it (a
        part of a value is not judged again on its own), and numbered by the whole value,
        so a value a window's edge cuts keeps the number it has where it is shown whole.
        """
        start, end = (0, len(text)) if window is None else window
        if self.policy.mode == "off" or start >= end:
            return GatedText(Gated(text[start:end], _SEAL), self.policy.name)
        if window is None:
            chosen = self.spans_to_mask(text, spans, deny=scope == OWNER_SCOPE)
        else:
            chosen = [span for span in merge_spans(spans) if span.start < end and start < span.end]
        if not chosen:
            return GatedText(Gated(text[start:end], _SEAL), self.policy.name)
        counts = Counter(span.kind for span in chosen)
        self._held.update(counts)
        if self.policy.mode == "refuse":
            self._withheld += 1
            written = self._stub(counts)
            whole = tuple(Mask(0, len(written), kind, stub=True) for kind in sorted(counts))
            stub = Gated(written, _SEAL, whole)
            return GatedText(stub, self.policy.name, dict(counts), withheld=True)
        pieces: list[str] = []
        masks: list[Mask] = []
        cursor, at = start, 0
        for span in chosen:
            before = text[cursor : max(span.start, start)]
            placeholder = self._placeholder(text[span.start : span.end], span.kind, scope)
            at += len(before)
            # The kind its placeholder says: a value is numbered once, by its first kind.
            masks.append(Mask(at, at + len(placeholder), placeholder[1 : placeholder.rindex("_")]))
            at += len(placeholder)
            pieces += [before, placeholder]
            cursor = min(span.end, end)
        pieces.append(text[cursor:end])
        gated = Gated("".join(pieces), _SEAL, tuple(masks))
        return GatedText(gated, self.policy.name, dict(counts))

    def clipped(
        self, text: str, spans: Iterable[Span], limit: int, *, scope: str = OWNER_SCOPE
    ) -> GatedText:
        """`text` gated whole (`apply`), then cut to `limit` characters (`clip`). A value in
        the part cut off is neither numbered nor counted as held back: its number would be
        missing from those shown, and its count one more than they are, telling the reader
        of a masked value in text it never saw."""
        spans = list(spans)
        mark = self.mark()
        whole = self.apply(text, spans, scope=scope)
        shown = clip(whole.text, limit)
        if shown is whole.text or whole.withheld or not whole.held_back:
            return replace(whole, text=shown)
        chosen = self.spans_to_mask(text, spans, deny=scope == OWNER_SCOPE)
        kept = _values_shown(whole.text, shown)
        # Gated again up to the first value cut off: those before it take the numbers they
        # had (numbered in the same order from the same state), and only they are counted.
        self.undo(mark)
        end = chosen[kept].start if kept < len(chosen) else len(text)
        again = self.apply(text, chosen, scope=scope, window=(0, end))
        return GatedText(shown, self.policy.name, again.held_back)

    def shown_length(
        self, text: str, spans: Iterable[Span], limit: int, *, scope: str = OWNER_SCOPE
    ) -> int:
        """How many of `text`'s characters a reader of it gated and cut to `limit` sees
        (`clipped`): those before the cut, a value shown only whole. Nothing is numbered or
        counted. A text withheld whole (`refuse`) is withheld to its end."""
        mark = self.mark()
        try:
            spans = list(spans)
            whole = self.apply(text, spans, scope=scope)
            shown = clip(whole.text, limit)
            if shown is whole.text or whole.withheld:
                return len(text)
            cut = len(shown) - 1  # the ellipsis is the vault's
            masks = whole.text.masks
            if not masks:  # nothing masked (or `off`): read as written
                return cut
            chosen = self.spans_to_mask(text, spans, deny=scope == OWNER_SCOPE)
            kept = _values_shown(whole.text, shown)
            # After the last value shown, the text as written up to the cut.
            cursor, at = (chosen[kept - 1].end, masks[kept - 1].end) if kept else (0, 0)
            end = cursor + cut - at
            return min(end, chosen[kept].start) if kept < len(chosen) else end
        finally:
            self.undo(mark)

    def masked(self, text: str, spans: Iterable[Span], *, deny: bool = True) -> str:
        """`text` with every span this policy masks replaced by an unnumbered placeholder.

        This is the text gated callers' search indexes hold (see `privacy.masking`): a
        value that is not in the index cannot be matched by any form of it.
        """
        return masked_text(text, self.spans_to_mask(text, spans, deny=deny))

    def masking(self, text: str, spans: Iterable[Span], *, deny: bool = True) -> list[Span]:
        """The merged spans this policy masks in `text` (nothing is counted as held back):
        what a reader sees replaced, for showing the owner or comparing two sets of spans."""
        if self.policy.mode == "off":
            return []
        return self.spans_to_mask(text, spans, deny=deny)

    def mark(self) -> GateMark:
        """What this gate has numbered and counted so far: hand it to `undo`."""
        return GateMark(len(self._numbered), dict(self._numbers), dict(self._held), self._withheld)

    def undo(self, mark: GateMark) -> None:
        """Forget every value numbered and every span counted since `mark`, as if the text
        gated since was never gated: the next value shown takes the next number after
        those still shown (see the module docstring)."""
        for key in self._numbered[mark.numbered :]:
            del self._placeholders[key]
        del self._numbered[mark.numbered :]
        self._numbers = Counter(mark.numbers)
        self._held = Counter(mark.held)
        self._withheld = mark.withheld

    def held_back(self) -> HeldBack:
        """What this gate has held back so far, for the response and the audit log."""
        return HeldBack(
            policy=self.policy.name,
            mode=self.policy.mode,
            kinds=dict(sorted(self._held.items())),
            texts_withheld=self._withheld,
        )

    def spans_to_mask(self, text: str, spans: Iterable[Span], *, deny: bool = True) -> list[Span]:
        """What this policy masks in `text`: its identifying spans plus deny-list hits (with
        `deny`: the owner's text only), merged, minus allowed values. The one place that
        decides it, for the gate, the masked index and the ask pipeline's leak scan."""
        # A "deny" span is a deny-list hit (`denied`): masked whatever its kind, as the list
        # says, and, like the list itself, in the owner's text only.
        picked = [
            s
            for s in spans
            if s.end <= len(text) and (deny if s.source == "deny" else self.policy.counts(s))
        ]
        if deny:
            picked.extend(self.denied(text))
        if self._allow is not None and picked:
            picked = self._outside_allowed(text, picked, self._allow)
        return merge_spans(picked)

    def denied(self, text: str) -> list[Span]:
        """The deny-list's values in `text`, each as a span of its entry's kind."""
        if self._deny is None:
            return []
        return [
            Span(
                match.start(1),
                match.end(1),
                self._deny_kinds.get(denied_key(match[1]), "PERSON"),
                1.0,
                "deny",
            )
            for match in self._deny.finditer(text)
        ]

    def _outside_allowed(self, text: str, spans: list[Span], allowed: Pattern[str]) -> list[Span]:
        """`spans` less those an allowed value covers: a span whose text is an allowed
        value, or that lies inside an occurrence of one (any case and spacing, on word
        boundaries). Name spreading finds each word of a name again (`Jonas`, `Becker` of
        `Jonas Becker`); dropping only spans equal to the value would mask the allowed
        name word by word.

        A span reaching outside every occurrence is kept whole, not trimmed: it is a longer
        value (`Jonas Becker Smith`, an address naming the allowed person), and showing the
        allowed part of it would show part of a value nobody allowed.
        """
        # Occurrences do not overlap, so only the last one starting at or before a span
        # can hold it: one look-up a span, however long the text (a quadratic scan took
        # seconds on a mailbox-sized section).
        found = [(match.start(), match.end()) for match in allowed.finditer(text)]
        starts = [start for start, _ in found]

        def inside(span: Span) -> bool:
            at = bisect_right(starts, span.start) - 1
            return at >= 0 and span.end <= found[at][1]

        return [
            span
            for span in spans
            if not inside(span) and not self.policy.is_allowed(text[span.start : span.end])
        ]

    def _placeholder(self, value: str, kind: str, scope: str) -> str:
        # An imported tag spells a space as '-' (`agent:Maria-Gonzalez`): one value, one number.
        key = (scope, normalise_value(value.replace("-", " ")))
        if key not in self._placeholders:
            self._numbers[kind] += 1
            self._placeholders[key] = f"<{kind}_{self._numbers[kind]}>"
            self._numbered.append(key)
        return self._placeholders[key]

    def _stub(self, counts: Counter[str]) -> str:
        kinds = ", ".join(sorted(counts))
        return f"[withheld by policy {self.policy.name}: contains {kinds}]"
