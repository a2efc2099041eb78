"""A calendar invitation (iCalendar, RFC 5545) as the text its mail shows a reader.

A mail client shows an invitation as its event: what, when, where, who, and its note. The
part itself folds its lines, escapes its commas and line breaks (`\\,`, `\\n`) and writes
times compactly (`20240501T190000Z`); kept raw it is noise to a reader and to the keyword
index. Only an event's own properties are read: a time zone's DTSTART and an alarm's
DESCRIPTION, nested in the same file, say nothing of the event. A value that cannot be
read is shown as written, and a text with no event in it comes back as it was, so no
invitation is lost to its syntax.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping
from datetime import date, datetime, timedelta

_FOLD = re.compile(r"\r?\n[ \t]")  # a folded line goes on after a line break and one space
# NAME;PARAM=value;PARAM="quoted; value":VALUE (a quoted parameter may hold ':' and ';')
_VALUE = r'(?:"[^"]*"|[^";:,]*)'
_LINE = re.compile(rf"([A-Za-z0-9-]+)((?:;[A-Za-z0-9-]+={_VALUE}(?:,{_VALUE})*)*):(.*)")
_PARAMETER = re.compile(rf";([A-Za-z0-9-]+)=({_VALUE})")
_ESCAPE = re.compile(r"\\([\\;,nN])")
_TIME = re.compile(r"(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?")
_LABELS = (
    ("SUMMARY", "Event"),
    ("DTSTART", "When"),
    ("LOCATION", "Where"),
    ("ORGANIZER", "Organizer"),
    ("ATTENDEE", "Attendees"),
    ("STATUS", "Status"),
)

Property = tuple[Mapping[str, str], str]  # (parameters, value as written)


def invitation_text(text: str) -> str:
    """Each event of an iCalendar text as labelled lines and its description, or `text` as
    it came when no event in it says anything."""
    blocks = [block for block in map(_event_text, _events(text)) if block]
    return "\n\n".join(blocks) if blocks else text


def _events(text: str) -> Iterator[dict[str, list[Property]]]:
    """The properties of each VEVENT, by name; an event the text ends inside still counts."""
    open_components: list[tuple[str, dict[str, list[Property]]]] = []
    open_kinds: Counter[str] = Counter()  # so an END that closes nothing costs no search
    for line in _FOLD.sub("", text).splitlines():
        match = _LINE.fullmatch(line.strip())
        if match is None:
            continue
        name, value = match.group(1).upper(), match.group(3)
        if name == "BEGIN":
            open_components.append((value.strip().upper(), {}))
            open_kinds[open_components[-1][0]] += 1
        elif name == "END" and open_kinds[closing := value.strip().upper()]:
            # Components left open inside the one that ends end with it.
            kind = ""
            while kind != closing:
                kind, properties = open_components.pop()
                open_kinds[kind] -= 1
                if kind == "VEVENT":
                    yield properties
        elif open_components and open_components[-1][0] == "VEVENT":
            parameters = {
                key.upper(): found.strip('"') for key, found in _PARAMETER.findall(match.group(2))
            }
            open_components[-1][1].setdefault(name, []).append((parameters, value))
    yield from (properties for kind, properties in open_components if kind == "VEVENT")


def _event_text(event: Mapping[str, list[Property]]) -> str:
    lines = []
    for name, label in _LABELS:
        found = event.get(name)
        if not found:
            continue
        if name == "DTSTART":
            ends = event.get("DTEND")
            value = _span(found[0], ends[0] if ends else None)
        elif name in ("ORGANIZER", "ATTENDEE"):
            value = ", ".join(_person(*entry) for entry in found)
        else:
            value = _unescaped(found[0][1])
        value = " ".join(value.split())
        if value:
            lines.append(f"{label}: {value}")
    described = event.get("DESCRIPTION")
    description = _unescaped(described[0][1]).strip() if described else ""
    if description:
        lines += ["", description]
    return "\n".join(lines).strip()


def _unescaped(value: str) -> str:
    return _ESCAPE.sub(lambda m: "\n" if m.group(1) in "nN" else m.group(1), value)


def _person(parameters: Mapping[str, str], value: str) -> str:
    """An organizer or attendee as `Name <address>` (its address is a `mailto:` URI)."""
    address = re.sub(r"(?i)^mailto:", "", value.strip())
    name = parameters.get("CN", "").strip()
    if name and address and name != address:
        return f"{name} <{address}>"
    return name or address


def _span(start: Property, end: Property | None) -> str:
    """When an event runs: its start, and its end where it has one. An all-day event's
    DTEND is the day after its last (RFC 5545), so a one-day event shows its day alone."""
    first = _moment(*start)
    if end is None:
        return first
    last = _moment(*end, all_day_end=True)
    # A writer that gives a one-day event its own day as DTEND has it end the day before.
    one_day = len(first) == len(last) == len("YYYY-MM-DD") and last < first
    if not last or last == first or one_day:
        return first
    return f"{first} – {last}"


def _moment(parameters: Mapping[str, str], value: str, *, all_day_end: bool = False) -> str:
    """A DTSTART or DTEND as a reader writes it: `2024-05-01 19:00 UTC`, the time in the
    zone it names (`2024-05-01 19:00 Europe/London`), or a day; as written when unreadable."""
    match = _TIME.fullmatch(value.strip())
    if match is None:
        return value.strip()
    year, month, day, hour, minute, second, utc = match.groups()
    try:
        if hour is None:
            when = date(int(year), int(month), int(day))
            if all_day_end:
                when -= timedelta(days=1)
            return when.isoformat()
        moment = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second))
    except (ValueError, OverflowError):
        return value.strip()
    zone = "UTC" if utc else parameters.get("TZID", "").strip()
    return f"{moment:%Y-%m-%d %H:%M} {zone}".strip()
