"""Chat exports keep what the app showed, in the shapes newer exports take: Claude's
artifacts and citation-split text, ChatGPT's citation markup and its calls to tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from privault import imports
from privault.caller import Caller
from privault.imports import Page, chatgpt, claude, items
from privault.vault import Vault

PLACEHOLDER = "```\nThis block is not supported on your current device yet.\n```"


# ---- samples, as the apps write them --------------------------------------------------


def claude_text(text: str, **fields: Any) -> dict[str, Any]:
    return {"type": "text", "text": text, "citations": [], **fields}


def claude_artifact(**call: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": "artifacts", "input": call, "id": None}


def claude_message(
    uuid: str, sender: str, content: list[dict[str, Any]], text: str = ""
) -> dict[str, Any]:
    stamp = "2025-02-01T10:00:00.000000Z"
    return {
        "uuid": uuid,
        "sender": sender,
        "text": text,
        "content": content,
        "created_at": stamp,
        "updated_at": stamp,
        "attachments": [],
        "files": [],
    }


def claude_chat(*messages: dict[str, Any]) -> dict[str, Any]:
    stamp = "2025-02-01T10:00:00.000000Z"
    return {
        "uuid": "cl-variant",
        "name": "Variants",
        "summary": "",
        "created_at": stamp,
        "updated_at": stamp,
        "chat_messages": list(messages),
    }


def gpt_node(
    node_id: str, parent: str | None, role: str, content: dict[str, Any], recipient: str = "all"
) -> dict[str, Any]:
    message = {
        "id": node_id,
        "author": {"role": role, "name": None, "metadata": {}},
        "create_time": 1714572180.0,
        "content": content,
        "metadata": {},
        "recipient": recipient,
        "channel": None,
    }
    return {"id": node_id, "message": message, "parent": parent, "children": []}


def gpt_chat(*nodes: dict[str, Any]) -> dict[str, Any]:
    """A conversation of `nodes` in a line, each the parent of the next."""
    mapping: dict[str, Any] = {}
    parent = None
    for node in nodes:
        node["parent"] = parent
        if parent:
            mapping[parent]["children"] = [node["id"]]
        mapping[node["id"]] = node
        parent = node["id"]
    return {
        "conversation_id": "c-variant",
        "title": "Variants",
        "create_time": 1714572180.0,
        "mapping": mapping,
        "current_node": parent,
    }


def text(*parts: str) -> dict[str, Any]:
    return {"content_type": "text", "parts": list(parts)}


def call(payload: str, language: str = "json") -> dict[str, Any]:
    return {"content_type": "code", "language": language, "text": payload}


def page_text(page: object) -> str:
    assert isinstance(page, Page), page
    return page.text


# ---- Claude -------------------------------------------------------------------------


def test_claude_artifact_is_kept_under_its_turn_and_updates_apply_to_its_latest_version(
    tmp_path: Path,
) -> None:
    first = claude_artifact(
        id="list",
        command="create",
        title="Spring checklist",
        type="text/markdown",
        content="- Check the queen\n- Add a super",
    )
    edit = claude_artifact(
        id="list",
        command="update",
        old_str="- Add a super",
        new_str="- Add a super\n- Watch for swarms",
    )
    data = claude_chat(
        claude_message("m1", "human", [claude_text("Make me a checklist")]),
        claude_message(
            "m2",
            "assistant",
            [claude_text("Here it is:"), first, claude_text("Good luck!")],
            text=f"Here it is:\n\n{PLACEHOLDER}\n\nGood luck!",
        ),
        claude_message("m3", "human", [claude_text("Add swarms")]),
        claude_message("m4", "assistant", [edit, claude_text("Updated.")]),
    )
    stored = page_text(claude.conversation(data, 0))
    assert "not supported on your current device" not in stored
    created, updated = stored.split("## Claude")[1:]
    assert (
        "Here it is:\n\n### Artifact: Spring checklist\n\n- Check the queen\n- Add a super"
        "\n\nGood luck!"
    ) in created
    assert "Watch for swarms" not in created  # the first version stays as it was
    assert (
        "### Artifact: Spring checklist\n\n- Check the queen\n- Add a super\n- Watch for swarms"
        "\n\nUpdated."
    ) in updated
    # Read from an export, as `privault add` reads it, the artifact is there too.
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "conversations.json").write_text(json.dumps([data]))
    (found,) = [i for i in imports.reader("claude")(folder) if isinstance(i, Page)]
    assert "Watch for swarms" in found.text


def test_claude_code_artifact_is_fenced_and_rewrites_replace_it() -> None:
    code = claude_artifact(
        id="s",
        command="create",
        title="Hive log",
        type="application/vnd.ant.code",
        language="python",
        content="# count the frames\nframes = 10",
    )
    rewrite = claude_artifact(id="s", command="rewrite", content="frames = 12")
    broken = claude_artifact(id="s", command="update", old_str="not there", new_str="LOST")
    orphan = claude_artifact(id="other", command="update", old_str="x", new_str="kept edit")
    data = claude_chat(
        claude_message("m1", "assistant", [code]),
        claude_message("m2", "assistant", [rewrite, broken]),
        claude_message("m3", "assistant", [orphan]),
    )
    stored = page_text(claude.conversation(data, 0))
    # A `#` comment in code stays code, not a heading of the document.
    assert "### Artifact: Hive log\n\n```python\n# count the frames\nframes = 10\n```" in stored
    assert "### Artifact: Hive log\n\n```python\nframes = 12\n```" in stored
    assert "LOST" not in stored  # an edit Claude could not apply changed nothing
    assert "### Artifact: Untitled artifact (edited)\n\nkept edit" in stored


def test_claude_many_edits_of_a_long_artifact_are_not_stored_whole_each_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from privault.imports import claude_artifacts

    monkeypatch.setattr(claude_artifacts, "WHOLE_VERSIONS_CHARS", 1000)
    long = claude_artifact(id="a", command="create", title="Notes", content="line\n" * 100)
    edits = [
        claude_artifact(id="a", command="update", old_str="line", new_str=f"edit {n}")
        for n in range(50)
    ]
    data = claude_chat(claude_message("m1", "assistant", [long, *edits]))
    stored = page_text(claude.conversation(data, 0))
    assert len(stored) < 5000  # each edit would repeat 500 characters: 25,000 in all
    assert "### Artifact: Notes (edited)\n\nedit 49" in stored  # past the budget, the edit


def test_claude_text_split_around_a_citation_is_joined_as_it_was_shown() -> None:
    cited = claude_text("Wax costs about 10 EUR/kg", citations=[{"start_index": 0}])
    data = claude_chat(
        claude_message(
            "m1",
            "assistant",
            [
                claude_text("Prices vary. "),
                cited,
                claude_text(", says the shop.\n\nNext paragraph."),
            ],
        ),
        claude_message(
            "m2",
            "assistant",
            [
                claude_text("Let me search."),
                {"type": "tool_use", "name": "web_search", "input": {"query": "wax"}},
                claude_text("Found it."),
            ],
        ),
    )
    stored = page_text(claude.conversation(data, 0))
    assert "Prices vary. Wax costs about 10 EUR/kg, says the shop.\n\nNext paragraph." in stored
    assert "Let me search.\n\nFound it." in stored  # a tool call between them still parts them
    assert "wax" not in stored.replace("Wax", "")  # the search itself is not what was said


# ---- ChatGPT ------------------------------------------------------------------------


def test_chatgpt_citation_markup_is_taken_out_and_an_entity_keeps_its_name() -> None:
    answer = (
        "A queen costs 450 NOK \ue200cite\ue202turn0search0\ue202turn0search3\ue201. "
        'Ask \ue200entity\ue202["company", "Bee Shop", "Oslo"]\ue201 or '
        "\ue200entity\ue202Honey House\ue201 first.\ue200navlist\ue202More\ue202turn0news1\ue201"
    )
    data = gpt_chat(
        gpt_node("u", None, "user", text("Queen price?")),
        gpt_node("a", "u", "assistant", text(answer)),
    )
    stored = page_text(chatgpt.conversation(data, 0))
    assert "A queen costs 450 NOK. Ask Bee Shop or Honey House first." in stored
    assert not any("\ue200" <= char <= "\ue203" for char in stored)
    assert "turn0search0" not in stored and "cite" not in stored


def test_chatgpt_older_citation_marks_are_taken_out() -> None:
    answer = "Queens cost 450 NOK【11†source】 in spring【4:2†Bee Shop】. See 【note】 too."
    data = gpt_chat(
        gpt_node("u", None, "user", text("Queen price?")),
        gpt_node("a", "u", "assistant", text(answer)),
    )
    stored = page_text(chatgpt.conversation(data, 0))
    assert "Queens cost 450 NOK in spring. See 【note】 too." in stored  # brackets of its own stay


def test_chatgpt_a_reasoning_models_analysis_channel_is_left_out() -> None:
    # Newer models write their thinking as messages on the "analysis" channel, then the
    # answer on "final": the thinking is not what ChatGPT said, as `thoughts` are not.
    thinking = gpt_node("t", "u", "assistant", text("Let me weigh the hive options first."))
    answer = gpt_node("a", "t", "assistant", text("Buy a nucleus colony in May."))
    thinking["message"]["channel"], answer["message"]["channel"] = "analysis", "final"
    data = gpt_chat(gpt_node("u", None, "user", text("How do I start?")), thinking, answer)
    stored = page_text(chatgpt.conversation(data, 0))
    assert "Buy a nucleus colony in May." in stored
    assert "weigh the hive" not in stored and stored.count("## ChatGPT") == 1


def test_chatgpt_calls_to_tools_are_left_out_but_canvas_images_and_code_are_kept() -> None:
    canvas = json.dumps({"name": "bee_poem", "type": "document", "content": "Buzzing in clover"})
    script = json.dumps({"name": "hives", "type": "code/python", "content": "# frames\nn = 3"})
    data = gpt_chat(
        gpt_node("u", None, "user", text("Help with my bees")),
        gpt_node("s", "u", "assistant", call('search("queen price")', "unknown"), "browser"),
        gpt_node("w", "s", "assistant", call('{"search_query": [{"q": "wax"}]}'), "web.run"),
        gpt_node("b", "w", "assistant", call("User keeps 12 hives.", "unknown"), "bio"),
        gpt_node("c", "b", "assistant", call(canvas), "canmore.create_textdoc"),
        gpt_node("d", "c", "assistant", call(script), "canmore.create_textdoc"),
        gpt_node("e", "d", "assistant", call('{"updates": []}'), "canmore.update_textdoc"),
        gpt_node(
            "i",
            "e",
            "assistant",
            call('{"prompt": "a bee\\nlogo", "size": "1024x1024"}'),
            "dalle.text2im",
        ),
        gpt_node("p", "i", "assistant", call("print(2 + 2)", "python"), "python"),
        gpt_node("a", "p", "assistant", text("All done.")),
    )
    stored = page_text(chatgpt.conversation(data, 0))
    for call_text in ("queen price", "search_query", "12 hives", "updates"):
        assert call_text not in stored  # a call to a tool is not what ChatGPT said
    assert "### Canvas: bee_poem\n\nBuzzing in clover" in stored
    assert '"content"' not in stored  # the document, not the call that carried it
    assert "### Canvas: hives\n\n```python\n# frames\nn = 3\n```" in stored
    assert "[image: a bee logo]" in stored
    assert "```python\nprint(2 + 2)\n```" in stored  # the code interpreter's code stays
    assert stored.count("## ChatGPT") == 5  # canvas twice, the image, the code, the answer


# ---- importing again ----------------------------------------------------------------


def test_a_conversation_imported_before_artifacts_were_read_is_read_again(
    vault: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An unchanged conversation is skipped by its raw bytes: one imported by the reader
    # that lost artifacts (revision 4) must not be skipped, or its artifact stays lost.
    made = claude_artifact(id="a", command="create", title="Plan", content="Feed syrup weekly")
    data = claude_chat(claude_message("m1", "assistant", [claude_text("Here:"), made]))
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "conversations.json").write_text(json.dumps([data]))
    now = items.RAW_READERS
    monkeypatch.setattr(items, "RAW_READERS", 4)
    vault.import_from("claude", folder, caller=Caller.owner())
    monkeypatch.setattr(items, "RAW_READERS", now)
    again = vault.import_from("claude", folder, caller=Caller.owner())
    assert again.total("skipped") == 0 and again.total("updated") == 1
