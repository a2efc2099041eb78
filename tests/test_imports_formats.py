"""The importers read each app's export as the app writes it (hand-made samples), and
malformed ones item by item: a bad item is reported, a file of another kind refused."""

from __future__ import annotations

import gzip
import io
import json
import zipfile
from collections.abc import Iterator
from email.message import Message
from pathlib import Path

import pytest

from privault import imports
from privault.imports import Bad, Memory, NotThisKind, Page, jsonstream
from privault.imports.items import clean_tags
from privault.vault.ingest import check_tags
from tests import import_samples as samples
from tests.helpers import least_peak


def read_all(kind: str, path: Path) -> list[imports.Item]:
    return list(imports.reader(kind)(path))


def pages(items: list[imports.Item]) -> list[Page]:
    return [item for item in items if isinstance(item, Page)]


# ---- the streaming JSON reader ------------------------------------------------------


@pytest.mark.parametrize("block", [1, 2, 3, 7, 64])
def test_json_array_streams_elements_across_any_block_size(
    block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jsonstream, "BLOCK", block)
    text = ' \ufeff[ {"a": "long text here"}, 12345678901, [1, {"b": null, "c": true}] , "x"]'
    assert list(jsonstream.iter_array(io.StringIO(text), "t")) == [
        {"a": "long text here"},
        12345678901,
        [1, {"b": None, "c": True}],
        "x",
    ]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('[{"a": 1}, {"b": tru}, 3]', "not valid JSON"),
        ('[{"a": 1} {"b": 2}]', "expected ','"),
        ('[{"a": 1}, {"b": "cut', "not valid JSON"),
        ('[{"a": 1}, ', "truncated"),
    ],
)
def test_json_array_reports_the_broken_element_after_the_good_ones(text: str, reason: str) -> None:
    found = list(jsonstream.iter_array(io.StringIO(text), "t"))
    assert found[0] == {"a": 1}
    assert isinstance(found[1], jsonstream.BrokenElement) and found[1].index == 1
    assert reason in found[1].reason


@pytest.mark.parametrize("block", [1, 64])
def test_json_after_the_array_is_reported_not_dropped(
    block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two exports run together: the second array is reported, never read as nothing.
    monkeypatch.setattr(jsonstream, "BLOCK", block)
    *elements, after = jsonstream.iter_array(io.StringIO('[{"a": 1}, {"b": 2}]\n[{"c": 3}]'), "t")
    assert elements == [{"a": 1}, {"b": 2}]
    assert isinstance(after, jsonstream.TrailingJson) and after.index == 2
    assert "after the array" in after.reason
    assert list(jsonstream.iter_array(io.StringIO('[{"a": 1}]  \n'), "t")) == [{"a": 1}]


def test_json_that_is_not_an_array_is_refused() -> None:
    with pytest.raises(NotThisKind, match="not a JSON array"):
        list(jsonstream.iter_array(io.StringIO('{"a": 1}'), "an export"))


@pytest.mark.parametrize("block", [1, 3, 64])
def test_a_lone_object_reads_as_an_array_of_one_where_asked(
    block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jsonstream, "BLOCK", block)
    text = ' \ufeff{"a": [1, {"b": "long text"}]}\n'
    found = list(jsonstream.iter_array_raw(io.StringIO(text), "t", lone_object=True))
    assert found == [({"a": [1, {"b": "long text"}]}, '{"a": [1, {"b": "long text"}]}')]
    more = '{"a": 1} {"b": 2}'  # not one object: what follows it is reported, not dropped
    first, after = jsonstream.iter_array_raw(io.StringIO(more), "t", lone_object=True)
    assert first == ({"a": 1}, '{"a": 1}')
    assert isinstance(after, jsonstream.BrokenElement) and "after the object" in after.reason
    with pytest.raises(NotThisKind, match="not a JSON array"):
        list(jsonstream.iter_array_raw(io.StringIO('"text"'), "t", lone_object=True))


# ---- source times --------------------------------------------------------------------


@pytest.mark.parametrize("block", [1, 2, 3, 64])
def test_json_object_streams_its_arrays_across_any_block_size(
    block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jsonstream, "BLOCK", block)
    text = ' \ufeff{"a": 1, "list": [1, {"b": [2]}, "x"], "unread": [3, [4]], "c": {"d": [5]}}'
    found = [
        (name, list(value) if isinstance(value, Iterator) else value)
        for name, value in jsonstream.iter_members(io.StringIO(text), "t")
        if name != "unread"  # its elements are read past
    ]
    assert found == [("a", 1), ("list", [1, {"b": [2]}, "x"]), ("c", {"d": [5]})]
    with pytest.raises(NotThisKind, match="not a JSON object"):
        list(jsonstream.iter_members(io.StringIO("[1]"), "t"))


@pytest.mark.parametrize(
    ("text", "member", "reason"),
    [
        ('{"a": [1, x], "b": 2}', "a", "not valid JSON"),  # met reading past its elements
        ('{"a": 1, "b": tru}', "b", "not valid JSON"),
        ('{"a": 1 "b": 2}', "", "expected ','"),
        ('{"a": 1', "", "truncated"),
        ('{"a": 1} {"b": 2}', "", "more JSON after the object"),
    ],
)
def test_json_object_members_end_where_it_breaks(text: str, member: str, reason: str) -> None:
    *_, (name, last) = jsonstream.iter_members(io.StringIO(text), "t")
    assert isinstance(last, jsonstream.BrokenElement) and name == member and reason in last.reason


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1714572180, 1714572180000),
        (1714572180.5, 1714572180500),
        ("1714572180", 1714572180000),
        (1714572180000, 1714572180000),  # milliseconds
        ("2024-05-01T14:03:00Z", 1714572180000),
        ("2024-05-01T16:03:00+02:00", 1714572180000),
        ("2024-05-01T14:03:00", 1714572180000),  # zone-less: UTC
        ("Wed, 01 May 2024 14:03:00 GMT", 1714572180000),  # RFC 2822, as JavaScript writes
        ("Wed, 01 May 2024 16:03:00 +0200", 1714572180000),
        # A damaged field no calendar has a day for is no time at all, not a crash later.
        (1e300, None),
        (-1e300, None),
        (float("nan"), None),
        (float("inf"), None),
        ("1e300", None),
        ("Mon, 01 Jan 99999 10:00:00 +0000", None),
        ("not a date", None),
        ("", None),
        (True, None),
        ([2024], None),
    ],
)
def test_source_times_read_or_none(value: object, expected: int | None) -> None:
    from privault.imports.sources import source_time

    assert source_time(value) == expected


# ---- ChatGPT ------------------------------------------------------------------------


def test_chatgpt_follows_the_kept_branch_and_only_what_was_said(tmp_path: Path) -> None:
    for zipped in (False, True):
        path = samples.chatgpt_export(
            tmp_path / str(zipped), [samples.chatgpt_conversation()], zipped=zipped
        )
        assert imports.detect(path) == "chatgpt"
        (page,) = pages(read_all("chatgpt", path))
        assert page.key == "c-radiator" and page.title == "Radiator bleeding"
        assert page.created_at == 1714572180000  # the conversation's own date
        text = page.text
        assert "in the hallway" in text and "quarter turn" in text
        assert "(old)" not in text and "Abandoned" not in text  # the other branch
        assert "SECRET REASONING" not in text and "TOOL OUTPUT" not in text
        assert "```bash\necho done\n```" in text  # code blocks kept
        assert "```python\nprint('valve')\n```" in text
        assert "[image]" in text  # a multimodal part leaves a marker
        assert "## You · 2024-05-01 14:04 UTC" in text  # each turn's time
        assert page.metadata["model"] == "gpt-4o"


