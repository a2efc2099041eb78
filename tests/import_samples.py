"""Small hand-made exports in each format, written the way the apps write them."""

from __future__ import annotations

import gzip
import json
import zipfile
from pathlib import Path
from typing import Any


def chatgpt_node(
    node_id: str,
    parent: str | None,
    children: list[str],
    role: str | None,
    parts: list[Any] | None = None,
    created: float | None = None,
    content_type: str = "text",
    **extra: Any,
) -> dict[str, Any]:
    """One node of ChatGPT's `mapping` (role None: the null root message)."""
    message = None
    if role is not None:
        content: dict[str, Any] = {"content_type": content_type}
        if parts is not None:
            content["parts"] = parts
        content.update(extra.pop("content", {}))
        message = {
            "id": node_id,
            "author": {"role": role, "name": None, "metadata": {}},
            "create_time": created,
            "update_time": None,
            "content": content,
            "status": "finished_successfully",
            "end_turn": True,
            "weight": 1.0,
            "metadata": extra.pop("metadata", {}),
            "recipient": extra.pop("recipient", "all"),
        }
    return {"id": node_id, "message": message, "parent": parent, "children": children}


def chatgpt_conversation() -> dict[str, Any]:
    """A conversation with a system message, an edited prompt (two branches, the second
    kept), a tool call, a multimodal part, reasoning and code."""
    t = 1714572180.0  # 2024-05-01 14:03 UTC
    mapping = {
        "root": chatgpt_node("root", None, ["sys"], None),
        "sys": chatgpt_node(
            "sys",
            "root",
            ["u1", "u1b"],
            "system",
            [""],
            None,
            metadata={"is_visually_hidden_from_conversation": True},
        ),
        "u1": chatgpt_node("u1", "sys", ["a1"], "user", ["How do I bleed a radiator? (old)"], t),
        "a1": chatgpt_node("a1", "u1", [], "assistant", ["Abandoned branch answer"], t + 5),
        "u1b": chatgpt_node(
            "u1b",
            "sys",
            ["th"],
            "user",
            [
                "How do I bleed a radiator in the hallway?",
                {"content_type": "image_asset_pointer", "asset_pointer": "file-x"},
            ],
            t + 60,
            content_type="multimodal_text",
        ),
        "th": chatgpt_node(
            "th",
            "u1b",
            ["code"],
            "assistant",
            None,
            t + 61,
            content_type="thoughts",
            content={"thoughts": [{"summary": "s", "content": "SECRET REASONING"}]},
        ),
        "code": chatgpt_node(
            "code",
            "th",
            ["tool"],
            "assistant",
            None,
            t + 62,
            content_type="code",
            recipient="python",
            content={"language": "python", "text": "print('valve')"},
        ),
        "tool": chatgpt_node(
            "tool",
            "code",
            ["a1b"],
            "tool",
            None,
            t + 63,
            content_type="execution_output",
            content={"text": "TOOL OUTPUT"},
        ),
        "a1b": chatgpt_node(
            "a1b",
            "tool",
            [],
            "assistant",
            ["Turn the bleed valve a quarter turn.\n\n```bash\necho done\n```"],
            t + 65,
        ),
    }
    return {
        "title": "Radiator bleeding",
        "create_time": t,
        "update_time": t + 65,
        "mapping": mapping,
        "moderation_results": [],
        "current_node": "a1b",
        "plugin_ids": None,
        "conversation_id": "c-radiator",
        "conversation_template_id": None,
        "gizmo_id": None,
        "is_archived": False,
        "safe_urls": [],
        "default_model_slug": "gpt-4o",
        "id": "c-radiator",
    }


def chatgpt_export(folder: Path, conversations: list[Any], *, zipped: bool = False) -> Path:
    """conversations.json (or the export's zip with it, chat.html and user.json)."""
    folder.mkdir(parents=True, exist_ok=True)
    data = json.dumps(conversations)
    if not zipped:
        path = folder / "conversations.json"
        path.write_text(data, encoding="utf-8")
        return path
    path = folder / "chatgpt-export.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("conversations.json", data)
        archive.writestr("chat.html", "<html></html>")
        archive.writestr("user.json", json.dumps({"id": "user-1"}))
    return path


