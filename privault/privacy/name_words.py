"""Names the dictionary also lists as words: which of them English writes as names.

Webster's 2nd lists "tom", "anna", "timothy" and "henry" as words (a male animal, an
Indian coin, a grass, a unit of inductance), so the detector and the name tagger's corpus
took them for everyday words as much as "rose" or "mark": "Laura birthday gift" kept the
name in clear. What tells the two kinds apart is how text writes them. An everyday word is
capitalised mostly where a sentence or title starts, so its capitalised form is rarer
than its lower case one ("garden" is written 2.6 times as often as "Garden"); a name is
capitalised wherever it stands ("Henry" is written 25 times as often as "henry").

`name_words.txt`, shipped beside this module, lists the given names and surnames that are
dictionary words and whose capitalised form is at least `NAME_RATIO` times as frequent as
their lower case form, in the word probabilities spaCy's English lookups ship
(`en_lexeme_prob` of `spacy-lookups-data`, MIT; estimated from a large body of web
comments). Calendar words are left out: months and days have their own rules. The
detector reads the file through `names.load_name_lists`, which leaves these words out of
the ordinary ones. Rebuild it with

    pip install spacy-lookups-data==1.0.5
    python -m privault.privacy.name_words --write

The lookups package is 98 MB and only this derivation reads it, so it is not a dependency.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

from privault.privacy.names import (
    CALENDAR,
    NAME_WORDS_FILE,
    NameLists,
    load_name_lists,
    package_dir,
)

# A word capitalised this many times as often as not is written as a name. Interjections
# that open comments ("Oh": 3.6 times) and words that are names as often as not ("Frank":
# 3.7, "Rose": 1.3) stay below it; "Tom" (9.6) and "Henry" (25) are above.
NAME_RATIO = math.exp(2.0)
HEADER = (
    "# Given names and surnames that are also dictionary words, written capitalised at least\n"
    "# e^2 times as often as in lower case: names, not ordinary words (see name_words.py).\n"
)


def derive(
    candidates: Iterable[str], log_probability: Mapping[str, float], ratio: float = NAME_RATIO
) -> list[str]:
    """The `candidates` (lower case) whose capitalised form is at least `ratio` times as
    probable as the lower case one; a word the table lacks in lower case counts as the
    rarest word it holds, and one it lacks capitalised is never chosen."""
    floor = min(log_probability.values())
    threshold = math.log(ratio)
    chosen = []
    for word in candidates:
        capitalised = log_probability.get(word[:1].upper() + word[1:])
        if capitalised is not None and capitalised - log_probability.get(word, floor) >= threshold:
            chosen.append(word)
    return sorted(chosen)


def candidates(lists: NameLists) -> list[str]:
    """Listed names that the dictionary holds as words, calendar words aside."""
    return sorted(((lists.first | lists.last) & lists.dictionary) - CALENDAR)


def packaged_table(package: str, relative: str) -> dict[str, Any]:
    """A gzipped JSON object shipped inside an installed package (derivation only)."""
    with gzip.open(package_dir(package) / relative, "rt", encoding="utf-8") as handle:
        table: dict[str, Any] = json.load(handle)
    return table


def lookups_probabilities() -> dict[str, float]:
    """spaCy's English word log-probabilities, capitalised forms apart (derivation only)."""
    return packaged_table("spacy_lookups_data", "data/en_lexeme_prob.json.gz")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {NAME_WORDS_FILE.name}")
    args = parser.parse_args(argv)
    words = derive(candidates(load_name_lists()), lookups_probabilities())
    text = HEADER + "".join(f"{word}\n" for word in words)
    if args.write:
        NAME_WORDS_FILE.write_text(text, encoding="utf-8")
    print(f"{len(words)} name words" + (f" written to {NAME_WORDS_FILE}" if args.write else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