def test_chatgpt_export_unpacked_into_a_folder_is_recognised(tmp_path: Path) -> None:
    # Unrecognised, `add` took the folder for files and stored chat.html as a page.
    folder = samples.chatgpt_export(tmp_path / "export", [samples.chatgpt_conversation()]).parent
    (folder / "chat.html").write_text("<html></html>")
    assert imports.detect(folder) == "chatgpt"
    (page,) = pages(read_all("chatgpt", folder))
    assert page.key == "c-radiator"


def test_chatgpt_without_current_node_takes_the_newest_leaf() -> None:
    from privault.imports import chatgpt

    data = samples.chatgpt_conversation()
    data["current_node"] = "gone"
    page = chatgpt.conversation(data, 0)
    assert isinstance(page, Page) and "quarter turn" in page.text


def test_chatgpt_empty_and_broken_conversations_are_reported_one_by_one(tmp_path: Path) -> None:
    empty = {
        "title": "Empty",
        "id": "c-empty",
        "current_node": "r",
        "mapping": {"r": {"id": "r", "message": None, "parent": None, "children": []}},
    }
    cyclic = samples.chatgpt_conversation()
    cyclic["id"] = cyclic["conversation_id"] = "c-cycle"
    cyclic["mapping"]["root"]["parent"] = "a1b"  # a damaged file: parents loop
    no_tree = {"title": "No tree", "id": "c-x"}
    path = samples.chatgpt_export(
        tmp_path, [samples.chatgpt_conversation(), empty, no_tree, cyclic]
    )
    items = read_all("chatgpt", path)
    assert [type(i).__name__ for i in items] == ["Page", "Bad", "Bad", "Page"]
    assert isinstance(items[1], Bad) and "empty conversation" in items[1].reason
    assert items[1].key == "c-empty"  # still at the source: not reported as deleted
    assert isinstance(items[2], Bad) and "mapping" in items[2].reason


def test_chatgpt_truncated_file_keeps_the_conversations_before_the_cut(tmp_path: Path) -> None:
    path = samples.chatgpt_export(tmp_path, [samples.chatgpt_conversation()] * 2)
    path.write_text(path.read_text()[:-200])
    items = read_all("chatgpt", path)
    assert isinstance(items[0], Page) and isinstance(items[-1], Bad)


def test_a_file_of_one_conversation_imports_as_an_export_of_one(tmp_path: Path) -> None:
    # Saved from elsewhere or cut out of an export: one object, not a list of them.
    gpt = tmp_path / "gpt" / "conversations.json"
    gpt.parent.mkdir()
    gpt.write_text(json.dumps(samples.chatgpt_conversation(), indent=2))
    assert imports.detect(gpt) == "chatgpt"
    (page,) = read_all("chatgpt", gpt)
    assert isinstance(page, Page) and page.key == "c-radiator"
    claude = samples.claude_export(tmp_path / "claude", [])
    (claude / "conversations.json").write_text(json.dumps(samples.claude_conversation()))
    assert imports.detect(claude) == "claude"
    chat = [p for p in pages(read_all("claude", claude)) if p.label == "conversation"]
    assert [p.key for p in chat] == ["cl-1"]


def test_a_claude_export_is_not_a_chatgpt_one(tmp_path: Path) -> None:
    path = samples.claude_export(tmp_path, [samples.claude_conversation()]) / "conversations.json"
    with pytest.raises(NotThisKind, match="not a ChatGPT export"):
        read_all("chatgpt", path)


# ---- Claude -------------------------------------------------------------------------


def test_claude_conversations_memories_and_projects(tmp_path: Path) -> None:
    for zipped in (False, True):
        path = samples.claude_export(
            tmp_path / str(zipped), [samples.claude_conversation()], zipped=zipped
        )
        assert imports.detect(path) == "claude"
        found = {p.label: p for p in pages(read_all("claude", path))}
        chat = found["conversation"]
        assert chat.key == "cl-1" and chat.created_at == 1709370900000
        assert "self assessment" in chat.text and "31 January" in chat.text
        assert "flattened old text" not in chat.text  # content blocks preferred
        assert "HIDDEN THINKING" not in chat.text and "TOOL RESULT" not in chat.text
        assert "UTR reference" in chat.text  # an attachment's extracted text
        assert "## Claude · 2024-03-02 09:16 UTC" in chat.text
        assert "keeps bees" in found["memory"].text and "face south" in found["memory"].text
        assert found["project"].title == "Garden plan" and "Loam" in found["project"].text
        assert len(found) == 3  # the empty starter project is nothing to import


def test_claude_message_without_content_blocks_uses_its_text(tmp_path: Path) -> None:
    conversation = samples.claude_conversation()
    for message in conversation["chat_messages"]:
        message.pop("content")
        message["text"] = message["text"] or "plain answer"
    found = pages(read_all("claude", samples.claude_export(tmp_path, [conversation])))
    (page,) = [p for p in found if p.label == "conversation"]
    assert "flattened old text" in page.text and "plain answer" in page.text


def test_claude_broken_side_file_is_reported_and_conversations_still_import(
    tmp_path: Path,
) -> None:
    folder = samples.claude_export(tmp_path, [samples.claude_conversation()])
    (folder / "projects.json").write_text("{not json")
    items = read_all("claude", folder)
    assert any(isinstance(i, Bad) and i.where == "projects.json" for i in items)
    assert any(isinstance(i, Page) and i.label == "conversation" for i in items)


def test_claude_message_from_an_unknown_or_missing_sender_is_kept(tmp_path: Path) -> None:
    conversation = samples.claude_conversation()
    conversation["chat_messages"][0]["sender"] = "user"  # not a sender this reader knows
    del conversation["chat_messages"][1]["sender"]
    found = pages(read_all("claude", samples.claude_export(tmp_path, [conversation])))
    (page,) = [p for p in found if p.label == "conversation"]
    assert "## User · 2024-03-02 09:15 UTC\n\nWhen is the self assessment due?" in page.text
    assert "## Unknown speaker · 2024-03-02 09:16 UTC\n\nThe online return" in page.text


def test_a_conversation_of_unexpected_shape_is_reported_and_the_rest_read(
    tmp_path: Path,
) -> None:
    odd = samples.claude_conversation("cl-odd", "Odd fields")
    odd["project"] = "p-1"  # an id where the export has an object
    odd["chat_messages"][0]["attachments"][0]["extracted_content"] = 42
    broken = samples.claude_conversation("cl-broken", "Broken")
    broken["chat_messages"][0]["files"] = 7  # not a list at all
    fine = samples.claude_conversation("cl-fine", "Fine")
    path = samples.claude_export(tmp_path, [odd, broken, fine])
    items = read_all("claude", path)
    chats = {p.key: p for p in pages(items) if p.label == "conversation"}
    assert set(chats) == {"cl-odd", "cl-fine"}
    assert "### Attached: notes.txt\n\n42" in chats["cl-odd"].text  # kept, as text
    (bad,) = [i for i in items if isinstance(i, Bad)]
    assert bad.key == "cl-broken" and "unreadable conversation" in bad.reason
    gpt = samples.chatgpt_conversation()
    gpt["mapping"]["a1b"]["message"]["metadata"] = "hidden"  # a string, not an object
    found = read_all("chatgpt", samples.chatgpt_export(tmp_path / "gpt", [gpt]))
    assert [(type(i).__name__, i.key) for i in found] == [("Bad", "c-radiator")]


