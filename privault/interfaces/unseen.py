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
# Characters with no width of their own carry a hidden message in plain sight: a
# variation selector after a visible character stands for a byte a model reads back, and
# zero-width spaces and joiners spell bits. Where they belong to the text they stay:
# U+FE0E / U+FE0F once after a character (text or emoji style), an ideographic variation
# selector after a CJK ideograph, a zero-width joiner or non-joiner alone (a joined
# emoji, a Persian word). Every other one is written out.
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
_SELECTORS = "\ufe00-\ufe0f\U000e0100-\U000e01ef"
HIDDEN = (
    "[\ufe00-\ufe0d]"
    f"|(?<![{_CJK}])[\U000e0100-\U000e01ef]"
    f"|(?<=[{_SELECTORS}])[\ufe0e\ufe0f]"
    "|[\u200b-\u200d\u2060-\u2064\ufeff]{2,}"
)
# What `escape` writes out, for a pattern to add its own characters to.
UNSEEN_PATTERN = f"[{UNSEEN}]|{HIDDEN}"


def escape(match: re.Match[str]) -> str:
    """The matched characters written out: `\\x1b`, `\\u202e`, `\\U000e0041`."""
    return "".join(_written(ord(char)) for char in match.group())


def _written(code: int) -> str:
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
