"""Each MCP tool's output schema, derived from the reply dataclass it sends.

A reply type's fields are its schema (`privault.jsonform`): `shape` turns one into the
`TypedDict` of what an agent receives — text as `str`, times as ISO text, tuples as lists,
flattened parts merged in, computed keys added, fields agents are not told left out, field
docs as descriptions — and the SDK publishes that as the tool's `outputSchema` and checks
each reply against it. `reply` sends a reply's agent JSON form as the tool result.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
import types
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

import pydantic_core
from mcp.types import CallToolResult, TextContent
from pydantic import Field
from typing_extensions import TypedDict

from privault.jsonform import JsonForm, shown_of, visible


def reply(value: JsonForm) -> CallToolResult:
    """`value`'s agent JSON form as a tool result (structured, and as text)."""
    data = value.to_dict(for_agent=True)
    text = pydantic_core.to_json(data, indent=2).decode()
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


@functools.cache
def shape(cls: type[Any]) -> type[Any]:
    """The `TypedDict` of `cls`'s JSON form as an agent receives it."""
    items: dict[str, Any] = {}
    hints = _hints(cls)
    for item in dataclasses.fields(cls):
        if not visible(item, for_agent=True):
            continue
        meta = shown_of(item)
        if meta.flatten:
            items.update(get_type_hints(shape(hints[item.name]), include_extras=True))
        else:
            kind = (
                list[dict[str, str]] if meta.pairs else _json_type(hints[item.name], iso=meta.iso)
            )
            if meta.blank_is_null:
                kind = kind | None
            described = Annotated[kind, Field(description=meta.doc)] if meta.doc else kind
            items[meta.key or item.name] = described
        for key, attribute in meta.then:
            prop = getattr(cls, attribute)
            kind = _json_type(get_type_hints(prop.fget, _namespace(cls))["return"], iso=False)
            doc = (prop.__doc__ or "").strip()
            items[key] = Annotated[kind, Field(description=doc)] if doc else kind
    # The functional form, spelled so type checkers don't evaluate it statically.
    typed = typing.cast("Callable[[str, dict[str, Any]], type[Any]]", TypedDict)(
        cls.__name__, items
    )
    typed.__doc__ = (cls.__doc__ or "").strip()
    return typing.cast(type[Any], typed)


def _namespace(cls: type[Any]) -> dict[str, Any]:
    # Reply modules import each other's types only for checking; resolve those names too.
    found: dict[str, Any] = {}
    for name in ("privault.vault.results", "privault.vault.statement_results"):
        module = sys.modules.get(name)
        if module is not None:
            found.update(vars(module))
    found.update(vars(sys.modules[cls.__module__]))
    return found


def _hints(cls: type[Any]) -> dict[str, Any]:
    return get_type_hints(cls, _namespace(cls))


def _json_type(kind: Any, *, iso: bool) -> Any:
    """The JSON form's type of a field typed `kind`."""
    if iso:
        return str | None
    origin = get_origin(kind)
    if origin in (Union, types.UnionType):
        parts = [_json_type(part, iso=False) for part in get_args(kind)]
        return functools.reduce(lambda left, right: left | right, parts)
    if origin is tuple or origin is list:
        args = get_args(kind)
        return list[_json_type(args[0], iso=False)] if args else list[Any]  # type: ignore[misc]
    if origin is dict or origin is Mapping:
        return dict[str, Any]
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        return shape(kind)
    if isinstance(kind, type) and issubclass(kind, str):
        return str  # `Gated` text is text on the wire
    return kind