@pytest.mark.parametrize("first", [None, [1, 2], "damaged", {"title": "no messages"}])
def test_a_damaged_first_conversation_is_reported_and_the_rest_read(
    tmp_path: Path, first: object
) -> None:
    # The first element used to decide the kind alone: one damaged conversation at the
    # start refused the whole export as not this kind.
    gpt = samples.chatgpt_export(tmp_path / "gpt", [first, samples.chatgpt_conversation()])
    assert imports.detect(gpt) == "chatgpt"
    items = read_all("chatgpt", gpt)
    assert [type(i).__name__ for i in items] == ["Bad", "Page"]
    assert isinstance(items[0], Bad) and items[0].where == "conversation 1"
    claude = samples.claude_export(tmp_path / "claude", [first, samples.claude_conversation()])
    assert imports.detect(claude) == "claude"
    chats = [i for i in read_all("claude", claude) if i.label == "conversation"]
    assert [type(i).__name__ for i in chats] == ["Bad", "Page"]


def test_conversations_of_another_app_are_refused_however_many(tmp_path: Path) -> None:
    claude = [samples.claude_conversation(f"cl-{n}", f"Chat {n}") for n in range(20)]
    path = samples.claude_export(tmp_path / "claude", claude) / "conversations.json"
    with pytest.raises(NotThisKind, match="not a ChatGPT export"):
        read_all("chatgpt", path)
    gpt = samples.chatgpt_export(tmp_path / "gpt", [samples.chatgpt_conversation()] * 20)
    with pytest.raises(NotThisKind, match="not a Claude export"):
        read_all("claude", gpt)
    odd = samples.chatgpt_export(tmp_path / "odd", [{"title": "a"}, None, {"title": "b"}])
    with pytest.raises(NotThisKind, match="no message tree"):
        read_all("chatgpt", odd)


def test_claude_project_memories_of_another_shape_keep_the_rest(tmp_path: Path) -> None:
    folder = samples.claude_export(tmp_path, [samples.claude_conversation()])
    (folder / "memories.json").write_text(
        json.dumps([{"conversations_memory": "The owner keeps bees.", "project_memories": ["x"]}])
    )
    items = read_all("claude", folder)
    (memory,) = [p for p in pages(items) if p.label == "memory"]
    assert "keeps bees" in memory.text
    (bad,) = [i for i in items if isinstance(i, Bad)]
    assert bad.where == "memory 1" and "project_memories" in bad.reason


def test_claude_side_file_over_the_limit_is_reported_without_inflating_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from privault.imports import claude

    folder = samples.claude_export(tmp_path / "folder", [samples.claude_conversation()])
    limit = (folder / "memories.json").stat().st_size  # projects.json is larger
    monkeypatch.setattr(claude, "MAX_WHOLE_FILE_BYTES", limit)
    items = read_all("claude", folder)
    assert {p.label for p in pages(items)} == {"conversation", "memory"}
    (bad,) = [i for i in items if isinstance(i, Bad)]
    assert bad.where == "projects.json" and f"over the {limit:,}-byte limit" in bad.reason
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversations.json", json.dumps([samples.claude_conversation()]))
        archive.writestr("projects.json", "[" + " " * 8_000_000 + "]")
    monkeypatch.setattr(claude, "MAX_WHOLE_FILE_BYTES", 1_000_000)
    peak = least_peak(lambda: read_all("claude", path))
    (bad,) = [i for i in read_all("claude", path) if isinstance(i, Bad)]
    assert bad.where == "projects.json" and "over the 1,000,000-byte limit" in bad.reason
    assert peak < 1_000_000


# ---- Obsidian -----------------------------------------------------------------------


def test_obsidian_front_matter_tags_links_daily_notes_pdfs(tmp_path: Path) -> None:
    root = samples.obsidian_vault(tmp_path / "MyVault")
    assert imports.detect(root) == "obsidian"
    found = {p.key: p for p in pages(read_all("obsidian", root))}
    assert "MyVault/.trash/Old.md" not in found and all(".obsidian" not in k for k in found)
    assert "MyVault/image.png" not in found
    boiler = found["MyVault/Projects/Boiler.md"]
    assert boiler.tags == ("home", "maintenance", "urgent")  # front matter, then #inline
    assert boiler.created_at == 1700438400000  # front matter `created: 2023-11-20`
    assert boiler.metadata["aliases"] == ["Heating"] and "Aliases: Heating" in boiler.text
    assert "[[Plumber|our plumber]]" in boiler.text and "![[Diagram.pdf]]" in boiler.text
    assert {(link.label, link.key) for link in boiler.links} == {
        ("Plumber", "MyVault/Plumber.md"),
        ("Diagram.pdf", "MyVault/Diagram.pdf"),
    }  # [[Missing note]] names no file: no link
    back = found["MyVault/Plumber.md"].links
    assert [link.key for link in back] == ["MyVault/Projects/Boiler.md"]
    daily = found["MyVault/Daily/2024-02-29.md"]
    assert daily.created_at == 1709164800000 and daily.tags == ("garden",)
    assert found["MyVault/Diagram.pdf"].file is not None
    assert found["MyVault/Latin1.md"].text == "Café in Zürich"  # Windows-1252 decoded
    broken = found["MyVault/Broken front.md"]
    assert "body survives" in broken.text and "front_matter" in broken.metadata


def test_obsidian_binary_note_is_reported(tmp_path: Path) -> None:
    root = samples.obsidian_vault(tmp_path / "V")
    (root / "Binary.md").write_bytes(b"abc\x00def")
    bad = [i for i in read_all("obsidian", root) if isinstance(i, Bad)]
    assert [(b.where, b.key) for b in bad] == [("Binary.md", "V/Binary.md")]


def test_obsidian_notes_saved_on_windows_keep_their_front_matter(tmp_path: Path) -> None:
    root = tmp_path / "V"
    (root / ".obsidian").mkdir(parents=True)
    front = (
        "---\r\ntitle: Boiler\r\ntags: [home]\r\ncreated: 2023-11-20\r\n---\r\nService booked.\r\n"
    )
    (root / "crlf.md").write_bytes(b"\xef\xbb\xbf" + front.encode())  # a BOM and CRLF
    (root / "utf16.md").write_bytes(front.encode("utf-16"))  # Notepad's "Unicode"
    found = {p.key: p for p in pages(read_all("obsidian", root))}
    assert set(found) == {"V/crlf.md", "V/utf16.md"}
    for note in found.values():
        assert note.title == "Boiler" and note.tags == ("home",)
        assert note.created_at == 1700438400000
        assert note.text == "Service booked.\r\n" and "front_matter" not in note.metadata


def test_obsidian_front_matter_of_nested_aliases_is_no_tag(tmp_path: Path) -> None:
    # A dozen lines of YAML aliases nest into a billion items; written out as tags (or a
    # title) they took minutes and gigabytes. Tags, aliases and titles are plain values.
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
    root = tmp_path / "V"
    (root / ".obsidian").mkdir(parents=True)
    (root / "bomb.md").write_text(
        "---\n" + "\n".join(lines) + "\ntitle: *i\ntags: [*i, kept]\naliases: *i\n---\nbody\n"
    )
    (note,) = pages(read_all("obsidian", root))
    assert note.title == "bomb" and note.tags == ("kept",) and "aliases" not in note.metadata


def test_obsidian_reads_no_file_outside_the_vault_folder(tmp_path: Path) -> None:
    root = samples.obsidian_vault(tmp_path / "V")
    secret = tmp_path / "elsewhere" / "secret.md"
    secret.parent.mkdir()
    secret.write_text("the key under the mat")
    (root / "Linked.md").symlink_to(secret)
    (root / "Inside.md").symlink_to(root / "Plumber.md")  # a link within the vault is fine
    items = read_all("obsidian", root)
    assert not any("under the mat" in p.text for p in pages(items))
    (bad,) = [i for i in items if isinstance(i, Bad)]
    assert bad.where == "Linked.md" and "outside the vault folder" in bad.reason
    assert any(p.key == "V/Inside.md" and "Jane Roe" in p.text for p in pages(items))


