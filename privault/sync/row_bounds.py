"""The bounds a synced row must keep besides its shape: what a local write would refuse.

`privault.sync.shapes` checks that a row is made of the right types and ids (times are
64-bit integers); a row that fails there is not something any privault writes, and its
whole bundle is refused. A row that passes can still hold what later reads cannot handle
(statement metadata that is not a JSON object, a section outside its document, a schedule
no poll can read, a shelf version claiming to have seen its own future). Such a row is
refused alone (`RowRefused`): the reader reports it by number and reason and merges the
rest of its bundle, so one bad row from another device costs that row, not the device's
other changes.

What older versions stored on purpose is not refused: a refused row never reaches this
device, so a bound a local write has kept only since some version would cut an upgraded
peer's older rows off for good. A document title longer than a local write now keeps
(explicit titles, reminders and HTML titles were stored whole before cbc4be4), or on
several lines, is stored on intake as a local write stores it (`as_stored`). A date
outside the years a local write accepts (older imports stored them) is kept as it came:
`to_iso` shows any 64-bit time exactly (14b2fd0).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from privault.errors import InputError
from privault.store.documents import stored_title
from privault.sync.shapes import RowShapeError, shown
from privault.watches.schedule import Schedule


class RowRefused(RowShapeError):
    """A well-shaped synced row outside the bounds this vault keeps: refused on its own."""


def check_bounds(kind: str, row_id: str, hlc: str, payload: Mapping[str, Any] | None) -> None:
    """Refuse (`RowRefused`) a row, already checked by `shapes.check_row`, that holds what
    a local write would not store."""
    if payload is None:
        return
    problem = None
    if kind == "shelf":
        problem = _shelf(payload, hlc)
    elif kind == "document":
        problem = _document(payload)
    elif kind == "statement":
        problem = _statement(payload)
    elif kind == "watch":
        problem = _watch(payload)
    if problem:
        raise RowRefused(f"{kind} row {shown(row_id)}: {problem}")


def as_stored(kind: str, payload: dict[str, Any] | None) -> dict[str, Any] | None:
    """A checked row's payload as this vault stores it: a document's title as a local
    write stores it (`stored_title`: one line, within the bound), and so wherever its
    sections name it (breadcrumbs, a heading). Done before anything is derived from it, so
    the labels scanned are those stored: a breadcrumb still holding the longer title would
    be a label no scan took, in clear in the masked index while readers mask it."""
    if kind != "document" or payload is None:
        return payload
    old = payload["title"]
    title = stored_title(old) or old
    if title == old:
        return payload
    sections = [
        [node, parent, position, depth, title if heading == old else heading]
        + [[title if part == old else part for part in crumb], text, start, end]
        for node, parent, position, depth, heading, crumb, text, start, end in payload["sections"]
    ]
    return {**payload, "title": title, "sections": sections}


def _shelf(payload: Mapping[str, Any], hlc: str) -> str | None:
    # `seen` holds, per device, the newest clock of that device's versions of the shelf
    # the writer had seen; every clock the writer ticks afterwards is later than all of
    # them (`hlc.receive`, then `hlc.tick`). So no entry can be later than the version's
    # own clock: one that is was forged to make a loosening look as if it followed a
    # stricter version (`sync.access`). Clocks are fixed-width text: they compare as text.
    later = sorted(device for device, clock in payload["seen"].items() if clock > hlc)
    if later:
        return f"it claims to have seen a later version of it (from {shown(later[0])})"
    return None


def _document(payload: Mapping[str, Any]) -> str | None:
    # The note's size is not bounded here: each device sets its own `max_note_bytes`, and
    # files and pages have other limits, so a size one device took may be over another's.
    size = len(payload["body"])
    for node, _parent, _position, _depth, _heading, _crumb, _text, start, end in payload[
        "sections"
    ]:
        if not 0 <= start <= end <= size:
            return f"section {shown(node)} does not lie inside the document's text"
    return None


def _statement(payload: Mapping[str, Any]) -> str | None:
    # Every read of a statement parses its metadata as an object (`statements.view`).
    try:
        metadata = json.loads(payload["metadata"])
    except (ValueError, RecursionError):
        return "its metadata is not JSON"
    return None if isinstance(metadata, dict) else "its metadata is not a JSON object"


def _watch(payload: Mapping[str, Any]) -> str | None:
    # The parser a local add uses, without its ten-year cap on intervals, which older
    # versions did not have (`Schedule.stored`, as every poll reads it).
    try:
        Schedule.stored(payload["schedule"])
    except (InputError, ValueError):
        return f"its schedule {shown(payload['schedule'])} cannot be read"
    return None
