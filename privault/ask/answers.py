"""The model's answer, tidied before it is scanned and released.

A small model often starts its answer by restating the question: asked "How do Jon and
Gina both like to destress?", it writes "Jon and Gina both like to destress by dancing."
The owner asked for the answer, not their own words back. `tidy` drops such an opening —
the rest of the question, from its subject to its last word ("gets" matching "get"), three
words at least — and a bare "is" / "are" / "include" left behind it, so the reply reads
"By dancing.". An opening that stops short of the question's end is kept: what follows it
would not stand alone ("… brings back great memories" for "What memory does the film bring
to Tim?"). An answer that does not open with the question, or would be left with no
words, is returned as written. Only words are removed, so the leak scan that follows sees
a subset of what the model wrote.
"""

from __future__ import annotations

import re

__all__ = ["tidy"]

RESTATED_WORDS = 3  # the shortest opening taken for a restated question
_WORD = re.compile(r"[\w'’]+")
_LEFT_OVER = re.compile(r"^(?:is|are|was|were|include[sd]?|including)\b[\s:,]*", re.IGNORECASE)


def _stem(word: str) -> str:
    """A word compared loosely: lower case, without a plural, possessive or past ending."""
    word = word.lower().replace("’", "'")
    for suffix in ("'s", "es", "s", "ed", "d"):
        if len(word) > 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _restated(question: str, words: list[re.Match[str]]) -> int:
    """How many of the answer's first words restate the rest of the question: a run of
    its words, in order, up to its last word ("Joanna gets her ideas for the characters
    from" for "Where does Joanna get her ideas for the characters from?"); 0 if none."""
    asked = [_stem(m.group()) for m in _WORD.finditer(question)]
    for length in range(len(words), 0, -1):
        if [_stem(m.group()) for m in words[:length]] == asked[len(asked) - length :]:
            return length
    return 0


def tidy(question: str, answer: str) -> str:
    """`answer` without an opening that restates `question` (see the module docstring)."""
    text = answer.strip()
    words = list(_WORD.finditer(text))
    count = _restated(question, words)
    if count < RESTATED_WORDS or count == len(words):
        return text
    rest = _LEFT_OVER.sub("", text[words[count - 1].end() :].lstrip(" ,:;-–—"))
    if not _WORD.search(rest):
        return text
    return rest[0].upper() + rest[1:]