def test_obsidian_note_over_the_limit_is_reported_without_reading_it(tmp_path: Path) -> None:
    from privault.imports import obsidian

    root = tmp_path / "V"
    (root / ".obsidian").mkdir(parents=True)
    with (root / "Huge.md").open("wb") as huge:
        huge.truncate(obsidian.MAX_NOTE_BYTES + 1)  # sparse: no disk, all of it zeros
    peak = least_peak(lambda: read_all("obsidian", root))
    (bad,) = read_all("obsidian", root)
    assert isinstance(bad, Bad) and "over the" in bad.reason
    assert peak < obsidian.MAX_NOTE_BYTES // 4


def test_obsidian_refuses_a_file(tmp_path: Path) -> None:
    note = tmp_path / "note.md"
    note.write_text("hi")
    with pytest.raises(NotThisKind, match="not a folder"):
        read_all("obsidian", note)


# ---- Notion -------------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["zip", "zip of zips", "folder"])
def test_notion_pages_breadcrumbs_and_database_rows(tmp_path: Path, shape: str) -> None:
    path = samples.notion_export(tmp_path, zipped=shape != "folder", nested=shape == "zip of zips")
    assert imports.detect(path) == "notion"
    found = pages(read_all("notion", path))
    by_title = {p.title: p for p in found}
    assert set(by_title) == {"Home", "Recipes", "Renew passport", "Call bank", "Hidden row"}
    recipes = by_title["Recipes"]
    assert recipes.key == samples.NOTION_CHILD and "In: Home" in recipes.text
    assert [link.key for link in by_title["Home"].links] == [samples.NOTION_CHILD]
    row = by_title["Renew passport"]
    assert row.key == samples.NOTION_ROW and row.label == "row"
    assert row.text.startswith("---\nName: Renew passport\nStatus: Done\n")
    assert "post office" in row.text and row.text.count("Status: Done") == 1
    assert row.metadata["properties"]["Status"] == "Done"
    assert row.created_at == 1714575840000  # its Created property
    assert "In: Home › Tasks" in row.text
    assert all(p.label == "row" for p in found if p.title == "Hidden row")  # from _all.csv


def test_notion_malformed_csv_row_is_reported(tmp_path: Path) -> None:
    root = samples.notion_export(tmp_path, zipped=False)
    table = next(root.rglob("*_all.csv"))
    table.write_text("Name,Status\nGood,Done\nHuge," + "x" * 200_000 + "\n")
    items = read_all("notion", root)
    assert any(isinstance(i, Page) and i.title == "Good" for i in items)
    (bad,) = [i for i in items if isinstance(i, Bad)]
    assert "malformed CSV" in bad.reason and "field larger" in bad.reason


def _day(text: str) -> int:
    from datetime import UTC, datetime

    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp() * 1000)


@pytest.mark.parametrize(
    ("dates", "expected"),
    [
        # A first field over 12 proves the column day-first, a second one month-first:
        # "05/01/2024" is read in the order the rest of its column proves.
        (["05/01/2024", "13/05/2024"], ["2024-01-05", "2024-05-13"]),
        (["05/01/2024", "05/13/2024"], ["2024-05-01", "2024-05-13"]),
        (["05/01/2024", "05/13/2024 3:04 PM"], ["2024-05-01", "2024-05-13T15:04"]),
        # Nothing proves either: day-first, as before.
        (["05/01/2024", "06/02/2024"], ["2024-01-05", "2024-02-06"]),
    ],
)
def test_notion_slashed_dates_are_read_in_the_order_their_column_proves(
    tmp_path: Path, dates: list[str], expected: list[str]
) -> None:
    root = samples.notion_export(tmp_path, zipped=False)
    table = next(root.rglob("*_all.csv"))
    table.write_text("Name,Date\n" + "".join(f"Row {n},{d}\n" for n, d in enumerate(dates)))
    rows = {p.title: p.created_at for p in pages(read_all("notion", root)) if p.label == "row"}
    assert [rows[f"Row {n}"] for n in range(len(dates))] == [_day(d) for d in expected]


def test_notion_database_csv_is_parsed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import csv

    root = samples.notion_export(tmp_path, zipped=False)
    table = next(root.rglob("*_all.csv"))
    table.write_text("Name,Date\nRow 0,05/01/2024\nRow 1,05/13/2024\n")
    parsers = []
    real = csv.reader
    monkeypatch.setattr(csv, "reader", lambda *a, **k: parsers.append(a) or real(*a, **k))
    rows = {p.title: p.created_at for p in pages(read_all("notion", root)) if p.label == "row"}
    assert len(parsers) == 1  # one database: the date order is learnt from the same rows
    assert rows == {"Row 0": _day("2024-05-01"), "Row 1": _day("2024-05-13")}


def test_notion_rows_wait_only_until_their_date_columns_are_known() -> None:
    from privault.imports.notion_dates import DAY_FIRST, with_orders

    read = []

    def rows() -> Iterator[list[str]]:
        for values in (["a", "May 1, 2024", "05/01/2024"], ["b", "", "13/01/2024"], ["c"]):
            read.append(values[0])
            yield values

    found = with_orders(["Name", "Created", "Date"], rows())
    # "Created" is not slashed (it says so at once); "Date" proves day-first on row b.
    assert next(found) == (["a", "May 1, 2024", "05/01/2024"], {"Date": DAY_FIRST})
    assert read == ["a", "b"]
    assert [row[0] for row, _ in found] == ["b", "c"]


def test_notion_reads_a_zip_attached_to_a_page_as_an_attachment(tmp_path: Path) -> None:
    # Notion puts the parts of a big export at the top of its zip; a zip further down is a
    # file someone attached to a page: not pages of this export (and maybe not a zip).
    path = tmp_path / "export.zip"
    home = f"Home {samples.NOTION_PAGE}"
    attached = io.BytesIO()
    with zipfile.ZipFile(attached, "w") as inner:
        inner.writestr(f"Stranger {samples.NOTION_CHILD}.md", "# Stranger\n\nnot this export\n")
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{home}.md", "# Home\n\nWelcome.\n")
        archive.writestr(f"{home}/project.zip", attached.getvalue())
        archive.writestr(f"{home}/damaged.zip", b"PK\x03\x04 not really a zip")
    assert [p.title for p in pages(read_all("notion", path))] == ["Home"]


def test_notion_page_over_the_limit_is_reported_without_inflating_it(tmp_path: Path) -> None:
    from privault.imports import notion

    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"Huge {samples.NOTION_PAGE}.md", b"#" * (notion.MAX_PAGE_BYTES + 1))
        archive.writestr(f"Home {samples.NOTION_CHILD}.md", "# Home\n\nWelcome.\n")
    peak = least_peak(lambda: read_all("notion", path))
    items = read_all("notion", path)
    (bad,) = [i for i in items if isinstance(i, Bad)]
    assert bad.key == samples.NOTION_PAGE and "over the" in bad.reason  # at the source still
    assert [p.title for p in pages(items)] == ["Home"]
    assert peak < notion.MAX_PAGE_BYTES // 4


def test_notion_database_over_the_limit_of_files_read_whole_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from privault.imports import notion

    monkeypatch.setattr(notion, "MAX_WHOLE_FILE_BYTES", 1_000)
    root = samples.notion_export(tmp_path, zipped=False)
    table = next(root.rglob("*_all.csv"))
    table.write_text("Name,Status\n" + "".join(f"Row {n},Done\n" for n in range(200)))
    items = read_all("notion", root)
    (bad,) = [i for i in items if isinstance(i, Bad)]
    assert "unreadable database" in bad.reason and "over the 1000-byte limit" in bad.reason
    assert "Home" in [p.title for p in pages(items)]


