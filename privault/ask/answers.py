"""The model's answer, tidied before it is scanned and released.

A small model often starts its answer by restating the question: asked "How do Jon and
Gina both like to destress?", it writes "Jon and Gina both like to destress by dancing."
The owner asked for the answer, not their own words back. `tidy` drops such an opening
(three or more of the question's words in the question's order, "gets" matching "get"),
and a bare "is" / "are" / "include" left behind it, so the reply reads "By dancing.".
Nothing else changes: an answer that does not open with the question, or would be left
with no words, is returned as written. Only words are removed, so the leak scan that
follows sees a subset of what the model wrote.
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
    """How many of the answer's first words are a run of the question's words, in order."""
    asked = [_stem(m.group()) for m in _WORD.finditer(question)]
    count = 0
    for length in range(1, len(words) + 1):
        run = [_stem(m.group()) for m in words[:length]]
        if not any(asked[i : i + length] == run for i in range(len(asked) - length + 1)):
            break
        count = length
    return count


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
