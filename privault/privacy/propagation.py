"""Found names spread: to every other occurrence of a found name or place in the same text
(in capitals, and in lower case where it is no word), and to the names written beside a
found one in a list ("Monjeau, Graves and Reed").

A recogniser finds a name where its cue is; the same name elsewhere in the text ("Later
Graves left", or in capitals: "Ref: GRAVES/2022") has none, and neither has the next name
of a list. Spans made here are
guesses ("propagated", "list"), trimmed as any guessed name is (`ordinary.trim_person`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from privault.privacy.cue_words import NOT_NAMES
from privault.spans import Span

_JOIN = r"(?:\s*,\s*|\s*,?\s+(?:and|or|&)\s+)"


def propagate(
    text: str, spans: list[Span], is_word: Callable[[str], bool] = lambda word: False
) -> list[Span]:
    """Spans for every other occurrence of detected names and places, and for list mates.

    Occurrences in lower case count too where no word of the value is an ordinary word
    (`is_word`): a tag or a chat line writes "lopez" for the "Maria Lopez" found beside
    it, but "rose" is not the "Rose" of the line before."""
    added: list[Span] = []
    values: dict[str, tuple[str, float]] = {}
    for span in spans:
        # A mention names an account: the same letters elsewhere are not it ("@dataclass").
        if span.kind not in ("PERSON", "LOCATION") or span.score < 0.5 or span.source == "handle":
            continue
        value = text[span.start : span.end]
        values.setdefault(value, (span.kind, span.score))
        if span.kind == "PERSON":
            for word in re.findall(r"[^\W\d_][\w'’-]{2,}", value):
                if word not in NOT_NAMES:
                    values.setdefault(word, ("PERSON", span.score * 0.9))
    words = _WordStarts(text)
    for value, (kind, score) in values.items():
        for start in words.occurrences(value):
            added.append(Span(start, start + len(value), kind, round(score, 3), "propagated"))
        # In capitals too: a form's or a reference's "LAMY/2022" beside "Dear Prof. Lamy".
        # The value was vetted where it was found; in capitals it is no acronym to trim.
        shouted = value.upper()
        if shouted != value:
            for start in words.occurrences(shouted):
                added.append(Span(start, start + len(shouted), kind, round(score, 3), "capitals"))
        small = value.lower()
        if small != value and not any(is_word(word) for word in _RUN.findall(small)):
            for start in words.occurrences(small):
                added.append(Span(start, start + len(small), kind, round(score, 3), "lowercase"))
    # A table's cells are not a list: the cell beside a name is another column's value.
    added.extend(
        _list_mates(
            text,
            [s for s in spans if s.kind == "PERSON" and s.score >= 0.5 and s.source != "column"],
            is_word,
        )
    )
    return added


_RUN = re.compile(r"\w+")


def has_lower_case_form(text: str, is_word: Callable[[str], bool]) -> bool:
    """Whether a word of `text` that is no ordinary word (`is_word`) is written in lower
    case and elsewhere with capitals: only such a text can hold a lower-case form of a
    name found in it that `propagate` spreads to."""
    runs = set(_RUN.findall(text))
    return any(
        run.lower() in runs and not is_word(run.lower()) for run in runs if not run.islower()
    )


class _WordStarts:
    """Where each run of word characters of a text starts, to find a value's whole-word
    occurrences among the runs that start as it does: searching the text for each found
    name costs the text's length per name, and a long text has thousands of names."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._starts: dict[str, list[int]] = {}
        for run in _RUN.finditer(text):
            self._starts.setdefault(run.group(), []).append(run.start())

    def occurrences(self, value: str) -> list[int]:
        """`_whole_word_occurrences(text, value)`, the same starts in the same order.

        A whole-word occurrence of a value that starts with a word character starts a
        run of them, and that run is the value's first run: the character after it is the
        value's own next one, no word character, or the text's after the value, which
        must be none either.
        """
        first = _RUN.match(value)
        if first is None:  # starts with no word character: no run says where
            return _whole_word_occurrences(self._text, value)
        found: list[int] = []
        for start in self._starts.get(first.group(), ()):
            end = start + len(value)
            if (
                (not found or start >= found[-1] + len(value))  # after the last, as a scan
                and self._text.startswith(value, start)
                and not (end < len(self._text) and _is_word_char(self._text[end]))
            ):
                found.append(start)
        return found


def _whole_word_occurrences(text: str, value: str) -> list[int]:
    """Starts of `value` in `text` where no word character touches either end.

    The same matches as `(?<!\\w)value(?!\\w)` without compiling a pattern per value (see
    `_end_of`): `\\w` is a letter, a digit or an underscore, in any script.
    """
    found = []
    position = text.find(value)
    while position >= 0:
        end = position + len(value)
        if not (position and _is_word_char(text[position - 1])) and not (
            end < len(text) and _is_word_char(text[end])
        ):
            found.append(position)
            position = text.find(value, end)
        else:
            position = text.find(value, position + 1)
    return found


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _list_mates(text: str, people: list[Span], is_word: Callable[[str], bool]) -> list[Span]:
    """Names coordinated with a detected name: "Monjeau, Graves and Reed". Beside a name
    written in lower case, where no capital tells a name from the words around it, only
    the one word next to the join, and only one that is no ordinary word (`is_word`):
    "ok so dolores and alex" has "dolores", "i saw alex and dolores yesterday" neither
    "saw" nor "yesterday"."""
    found: list[Span] = []
    seen = {(s.start, s.end) for s in people}
    queue = list(people)
    word = r"[^\W\d_][\w'’-]+(?:[ \t]+[^\W\d_]\.?)?(?:[ \t]+[^\W\d_][\w'’-]+)?"
    while queue:
        span = queue.pop()
        lower = text[span.start].islower()
        after = re.compile(_JOIN + "(" + word + r")(?!\w)").match(text, span.end)
        before = re.search(
            r"(?<![\w'’-])(" + word + ")" + _JOIN + r"$", text[max(0, span.start - 60) : span.start]
        )
        candidates = []
        if after:
            candidates.append((after.start(1), after.end(1), False))
        if before:
            offset = max(0, span.start - 60)
            candidates.append((offset + before.start(1), offset + before.end(1), True))
        for start, end, before_name in candidates:
            # keep to the found name's casing, from the words next to it outwards: "Reed
            # met" is "Reed", "with Okonkwo" is "Okonkwo"
            words = [w.span() for w in re.finditer(r"\S+", text[start:end])]
            cased = [text[start + w[0]].islower() == lower for w in words]
            while not all(cased):  # drop the word farthest from the name
                words, cased = (words[1:], cased[1:]) if before_name else (words[:-1], cased[:-1])
            if lower:
                words = words[-1:] if before_name else words[:1]
            if not words:
                continue
            start, end = start + words[0][0], start + words[-1][1]
            value = text[start:end]
            if (start, end) in seen or value.split()[0].capitalize() in NOT_NAMES:
                continue
            if lower and is_word(value):
                continue
            seen.add((start, end))
            mate = Span(start, end, "PERSON", 0.5, "list")
            found.append(mate)
            queue.append(mate)
    return found
