"""ChatGPT's data export: `conversations.json`, alone or inside the export's `.zip`.

Each conversation is a tree (`mapping`: node id → message, parent, children), because an
edited prompt or a regenerated answer starts a branch. The branch the user kept is the
path from `current_node` up to the root; the others are left out. Only what the user and
the assistant said is kept: system and tool messages, hidden context and the model's
reasoning are not. Parts that are not text (an image, an audio clip) leave a marker, so
the turn still shows that something was there. One `Page` per conversation, its date the
conversation's, each turn headed by who spoke and when.

An assistant message addressed to a tool (its `recipient` is not "all") is a call, not
what ChatGPT said: a web search, a memory note. Three are kept for what they show the
user: code run by the code interpreter ("python"), a canvas document ("canmore.*": its
text) and an image ChatGPT drew (its prompt). Web-search answers mark their citations
with private-use characters (U+E200 … U+E201); they are taken out, except that an entity
ChatGPT linked keeps the name it shows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from privault.imports.conversations import conversations_start, read_conversations
from privault.imports.items import (
    Bad,
    Item,
    Known,
    Page,
    content_key,
)
from privault.imports.sources import source_time, when

KIND = "chatgpt"
WHAT = "a ChatGPT export (conversations.json or the export's .zip)"
SPEAKERS = {"user": "You", "assistant": "ChatGPT"}
_HIDDEN_TYPES = {"thoughts", "reasoning_recap", "user_editable_context", "model_editable_context"}
# Recipients whose call stays in the text as the code it ran (the code interpreter).
_SHOWN_CALLS = {"all", "python"}
# A span of ChatGPT's own markup: U+E200, its kind, U+E202 and what it refers to, U+E201.
_MARKUP = re.compile(r"([ \t]?)\ue200([^\ue200\ue201]*)\ue201")
# Browsing answers of 2023–24 cited as 【11†source】 or 【4:2†Title】 (a number, a dagger).
_OLD_CITATION = re.compile(r"\u3010\d+(?::\d+)?\u2020[^\u3010\u3011\n]{0,200}\u3011")
_MARKERS = {
    "image_asset_pointer": "[image]",
    "audio_asset_pointer": "[audio]",
    "video_container_asset_pointer": "[video]",
}


def looks_like(path: Path) -> bool:
    """Whether `path` is (probably) this kind of export."""
    start = conversations_start(path)
    return b'"mapping"' in start and b'"chat_messages"' not in start


def read(path: Path, known: Known | None = None) -> Iterator[Item]:
    """Each conversation of the export at `path`, in the file's order (one `known` holds
    as it is comes as `Unchanged`, unparsed)."""
    yield from read_conversations(
        path,
        KIND,
        WHAT,
        _id,
        conversation,
        known,
        fits=lambda data: isinstance(data, dict) and "mapping" in data,
        refusal=f"not {WHAT}: its conversations have no message tree (mapping)",
    )


def conversation(data: Any, index: int) -> Item:
    """One conversation as a page, or why it cannot be one."""
    where = f"conversation {index + 1}"
    if not isinstance(data, dict) or not isinstance(data.get("mapping"), dict):
        return Bad(where, "no message tree (mapping)", label="conversation")
    title = str(data.get("title") or "").strip() or "Untitled conversation"
    created = source_time(data.get("create_time"))
    key = _id(data) or content_key(title, str(data.get("create_time")))
    where = f"conversation {title!r} ({key})"
    turns = [turn for node in kept_branch(data) if (turn := _turn(node))]
    if not turns:
        return Bad(
            where,
            "empty conversation: no message from you or ChatGPT",
            key=key,
            label="conversation",
        )
    metadata: dict[str, Any] = {"source_app": "ChatGPT", "messages": len(turns)}
    if data.get("default_model_slug"):
        metadata["model"] = str(data["default_model_slug"])
    if data.get("gizmo_id"):
        metadata["gpt"] = str(data["gizmo_id"])
    if data.get("is_archived"):
        metadata["archived"] = True
    return Page(
        key=key,
        label="conversation",
        title=title,
        text=f"# {title}\n\n" + "\n\n".join(turns),
        created_at=created if created is not None else _first_time(data),
        updated_at=source_time(data.get("update_time")),
        metadata=metadata,
    )


def _id(data: Any) -> str:
    """A conversation's own id ('' when it has none)."""
    return (
        str(data.get("conversation_id") or data.get("id") or "") if isinstance(data, dict) else ""
    )


