"""What the gate's tests share: a normal form of replies, so two of them can be compared
for what an agent could tell apart, and the placeholder numbers a reply shows."""

from __future__ import annotations

import re
from typing import Any

_ID = re.compile(r"\b(?:d[0-9a-f]{12}|s_[0-9a-f]{10}|w[0-9a-f]{8}|r[0-9a-f]{8})\b")
_VOLATILE = {
    "created_at",
    "updated_at",
    "age",
    "recorded_at",
    "as_of",
    "valid_from",
    "occurred_at",
    "last_confirmed_at",
    "next_run_at",
    "last_run_at",
    "due_at",
    "planned_at",
    "followup",
    "id_at",
}


def normal_form(data: Any) -> Any:
    """A reply with ids replaced by their order of first appearance and clock times dropped:
    what stays is everything an agent could use to tell two vaults apart."""
    names: dict[str, str] = {}

    def rename(match: re.Match[str]) -> str:
        return names.setdefault(match.group(0), f"<id{len(names)}>")

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(v) for k, v in sorted(value.items()) if k not in _VOLATILE}
        if isinstance(value, list | tuple):
            return [walk(item) for item in value]
        if isinstance(value, str):
            return _ID.sub(rename, value)
        if isinstance(value, float):
            return round(value, 6)
        return value

    return walk(data)


_NUMBERED = re.compile(r"<([A-Z][A-Z_]*?)_(\d+)>")


def placeholder_numbers(*texts: str) -> dict[str, set[int]]:
    """Kind -> the placeholder numbers shown anywhere in `texts`."""
    found: dict[str, set[int]] = {}
    for text in texts:
        for match in _NUMBERED.finditer(text):
            found.setdefault(match.group(1), set()).add(int(match.group(2)))
    return found


def numbered_from_one(*texts: str) -> bool:
    """Whether each kind's placeholders in `texts` are numbered 1, 2, … with none missing:
    a gap would tell the reader of a masked value in text it was not shown."""
    numbers = placeholder_numbers(*texts)
    return all(shown == set(range(1, len(shown) + 1)) for shown in numbers.values())
