"""The model's answer, tidied before it is scanned and released.

A small model often starts its answer by restating the question: asked "How do Jon and
Gina both like to destress?", it writes "Jon and Gina both like to destress by dancing."
The owner asked for the answer, not their own words back. `tidy` drops such an opening —
the rest of the question, from its subject to its last word ("gets" matching "get"), three
words at least — and a bare "is" / "are" / "include" left behind it, so the reply reads
"By dancing.". An opening that stops short of the question's end is kept: what follows it
would not stand alone ("… brings back great memories" for "What memory does the film bring
to Tim?"). An answer that does not open with the question, or would be left with no
words, is returned as written.

Asked for several things, it also names one thing again and again ("Dune, The Alchemist,
The Alchemist, The Alchemist", "<PERSON_1>, <PERSON_1>"): `unrepeated` keeps the first
of the items of a comma-separated list ("a, b", not "1,000") that say the same (compared
without case, punctuation, articles or a leading "and"). Only words are removed, by
either, so the leak scan that follows sees a subset of what the model wrote.
"""

from __future__ import annotations

import re

__all__ = ["tidy", "unrepeated"]

RESTATED_WORDS = 3  # the shortest opening taken for a restated question
_WORD = re.compile(r"[\w'’]+")
_ITEM_BREAK = re.compile(r",(?=\s)")  # a list's comma; "1,000" is one number
_SAME = re.compile(r"^(?:(?:and|or|the|a|an)\b\s*)+", re.IGNORECASE)  # "and the X" is "X"
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


def unrepeated(answer: str) -> str:
    """`answer` without the list items that repeat an earlier one (see the module
    docstring); an answer with no repeated item is returned as written."""
    items = _ITEM_BREAK.split(answer)
    seen: set[str] = set()
    kept: list[str] = []
    for item in items:
        same = " ".join(_WORD.findall(_SAME.sub("", item.strip()).lower()))
        if same and same in seen:
            continue
        seen.add(same)
        kept.append(item)
    if len(kept) == len(items):
        return answer
    text = ",".join(kept).rstrip()
    ending = answer.rstrip()[-1]  # the answer's full stop, if the item that had it went
    return text + ending if ending in ".!" and not text.endswith(ending) else text
