"""Claude's data export: `conversations.json` (alone, in its folder, or in the `.zip`),
and beside it `memories.json` and `projects.json` where the account has them.

A conversation is a flat list of `chat_messages` (`sender` human or assistant — another
sender, or none, is kept under its own name — and `created_at`); a message's `content`
blocks are preferred over its `text` (the blocks hold what the older `text` field
flattened). Its text blocks are kept, and the artifacts Claude wrote (`claude_artifacts`):
other tool calls, tool results and thinking are not what was said. A run of text blocks is
one text, split by the export only where a citation starts or ends, so it is joined as it
was shown. A file attached to a message keeps its extracted text under the turn.
Memories become one page (what Claude remembered of the account, and per project); each
project one page with its description, instructions and knowledge documents.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from privault.imports.claude_artifacts import TOOL_NAME, Artifacts
from privault.imports.conversations import conversations_start, read_conversations
from privault.imports.items import (
    Bad,
    Item,
    Known,
    Page,
    content_key,
)
from privault.imports.jsonstream import TOO_DEEP
from privault.imports.sources import MAX_WHOLE_FILE_BYTES, optional_text, source_time, when

KIND = "claude"
WHAT = "a Claude export (conversations.json or the export's .zip)"
SPEAKERS = {"human": "You", "assistant": "Claude"}


def looks_like(path: Path) -> bool:
    """Whether `path` is (probably) this kind of export."""
    return b'"chat_messages"' in conversations_start(path)


def read(path: Path, known: Known | None = None) -> Iterator[Item]:
    """Each conversation, then the memories and each project, of the export at `path`
    (a conversation `known` holds as it is comes as `Unchanged`)."""
    yield from read_conversations(
        path,
        KIND,
        WHAT,
        _id,
        conversation,
        known,
        fits=lambda data: isinstance(data, dict) and isinstance(data.get("chat_messages"), list),
        refusal=f"not {WHAT}: its conversations have no chat_messages",
    )
    yield from _memories(path)
    yield from _projects(path)


def conversation(data: Any, index: int) -> Item:
    """One conversation as a page, or why it cannot be one."""
    if not isinstance(data, dict) or not isinstance(data.get("chat_messages"), list):
        return Bad(f"conversation {index + 1}", "no chat_messages", label="conversation")
    title = str(data.get("name") or "").strip() or "Untitled conversation"
    key = _id(data) or content_key(title, str(data.get("created_at")))
    where = f"conversation {title!r} ({key})"
    turns = []
    artifacts = Artifacts()
    for message in data["chat_messages"]:
        if isinstance(message, dict) and (turn := _turn(message, artifacts)):
            turns.append(turn)
    if not turns:
        return Bad(where, "empty conversation: no message", key=key, label="conversation")
    summary = str(data.get("summary") or "").strip()
    intro = f"# {title}\n\n" + (f"{summary}\n\n" if summary else "")
    metadata: dict[str, Any] = {"source_app": "Claude", "messages": len(turns)}
    project = data.get("project")
    project_id = data.get("project_uuid") or (
        project.get("uuid") if isinstance(project, dict) else None
    )
    if project_id:
        metadata["project"] = str(project_id)
    return Page(
        key=key,
        label="conversation",
        title=title,
        text=intro + "\n\n".join(turns),
        created_at=source_time(data.get("created_at")),
        updated_at=source_time(data.get("updated_at")),
        metadata=metadata,
    )


def _id(data: Any) -> str:
    """A conversation's own id ('' when it has none)."""
    return str(data.get("uuid") or "") if isinstance(data, dict) else ""


def message_text(message: Mapping[str, Any], artifacts: Artifacts | None = None) -> str:
    """What a message said: its text blocks and the artifacts it wrote (replayed on
    `artifacts`, the conversation's so far), else its flat `text`."""
    blocks = message.get("content")
    if isinstance(blocks, list) and blocks:
        artifacts = Artifacts() if artifacts is None else artifacts
        pieces: list[str] = []
        run: list[str] = []
        for block in blocks:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                run.append(str(block.get("text") or ""))
                continue
            pieces.append("".join(run))
            run = []
            if block.get("type") == "tool_use" and block.get("name") == TOOL_NAME:
                call = block.get("input")
                pieces.append(artifacts.apply(call) if isinstance(call, dict) else "")
        pieces.append("".join(run))
        kept = [piece.strip() for piece in pieces if piece.strip()]
        if kept:
            return "\n\n".join(kept)
    return str(message.get("text") or "")


def _turn(message: Mapping[str, Any], artifacts: Artifacts) -> str | None:
    parts = [message_text(message, artifacts).strip()]
    for attached in message.get("attachments") or ():
        extracted = (
            str(attached.get("extracted_content") or "") if isinstance(attached, dict) else ""
        )
        if extracted.strip():
            name = str(attached.get("file_name") or "attachment")
            parts.append(f"### Attached: {name}\n\n{extracted.strip()}")
    for file in message.get("files") or ():
        if isinstance(file, dict) and file.get("file_name"):
            parts.append(f"[file: {file['file_name']}]")
    body = "\n\n".join(p for p in parts if p)
    if not body:
        return None
    stamp = when(source_time(message.get("created_at")))
    return f"## {_speaker(message)}" + (f" · {stamp}" if stamp else "") + f"\n\n{body}"