def kept_branch(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The nodes from the root down to `current_node` (the branch the user kept).

    Without a usable `current_node`, the newest leaf stands in for it. A cycle in the
    parent links (a damaged file) stops the walk instead of looping."""
    mapping: Mapping[str, Any] = data["mapping"]
    node_id = data.get("current_node")
    if node_id not in mapping:
        node_id = _newest_leaf(mapping)
    path: list[Mapping[str, Any]] = []
    seen: set[str] = set()
    while node_id is not None and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            break
        path.append(node)
        node_id = node.get("parent")
    path.reverse()
    return path


def _newest_leaf(mapping: Mapping[str, Any]) -> str | None:
    leaves = [
        (source_time((node.get("message") or {}).get("create_time")) or 0, node_id)
        for node_id, node in mapping.items()
        if isinstance(node, dict) and not node.get("children")
    ]
    return max(leaves)[1] if leaves else None


def _first_time(data: Mapping[str, Any]) -> int | None:
    for node in kept_branch(data):
        found = source_time((node.get("message") or {}).get("create_time"))
        if found is not None:
            return found
    return None


def _turn(node: Mapping[str, Any]) -> str | None:
    """One message as a headed turn, or None for what is not shown (null, system, tool,
    hidden, reasoning, empty)."""
    message = node.get("message")
    if not isinstance(message, dict):
        return None
    role = (message.get("author") or {}).get("role")
    if role not in SPEAKERS:
        return None
    meta = message.get("metadata") or {}
    if meta.get("is_visually_hidden_from_conversation") or meta.get("is_user_system_message"):
        return None
    if message.get("channel") == "analysis":  # a reasoning model's thinking, not its answer
        return None
    recipient = message.get("recipient")
    content = message.get("content") or {}
    if role == "assistant" and isinstance(recipient, str) and recipient not in _SHOWN_CALLS:
        text = _tool_call(recipient, content)
    else:
        text = message_text(content)
    if not text.strip():
        return None
    stamp = when(source_time(message.get("create_time")))
    heading = f"## {SPEAKERS[role]}" + (f" · {stamp}" if stamp else "")
    return f"{heading}\n\n{text.strip()}"


def message_text(content: Mapping[str, Any]) -> str:
    """The readable text of a message's content: its text parts, code as a fenced block,
    a marker for each part that is not text."""
    kind = content.get("content_type")
    if kind in _HIDDEN_TYPES:
        return ""
    if kind == "code":
        language = str(content.get("language") or "").replace("unknown", "")
        return f"```{language}\n{content.get('text') or ''}\n```"
    pieces: list[str] = []
    for part in content.get("parts") or ():
        if isinstance(part, str):
            pieces.append(_unmarked(part))
        elif isinstance(part, dict):
            if isinstance(part.get("text"), str):  # an audio transcription
                pieces.append(_unmarked(part["text"]))
            elif part.get("content_type") in _MARKERS:
                pieces.append(_MARKERS[part["content_type"]])
    if not pieces and isinstance(content.get("text"), str):
        pieces.append(_unmarked(content["text"]))
    return "\n\n".join(piece for piece in pieces if piece.strip())


def _unmarked(text: str) -> str:
    """`text` without ChatGPT's citation markup (and the older `【11†source】` form); an
    entity keeps the name it shows."""
    if "\u3010" in text:
        text = _OLD_CITATION.sub("", text)
    return _MARKUP.sub(_markup_shown, text) if "\ue200" in text else text


def _markup_shown(span: re.Match[str]) -> str:
    kind, _, target = span.group(2).partition("\ue202")
    if kind != "entity":
        return ""  # a citation, a link list, an image group: shown beside the text, not in it
    try:
        fields = json.loads(target)  # ["kind", "the name shown", "what it is"]
    except (ValueError, RecursionError):
        fields = target  # an older span names the entity plainly
    if isinstance(fields, list):
        fields = next((f for f in fields[1:2] + fields[:1] if isinstance(f, str)), "")
    return span.group(1) + fields if isinstance(fields, str) else ""


def _tool_call(recipient: str, content: Mapping[str, Any]) -> str:
    """What a call the assistant addressed to a tool shows the user: a canvas document's
    text, an image's prompt; '' for the other tools (searches, memory notes)."""
    if recipient.startswith("canmore."):
        call = _call_input(content)
        document = call.get("content")
        if not isinstance(document, str) or not document.strip():
            return ""  # an edit or a comment, not the document
        name = " ".join(str(call.get("name") or "").split()) or "document"
        kind = str(call.get("type") or "")
        if kind.startswith("code/"):
            document = f"```{kind.removeprefix('code/')}\n{document.strip()}\n```"
        return f"### Canvas: {name}\n\n{document.strip()}"
    if recipient.startswith("dalle."):
        prompt = _call_input(content).get("prompt")
        return f"[image: {' '.join(prompt.split())}]" if isinstance(prompt, str) else "[image]"
    return ""


def _call_input(content: Mapping[str, Any]) -> Mapping[str, Any]:
    """The JSON object a tool call sends ({} when it is not one)."""
    raw = content.get("text")
    if not isinstance(raw, str):
        raw = "".join(p for p in content.get("parts") or () if isinstance(p, str))
    try:
        call = json.loads(raw)
    except (ValueError, RecursionError):
        return {}
    return call if isinstance(call, dict) else {}
