"""Characters that steer a terminal or reorder what a reader sees, and how they are shown.

The CLI and the owner's web page both print text that came from elsewhere (titles, tags,
agents' notes, imported mail): its control characters and bidi controls are written out
as escapes (`\\x1b`, `\\u202e`) so that such text can neither drive the owner's terminal
nor make one name read as another.
"""

from __future__ import annotations

import re

# C0 but tab, newline and carriage return, DEL, C1, and the bidi marks, embeddings,
# overrides and isolates. A browser shows a carriage return as a space; a terminal does not.
UNSEEN = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069"


def escape(match: re.Match[str]) -> str:
    """One matched character written out: `\\x1b`, `\\u202e`."""
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