def _speaker(message: Mapping[str, Any]) -> str:
    """Who said it. A sender this reader does not know, or none, still said something the
    owner wrote or read: the turn is kept, headed by the sender as the export names it."""
    sender = message.get("sender")
    if isinstance(sender, str) and sender in SPEAKERS:
        return SPEAKERS[sender]
    named = " ".join(str(sender or "").split())[:40]
    return named.capitalize() if named else "Unknown speaker"


def _load(path: Path, name: str) -> tuple[list[Any], Bad | None]:
    """The entries of the side file `name`, or why it is not read: the conversations,
    read before it, import either way."""
    label = name.split(".")[0]
    try:
        raw = optional_text(path, name, MAX_WHOLE_FILE_BYTES)
    except OSError as exc:
        return [], Bad(name, f"not read ({exc})", label=label)
    if raw is None:
        return [], None
    try:
        data = json.loads(raw.decode("utf-8-sig", errors="replace"))
    except json.JSONDecodeError as exc:
        return [], Bad(name, f"not valid JSON ({exc.msg})", label=label)
    except RecursionError:
        return [], Bad(name, TOO_DEEP, label=label)
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        return [], Bad(name, "not a list", label=label)
    return data, None


def _memories(path: Path) -> Iterator[Item]:
    entries, bad = _load(path, "memories.json")
    if bad:
        yield bad
    yield from _side_items(entries, "memory", _memory, _memory_key)


def _projects(path: Path) -> Iterator[Item]:
    entries, bad = _load(path, "projects.json")
    if bad:
        yield bad
    yield from _side_items(entries, "project", _project, _project_key)


def _side_items(
    entries: list[Any],
    label: str,
    items: Callable[[dict[str, Any], int], Iterator[Item]],
    key_of: Callable[[dict[str, Any], int], str],
) -> Iterator[Item]:
    """The items of each entry of a side file. An entry with a field of a shape the export
    does not have is reported (by its key where it has one: still at the source), and the
    entries after it are read, as a conversation of an odd shape is (`conversations`)."""
    for index, entry in enumerate(entries):
        where = f"{label} {index + 1}"
        if not isinstance(entry, dict):
            yield Bad(where, "not an object", label=label)
            continue
        try:
            found = list(items(entry, index))
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            reason = f"unreadable {label} ({type(exc).__name__}: {exc})"
            yield Bad(where, reason, key=key_of(entry, index), label=label)
            continue
        yield from found


def _memory(entry: dict[str, Any], index: int) -> Iterator[Item]:
    parts = []
    general = str(entry.get("conversations_memory") or "").strip()
    if general:
        parts.append(f"## Across conversations\n\n{general}")
    projects = entry.get("project_memories") or {}
    if not isinstance(projects, dict):
        yield Bad(
            f"memory {index + 1}",
            "project_memories is not a mapping of project to text",
            key=_memory_key(entry, index),
            label="memory",
        )
        projects = {}
    for project, text in projects.items():
        if str(text or "").strip():
            parts.append(f"## Project {project}\n\n{str(text).strip()}")
    if not parts:
        return
    yield Page(
        key=_memory_key(entry, index),
        label="memory",
        title="What Claude remembers",
        text="# What Claude remembers\n\n" + "\n\n".join(parts),
        metadata={"source_app": "Claude"},
    )


def _memory_key(entry: dict[str, Any], index: int) -> str:
    """A memory entry's key: its account's id, else its place in the file."""
    return f"memory:{entry['account_uuid']}" if entry.get("account_uuid") else f"memory:{index}"


def _project_key(entry: dict[str, Any], index: int) -> str:
    """A project's key: its id, else a digest of its name."""
    name = str(entry.get("name") or "").strip() or "Untitled project"
    return str(entry.get("uuid") or "") or content_key("project", name)


def _project(entry: dict[str, Any], index: int) -> Iterator[Item]:
    name = str(entry.get("name") or "").strip() or "Untitled project"
    key = _project_key(entry, index)
    parts = [f"# {name}"]
    if str(entry.get("description") or "").strip():
        parts.append(str(entry["description"]).strip())
    if str(entry.get("prompt_template") or "").strip():
        parts.append(f"## Instructions\n\n{str(entry['prompt_template']).strip()}")
    for doc in entry.get("docs") or ():
        if isinstance(doc, dict) and str(doc.get("content") or "").strip():
            title = str(doc.get("filename") or "document")
            parts.append(f"## {title}\n\n{str(doc['content']).strip()}")
    if len(parts) == 1:
        return  # an empty project (every account has the starter one) holds nothing
    yield Page(
        key=f"project:{key}",
        label="project",
        title=name,
        text="\n\n".join(parts),
        created_at=source_time(entry.get("created_at")),
        updated_at=source_time(entry.get("updated_at")),
        metadata={"source_app": "Claude"},
    )