def claude_conversation(uuid: str = "cl-1", name: str = "Tax questions") -> dict[str, Any]:
    """A Claude conversation with content blocks, a tool use and an attachment."""
    return {
        "uuid": uuid,
        "name": name,
        "created_at": "2024-03-02T09:15:00.000000+00:00",
        "updated_at": "2024-03-02T09:20:00.000000+00:00",
        "account": {"uuid": "acc-1"},
        "chat_messages": [
            {
                "uuid": "m1",
                "text": "flattened old text",
                "content": [{"type": "text", "text": "When is the self assessment due?"}],
                "sender": "human",
                "created_at": "2024-03-02T09:15:00.000000+00:00",
                "updated_at": "2024-03-02T09:15:00.000000+00:00",
                "attachments": [
                    {
                        "file_name": "notes.txt",
                        "file_size": 20,
                        "file_type": "txt",
                        "extracted_content": "UTR reference in the attached notes",
                    }
                ],
                "files": [],
            },
            {
                "uuid": "m2",
                "text": "",
                "content": [
                    {"type": "thinking", "thinking": "HIDDEN THINKING"},
                    {"type": "tool_use", "name": "search", "input": {"q": "x"}},
                    {"type": "tool_result", "content": [{"type": "text", "text": "TOOL RESULT"}]},
                    {"type": "text", "text": "The online return is due by 31 January."},
                ],
                "sender": "assistant",
                "created_at": "2024-03-02T09:16:00.000000+00:00",
                "updated_at": "2024-03-02T09:16:00.000000+00:00",
                "attachments": [],
                "files": [],
            },
        ],
    }


def claude_export(folder: Path, conversations: list[Any], *, zipped: bool = False) -> Path:
    """Claude's export: conversations.json, users.json, projects.json, memories.json."""
    files = {
        "conversations.json": json.dumps(conversations),
        "users.json": json.dumps([{"uuid": "acc-1", "full_name": "Owner"}]),
        "projects.json": json.dumps(
            [
                {
                    "uuid": "p-1",
                    "name": "Garden plan",
                    "description": "Raised beds",
                    "prompt_template": "Answer as a gardener.",
                    "created_at": "2024-01-05T10:00:00Z",
                    "updated_at": "2024-01-06T10:00:00Z",
                    "is_private": True,
                    "docs": [{"uuid": "d1", "filename": "soil.md", "content": "Loam with compost"}],
                },
                {
                    "uuid": "p-2",
                    "name": "How to use Claude",
                    "description": "",
                    "docs": [],
                    "is_starter_project": True,
                },
            ]
        ),
        "memories.json": json.dumps(
            [
                {
                    "conversations_memory": "The owner keeps bees.",
                    "project_memories": {"p-1": "Beds face south."},
                    "account_uuid": "acc-1",
                }
            ]
        ),
    }
    folder.mkdir(parents=True, exist_ok=True)
    if zipped:
        path = folder / "claude-export.zip"
        with zipfile.ZipFile(path, "w") as archive:
            for name, text in files.items():
                archive.writestr(name, text)
        return path
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def obsidian_vault(root: Path) -> Path:
    """A vault with front matter, tags, links, embeds, a daily note, a PDF, trash."""
    (root / ".obsidian").mkdir(parents=True)
    (root / ".obsidian" / "daily-notes.json").write_text('{"format": "YYYY-MM-DD"}')
    (root / ".obsidian" / "workspace.json").write_text("{}")
    (root / ".trash").mkdir()
    (root / ".trash" / "Old.md").write_text("trashed note about zebras")
    (root / "Projects").mkdir()
    (root / "Daily").mkdir()
    (root / "Projects" / "Boiler.md").write_text(
        "---\ntags: [home, maintenance]\naliases: [Heating]\ncreated: 2023-11-20\n---\n"
        "# Boiler\n\nService booked. See [[Plumber|our plumber]] and ![[Diagram.pdf]].\n"
        "Also #urgent and `#notatag` and [[Missing note]].\n"
    )
    (root / "Plumber.md").write_text(
        "Jane Roe fixes boilers. Back to [[Projects/Boiler#Service]].\n"
    )
    (root / "Daily" / "2024-02-29.md").write_text("Leap day: pruned the apple tree. #garden\n")
    (root / "Latin1.md").write_bytes("Café in Zürich".encode("cp1252"))
    (root / "Broken front.md").write_text("---\ntags: [unclosed\n---\nbody survives\n")
    (root / "Diagram.pdf").write_bytes(minimal_pdf("Boiler diagram valve layout"))
    (root / "image.png").write_bytes(b"\x89PNG\r\n")
    return root


