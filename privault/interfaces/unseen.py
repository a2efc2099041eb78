"""Characters that steer a terminal or reorder what a reader sees, and how they are shown.

The CLI and the owner's web page both print text that came from elsewhere (titles, tags,
agents' notes, imported mail): its control characters and bidi controls are written out
as escapes (`\\x1b`, `\\u202e`) so that such text can neither drive the owner's terminal
nor make one name read as another.
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


def escape(match: re.Match[str]) -> str:
    """One matched character written out: `\\x1b`, `\\u202e`, `\\U000e0041`."""
    code = ord(match.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
