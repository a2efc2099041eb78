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
without case, punctuation, articles or a leading "and").

It also lists things no note it was shown mentions: made up, or copied from the prompt's
fixed text (the briefing's example "Café Rossi" came back as an event someone had taken
part in). `grounded` drops an item none of whose words occurs in the notes as shown or in
the question: its words of three letters or more, not counting words like "the" or "with",
compared loosely ("hiking", "hikes" and "hike" are one). A placeholder is such a word
(`<PERSON_1>` is grounded where the notes show `<PERSON_1>`). One word is enough: asking
for every word dropped items the notes say in other words ("dedication to their dreams"
for "dedicated") and lowered F1 on LoCoMo's conversations 1–3. A list none of whose items
any note holds was made up whole ("Café Rossi, <PERSON_1>" for the places someone sent
her work to, from notes that name neither): the reply is what the model is told to say
when no note answers, `briefing.NOT_SAID`.

Only words are removed, by any of the three, or the whole answer is replaced by that
fixed sentence, so the leak scan that follows sees nothing the model did not write.
"""

from __future__ import annotations

import re

from privault.ask.briefing import NOT_SAID

__all__ = ["grounded", "tidy", "unrepeated"]

RESTATED_WORDS = 3  # the shortest opening taken for a restated question
_WORD = re.compile(r"[\w'’]+")
_ITEM_BREAK = re.compile(r",(?=\s)")  # a list's comma; "1,000" is one number
_SAME = re.compile(r"^(?:(?:and|or|the|a|an)\b\s*)+", re.IGNORECASE)  # "and the X" is "X"
_LEFT_OVER = re.compile(r"^(?:is|are|was|were|include[sd]?|including)\b[\s:,]*", re.IGNORECASE)
_LOOSE_ENDING = re.compile(r"(?<=\w{3})(?:ing|e)$")  # "hiking", "hike": "hik" (as "hikes")
GROUNDING_LETTERS = 3  # shorter words ("a", "to", "Mr") tell nothing of where an item is from
# Words that any text holds: an item is not grounded by them.
_FUNCTION_WORDS = frozenset(
    """the and but for nor yet with from into onto about over under after before than then
    his her hers him she they them their theirs its our ours your yours you this that these
    those some any all both each other such also more most very much many was were are been
    being have has had does did done will would can could should who whom whose which what
    when where why how not one""".split()
)


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


def _root(word: str) -> str:
    """A word compared more loosely than `_stem`: also without "-ing" or a final "e"."""
    return _LOOSE_ENDING.sub("", _stem(word))


def _grounding_words(item: str) -> set[str]:
    """The roots of the words in a list item that could tell where it came from."""
    return {
        _root(word)
        for word in _WORD.findall(item)
        if len(word) >= GROUNDING_LETTERS and word.lower() not in _FUNCTION_WORDS
    }


def _joined(answer: str, items: list[str], kept: list[str]) -> str:
    """`answer` with only the `kept` of its `items`, ending as it did ("a, b." keeps its
    full stop when "b" goes); `answer` itself when every item was kept."""
    if len(kept) == len(items):
        return answer
    text = ",".join(kept).strip()
    ending = answer.rstrip()[-1]
    return text + ending if ending in ".!" and not text.endswith(ending) else text


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
    return _joined(answer, items, kept)


def grounded(answer: str, shown: str) -> str:
    """`answer` without the list items that no word of `shown` (the notes as the model was
    shown them, and the question) grounds (see the module docstring); returned as written
    when every item is grounded or none has a word to judge it by, and `NOT_SAID` when
    none is grounded."""
    items = _ITEM_BREAK.split(answer)
    known = {_root(word) for word in _WORD.findall(shown)}
    judged = [(item, _grounding_words(item)) for item in items]
    if not any(words & known for _, words in judged):
        return NOT_SAID if any(words for _, words in judged) else answer
    return _joined(answer, items, [item for item, words in judged if not words or words & known])