def minimal_pdf(text: str) -> bytes:
    """A one-page PDF whose text layer says `text`."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return out


NOTION_PAGE = "0123456789abcdef0123456789abcdef"
NOTION_CHILD = "11111111111111111111111111111111"
NOTION_DB = "22222222222222222222222222222222"
NOTION_ROW = "33333333333333333333333333333333"


def notion_files() -> dict[str, str]:
    """The files of a Notion Markdown & CSV export (paths inside it)."""
    top = f"Home {NOTION_PAGE}"
    rows = 'Name,Status,Created\nRenew passport,Done,"May 1, 2024 3:04 PM"\nCall bank,Todo,\n'
    link = f"Home%20{NOTION_PAGE}/Recipes%20{NOTION_CHILD}.md"
    return {
        f"{top}.md": f"# Home\n\nWelcome. See [Recipes]({link}).\n",
        f"{top}/Recipes {NOTION_CHILD}.md": "# Recipes\n\nSourdough needs a starter.\n",
        f"{top}/Tasks {NOTION_DB}.csv": rows,
        f"{top}/Tasks {NOTION_DB}_all.csv": "\ufeff" + rows + "Hidden row,Archived,\n",
        f"{top}/Tasks {NOTION_DB}/Renew passport {NOTION_ROW}.md": (
            "# Renew passport\n\nStatus: Done\nCreated: May 1, 2024 3:04 PM\n\n"
            "Forms are at the post office.\n"
        ),
    }


def notion_export(folder: Path, *, zipped: bool = True, nested: bool = False) -> Path:
    """The export as Notion ships it: a zip (or a zip of zips), or unpacked."""
    folder.mkdir(parents=True, exist_ok=True)
    files = notion_files()
    if not zipped:
        root = folder / "Export-abc"
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text, encoding="utf-8")
        return root
    inner = folder / "inner.zip"
    with zipfile.ZipFile(inner, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    if not nested:
        return inner
    outer = folder / "notion-export.zip"
    with zipfile.ZipFile(outer, "w") as archive:
        archive.write(inner, "Export-abc-Part-1.zip")
    return outer


MBOX = (
    b"From alice@example.com Mon Jan  1 10:00:00 2024\n"
    b"From: Alice Example <alice@example.com>\n"
    b"To: owner@example.com\n"
    b"Subject: Boat trip\n"
    b"Date: Mon, 01 Jan 2024 10:00:00 +0000\n"
    b"Message-ID: <m1@example.com>\n"
    b"X-Gmail-Labels: Inbox,Category Personal\n"
    b"\n"
    b"Shall we take the boat out on Saturday?\n"
    b">From the harbour, of course.\n"
    b"\n"
    b"From bob@example.com Mon Jan  1 11:00:00 2024\n"
    b"From: Bob <bob@example.com>\n"
    b"To: Alice Example <alice@example.com>\n"
    b"Subject: Re: Boat trip\n"
    b"Date: Mon, 01 Jan 2024 11:00:00 +0000\n"
    b"Message-ID: <m2@example.com>\n"
    b"In-Reply-To: <m1@example.com>\n"
    b"References: <m1@example.com>\n"
    b"MIME-Version: 1.0\n"
    b'Content-Type: multipart/mixed; boundary="XX"\n'
    b"\n"
    b"--XX\n"
    b'Content-Type: multipart/alternative; boundary="YY"\n'
    b"\n"
    b"--YY\n"
    b"Content-Type: text/plain; charset=iso-8859-1\n"
    b"Content-Transfer-Encoding: quoted-printable\n"
    b"\n"
    b"Yes, caf=E9 first at nine.\n"
    b"--YY\n"
    b"Content-Type: text/html; charset=utf-8\n"
    b"\n"
    b"<p>HTML VERSION</p>\n"
    b"--YY--\n"
    b"--XX\n"
    b"Content-Type: text/plain; charset=utf-8\n"
    b'Content-Disposition: attachment; filename="tides.txt"\n'
    b"\n"
    b"High tide 09:40\n"
    b"--XX\n"
    b"Content-Type: image/png\n"
    b'Content-Disposition: attachment; filename="map.png"\n'
    b"Content-Transfer-Encoding: base64\n"
    b"\n"
    b"iVBORw0KGgo=\n"
    b"--XX--\n"
    b"\n"
    b"From carol@example.com Tue Jan  2 09:00:00 2024\n"
    b"From: =?utf-8?q?Carol_=C3=96?= <carol@example.com>\n"
    b"Subject: =?utf-8?b?TmV3c2xldHRlciDinIU=?=\n"
    b"Date: not a date\n"
    b"Content-Type: text/html; charset=bogus-charset\n"
    b"\n"
    b"<html><head><style>p{}</style></head><body><p>Only HTML here</p>"
    b"<script>x()</script></body></html>\n"
)


def mem0_export(folder: Path, *, kind: str = "openmemory") -> Path:
    """An OpenMemory export zip, or mem0's get_all output with history."""
    folder.mkdir(parents=True, exist_ok=True)
    if kind == "openmemory":
        data = {
            "user": {"id": "u1", "user_id": "owner"},
            "apps": [{"id": "app-1", "name": "cursor"}],
            "categories": [{"id": "cat-1", "name": "health"}],
            "memories": [
                {
                    "id": "mem-1",
                    "user_id": "u1",
                    "app_id": "app-1",
                    "content": "Allergic to penicillin",
                    "metadata": {"entities": ["person:Owner"]},
                    "state": "active",
                    "created_at": "2024-01-10T08:00:00",
                    "updated_at": "2024-01-10T08:00:00",
                    "archived_at": None,
                    "deleted_at": None,
                    "category_ids": ["cat-1"],
                },
                {
                    "id": "mem-2",
                    "user_id": "u1",
                    "app_id": "app-1",
                    "content": "Lives in Leeds",
                    "metadata": {},
                    "state": "deleted",
                    "created_at": "2024-01-11T08:00:00",
                    "updated_at": "2024-02-01T08:00:00",
                    "archived_at": None,
                    "deleted_at": "2024-02-01T08:00:00",
                    "category_ids": [],
                },
            ],
            "memory_categories": [{"memory_id": "mem-1", "category_id": "cat-1"}],
            "status_history": [],
            "export_meta": {"version": "1"},
        }
        path = folder / "memories_export_owner.zip"
        lines = b"".join(
            json.dumps({"id": m["id"], "content": m["content"]}).encode() + b"\n"
            for m in data["memories"]
        )
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("memories.json", json.dumps(data, indent=2))
            archive.writestr("memories.jsonl.gz", gzip.compress(lines))
        return path
    data2 = {
        "results": [
            {
                "id": "m-a",
                "memory": "Prefers tea over coffee",
                "user_id": "owner",
                "agent_id": "helper",
                "metadata": {"entities": [{"name": "Owner", "type": "person"}]},
                "categories": ["food"],
                "created_at": "2024-04-01T10:00:00-07:00",
                "updated_at": "2024-05-01T10:00:00-07:00",
                "hash": "h1",
            },
            {"id": "m-b", "memory": "", "user_id": "owner", "created_at": "2024-04-02T10:00:00Z"},
        ],
        "history": [
            {
                "id": "h1",
                "memory_id": "m-a",
                "old_memory": None,
                "new_memory": "Likes coffee",
                "event": "ADD",
                "created_at": "2024-04-01T10:00:00-07:00",
            },
            {
                "id": "h2",
                "memory_id": "m-a",
                "old_memory": "Likes coffee",
                "new_memory": "Prefers tea over coffee",
                "event": "UPDATE",
                "created_at": "2024-05-01T10:00:00-07:00",
            },
        ],
    }
    path = folder / "mem0.json"
    path.write_text(json.dumps(data2))
    return path