def test_notion_folder_reads_no_file_outside_it(tmp_path: Path) -> None:
    root = samples.notion_export(tmp_path / "export", zipped=False)
    secret = tmp_path / "secret.md"
    secret.write_text("# Secret\n\nthe key under the mat\n")
    (root / f"Linked {samples.NOTION_ROW}.md").symlink_to(secret)
    items = read_all("notion", root)
    assert not any("under the mat" in p.text for p in pages(items))
    (bad,) = [i for i in items if isinstance(i, Bad)]
    assert bad.key == samples.NOTION_ROW and "outside the export folder" in bad.reason


def test_a_zip_of_something_else_is_not_notion(tmp_path: Path) -> None:
    path = tmp_path / "photos.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.jpg", b"x")
    with pytest.raises(NotThisKind):
        read_all("notion", path)
    with pytest.raises(NotThisKind, match="not an export privault recognises"):
        imports.detect(path)


@pytest.mark.parametrize(
    ("raw", "tag"),
    [
        ("#Work Stuff", "Work-Stuff"),
        ("jdoe1984@gmail.com", "jdoe1984@gmail.com"),  # still an address to the PII scan
        ("+44 20 7946 0958", "+44-20-7946-0958"),
        ("@SaneLater", "@SaneLater"),
        ("../up (old)", "up-old"),
        ("!!!", None),
    ],
)
def test_a_source_tag_becomes_a_valid_tag_that_keeps_what_identifies(
    raw: str, tag: str | None
) -> None:
    cleaned = clean_tags([raw])
    assert cleaned == ((tag,) if tag else ())
    assert check_tags(cleaned) == cleaned


# ---- mbox ---------------------------------------------------------------------------


def test_mbox_messages_threads_parts_and_encodings(tmp_path: Path) -> None:
    path = tmp_path / "All mail Including Spam and Trash.mbox"
    path.write_bytes(samples.MBOX)
    assert imports.detect(path) == "mbox"
    first, reply, newsletter = pages(read_all("mbox", path))
    assert first.key == "m1@example.com" and first.title == "Boat trip"
    assert first.created_at == 1704103200000
    assert "From: Alice Example <alice@example.com>" in first.text  # the detector sees it
    assert "\nFrom the harbour" in first.text  # the mbox quoting undone
    assert first.tags == ("Inbox", "Category-Personal")  # Gmail labels
    assert reply.metadata["thread"] == "m1@example.com"
    assert [(link.label, link.key) for link in reply.links] == [("in reply to", "m1@example.com")]
    assert "café first" in reply.text and "HTML VERSION" not in reply.text  # plain preferred
    assert "## Attachment: tides.txt\n\nHigh tide 09:40" in reply.text
    assert "[attachment: map.png]" in reply.text and "iVBOR" not in reply.text
    assert newsletter.title == "Newsletter ✅" and "Carol Ö" in newsletter.text
    assert "Only HTML here" in newsletter.text and "x()" not in newsletter.text
    # Its Date cannot be read: dated by its mbox separator line (Tue Jan  2 09:00:00 2024).
    assert newsletter.created_at == 1704186000000 and newsletter.key.startswith("h")


@pytest.mark.parametrize(
    ("raw", "title", "body"),
    [
        # Raw 8-bit headers, as old mailers write them: UTF-8, else Latin-1.
        ("Subject: Grüße aus Köln\n\nschöne Grüße\n".encode(), "Grüße aus Köln", "schöne"),
        ("Subject: Café\n\nbody\n".encode("latin-1"), "Café", "body"),
        # Adjacent encoded words join without the space between them.
        (b"Subject: =?utf-8?q?Caf=C3=A9?= =?utf-8?q?_au_lait?= ok\n\nx\n", "Café au lait ok", "x"),
        # A forwarded mail's text is part of the message.
        (
            b"Subject: Fwd\nContent-Type: multipart/mixed; boundary=Z\n\n--Z\n"
            b"Content-Type: text/plain\n\nsee below\n--Z\nContent-Type: message/rfc822\n\n"
            b"Subject: inner\n\ninner body text\n--Z--\n",
            "Fwd",
            "inner body text",
        ),
        # A multipart mail the parser cannot split (no boundary, or one never used) keeps
        # its body as text; it was dropped.
        (
            b"Subject: nb\nContent-Type: multipart/alternative\n\nthe body as sent\n",
            "nb",
            "as sent",
        ),
        (
            b"Subject: nf\nContent-Type: multipart/mixed; boundary=QQ\n"
            b"Content-Transfer-Encoding: base64\n\ndGhlIGJvZHkgYXMgc2VudA==\n",
            "nf",
            "the body as sent",
        ),
        (
            b"Subject: in\nContent-Type: multipart/mixed; boundary=Z\n\n--Z\n"
            b"Content-Type: multipart/alternative\n\ninner part as sent\n--Z--\n",
            "in",
            "inner part as sent",
        ),
        # A part whose charset lies falls back instead of losing the mail.
        (b"Subject: s\nContent-Type: text/plain; charset=us-ascii\n\nna\xefve\n", "s", "na"),
    ],
)
def test_mail_headers_and_parts_decode(raw: bytes, title: str, body: str) -> None:
    from privault.imports import mbox

    page = mbox.message(raw, "message 1")
    assert isinstance(page, Page)
    assert page.title == title and body in page.text


def _mixed(subtype: bytes, *parts: bytes) -> bytes:
    """A mail of `parts` (each its headers, a blank line and its body) in a multipart."""
    body = b"".join(b"--P\n" + part + b"\n" for part in parts)
    return (
        b"Subject: m\nContent-Type: multipart/" + subtype + b"; boundary=P\n\n" + body + b"--P--\n"
    )


HTML = b"Content-Type: text/html\n\n"
PLAIN = b"Content-Type: text/plain\n\n"
PHOTO = b"Content-Type: image/png\nContent-Disposition: inline\n\n\x89PNG"


@pytest.mark.parametrize(
    ("raw", "kept", "left_out"),
    [
        # HTML split around an inline photo (no plain part): both halves.
        (
            _mixed(b"mixed", HTML + b"<p>Before the photo</p>", PHOTO, HTML + b"<p>After it</p>"),
            ["Before the photo", "After it", "[attachment: image/png]"],
            [],
        ),
        # A cover note and a forwarded mail written in HTML only.
        (
            _mixed(
                b"mixed",
                PLAIN + b"See below.",
                b"Content-Type: message/rfc822\n\nSubject: fw\nContent-Type: text/html\n\n"
                b"<b>Forwarded body</b>",
            ),
            ["See below.", "Forwarded body"],
            [],
        ),
        # One text written several ways: the plain one, once.
        (
            _mixed(
                b"alternative",
                PLAIN + b"Plain words",
                HTML + b"<p>Rich words</p>",
                b"Content-Type: text/watch-html\n\n<b>Watch words</b>",
            ),
            ["Plain words"],
            ["Rich words", "Watch words", "attachment"],
        ),
        # text/enriched alone, or as the richest alternative where no part is plain.
        (
            _mixed(
                b"alternative",
                b"Content-Type: text/enriched\n\n<bold>Meet</bold> at\nnoon <<sharp>",
            ),
            ["Meet at noon <sharp>"],
            ["<bold>"],
        ),
        (
            _mixed(b"alternative", HTML + b"<p>Rich one</p>", HTML + b"<p>Richer one</p>"),
            ["Richer one"],
            ["Rich one"],
        ),
    ],
    ids=["html around a photo", "forwarded html", "alternatives", "enriched", "last alternative"],
)
def test_mail_keeps_every_text_part_and_one_of_each_alternatives(
    raw: bytes, kept: list[str], left_out: list[str]
) -> None:
    from privault.imports import mbox

    page = mbox.message(raw, "message 1")
    assert isinstance(page, Page)
    assert all(text in page.text for text in kept), page.text
    assert not any(text in page.text for text in left_out), page.text


