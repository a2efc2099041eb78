"""Characters that steer a terminal or reorder what a reader sees, and how they are shown.

The CLI and the owner's web page both print text that came from elsewhere (titles, tags,
agents' notes, imported mail): its control characters and bidi controls are written out
as escapes (`\\x1b`, `\\u202e`) so that such text can neither drive the owner's terminal
nor make one name read as another, and runs of characters without width are written out
so that no message hides in them.
"""

from __future__ import annotations

import re

# C0 but tab, newline and carriage return, DEL, C1, the bidi marks (the Arabic letter
# mark too), embeddings, overrides and isolates, and the tag characters (invisible: text
# written in them reads as nothing to the owner, and as words to a model). A browser shows
# a carriage return as a space; a terminal does not.
UNSEEN = (
    "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
    "\U000e0000-\U000e007f"
)
# Characters with no width of their own carry a message in plain sight: a variation
# selector stands for a byte a model reads back, zero-width spaces and joiners spell bits.
# One alone after a character belongs to the text (an emoji's U+FE0F, a CJK ideograph's
# variant, a Persian non-joiner, a soft hyphen) and stays; a run of two or more is written
# out, but for the joins text uses (an emoji style before a zero-width joiner, Arabic's
# joiner / non-joiner / joiner). Invisible characters no text needs are always written out.
_IGNORABLE = "\u00ad\u180b-\u180f\u200b-\u200d\u2060-\u2064\ufe00-\ufe0f\ufeff\U000e0100-\U000e01ef"
_JOINS = "\ufe0f\u200d|\ufe0e\u200d|\u200d\u200c\u200d"
UNUSED = (
    "\u034f\u115f\u1160\u17b4\u17b5\u2065\u206a-\u206f\u3164\uffa0\ufff0-\ufff8"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0080-\U000e00ff\U000e01f0-\U000e0fff"
)
HIDDEN = f"[{UNUSED}]|(?<![{_IGNORABLE}])(?!(?:{_JOINS})(?![{_IGNORABLE}]))[{_IGNORABLE}]{{2,}}"
# The one use of tag characters text has: the subdivision flags of England, Scotland and
# Wales, a black flag followed by the subdivision id spelt in tag letters and closed by
# CANCEL TAG (UTS #51 recommends these three; no other tag sequence is drawn as a flag of
# its own). Any other id would be a few letters a reader cannot see and a model reads: in
# any other place, id, case or length, or without their CANCEL TAG, tag characters are a
# message and written out.
_FLAG_BASE = "\U0001f3f4"
_FLAG = (
    f"{_FLAG_BASE}(?:"
    + "|".join("".join(chr(0xE0000 + ord(c)) for c in sub) for sub in ("gbeng", "gbsct", "gbwls"))
    + ")\U000e007f"
)
# What `escape` writes out (a flag is matched whole so that its tags are not, and kept), for
# a pattern to add its own characters to.
UNSEEN_PATTERN = f"{_FLAG}|[{UNSEEN}]|{HIDDEN}"


def escape(match: re.Match[str]) -> str:
    """The matched characters written out: `\\x1b`, `\\u202e`, `\\U000e0041`; a
    subdivision flag as it is."""
    found = match.group()
    if found.startswith(_FLAG_BASE):
        return found
    return "".join(_written(ord(char)) for char in found)


def _written(code: int) -> str:
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
