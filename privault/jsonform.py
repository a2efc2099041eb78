"""The JSON form of every reply, written once: a reply type's fields are its schema.

A reply is a frozen dataclass that inherits `JsonForm`. Its JSON form (what `--json`
prints, what an MCP tool sends) is derived from its fields by `to_json`, and the MCP
output schema is derived from the same fields (`privault.interfaces.mcp.shapes`), so a
field added to a reply appears in all three at once and cannot be spelled differently.

What the JSON says beyond the field values lives in each field's metadata, made by `shown`:
epoch-millisecond times become ISO 8601 text, scores are rounded, a privacy summary is
flattened into its parent, computed values (`age`, `label`) follow a field, and fields an
agent is not told (a document's path, the shelf's access list) are left out of its replies.

Why dataclasses and not pydantic models: text fields are typed `Gated`, which is what lets
mypy refuse a reply built from text that skipped the gate (pydantic would make it `str` and
re-validate every reply the vault already built), and writing a note must not pay for
importing pydantic.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from privault.timeutil import to_iso

_KEY = "privault.json"


@dataclass(frozen=True)
class Shown:
    """How one field appears in JSON (see `shown`)."""

    doc: str = ""
    iso: bool = False
    digits: int | None = None
    flatten: bool = False
    agents: bool = True
    hidden: bool = False
    blank_is_null: bool = False
    when: str = ""
    then: tuple[tuple[str, str], ...] = ()
    key: str = ""
    pairs: tuple[str, str] | None = None


PLAIN = Shown()


def shown(
    doc: str = "",
    *,
    iso: bool = False,
    digits: int | None = None,
    flatten: bool = False,
    agents: bool = True,
    hidden: bool = False,
    blank_is_null: bool = False,
    when: str = "",
    then: Mapping[str, str] | None = None,
    key: str = "",
    pairs: tuple[str, str] | None = None,
) -> dict[str, Shown]:
    """Field metadata (`field(metadata=shown(...))`) saying how the field appears in JSON.

    doc: its description in the published schema. iso: epoch ms shown as ISO 8601 text (or
    null). digits: a float rounded to this many places. flatten: a nested reply whose keys
    join its parent's (later keys of the same name replace earlier ones in place).
    agents=False: left out of what agents receive (the owner's `--json` keeps it).
    hidden: never shown (bookkeeping such as a statement's author). blank_is_null: '' is
    shown as null. when: shown only if the named attribute is true. then: computed keys
    shown right after this one, `{key: attribute}` (a property of the reply). key: the JSON
    key, when it is not the field's name. pairs: a tuple of pairs shown as objects with
    these two keys.
    """
    return {
        _KEY: Shown(
            doc=doc,
            iso=iso,
            digits=digits,
            flatten=flatten,
            agents=agents,
            hidden=hidden,
            blank_is_null=blank_is_null,
            when=when,
            then=tuple((then or {}).items()),
            key=key,
            pairs=pairs,
        )
    }


def shown_of(item: dataclasses.Field[Any]) -> Shown:
    """The JSON metadata of a dataclass field (plain when it has none)."""
    found = item.metadata.get(_KEY, PLAIN)
    assert isinstance(found, Shown)
    return found


def visible(item: dataclasses.Field[Any], *, for_agent: bool) -> bool:
    """Whether a field appears in the JSON form at all (for an agent or the owner)."""
    meta = shown_of(item)
    return not meta.hidden and (meta.agents or not for_agent)


def to_json(value: Any, *, for_agent: bool = False) -> Any:
    """`value` as JSON-ready data: dataclasses as dicts, tuples as lists, text as `str`."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _reply(value, for_agent)
    if isinstance(value, str):
        return str(value)  # `Gated` text leaves as plain text
    if isinstance(value, Mapping):
        return {str(key): to_json(item, for_agent=for_agent) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [to_json(item, for_agent=for_agent) for item in value]
    return value


def _reply(value: Any, for_agent: bool) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for item in dataclasses.fields(value):
        meta = shown_of(item)
        if not visible(item, for_agent=for_agent):
            continue
        if meta.when and not getattr(value, meta.when):
            continue
        raw = getattr(value, item.name)
        if meta.flatten:
            data.update(to_json(raw, for_agent=for_agent))
        else:
            data[meta.key or item.name] = _field(raw, meta, for_agent)
        for key, attribute in meta.then:
            data[key] = to_json(getattr(value, attribute), for_agent=for_agent)
    return data


def _field(raw: Any, meta: Shown, for_agent: bool) -> Any:
    if meta.iso:
        return to_iso(raw)
    if meta.digits is not None and raw is not None:
        return round(raw, meta.digits)
    if meta.pairs is not None:
        first, second = meta.pairs
        return [{first: to_json(a), second: to_json(b)} for a, b in raw]
    if meta.blank_is_null and raw == "":
        return None
    return to_json(raw, for_agent=for_agent)


class JsonForm:
    """Gives a reply dataclass its JSON form (`to_dict`), derived from its fields."""

    __slots__ = ()

    def to_dict(self, *, for_agent: bool = False) -> dict[str, Any]:
        """JSON-ready form; `for_agent` leaves out what agents are not told."""
        data = to_json(self, for_agent=for_agent)
        assert isinstance(data, dict)
        return data