INVITATION = (
    "BEGIN:VCALENDAR\r\nMETHOD:REQUEST\r\nBEGIN:VTIMEZONE\r\nTZID:Europe/London\r\n"
    "BEGIN:STANDARD\r\nDTSTART:19701025T020000\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
    "BEGIN:VEVENT\r\nDTSTART;TZID=Europe/London:20240501T190000\r\n"
    "DTEND;TZID=Europe/London:20240501T210000\r\n"
    'ORGANIZER;CN="Example, Alice":mailto:alice@example.com\r\n'
    "ATTENDEE;ROLE=REQ-PARTICIPANT;CN=Bob:mailto:bob@example.com\r\n"
    "SUMMARY:Dinner at Luigi's\\, upstairs\r\nLOCATION:12 High Street\\, Leeds\r\n"
    "DESCRIPTION:Bring the booking code\\n4417\\; ask for the long ta\r\n ble.\r\n"
    "BEGIN:VALARM\r\nDESCRIPTION:Reminder\r\nEND:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)
CALENDAR_PART = b"Content-Type: text/calendar; method=REQUEST; charset=utf-8\n"


def _invited(part: bytes, headers: bytes = CALENDAR_PART) -> bytes:
    """A mail with a text part and a calendar part, as Gmail and Outlook send invitations."""
    return (
        b"Subject: Invitation: Dinner\nContent-Type: multipart/alternative; boundary=B\n\n"
        b"--B\nContent-Type: text/plain\n\nYou are invited.\n--B\n" + headers + b"\n" + part
    ) + b"\n--B--\n"


def test_mail_keeps_what_its_inline_calendar_invitation_says() -> None:
    from privault.imports import mbox

    page = mbox.message(_invited(INVITATION.encode()), "message 1")
    assert isinstance(page, Page) and "You are invited." in page.text
    assert "Event: Dinner at Luigi's, upstairs\n" in page.text  # unescaped
    assert "When: 2024-05-01 19:00 Europe/London – 2024-05-01 21:00 Europe/London" in page.text
    assert "Where: 12 High Street, Leeds\n" in page.text
    assert "Organizer: Example, Alice <alice@example.com>\n" in page.text
    assert "Attendees: Bob <bob@example.com>\n" in page.text
    assert "Bring the booking code\n4417; ask for the long table." in page.text  # unfolded
    assert "Reminder" not in page.text and "1970" not in page.text  # an alarm's, a zone's


@pytest.mark.parametrize(
    ("part", "headers", "kept"),
    [
        # Over the size of text read inline: named, like a long text attachment.
        (
            b"BEGIN:VEVENT\nSUMMARY:" + b"x" * (3 * 1024 * 1024) + b"\nEND:VEVENT\n",
            CALENDAR_PART,
            "[attachment: text/calendar]",
        ),
        # Broken: what can be read of its event is, an unreadable time shown as written.
        (
            b"BEGIN:VCALENDAR\nBEGIN:VEVENT\nSUMMARY:Lunch\nnot a property\n"
            b"DTSTART:20241301T250000Z\nDTEND;VALUE=DATE:2024",
            CALENDAR_PART,
            "Event: Lunch\nWhen: 20241301T250000Z – 2024",
        ),
        (b"BEGIN:VCALENDAR\nno event here\n", CALENDAR_PART, "BEGIN:VCALENDAR\nno event here"),
        # A charset nobody knows, over Latin-1 bytes.
        (
            "BEGIN:VEVENT\nSUMMARY:Café\nDTSTART;VALUE=DATE:20240501\n"
            "DTEND;VALUE=DATE:20240502\nEND:VEVENT\n".encode("latin-1"),
            b"Content-Type: text/calendar; charset=x-unknown\n",
            "Event: Café\nWhen: 2024-05-01\n",  # a one-day event ends the next day
        ),
        # Attached with a file name: read as its events too.
        (
            b"BEGIN:VEVENT\nSUMMARY:Lunch\nEND:VEVENT\n",
            b"Content-Type: text/calendar; name=invite.ics\n"
            b"Content-Disposition: attachment; filename=invite.ics\n",
            "## Attachment: invite.ics\n\nEvent: Lunch\n",
        ),
    ],
    ids=["over the inline size", "broken", "no event", "unknown charset", "attached"],
)
def test_a_hostile_calendar_part_keeps_the_rest_of_its_mail(
    part: bytes, headers: bytes, kept: str
) -> None:
    from privault.imports import mbox

    page = mbox.message(_invited(part, headers), "message 1")
    assert isinstance(page, Page) and "You are invited." in page.text and kept in page.text


def test_a_note_starting_with_from_is_not_a_mailbox(tmp_path: Path) -> None:
    note = tmp_path / "letter"
    note.write_text("From the desk of the owner: buy milk.\n")
    assert imports.fitting(note) == []
    with pytest.raises(NotThisKind, match="does not start with a 'From ' line"):
        read_all("mbox", note)


def test_mbox_folder_reads_each_mailbox_file(tmp_path: Path) -> None:
    (tmp_path / "Inbox").write_bytes(samples.MBOX)
    (tmp_path / "Inbox.msf").write_text("// index")
    assert len(pages(read_all("mbox", tmp_path))) == 3


# ---- mem0 ---------------------------------------------------------------------------


def test_openmemory_export_zip(tmp_path: Path) -> None:
    path = samples.mem0_export(tmp_path)
    assert imports.detect(path) == "mem0"
    first, second = read_all("mem0", path)
    assert isinstance(first, Memory) and isinstance(second, Memory)
    assert first.content == "Allergic to penicillin" and first.entities == ("person:Owner",)
    assert first.tags == ("app:cursor", "category:health") and first.scope == "owner"
    assert first.created_at == 1704873600000  # a zone-less time taken as UTC
    assert second.deleted and [r.event for r in second.history] == ["ADD", "DELETE"]


def test_mem0_get_all_with_history(tmp_path: Path) -> None:
    path = samples.mem0_export(tmp_path, kind="mem0")
    memory, bad = read_all("mem0", path)
    assert isinstance(memory, Memory) and isinstance(bad, Bad) and bad.key == "m-b"
    assert [(r.event, r.content) for r in memory.history] == [
        ("ADD", "Likes coffee"),
        ("UPDATE", "Prefers tea over coffee"),
    ]
    assert memory.tags == ("agent:helper", "category:food")
    assert memory.entities == ("person:Owner",)


def test_mem0_json_lines_with_a_broken_line(tmp_path: Path) -> None:
    path = tmp_path / "memories.jsonl"
    path.write_text(
        json.dumps({"id": "a", "memory": "one", "created_at": "2024-01-01T00:00:00Z"})
        + "\n{broken\n"
        + json.dumps({"id": "b", "memory": "two"})
        + "\n"
    )
    kinds = [type(i).__name__ for i in read_all("mem0", path)]
    assert kinds == ["Memory", "Bad", "Memory"]


def test_mem0_fields_of_another_shape_are_read_or_reported_one_by_one(tmp_path: Path) -> None:
    path = tmp_path / "memories.json"
    path.write_text(
        json.dumps(
            [
                {"id": "a", "memory": "Likes tea", "categories": "food"},  # one, not a list
                {"id": "b", "memory": "Lives in Leeds", "category_ids": 7},
                {"id": "c", "memory": "Walks daily", "history": [{"event": "ADD"}, 5]},
            ]
        )
    )
    first, second, third = read_all("mem0", path)
    assert isinstance(first, Memory) and first.tags == ("category:food",)
    assert isinstance(second, Bad) and second.key == "b" and "unreadable" in second.reason
    assert isinstance(third, Memory) and third.content == "Walks daily"


@pytest.mark.parametrize("first", [None, "damaged", {"id": "a", "note": "no text"}])
def test_mem0_damaged_first_record_is_reported_and_the_rest_read(
    tmp_path: Path, first: object
) -> None:
    path = tmp_path / "memories.json"
    path.write_text(json.dumps([first, {"id": "b", "memory": "Likes tea"}]))
    first_item, second = read_all("mem0", path)
    assert isinstance(first_item, Bad) and isinstance(second, Memory)
    lines = tmp_path / "memories.jsonl"
    lines.write_text('{"theme": \n' + json.dumps({"theme": "dark"}) + "\n")
    with pytest.raises(NotThisKind, match="no memory text"):
        read_all("mem0", lines)  # a broken line first decides nothing either way


@pytest.mark.parametrize("name", ["memories.json", "memories.jsonl.gz"])
def test_mem0_export_over_the_limit_is_refused_without_inflating_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    from privault.imports import mem0

    monkeypatch.setattr(mem0, "MAX_WHOLE_FILE_BYTES", 1_000_000)
    record = json.dumps({"id": "a", "memory": "Likes tea"})
    if name == "memories.json":
        data = f"[{record}{' ' * 16_000_000}]".encode()
    else:
        data = gzip.compress(f"{record}\n{' ' * 16_000_000}\n".encode())
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, data)

    def refused() -> None:
        with pytest.raises(OSError, match="over the 1,000,000-byte limit"):
            read_all("mem0", path)

    assert least_peak(refused) < 4_000_000


