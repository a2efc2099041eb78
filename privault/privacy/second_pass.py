"""Which texts the second entity recogniser reads: those where it can still add a name.

The second NER pass (spaCy medium's recogniser, see `privault.privacy.engine`) costs about
as much as the small pipeline's own recogniser. What it adds to the first pass is names and
places the first pass missed; on the PII benchmark's tuning halves that changed what
`standard` masks in one text in twenty. A text gets the second pass when it still holds
such a candidate after everything else has run:

* a capitalised word outside every PERSON, LOCATION and ADDRESS span the first pass found
  (at a score of at least `COVERED_SCORE`), unless it is an ordinary word (dictionary
  word, acronym, label, honorific: `ordinary.is_ordinary`, the same test that trims such
  words from guessed names, so a name the second pass made of them would be cut anyway)
  or a day or month (never a name or a place to the rest of detection either);
* or text written in casual lower case, where a sentence or a line starts with a small
  letter: capitals cannot tell names there, and the medium recogniser finds lower-case
  names ("talked to luiz mendes") the first pass misses.

Everything else (texts whose capitalised words are all found or ordinary, texts with no
letters) skips it. On the benchmark's sets this keeps every value the second pass alone
found and skips it for about two texts in three.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from privault.privacy.names import CALENDAR, NameLists, fold
from privault.privacy.ordinary import is_ordinary
from privault.spans import Span

# Kinds whose spans mean "this word is already a name or a place".
_COVERING = frozenset({"PERSON", "LOCATION", "ADDRESS"})
# A weaker span does not count as covering: the second pass may find the word surely.
COVERED_SCORE = 0.5
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
# The first letter of each line and of each sentence (after . ! ? and a space).
_FIRST_LETTER = re.compile(r"(?m)(?:^|(?<=[.!?])\s)[\W\d_]*?([^\W\d_])")


def second_pass_can_add(text: str, spans: Sequence[Span], lists: NameLists) -> bool:
    """True when `text` still holds a word the second recogniser might find (see above).

    `spans` are the first pass's finished spans for `text`.
    """
    if any(match.group(1).islower() for match in _FIRST_LETTER.finditer(text)):
        return True
    covered = [False] * len(text)
    for span in spans:
        if span.kind in _COVERING and span.score >= COVERED_SCORE:
            covered[span.start : span.end] = [True] * (span.end - span.start)
    return any(
        word.group(0)[0].isupper()
        and not covered[word.start()]
        and not is_ordinary(word.group(0), lists)
        and fold(word.group(0)) not in CALENDAR
        for word in _WORD.finditer(text)
    )
