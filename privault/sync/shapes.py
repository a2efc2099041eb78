"""The shape of every synced row, checked before a row from a bundle is believed.

A bundle decrypted with the right passphrase is authentic, but it is still data another
device (or whoever knows the passphrase) wrote: a field of the wrong type, an id that is a
path, a key that does not split into its parts must be refused here, with one line naming
the row, not fail deep in the merge. Ids must have the shapes this code gives ids locally
(`d` + 12 hex digits for documents, `s_` + 10 for statements, `w` + 8 for watches, shelf
names as `privault shelf add` takes them, `<doc id>.<n>[.<n>…]` for sections), so no id
from a bundle can name a path, and every string must be storable text (no NUL, no lone
surrogate).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from privault.errors import InputError
from privault.store.documents import TAG
from privault.store.sync_read import SEP

DOCUMENT_ID = re.compile(r"^d[0-9a-f]{12}\Z")
STATEMENT_ID = re.compile(r"^s_[0-9a-f]{10}\Z")
WATCH_ID = re.compile(r"^w[0-9a-f]{8}\Z")
DEVICE_ID = re.compile(r"^dev_[0-9a-f]{12}\Z")
STAMP = re.compile(r"^\d{15}\.\d{6}\.dev_[0-9a-f]{12}\Z")  # a clock ticked by a device
SHELF_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}\Z")
POLICY_NAME = re.compile(r"^[a-z0-9][a-z0-9_.+-]{0,63}\Z")
_SECTION_PATH = re.compile(r"^\d{1,6}(\.\d{1,6}){0,31}\Z")
_INT_RANGE = (-(2**63), 2**63 - 1)  # what SQLite stores as an integer
_DIGITS = re.compile(r"^-?\d{1,19}\Z")

Check = Callable[[Any], bool]


def _text(value: Any) -> bool:
    if not isinstance(value, str) or "\x00" in value:
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a JSON escape
        return False
    return True


def _integer(value: Any) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and _INT_RANGE[0] <= value <= _INT_RANGE[1]
    )


def _number(value: Any) -> bool:
    return _integer(value) or (isinstance(value, float) and math.isfinite(value))


def _unit(value: Any) -> bool:
    return _number(value) and 0 <= value <= 1


def _flag(value: Any) -> bool:
    return value in (0, 1) and (isinstance(value, bool) or _integer(value))


def _shaped(pattern: re.Pattern[str]) -> Check:
    return lambda value: _text(value) and pattern.match(value) is not None


def _optional(check: Check) -> Check:
    return lambda value: value is None or check(value)


def _one_of(*allowed: str) -> Check:
    return lambda value: isinstance(value, str) and value in allowed


def _list_of(check: Check) -> Check:
    return lambda value: isinstance(value, list) and all(check(item) for item in value)


def _tuple_of(*checks: Check) -> Check:
    return lambda value: (
        isinstance(value, list)
        and len(value) == len(checks)
        and all(check(item) for check, item in zip(checks, value, strict=True))
    )


def _object(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(key, str) for key in value)


def _nonblank(value: Any) -> bool:
    return _text(value) and bool(value.strip())


_DOCUMENT = _shaped(DOCUMENT_ID)
_STATEMENT = _shaped(STATEMENT_ID)
_SHELF = _shaped(SHELF_NAME)
_SECTION = _tuple_of(
    _text,  # node id (its doc-id prefix is checked per row)
    _optional(_text),  # parent node id
    _integer,  # position
    _integer,  # depth
    _text,  # heading
    _list_of(_text),  # breadcrumb
    _text,  # text
    _integer,  # start
    _integer,  # end
)

FIELDS: dict[str, dict[str, Check]] = {
    "shelf": {
        "policy": _optional(_shaped(POLICY_NAME)),
        "restricted": _flag,
        "private": _flag,
        "created_at": _integer,
        "seen": lambda value: (
            _object(value)
            and len(value) <= 1000
            and all(DEVICE_ID.match(k) and _shaped(STAMP)(v) for k, v in value.items())
        ),
    },
    "tombstone": {"deleted_at": _integer},
    "document": {
        "kind": _one_of("note", "page", "file", "reminder"),
        "title": _text,
        "source": _optional(_text),
        "shelf": _SHELF,
        "content_hash": _text,
        "body": _text,
        "created_at": _integer,
        "updated_at": _integer,
        "untrusted": _flag,
        "previous_id": _optional(_DOCUMENT),
        "current": _flag,
        "metadata": _object,
        "tags": _list_of(_shaped(TAG)),
        "sections": _list_of(_SECTION),
        "author": _text,
    },
    "pii_override": {
        "doc_id": _DOCUMENT,
        "node_id": _optional(_text),
        "kind": _text,
        "value": _nonblank,
        "action": _one_of("mark", "unmark"),
        "created_at": _integer,
    },
    "statement": {
        "chain_id": _STATEMENT,
        "content": _nonblank,
        "source": _optional(_text),
        "salience": _unit,
        "confidence": _unit,
        "occurred_at": _optional(_integer),
        "valid_from": _integer,
        "valid_to": _optional(_integer),
        "recorded_at": _integer,
        "invalidated_at": _optional(_integer),
        "invalidation_reason": _optional(_text),
        "supersedes": _optional(_STATEMENT),
        "superseded_by": _optional(_STATEMENT),
        "revises": _optional(_STATEMENT),
        "revised_by": _optional(_STATEMENT),
        "metadata": _text,
        "shelf": _SHELF,
        "author": _text,
        "entities": _list_of(_tuple_of(_nonblank, _nonblank, _integer, _text)),
    },
    "closure": {
        "statement_id": _STATEMENT,
        "valid_to": _integer,
        "recorded_at": _integer,
        "reason": _optional(_text),
    },
    "attestation": {
        "statement_id": _STATEMENT,
        "attested_at": _integer,
        "recorded_at": _integer,
        "source": _optional(_text),
    },
    "dispute": {
        "a_id": _STATEMENT,
        "b_id": _STATEMENT,
        "reason": _optional(_text),
        "recorded_at": _integer,
        "settled_at": _optional(_integer),
        "settled_reason": _optional(_text),
    },
    "watch": {
        "kind": _one_of("url", "search", "remind", "folder"),
        "target": _nonblank,
        "schedule": _text,
        "shelf": _SHELF,
        "status": _one_of("active", "paused", "cancelled", "finished"),
        "allow_private": _flag,
        "max_catchup": lambda value: _integer(value) and value >= 1,
        "options": _object,
        "created_at": _integer,
        "author": _text,
    },
}

# The parts of each kind's stable id, joined by SEP.
_KEY_PARTS: dict[str, tuple[Check, ...]] = {
    "shelf": (_SHELF,),
    "tombstone": (_DOCUMENT,),
    "document": (_DOCUMENT,),
    "statement": (_STATEMENT,),
    "watch": (_shaped(WATCH_ID),),
    "closure": (_STATEMENT, _shaped(_DIGITS), _shaped(_DIGITS)),
    "attestation": (_STATEMENT, _shaped(_DIGITS), _shaped(_DIGITS), _text),
    "dispute": (_STATEMENT, _STATEMENT, _shaped(_DIGITS)),
    "pii_override": (_DOCUMENT, _text, _text),
}


class RowShapeError(InputError):
    """A synced row whose id or fields do not have the shape this vault writes."""


def shown(value: Any) -> str:
    """An untrusted id as it may appear in an error line: quoted, escaped, clipped."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_row(kind: str, row_id: str, payload: Mapping[str, Any] | None) -> None:
    """Refuse a row whose id or payload is not what this kind's rows look like."""
    parts = row_id.split(SEP)
    expected = _KEY_PARTS[kind]
    if len(parts) != len(expected) or not all(
        check(part) for check, part in zip(expected, parts, strict=True)
    ):
        raise RowShapeError(f"{kind} row {shown(row_id)}: the id does not have a {kind} id's shape")
    if payload is None:
        return
    for name, check in FIELDS[kind].items():
        if not check(payload[name]):
            raise RowShapeError(
                f"{kind} row {shown(row_id)}: field {name!r} has the wrong type or shape"
            )
    _check_links(kind, row_id, parts, payload)