def test_a_mem0_json_file_cut_short_keeps_the_memories_before_the_cut(tmp_path: Path) -> None:
    path = tmp_path / "memories.json"
    memories = [{"id": "a", "content": "Likes tea"}, {"id": "b", "content": "Lives in Leeds"}]
    whole = json.dumps({"memories": memories, "status_history": [{"memory_id": "a"}]})
    path.write_text(whole[: whole.index("Lives")])  # cut inside the second memory
    first, cut = read_all("mem0", path)
    assert isinstance(first, Memory) and first.content == "Likes tea"
    assert isinstance(cut, Bad) and cut.where == "memory 2" and "not valid JSON" in cut.reason
    path.write_text(whole[: whole.index('"memory_id"')])  # cut after the memories
    *read, after = read_all("mem0", path)
    assert [m.key for m in read if isinstance(m, Memory)] == ["a", "b"]
    assert isinstance(after, Bad) and after.where == "memories.json after its memories"
    path.write_text(json.dumps(memories[0]) + "\n" + json.dumps(memories[1]) + "\n")
    assert [m.key for m in read_all("mem0", path) if isinstance(m, Memory)] == ["a", "b"]


@pytest.mark.parametrize(
    ("record", "history", "deleted"),
    [
        ({"id": "a", "memory": "Likes tea"}, [("ADD", "Likes tea")], False),
        (
            {"id": "a", "content": "Lives in Leeds", "state": "archived"},
            [("ADD", "Lives in Leeds"), ("DELETE", "")],
            True,
        ),
        (
            {
                "id": "a",
                "memory": "Prefers tea",
                "history": [
                    {"event": "UPDATE", "new_memory": "Prefers tea", "created_at": 2},
                    {"event": "ADD", "new_memory": "Likes coffee", "created_at": 1},
                ],
            },
            [("ADD", "Likes coffee"), ("UPDATE", "Prefers tea")],
            False,
        ),
    ],
    ids=["new", "archived", "reworded"],
)
def test_a_mem0_record_maps_to_a_memory_with_its_history(
    record: dict[str, object], history: list[tuple[str, str]], deleted: bool
) -> None:
    from privault.imports.mem0_records import memory

    found = memory(record, 1, {}, {}, {})
    assert isinstance(found, Memory) and found.deleted is deleted
    assert [(r.event, r.content) for r in found.history] == history


def test_a_json_of_something_else_is_not_mem0(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps([{"theme": "dark"}]))
    with pytest.raises(NotThisKind, match="no memory text"):
        read_all("mem0", path)


# ---- memory stays bounded -----------------------------------------------------------


def _peak_reading(kind: str, path: Path) -> int:
    """The peak of Python allocations while the export is read."""
    return least_peak(lambda: sum(1 for _ in imports.reader(kind)(path)))


def test_reading_streams_memory_does_not_grow_with_the_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import random

    from benchmarks.imports import write_chatgpt, write_mbox

    monkeypatch.setattr(jsonstream, "BLOCK", 16 * 1024)  # both exports many blocks long
    peaks = {}
    for count in (30, 240):
        folder = tmp_path / str(count)
        folder.mkdir()
        write_chatgpt(folder / "conversations.json", count, count * 20, random.Random(1))
        write_mbox(folder / "mail.mbox", count, random.Random(1))
        peaks[count] = (
            _peak_reading("chatgpt", folder / "conversations.json"),
            _peak_reading("mbox", folder / "mail.mbox"),
        )
        assert (folder / "conversations.json").stat().st_size > count * 20 * 200
    small, large = peaks[30], peaks[240]
    # Eight times the export, not eight times the memory: the reader holds one item (and a
    # block of text) at a time; the mailbox holds one offset per message.
    assert large[0] < small[0] * 1.5, peaks
    assert large[1] < small[1] * 2, peaks  # (one offset per message aside)


@pytest.mark.parametrize("block", [6, 7, 13, 1 << 20])
def test_messages_are_cut_where_the_standard_library_cuts_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """Byte for byte as `mailbox.mbox` gives them (a vault's digests of earlier imports
    stay valid), whatever the lines and wherever the search's blocks end, in mailboxes
    whose "From " lines are all separators (a body line left unquoted is not one:
    test_imports_mail_variants)."""
    import mailbox
    import random

    from privault.imports import mbox

    monkeypatch.setattr(mbox, "_SCAN_BYTES", block)
    pieces = [
        b"From a@b Mon Mar  1 10:00:00 2025\n",
        b"From \n",
        b"\n",
        b"\r\n",
        b"body line\n",
        b">From quoted\n",
        b"From",
        b"xFrom y\n",
        b"\n\n",
        b"tail",
    ]
    rng = random.Random(block)
    path = tmp_path / "mail.mbox"
    for _ in range(300):
        data = pieces[0] + b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 20)))
        path.write_bytes(data)
        box = mailbox.mbox(path, create=False)
        expected = [box.get_bytes(key) for key in box.iterkeys()]
        box.close()
        assert list(mbox.messages(path)) == expected, data


def test_a_mailbox_that_cannot_be_read_is_reported_not_raised(tmp_path: Path) -> None:
    from privault.imports import mbox

    found = list(mbox.messages(tmp_path / "gone.mbox"))
    assert len(found) == 1 and isinstance(found[0], FileNotFoundError)


