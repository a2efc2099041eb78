"""The one way the CLI prints: untrusted text can neither style nor steer the terminal.

Titles, headings, tags, statement text, audit reasons, tool names, error messages: most of
what the CLI prints was written by an agent, a web page or a request, and the owner reads
it in a terminal. Two things must never happen to it:

* rich markup in it is interpreted (`[/]` crashes the print with a MarkupError,
  `[red]` spoofs a warning), so the consoles here have markup off: a string prints as
  it is, whether it reaches `print`, a table cell or a panel;
* a control character reaches the terminal raw (ESC/OSC sequences retitle the window,
  clear the screen, fake colours, write the clipboard with OSC 52; a CR overwrites the
  line; bidi overrides reorder what is shown). Every C0 and C1 control character except
  tab and newline, DEL, and the bidirectional overrides are shown as escapes (`\\x1b`,
  `\\u202e`) — when a string becomes text (`render_str`, so widths are right) and once
  more on every segment written (`_render_buffer`), so a `Text` built elsewhere is
  covered too. rich's own control segments (cursor moves of a progress bar) pass.

The CLI's own styling is written with `styled(template, **values)`: the template is
trusted markup, each value is escaped and made visible before it is placed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.segment import Segment
from rich.text import Text

from privault.interfaces.unseen import UNSEEN_PATTERN, escape

_CONTROL = re.compile(f"\r|{UNSEEN_PATTERN}")  # a terminal moves back to the line's start on \r


def visible(text: str) -> str:
    """`text` with every control character written out as an escape (tab, newline stay)."""
    return _CONTROL.sub(escape, text)


class SafeConsole(Console):
    """A rich console for untrusted text: markup off, control characters made visible."""

    def __init__(self, **options: Any) -> None:
        options.setdefault("markup", False)
        super().__init__(**options)
        if "width" not in options:
            # rich fixes the width from COLUMNS when the console is made (at import); read
            # it when printing instead, as every other width is.
            self._width = None

    def render_str(self, text: str, **options: Any) -> Text:
        """Every string printed, in a table cell or a panel, becomes text here: no markup
        unless `styled` built it, and its control characters made visible."""
        options["markup"] = False
        return super().render_str(visible(text), **options)

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        """The last step before the terminal: no segment of text carries a control
        character, whatever built it."""
        return super()._render_buffer(
            segment if segment.control else Segment(visible(segment.text), segment.style)
            for segment in buffer
        )


_SLOT = re.compile("\ue000(\\d+)\ue001")  # private-use marks: never in a template


def styled(template: str, *args: Any, **values: Any) -> Text:
    """The CLI's own markup `template` with `values` put in as plain, visible text:
    `styled("[bold]{title}[/bold] [dim]{id}[/dim]", title=t, id=i)`.

    Values never pass through the markup parser: the template is parsed with a mark in
    each value's place, and each mark is then replaced by its value, styled as the mark
    was. So no value can open, close or escape a tag, whatever brackets or backslashes
    it holds."""
    filled: list[str] = []

    def mark(value: Any) -> str:
        filled.append(visible(str(value)))
        return f"\ue000{len(filled) - 1}\ue001"

    marked = Text.from_markup(
        template.format(*map(mark, args), **{name: mark(value) for name, value in values.items()})
    )
    result = Text(style=marked.style, end=marked.end)
    done = 0
    for slot in _SLOT.finditer(marked.plain):
        result.append_text(marked[done : slot.start()])
        start = len(result)
        result.append(filled[int(slot.group(1))])
        for span in marked.spans:
            if span.start <= slot.start() and span.end >= slot.end():
                result.stylize(span.style, start, len(result))
        done = slot.end()
    result.append_text(marked[done:])
    return result
