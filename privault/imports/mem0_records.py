"""One record of a mem0 or OpenMemory export as a `Memory` (`mem0` finds and reads them).

A memory's history is kept oldest first (the first version, each rewording, its deletion):
mem0's ADD / UPDATE / DELETE events where the export has them, checked to end in the text
it has now. Entities come from its metadata; its app, agent and categories become tags.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from privault.imports.items import Bad, Item, Memory, Revision, clean_tags
from privault.imports.sources import source_time

_GONE = {"deleted", "archived"}
# A memory's metadata is kept as it is, and walked level by level wherever it is gated,
# stored or compared: deeper than this (mem0 writes a level or two) it is refused, never
# handed on to recurse past Python's limit.
MAX_METADATA_DEPTH = 32


def memory_text(record: Mapping[str, Any]) -> str | None:
    """The text of a memory, under whichever name its tool gives it."""
    for field in ("memory", "content", "text", "data"):
        if isinstance(record.get(field), str):
            return str(record[field])
    return None


def memory(
    record: Any,
    number: int,
    apps: Mapping[str, str],
    categories: Mapping[str, str],
    history: Mapping[str, list[Mapping[str, Any]]],
) -> Item:
    """One memory record as a `Memory`, or why it cannot be one."""
    if not isinstance(record, dict):
        return Bad(f"memory {number}", "not an object", label="memory")
    key = str(record.get("id") or "").strip()
    content = (memory_text(record) or "").strip()
    if not key:
        return Bad(f"memory {number}", "no id", label="memory")
    if not content:
        return Bad(f"memory {key}", "no text", key=key, label="memory")
    raw_metadata = record.get("metadata")
    metadata: dict[str, Any] = raw_metadata if isinstance(raw_metadata, dict) else {}
    if _deeper(metadata, MAX_METADATA_DEPTH):
        reason = f"metadata nested over {MAX_METADATA_DEPTH} levels deep"
        return Bad(f"memory {key}", reason, key=key, label="memory")
    created = source_time(record.get("created_at"))
    updated = source_time(record.get("updated_at"))
    app = apps.get(str(record.get("app_id") or "")) or record.get("app") or record.get("app_id")
    tags = [
        f"app:{app}" if app else None,
        f"agent:{record['agent_id']}" if record.get("agent_id") else None,
    ]
    listed = record.get("categories") or ()
    names = [listed] if isinstance(listed, str) else list(listed)  # one category, unlisted
    names += [categories.get(str(c), "") for c in record.get("category_ids") or ()]
    tags += [f"category:{name}" for name in names if isinstance(name, str) and name]
    kept = {k: v for k, v in metadata.items() if k not in ("entities", "entity")}
    for field in ("user_id", "agent_id", "app_id", "run_id", "hash"):
        if record.get(field):
            kept[f"mem0_{field}"] = str(record[field])
    state = str(record.get("state") or "active").lower()
    events = [*(record.get("history") or ()), *history.get(key, ())]
    revisions = _revisions(events, content, created, updated, state, record)
    return Memory(
        key=key,
        content=content,
        created_at=created,
        updated_at=updated,
        entities=tuple(_entities(metadata)),
        tags=clean_tags([t for t in tags if t]),
        metadata=kept,
        history=revisions,
        deleted=state in _GONE or bool(record.get("is_deleted")),
    )


def _deeper(value: Any, levels: int) -> bool:
    """Whether `value` nests lists and mappings more than `levels` deep (walked a level at a
    time, not recursively)."""
    level = [value]
    for _ in range(levels):
        level = [
            child
            for parent in level
            for child in (parent.values() if isinstance(parent, dict) else parent)
            if isinstance(child, dict | list)
        ]
        if not level:
            return False
    return True


def _entities(metadata: Mapping[str, Any]) -> list[str]:
    raw = metadata.get("entities", metadata.get("entity"))
    if isinstance(raw, str):
        raw = [raw]
    found = []
    for entity in raw if isinstance(raw, list) else ():
        if isinstance(entity, str) and entity.strip():
            found.append(entity.strip())
        elif isinstance(entity, dict) and str(entity.get("name") or "").strip():
            name = str(entity["name"]).strip()
            kind = str(entity.get("type") or entity.get("kind") or "").strip().lower()
            found.append(f"{kind}:{name}" if kind in ("person", "org", "place") else name)
    return list(dict.fromkeys(found))


def _revisions(
    events: list[Any],
    content: str,
    created: int | None,
    updated: int | None,
    state: str,
    record: Mapping[str, Any],
) -> tuple[Revision, ...]:
    """The memory's versions, oldest first: mem0's ADD/UPDATE/DELETE events where given
    (checked to end in the text it has now), else its text since `created_at`, closed at
    its deletion or archiving."""
    out: list[Revision] = []
    for event in sorted((e for e in events if isinstance(e, dict)), key=lambda e: _at(e) or 0):
        at = _at(event)
        kind = str(event.get("event") or "").upper()
        if kind in ("ADD", "UPDATE") and str(event.get("new_memory") or "").strip():
            out.append(Revision(kind, str(event["new_memory"]).strip(), at))
        elif kind == "DELETE" or str(event.get("new_state") or "").lower() in _GONE:
            out.append(Revision("DELETE", "", at))
    texts = [r for r in out if r.event != "DELETE"]
    if not texts or texts[-1].content != content:
        # History that does not end in the memory's text now is incomplete: keep what it
        # says and add the text as it is now.
        at = updated if texts else created
        out.append(Revision("UPDATE" if texts else "ADD", content, at))
    while out[0].event == "DELETE":  # a deletion before any text says nothing
        out.pop(0)
    out[0] = Revision("ADD", out[0].content, out[0].at)
    gone = state in _GONE or bool(record.get("is_deleted"))
    if gone and out[-1].event != "DELETE":
        end = source_time(record.get("deleted_at") or record.get("archived_at")) or updated
        out.append(Revision("DELETE", "", end))
    if not gone and out[-1].event == "DELETE":
        out.pop()  # restored since
    return tuple(out)


def _at(event: Mapping[str, Any]) -> int | None:
    """When a history event happened. mem0 copies the memory's creation time into the
    `created_at` of every event, a rewording's and a deletion's too; theirs is in
    `updated_at`. OpenMemory's status changes have `changed_at`."""
    kind = str(event.get("event") or "").upper()
    fields = ("updated_at",) if kind in ("UPDATE", "DELETE") else ()
    for field in (*fields, "created_at", "changed_at"):
        found = source_time(event.get(field))
        if found is not None:
            return found
    return None
