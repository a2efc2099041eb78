"""The tagger's view of a text: its tokens, and hashed features of each token and its
neighbours (see `privault.privacy.tagger`): the word, its shape, prefix, suffix and letter
trigrams, what the name, dictionary and place lists say of it, where it stands in its line,
and the same of the words around it. Shared by the tagger and its trainer, so a change here
changes what the shipped weights mean: retrain (`privault.privacy.tagger_train`).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from privault.privacy.names import fold
from privault.privacy.tagger_lexicon import Lexicon

BUCKETS = 1 << 19  # hashed feature space
PIECES = 8  # letter trigrams of a word, at most (see `_pieces`)

# Letter-or-digit runs, and every other visible character alone.
_TOKEN = re.compile(r"[^\W_]+|[^\w\s]|_")
_TIME = re.compile(r"\d{1,2}(?::\d{2})?")


@dataclass(frozen=True, slots=True)  # slots: a long text has a few hundred thousand
class Token:
    """One token of a text: its characters and where they are."""

    text: str
    start: int
    end: int


def tokenize(text: str) -> list[Token]:
    """The tokens of `text`: letter-or-digit runs and single other characters."""
    return [Token(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def tokens_between(text: str, start: int, end: int) -> Iterator[Token]:
    """`tokenize(text[start:end])` one token at a time, without copying the slice: a
    caller that reads a line's first words stops there, however long the line."""
    for match in _TOKEN.finditer(text, start, end):
        yield Token(match.group(0), match.start() - start, match.end() - start)


def _shape(word: str) -> str:
    out: list[str] = []
    for char in word:
        kind = "X" if char.isupper() else "x" if char.islower() else "d" if char.isdigit() else char
        if not out or out[-1] != kind:
            out.append(kind)
    return "".join(out)[:5]


def _hash(feature: str) -> int:
    # Bucket 0 is kept for padding (its weights stay zero): rows of tokens are of one width.
    return zlib.crc32(feature.encode("utf-8")) % (BUCKETS - 1) + 1


def _pieces(word: str) -> list[str]:
    """The letter trigrams of `word` with its ends marked ("^ok", "oka", ..., "or$"): how a
    word is spelled says much about whether it is English, a name, or a made-up word."""
    padded = "^" + word + "$"
    grams = [padded[i : i + 3] for i in range(len(padded) - 2)]
    if len(grams) > PIECES:  # a long word: its start and end say the most
        grams = grams[: PIECES // 2] + grams[-(PIECES - PIECES // 2) :]
    return grams


def features(text: str, tokens: Sequence[Token], lex: Lexicon) -> list[list[int]]:
    """The hashed feature indices of every token of `text`, one row of equal width each."""
    return list(feature_rows(text, tokens, lex))


def feature_rows(text: str, tokens: Sequence[Token], lex: Lexicon) -> Iterator[list[int]]:
    """`features` one row at a time: the rows of a long text's tokens took ten times the
    memory of their weights (a 1.1 MB text's 450 MB), and its reader needs a few at once."""
    lower_text = "L" if not any(char.isupper() for char in text) else "M"
    words = [fold(token.text) for token in tokens]
    shapes = [_shape(token.text) for token in tokens]
    flags = [
        lex.flags(word, token.text.islower()) if token.text.isalpha() else "-"
        for word, token in zip(words, tokens, strict=True)
    ]
    starts = _line_starts(text, tokens)
    pad = ("<s>", "<s>", "<s>", "</s>", "</s>")
    for i, word in enumerate(words):

        def near(values: Sequence[str], offset: int, i: int = i) -> str:
            j = i + offset
            return values[j] if 0 <= j < len(values) else pad[2 + (1 if offset > 0 else -1)]

        shape, flag = shapes[i], flags[i]
        w1, w_1, s1, s_1 = near(words, 1), near(words, -1), near(shapes, 1), near(shapes, -1)
        f1, f_1 = near(flags, 1), near(flags, -1)
        line = starts[i]
        names = [
            "b",
            "w=" + word,
            "s=" + shape,
            "p3=" + word[:3],
            "x3=" + word[-3:],
            "x2=" + word[-2:],
            "f=" + flag,
            "fs=" + flag + shape,
            "ln=" + line + shape,
            "lf=" + line + flag,
            "tc=" + lower_text + shape + flag,
            "len=" + str(min(len(word), 12)),
            "w-1=" + w_1,
            "w+1=" + w1,
            "w-2=" + near(words, -2),
            "w+2=" + near(words, 2),
            "s-1=" + s_1,
            "s+1=" + s1,
            "f-1=" + f_1,
            "f+1=" + f1,
            "w-1s=" + w_1 + "|" + shape,
            "sw+1=" + shape + "|" + w1,
            "w-1f=" + w_1 + "|" + flag,
            "fw+1=" + flag + "|" + w1,
            "ss=" + s_1 + "|" + shape + "|" + s1,
            "ff=" + f_1 + "|" + flag + "|" + f1,
            "w-2-1=" + near(words, -2) + "|" + w_1,
            "lnw+1=" + line + "|" + w1,
        ]
        row = [_hash(name) for name in names]
        if tokens[i].text.isalpha():
            # spelled with its accents: "ö" or "č" says "not English" by itself
            row += [_hash("c=" + piece) for piece in _pieces(tokens[i].text.lower())]
        yield row + [0] * (len(names) + PIECES - len(row))


def _line_numbers(text: str, tokens: Sequence[Token]) -> list[int]:
    """The line each token stands on (0 for the first), in one pass over the text."""
    out = []
    line = position = 0
    for token in tokens:
        line += text.count("\n", position, token.start)
        position = token.start
        out.append(line)
    return out


def _line_starts(text: str, tokens: Sequence[Token]) -> list[str]:
    """Where each token stands in its line: first word ("1"), second ("2"), later ("n").

    Punctuation, digits and times ("[09:14]", "- [ ]", "1.") before the first word of a
    line do not count: a chat line's speaker is its first word.
    """
    out = []
    seen = 0
    last_line = -1
    for token, line in zip(tokens, _line_numbers(text, tokens), strict=True):
        if line != last_line:
            seen, last_line = 0, line
        if token.text.isalpha() and not _TIME.fullmatch(token.text):
            seen += 1
            out.append("1" if seen == 1 else "2" if seen == 2 else "n")
        else:
            out.append("p")
    return out
