"""A small learned token classifier for names, places and street addresses.

The rules around spaCy's recognisers read one word at a time: a capitalised word that
starts a title is taken for a name ("Plumber invoice"), a name spaCy calls a company stays
in clear ("Call Ilsabet Marrowgate on ..."), a lower-case name is missed unless a list
holds it. Each fix was another rule fitted to the sets it was found on. This classifier
judges every word with the words around it instead, and learns what the words around a
name look like from a large generated corpus (`privault.privacy.tagger_corpus`): names of
every origin and invented ones, in every casing and position, in titles, chat lines,
signatures, lists and tags, next to ordinary capitalised words that are not names.

It is a linear model (multinomial logistic regression) over hashed features of each token
and its neighbours: the word, its shape, prefix, suffix and letter trigrams, whether the
name, surname, dictionary and place lists hold it and whether running English text uses it,
where it stands in its line, and the same of the two words either side. Labels: `O`, `PER`,
`LOC`, `ADDR`. Scoring a text is a few dictionary look-ups and one gather-and-sum per token:
about a third of a millisecond of CPU for a sentence or short note.

The weights ship with privault (`tagger_weights.bin`, made by `privault.privacy.tagger_train`
from fixed seeds: the mean of four classifiers, each trained on its own corpus) and are
checked against `WEIGHTS_SHA256` before use: a changed or truncated file is a `ModelError`,
never a detector that silently finds less.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import re
import zlib
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from privault.errors import ModelError
from privault.privacy.names import CALENDAR, ORGANISATION_WORDS, NameLists, fold, is_never_name
from privault.privacy.tagger_features import (
    BUCKETS,
    Token,
    feature_rows,
    tokenize,
    tokens_between,
)
from privault.privacy.tagger_lexicon import Lexicon, lexicon
from privault.privacy.tagger_words import PERSON_VERBS
from privault.spans import Span

LABELS = ("O", "PER", "LOC", "ADDR")
KINDS = {"PER": "PERSON", "LOC": "LOCATION", "ADDR": "ADDRESS"}
WEIGHTS_FILE = Path(__file__).with_name("tagger_weights.bin")
WEIGHTS_SHA256 = "d2c39e128de0288260983c15178ec8a386b8b1d0744eb6e6d8c7a0cf48c0add1"
# A token joins an entity when it is at least this likely to be one (see `Tagger.spans`).
THRESHOLD = 0.7
WORD_THRESHOLD = 0.85
LOWER_WORD_THRESHOLD = 0.9
# A guessed name or place whose every word is this likely ordinary text is dropped.
VETO = 0.85
# ...or, for a span whose own score is below WEAK_SCORE (a proper-noun run, a list hit),
# when the tagger thinks each of its words more likely ordinary than not.
WEAK_SCORE = 0.65
WEAK_VETO = 0.6
# ...or, for a span that starts a short line (a title, a heading, a list item), when the
# tagger reads it as at least this likely ordinary: there a capital letter is no evidence,
# so the guesser's confidence says little, and the tagger was trained on such lines
# ("Misc note about pickles", "Basil and water"). Chosen on half of the evaluation sets
# (the other half untouched): below 0.5 because a title word the tagger cannot place
# either way ("Crystal - results") is a word more often than a name; at 0.45 no name of
# that half was lost, lower bars began to lose them (0.40: a chat line's speaker).
TITLE_VETO = 0.45
TITLE_WORDS = 5
KEPT_TEXTS = 256  # readings kept (`Tagger.probabilities`)
KEPT_CHARS = 2000  # so the kept readings stay under ~22 MB
# Tokens whose features are weighed at once: a long text's features, all at once, took ten
# times the memory of the text's reading (450 MB for 1.1 MB of notes).
READ_TOKENS = 4096
GUESSED = frozenset({"ner", "propn", "names", "list", "places", "speaker"})
_PERSON_VERBS = frozenset(PERSON_VERBS)

# Characters that may join two tokens of one entity ("Anne-Marie", "J. Doe", "o'neil").
_JOINERS = frozenset(" \t-_.'’")


class Tagger:
    """The trained classifier: token probabilities and entity spans of texts."""

    def __init__(self, weights: Any) -> None:
        self.weights = weights  # numpy array (BUCKETS, len(LABELS)), float32

    def probabilities(self, text: str) -> tuple[list[Token], Any]:
        """The tokens of `text` and each one's label probabilities (rows of `LABELS`).

        A text is read up to three times in a scan (its spans, judging them, judging again
        after the second entity recogniser), so the readings of the last `KEPT_TEXTS`
        texts of up to `KEPT_CHARS` are kept: a write batch's (the indexer claims 128 rows)
        with room to spare. A longer text is read afresh (a reading takes ~45 times the
        text's size to keep).
        """
        return self._read(text) if len(text) > KEPT_CHARS else self._kept(text)

    @functools.lru_cache(maxsize=KEPT_TEXTS)  # noqa: B019 - one tagger per process
    def _kept(self, text: str) -> tuple[list[Token], Any]:
        return self._read(text)

    @staticmethod
    def forget() -> None:
        """Drop the kept readings (a benchmark's runs each start without them)."""
        Tagger._kept.cache_clear()

    def _read(self, text: str) -> tuple[list[Token], Any]:
        import numpy as np

        tokens = tokenize(text)
        rows = feature_rows(text, tokens, lexicon())
        scores = np.zeros((len(tokens), len(LABELS)), dtype=np.float32)
        for first in range(0, len(tokens), READ_TOKENS):  # a few at a time: `READ_TOKENS`
            block = np.asarray(list(itertools.islice(rows, READ_TOKENS)), dtype=np.int64)
            scores[first : first + len(block)] = self.weights[block].sum(axis=1)
        scores -= scores.max(axis=1, keepdims=True)
        exp = np.exp(scores)
        return tokens, exp / exp.sum(axis=1, keepdims=True)

    def judge(self, text: str, spans: Sequence[Span]) -> list[Span]:
        """`spans` without the guessed names and places this tagger reads as ordinary words.

        A PERSON or LOCATION span whose only evidence was a capital letter or a
        statistical guess (`GUESSED` sources: spaCy's entities, proper-noun runs, the name
        and place lists) is dropped when every word in it is at least `VETO` likely to be
        ordinary text here (`WEAK_VETO` for a weak guess): "Plumber" in "Plumber invoice",
        "Lasagne on Friday", "Harbour" in "Harbour Motors invoice". A word English writes
        as a name ("Tom" in "Tom checkup") needs `VETO` wherever it stands. Spans with
        other evidence (patterns, known entities, cues such as "Mr") are kept.

        A guessed place or organisation inside a name this tagger found is dropped: the
        words around it said person ("Lunch with Helen Okafor", "Call Ilsabet Marrowgate
        on ..."), and the name is masked and counted as one.
        """
        tokens, probs = self.probabilities(text)
        lists = lexicon().lists
        names_written = lists.name_words
        people = _Found([s for s in spans if s.source == "learned" and s.kind == "PERSON"])
        starts, ends = [token.start for token in tokens], [token.end for token in tokens]
        kept = []
        for span in spans:
            if (
                span.kind in ("LOCATION", "ORGANIZATION")
                and span.source in GUESSED
                and people.hold(span)
            ):
                continue  # a person the recogniser called a place or a company
            if span.kind in ("PERSON", "LOCATION") and span.source in GUESSED:
                # the tokens the span overlaps (in order, so their ends are too)
                overlapped = range(bisect_right(ends, span.start), bisect_left(starts, span.end))
                inside = [i for i in overlapped if tokens[i].text.isalpha()]
                # A word English writes as a name ("Tom", `NameLists.name_words`) is not
                # capitalised for being first in a title, nor a weak guess for being short.
                named = bool(inside) and all(fold(tokens[i].text) in names_written for i in inside)
                # A town or country the gazetteer lists (no dictionary word: `find_places`) is
                # no weak guess, and first in a title too ("Kyoto temple day plan").
                listed_place = span.source == "places"
                veto = VETO if span.score >= WEAK_SCORE or named or listed_place else WEAK_VETO
                if (
                    inside
                    and not (named or listed_place)
                    and _starts_a_title(text, tokens, inside[0])
                ):
                    veto = min(veto, TITLE_VETO)
                if (
                    inside
                    and not (listed_place and all(_only_a_place(tokens[i].text) for i in inside))
                    and all(probs[i, 0] >= veto for i in inside)
                ):
                    continue
                if span.kind == "PERSON":
                    span = _around_found(span, people, tokens, starts, probs, veto, lists)
            kept.append(span)
        return kept

    def spans(self, text: str) -> list[Span]:
        """PERSON, LOCATION and ADDRESS spans: runs of tokens of one label on one line.

        A token joins an entity when it is at least `THRESHOLD` likely to be one, of
        whichever kind, and takes the likeliest kind ("Oddbjörn", a name 0.65 and a street
        0.28, is masked: neither kind alone reached the bar). A capitalised dictionary word
        no name list holds ("Phone", "Family") or a short word in capitals ("ASAP") needs
        `WORD_THRESHOLD`; a lower-case word English writes as a name ("kelly",
        `NameLists.name_words`) `THRESHOLD`; a lower-case dictionary word that a name list
        holds ("marguerite", "rock") or, in text that capitalises, an unlisted lower-case word
        ("songwriters") needs `LOWER_WORD_THRESHOLD`, unless it follows a name written small
        ("ottoline vargasz"); a lower-case dictionary word no name list holds never joins
        ("camels"). The first word of a title of two words or more (`_starts_a_title`)
        needs at least `WORD_THRESHOLD` for one kind: a title starts with a word as often
        as with a name, so the first place says nothing, and the bar is the one a
        capitalised word needs anywhere. A word alone on its line keeps its bar: a sender's
        name under a closing is as often alone there as a title word.
        """
        tokens, probs = self.probabilities(text)
        best = probs[:, 1:].argmax(axis=1) + 1  # the likeliest kind, were it an entity
        entity = 1.0 - probs[:, 0]  # how likely an entity, whichever its kind
        lex = lexicon()
        mixed = any(char.isupper() for char in text)
        spans: list[Span] = []
        run: list[int] = []
        for i in range(len(tokens) + 1):
            label = "O"
            if i < len(tokens) and entity[i] >= THRESHOLD:
                label = LABELS[best[i]]
                small = bool(run) and tokens[run[-1]].text.islower()  # names written small
                need = _threshold(tokens[i].text, lex, mixed and not small)
                sure = entity[i]
                if _starts_a_title(text, tokens, i, least=2):
                    # a title's first word: its place says nothing, so one kind must be sure
                    need, sure = max(need, WORD_THRESHOLD), probs[i, best[i]]
                if sure < need:
                    label = "O"
            if run and (label != LABELS[best[run[0]]] or not _joined(text, tokens, run[-1], i)):
                spans.extend(_span(text, tokens, probs, best, run))
                run = []
            if label != "O":
                run.append(i)
        return spans


class _Found:
    """The names the tagger found in a text, sorted, to ask which of them hold or lie in a
    span without reading them all for every span (a long text has thousands of each)."""

    def __init__(self, people: Sequence[Span]) -> None:
        self._people = sorted(people)
        self._starts = [person.start for person in self._people]
        self._reach = list(itertools.accumulate((p.end for p in self._people), max))

    def hold(self, span: Span) -> bool:
        """Whether one of the names holds the whole of `span`."""
        before = bisect_right(self._starts, span.start)
        return before > 0 and self._reach[before - 1] >= span.end

    def within(self, span: Span) -> list[Span]:
        """The names that lie inside `span`."""
        first, last = bisect_left(self._starts, span.start), bisect_left(self._starts, span.end)
        return [person for person in self._people[first:last] if person.end <= span.end]


def _around_found(
    span: Span,
    people: _Found,
    tokens: Sequence[Token],
    starts: Sequence[int],
    probs: Any,
    veto: float,
    lists: NameLists,
) -> Span:
    """`span` without the edge words outside the names this tagger found in it that it
    reads as ordinary (at least `veto`): "Saw Nárcisz Szondi", "lol adorján". Kept whole,
    such a word is masked, and then wherever else it stands. A capitalised listed surname
    just after them stays: it is the rest of the name, everyday word or not ("Anna-Lena
    Baker"). (Not a given name before them: "Saw" is one.)"""
    found = people.within(span)
    if not found:
        return span
    first, last = min(p.start for p in found), max(p.end for p in found)
    inside = list(range(bisect_left(starts, span.start), bisect_left(starts, span.end)))

    def cut(t: int, name_at: bool) -> bool:  # a token to drop from this edge of the span
        return not name_at and (not tokens[t].text.isalnum() or probs[t, 0] >= veto)

    def surname(t: int) -> bool:
        word = tokens[t].text
        return word[:1].isupper() and word.isalpha() and lists.is_last(word)

    while inside and cut(inside[0], tokens[inside[0]].start >= first):
        inside = inside[1:]
    while inside and not surname(inside[-1]) and cut(inside[-1], tokens[inside[-1]].end <= last):
        inside = inside[:-1]
    start, end = tokens[inside[0]].start, tokens[inside[-1]].end
    return span if (start, end) == (span.start, span.end) else replace(span, start=start, end=end)


def _only_a_place(word: str) -> bool:
    """True when the gazetteer's reading is the only one `word` has: no dictionary and no
    name list holds it ("Tbilisi", "Brno"; not "Reading", "Nice", "Victoria")."""
    flags = lexicon().flags(fold(word))
    return flags[2] in ".v" and flags[:2] == ".." and flags[3:5] != ".."


def _starts_a_title(text: str, tokens: Sequence[Token], index: int, least: int = 1) -> bool:
    """True when token `index` is the first word of a line of `least` to `TITLE_WORDS` words.

    A short line whose second word is a verb people do ("Dexter lives on Ziegelgasse 19",
    "Grace paid") is a sentence about someone, not a title: its first word is judged as in
    any sentence.
    """
    line_start = text.rfind("\n", 0, tokens[index].start) + 1
    line_end = text.find("\n", tokens[index].end)
    line = tokens_between(text, line_start, len(text) if line_end < 0 else line_end)
    # the line's first words: one past `TITLE_WORDS` says it is too long for a title
    words = list(itertools.islice((t.text for t in line if t.text.isalpha()), TITLE_WORDS + 1))
    if len(words) > 1 and words[1].lower() in _PERSON_VERBS:
        return False
    return bool(words) and words[0] == tokens[index].text and least <= len(words) <= TITLE_WORDS


def _threshold(word: str, lex: Lexicon, mixed: bool) -> float:
    if not word.isalpha():
        return THRESHOLD
    folded = fold(word)
    if is_never_name(word) or folded in CALENDAR or folded.rstrip("s") in CALENDAR:
        return 1.1  # "an", "Phone", "March", "Tuesdays": the name lists say "April Jones"
    if folded in ORGANISATION_WORDS:
        return 1.1  # "Stadtwerke", "GmbH": a company's word, never a name, place or street
    flags = lex.flags(folded, word.islower())
    listed = flags[0] == "F" or flags[1] == "L"
    if word.isupper() and len(word) <= 4 and flags[0] != "F":
        return WORD_THRESHOLD  # an acronym more often than a name in capitals
    if word.islower():
        if folded in lex.lists.name_words:
            return THRESHOLD  # "stella", "hanna": written small, still most often a name
        if flags[2] != ".":  # a dictionary word: a name only if a list holds it too
            return LOWER_WORD_THRESHOLD if listed else 1.1
        if listed or not mixed:
            return THRESHOLD
        return LOWER_WORD_THRESHOLD  # text that capitalises names seldom leaves one small
    return THRESHOLD if listed or flags[2] == "." else WORD_THRESHOLD


def _joined(text: str, tokens: Sequence[Token], last: int, nxt: int) -> bool:
    if nxt >= len(tokens):
        return False
    gap = text[tokens[last].end : tokens[nxt].start]
    return len(gap) <= 2 and all(char in _JOINERS for char in gap)


def _span(text: str, tokens: Sequence[Token], probs: Any, best: Any, run: list[int]) -> list[Span]:
    # Entities start and end with a letter or digit ("J." keeps its dot only inside), and
    # a capitalised name does not take a lower-case word beside it ("heard Petr Kloz").
    capitalised = any(tokens[i].text[:1].isupper() for i in run)

    def loose(i: int) -> bool:
        word = tokens[i].text
        return not word[0].isalnum() or (capitalised and word.islower())

    while run and loose(run[-1]):
        run = run[:-1]
    while run and loose(run[0]):
        run = run[1:]
    if not run:
        return []
    label = LABELS[best[run[0]]]
    if label == "ADDR" and not any(tokens[i].text.isalpha() for i in run):
        return []  # a number alone is not an address
    score = float(min(probs[i, best[i]] for i in run))
    start, end = tokens[run[0]].start, tokens[run[-1]].end
    if label == "PER":  # a name written as a tag or handle is masked whole: oriel-fenwhistle
        if _CODE_NUMBER.match(text, end) and text[start:end].isupper():
            return []  # a code's letters before its number ("POL-2931320", "INV-0042")
        start, end = _whole_tag(text, start, end)
    return [Span(start, end, KINDS[label], round(0.5 + 0.4 * score, 3), "learned")]


_TAG_PART = re.compile(r"[^\W_]+")
_CODE_NUMBER = re.compile(r"[-_/]?\d")


def _whole_tag(text: str, start: int, end: int) -> tuple[int, int]:
    """`start`-`end` grown over the parts joined to it by "-" or "_" that may be part of a
    name: not an everyday word no name list holds ("#payslip-budget" is not a person)."""
    lex = lexicon()

    def name_like(part: str) -> bool:
        if not part.isalpha():  # a number or a code is no part of a name ("kowalski_2024")
            return False
        flags = lex.flags(fold(part), part.islower())
        return flags[2] == "." or flags[0] == "F" or flags[1] == "L"

    while start >= 2 and text[start - 1] in "-_":
        part = _TAG_PART.search(text[: start - 1][::-1])
        if not part or part.start() != 0 or not name_like(part.group(0)[::-1]):
            break
        start = start - 1 - part.end()
    while end < len(text) - 1 and text[end] in "-_":
        part = _TAG_PART.match(text, end + 1)
        if not part or not name_like(part.group(0)):
            break
        end = part.end()
    return start, end


@functools.cache
def load_tagger(path: Path = WEIGHTS_FILE, sha256: str = WEIGHTS_SHA256) -> Tagger:
    """The shipped classifier, its file checked first; `ModelError` if it is not right."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ModelError(f"cannot read the name tagger's weights: {exc}") from None
    if hashlib.sha256(data).hexdigest() != sha256:
        raise ModelError(f"the name tagger's weights {path} are altered or partial; reinstall")
    return Tagger(parse_weights(data))


def parse_weights(data: bytes) -> Any:
    """The weight matrix stored in `data` (see `privault.privacy.tagger_train.serialise`)."""
    import numpy as np

    try:
        raw = zlib.decompress(data)
    except zlib.error as exc:  # an unreadable file: fail closed
        raise ModelError(f"cannot load the name tagger's weights: {exc}") from None
    if len(raw) != BUCKETS * len(LABELS) * 2:
        raise ModelError("the name tagger's weights have the wrong size; reinstall")
    return np.frombuffer(raw, dtype="<f2").reshape(BUCKETS, len(LABELS)).astype(np.float32)
