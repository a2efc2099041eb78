"""Following the thread of a question: its shape, and what its first hits point to.

A question that asks for a set ("what activities…", "which places…", "how many times…")
has its answer spread over many sessions, one line each; a question after one fact has it
in one place, often in the line before the one that matched. `asks_for_set` tells them
apart from the wording alone, so the packer can give the first line-sized pieces from
more places and the second whole windows.

The first hits also name things the question does not: the person a plan was made with,
the place a trip went to, the day it happened. `leads` picks those names out of the best
hits' own lines, so a second keyword ranking can pull in the other windows that mention
them, and `fuse_leads` joins that ranking to the first at a lower weight.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

# A question after a set: "how many …", "in what ways …", "what kinds of …", a plural noun
# asked about in the present ("what books has …", "which cities does …"), "what are some
# … s", "where has …" / "what has … done" (the perfect sums up over time), "both", "in
# common". Past-tense singular questions ("what kind of cake did …") stay single facts.
_PLURAL = r"[\w+'/-]*[a-z][^s\W']s"  # a word ending in a plural s (not "ss", not "'s")
_SET_QUESTION = re.compile(
    r"^(?:how many\b"
    r"|in what ways\b"
    r"|(?:what|which)\s+(?:kinds|types|sorts) of\b"
    r"|(?:what|which)\s+(?:kind|type|sort) of\s+(?:[\w+'/-]+\s+){1,2}?(?:has|have)\b"
    rf"|(?:what|which)\s+(?:[\w+'/-]+\s+){{0,2}}?{_PLURAL}\s+(?:has|have|does|do|are)\b"
    rf"|what\s+are\s+(?:some\s+)?(?:of\s+)?(?:[\w+'/-]+\s+){{0,3}}?{_PLURAL}\b"
    r"|(?:where|what|who)\s+(?:has|have)\b)"
    r"|\bboth\b|\bin common\b",
    re.IGNORECASE,
)

# A name in running text: a capitalised word not at the start of a sentence or line, or a
# number (years, counts, days). Speaker labels ("Anna:") and placeholders are not leads.
_WORD = re.compile(r"[A-Za-z][\w'’-]*|\d[\d,.:/]*")
_SENTENCE_END = re.compile(r"[.!?:;\"“(\[]$")
_PLACEHOLDER = re.compile(r"<[A-Z_]+(?:_\d+)?>")
_SPEAKER = re.compile(r"^\s*[^\s:]{1,40}(?:\s[^\s:]{1,40})?:\s")
_COMMON_CAPITALS = frozenset(
    "I I'm I've I'd I'll Im Ive Oh Hey Hi Yes No Yeah Thanks Thank Wow OK Okay Sure Well "
    "So And But Or The A An It Its It's That This These Those What When Where Which Who "
    "Why How My Your Our We You He She They His Her Their Me Mr Mrs Ms Dr Great Good "
    "Awesome Congrats Congratulations Nice Cool Haha Lol Sounds Love Glad Sorry Also "
    "Just Really Definitely Absolutely Totally Amazing Thanks! Photo".split()
)


def asks_for_set(question: str) -> bool:
    """Whether the question asks for several things (its answer spread over sessions)."""
    return bool(_SET_QUESTION.search(" ".join(question.split())))


def asks_for_items(question: str) -> bool:
    """Whether the question asks for several things by name (a set, but not a count)."""
    return asks_for_set(question) and not question.lstrip().lower().startswith("how many")


def leads(lines: Iterable[str], question: str, *, limit: int) -> list[str]:
    """Up to `limit` names the lines mention and the question does not, most mentioned
    first: capitalised words inside sentences and numbers (speaker labels, placeholders
    and everyday sentence openers are skipped)."""
    asked = {word.lower() for word in _WORD.findall(question)}
    counts: Counter[str] = Counter()
    for line in lines:
        text = _PLACEHOLDER.sub(" ", _SPEAKER.sub("", line, count=1))
        for match in _WORD.finditer(text):
            word = match.group().rstrip(".,:")
            before = text[: match.start()].rstrip()
            starts_sentence = not before or bool(_SENTENCE_END.search(before))
            if (
                word
                and word.lower() not in asked
                and word not in _COMMON_CAPITALS
                and len(word) > 1
                and (word[0].isdigit() or (word[0].isupper() and not starts_sentence))
            ):
                counts[word] += 1
    return [word for word, _ in counts.most_common(limit)]


def fuse_leads(
    first: Sequence[tuple[int, float]], led: Sequence[int], weight: float, k: int
) -> list[tuple[int, float]]:
    """The first ranking's (id, fused score) pairs with a second ranking of ids added by
    reciprocal rank at `weight`; best first."""
    scores = dict(first)
    for rank, item in enumerate(led):
        scores[item] = scores.get(item, 0.0) + weight / (k + rank + 1)
    return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))