def _check_links(kind: str, row_id: str, parts: list[str], payload: Mapping[str, Any]) -> None:
    """Fields that must agree with the row's own id."""
    problem = None
    if kind == "document":
        prefix = row_id + "."
        for node, parent, *_ in payload["sections"]:
            if not (node.startswith(prefix) and _SECTION_PATH.match(node[len(prefix) :])):
                problem = f"section {shown(node)} is not a node of this document"
            elif parent is not None and not (
                parent.startswith(prefix) and _SECTION_PATH.match(parent[len(prefix) :])
            ):
                problem = f"section parent {shown(parent)} is not a node of this document"
    elif kind == "closure":
        found = [payload["statement_id"], str(payload["recorded_at"]), str(payload["valid_to"])]
        if found != parts:
            problem = "its fields do not match its id"
    elif kind == "attestation":
        found = [
            payload["statement_id"],
            str(payload["recorded_at"]),
            str(payload["attested_at"]),
            payload["source"] or "",
        ]
        if found != parts:
            problem = "its fields do not match its id"
    elif kind == "dispute":
        if (payload["a_id"], payload["b_id"], str(payload["recorded_at"])) != tuple(parts):
            problem = "its fields do not match its id"
        elif not payload["a_id"] < payload["b_id"]:
            problem = "its statements are not in order"
    elif kind == "pii_override":
        node = payload["node_id"]
        if payload["doc_id"] != parts[0] or (node or "") != parts[1]:
            problem = "its fields do not match its id"
        elif node is not None and not (
            node.startswith(parts[0] + ".") and _SECTION_PATH.match(node[len(parts[0]) + 1 :])
        ):
            problem = f"node {shown(node)} is not a node of its document"
    elif kind == "statement":
        if payload["valid_to"] is not None and payload["valid_to"] < payload["valid_from"]:
            problem = "its window ends before it starts"
        elif (
            payload["invalidated_at"] is not None
            and payload["invalidated_at"] < payload["recorded_at"]
        ):
            problem = "it was invalidated before it was recorded"
    if problem:
        raise RowShapeError(f"{kind} row {shown(row_id)}: {problem}")
