"""Templates and the small text helpers they use.

Jinja2 autoescapes everything. No helper here returns markup: highlighting a span or a
placeholder produces a list of (text, kind) pieces that the template escapes one by one,
so nothing from the vault can ever be read by the browser as HTML.

What an agent got masked is what its gate says it masked (`Gated.masks`), never text that
looks like a placeholder or a stub: an agent can write `<PERSON_1>` or `[withheld …]` into
a note to make the owner think something was held back, and a note can quote one.

Nor can it hide or reorder what the owner reads: every string a template prints has its
control characters and bidi controls written out as escapes first (`shown`, the
environment's `finalize`), as the CLI shows them. A title with U+202E would otherwise
read "Invoiceexe.pdf" for `Invoice\u202efdp.exe`, and in the tab's `<title>` reverse the
rest of it. The one exception is a form field that sends a stored value back
(`|verbatim`): it must send it as stored.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from privault.interfaces.unseen import UNSEEN_PATTERN, escape
from privault.privacy.gate import Gated, Mask
from privault.spans import Span, merge_spans
from privault.timeutil import iso_minute, to_iso

Piece = tuple[str, str | None]  # (text, kind or None for plain text)


def spans_to_pieces(text: str, spans: Iterable[Span]) -> list[Piece]:
    """`text` cut into plain and highlighted pieces. Overlapping spans are merged as the
    gate merges them, so a highlight names the kind an agent's placeholder would."""
    pieces: list[Piece] = []
    at = 0
    for span in merge_spans(spans):
        if span.start < at or span.end <= span.start or span.end > len(text):
            continue
        if span.start > at:
            pieces.append((text[at : span.start], None))
        pieces.append((text[span.start : span.end], span.kind))
        at = span.end
    if at < len(text):
        pieces.append((text[at:], None))
    return pieces


def _masks(text: str) -> tuple[Mask, ...]:
    return text.masks if isinstance(text, Gated) else ()


def placeholder_pieces(text: str) -> list[Piece]:
    """Gated text cut so the gate's placeholders (`<PERSON_1>`) can be shown as tags (a
    stub reads as the sentence it is)."""
    pieces: list[Piece] = []
    at = 0
    for mask in _masks(text):
        if mask.stub:
            continue
        if mask.start > at:
            pieces.append((text[at : mask.start], None))
        pieces.append((text[mask.start : mask.end], mask.kind))
        at = mask.end
    if at < len(text):
        pieces.append((text[at:], None))
    return pieces


def held_in(texts: Iterable[str]) -> dict[str, int]:
    """Kind -> how many placeholders (and withheld stubs naming the kind) `texts` show: the
    badges count what the reply shown on the page holds back, not what was gated on the way
    (a section cut to an excerpt, or dropped from a pack, held back more than it shows)."""
    counts = Counter(mask.kind for text in texts for mask in _masks(text))
    return dict(sorted(counts.items()))


def diff_lines(diff: str | None) -> list[tuple[str, str]]:
    """A unified diff as (css class, line) pairs."""
    out = []
    for line in (diff or "").splitlines():
        if line.startswith(("+++", "---")):
            kind = "meta"
        elif line.startswith("@@"):
            kind = "hunk"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "del"
        else:
            kind = "same"
        out.append((kind, line))
    return out


_UNSEEN = re.compile(UNSEEN_PATTERN)  # a carriage return is white space to a browser


class Verbatim(str):
    """A stored value a form sends back (`|verbatim`): printed escaped, not made visible."""

    __slots__ = ()


def shown(value: Any) -> Any:
    """What a template prints for `value`: a string with its unseen characters written out
    (`\\u202e`, `\\x1b`); markup a macro built, and `Verbatim` values, as they are."""
    if isinstance(value, str) and not isinstance(value, Markup | Verbatim):
        return _UNSEEN.sub(escape, value)
    return value


def when(value: int | None) -> str:
    """Epoch ms as `2026-03-01 10:00` UTC, or an empty string."""
    return iso_minute(to_iso(value)).replace("T", " ")


def kind_class(kind: str | None) -> str:
    """A CSS class for a PII kind: letters, digits and dashes only."""
    return "k-" + re.sub(r"[^a-z0-9]+", "-", (kind or "other").lower())


def held_text(held: dict[str, int]) -> str:
    """`PERSON ×2, EMAIL_ADDRESS ×1`."""
    return ", ".join(f"{kind} ×{count}" for kind, count in held.items())


class Templates:
    """The page templates, loaded once from the package."""

    def __init__(self) -> None:
        self.env = Environment(
            loader=PackageLoader("privault.interfaces.web", "templates"),
            autoescape=True,
            undefined=StrictUndefined,  # a typo in a template fails a test, not silently
            trim_blocks=True,
            lstrip_blocks=True,
            finalize=shown,
        )
        self.env.filters.update(
            when=when,
            kind_class=kind_class,
            held=held_text,
            pieces=spans_to_pieces,
            placeholders=placeholder_pieces,
            diff_lines=diff_lines,
            verbatim=Verbatim,
        )

    def render(self, name: str, context: dict[str, Any]) -> str:
        """Render one template with its context."""
        return self.env.get_template(name).render(**context)


def options(values: Sequence[str], chosen: str | None) -> list[tuple[str, bool]]:
    """(value, selected) pairs for a <select>."""
    return [(value, value == chosen) for value in values]