def _large_mails() -> dict[str, bytes]:
    """Mails with large parts of many shapes, as mailers write them."""
    import base64
    import random
    from email.mime.application import MIMEApplication
    from email.mime.image import MIMEImage
    from email.mime.message import MIMEMessage
    from email.mime.multipart import MIMEMultipart
    from email.mime.text import MIMEText

    blob = random.Random(5).randbytes(200 * 1024)
    words = ("Lunch with Oriel on Friday at the harbour. " * 2000).encode()

    def mail(body: Message, subject: str) -> Message:
        body["Subject"], body["From"] = subject, "Oriel Fenwhistle <oriel@example.com>"
        body["Message-ID"] = f"<{subject.replace(' ', '-')}@example.com>"
        return body

    pdf = MIMEMultipart()
    pdf.attach(MIMEText("See the scan attached."))
    pdf.attach(MIMEApplication(blob, "pdf", Name="scan.pdf"))
    text_file = MIMEMultipart()
    text_file.attach(MIMEText("The notes are attached."))
    attached_text = MIMEText(words.decode(), "plain", "utf-8")  # base64 body, text: read
    attached_text.add_header("Content-Disposition", "attachment", filename="notes.txt")
    text_file.attach(attached_text)
    nested = MIMEMultipart("mixed")
    alternative = MIMEMultipart("alternative")
    alternative.attach(MIMEText("Plain words."))
    alternative.attach(MIMEText("<p>Rich words.</p>", "html"))
    nested.attach(alternative)
    nested.attach(MIMEImage(blob, "png"))
    nested.attach(MIMEApplication(blob, "octet-stream", Name="data.bin"))
    inner = mail(MIMEMultipart(), "inner")
    inner.attach(MIMEText("The forwarded words."))
    inner.attach(MIMEApplication(blob, "pdf", Name="inner.pdf"))
    forwarded = MIMEMultipart()
    forwarded.attach(MIMEText("Forwarding this."))
    forwarded.attach(MIMEMessage(inner))
    lone_binary = MIMEApplication(blob, "zip")  # a mail that is only an attachment
    lone_text = MIMEText(words.decode(), "plain", "utf-8")
    built = {
        "pdf": pdf,
        "text attachment": text_file,
        "nested": nested,
        "forwarded": forwarded,
        "lone binary": lone_binary,
        "lone text": lone_text,
    }
    mails = {name: mail(body, name).as_bytes() for name, body in built.items()}
    mails["crlf"] = mails["nested"].replace(b"\n", b"\r\n")
    # A type the parser cannot read is text to it (and so read): left as it came.
    mails["bad type"] = mails["pdf"].replace(b"application/pdf", b"pdf")
    # Base64-looking lines in a text body, then a part's boundary.
    encoded = base64.encodebytes(blob[::-1]).decode()  # not the PDF's bytes
    quoted = MIMEMultipart()
    quoted.attach(MIMEText(f"Header: x\n\n{encoded}", "plain"))
    quoted.attach(MIMEApplication(blob, "pdf", Name="a.pdf"))
    mails["text body"] = mail(quoted, "text body").as_bytes()
    return mails


@pytest.mark.parametrize("name", list(_large_mails()))
def test_a_large_mail_reads_the_same_with_its_unread_bodies_emptied(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Emptying the bodies a page never reads changes nothing the page holds."""
    from privault.imports import mail_bodies, mbox

    raw = _large_mails()[name]
    assert len(raw) > mail_bodies.EMPTIED_FROM
    lighter = mail_bodies.unread_bodies_emptied(raw)
    emptied = mbox.message(raw, "here")
    monkeypatch.setattr(mail_bodies, "EMPTIED_FROM", len(raw) + 1)  # parsed as it came
    assert emptied == mbox.message(raw, "here")
    assert isinstance(emptied, Page)
    # Emptied where a binary body fills its part (a forwarded mail's too); kept where it
    # is text, or of a type the parser reads as text.
    if name in {"pdf", "nested", "crlf", "lone binary", "forwarded"}:
        assert len(lighter) < len(raw) // 3
    elif name == "text body":  # its text part kept, its PDF emptied
        assert _large_mails()[name].split(b"\n\n")[3][:2000] in lighter
        assert len(lighter) < len(raw) * 0.6
    else:
        assert lighter == raw
    if name == "text attachment":
        assert "Lunch with Oriel" in emptied.text  # a text attachment is still read


@pytest.mark.parametrize("seed", range(4))
def test_damaged_large_mails_read_the_same_with_their_unread_bodies_emptied(
    monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """Mails cut, spliced and given stray boundary, header and base64 lines: whatever the
    emptying finds or misses, the page (or the reason a mail is unreadable) is the one
    the mail parsed as it came gives."""
    import random

    from privault.imports import mail_bodies, mbox

    mails = list(_large_mails().values())
    pieces = [
        b"\n",
        b"\r\n",
        b"\n\n",
        b"--",
        b"Content-Type: application/pdf\n",
        b"Content-Type: text/plain\n",
        b"AAAAAAAAAAAAAAAAAAAAAAAA\n",
        b'boundary="x"',
        b"\n--x\n",
        b"Content-Transfer-Encoding: base64\n",
    ]
    rng = random.Random(seed)
    emptied = 0
    for _ in range(25):
        raw = bytearray(rng.choice(mails))
        for _ in range(rng.randint(1, 8)):
            at = rng.randrange(len(raw))
            if rng.random() < 0.6:
                raw[at:at] = rng.choice(pieces)
            else:
                del raw[at : at + rng.randint(1, 200)]
        mail = bytes(raw)
        emptied += mail_bodies.unread_bodies_emptied(mail) != mail
        with monkeypatch.context() as patched:
            patched.setattr(mail_bodies, "EMPTIED_FROM", len(mail) + 1)  # parsed as it came
            as_it_came = mbox.message(mail, "here")
        assert mbox.message(mail, "here") == as_it_came
    assert emptied >= 5  # the damage left most mails' attachments to empty


def test_a_mailbox_of_binary_attachments_keeps_their_names_not_their_bytes(
    tmp_path: Path,
) -> None:
    import random

    from benchmarks.imports import write_mbox

    path = tmp_path / "mail.mbox"
    write_mbox(path, 40, random.Random(1), attachment_kb=64, attachment_every=2)
    assert path.stat().st_size > 20 * 64 * 1024  # the attachments are in the file
    found = pages(read_all("mbox", path))
    assert len(found) == 40
    named = [page for page in found if "[attachment: scan" in page.text]
    assert [page.title.split()[-1] for page in named] == [str(n) for n in range(1, 40, 2)]
    # Named, not inlined: no page holds its attachment's base64.
    assert max(len(page.text) for page in found) < 4000


@pytest.mark.parametrize("shape", ["OpenMemory", "get_all", "results"])
def test_reading_a_mem0_json_file_memory_does_not_grow_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    monkeypatch.setattr(jsonstream, "BLOCK", 16 * 1024)  # the file many blocks long
    peaks = {}
    for count in (100, 800):
        memories = [
            {
                "id": f"m{n}",
                "memory": f"Memory {n}: " + "a remembered thing " * 20,
                "app_id": "app-1",
                "category_ids": ["cat-1"],
            }
            for n in range(count)
        ]
        data: object = memories
        if shape == "OpenMemory":  # what the memories refer to written after them
            data = {
                "user": {"user_id": "owner"},
                "memories": memories,
                "memory_categories": [{"memory_id": m["id"], "category_id": "c"} for m in memories],
                "apps": [{"id": "app-1", "name": "cursor"}],
                "categories": [{"id": "cat-1", "name": "health"}],
            }
        if shape == "results":  # the platform's `get_all`: the list under "results"
            data = {"results": memories}
        path = tmp_path / f"{count}.json"
        path.write_text(json.dumps(data))
        peaks[count] = _peak_reading("mem0", path)
        found = [m for m in read_all("mem0", path) if isinstance(m, Memory)]
        assert len(found) == count
        if shape == "OpenMemory":
            assert found[1].tags == ("app:cursor", "category:health")
    # Eight times the memories, not eight times the memory: one memory (and a block of
    # text) is held at a time.
    assert peaks[800] < peaks[100] * 1.5, peaks
