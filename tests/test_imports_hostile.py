"""Exports and files made to break a reader (nesting too deep to decode, impossible dates,
fields of odd shapes, zips that inflate without end, named pipes): each costs one reported
item at most, or the import is refused in one line; never a traceback, a hang or a full
disk."""

from __future__ import annotations

import io
import json
import os
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from privault import imports
from privault.errors import InputError
from privault.imports import Bad, Memory, NotThisKind, Page, jsonstream
from privault.interfaces.cli import app
from privault.retrieval.frontmatter import split_front_matter
from privault.timeutil import now_ms, parse_time
from tests import import_samples as samples
from tests.helpers import FakeEngineRunner

runner = FakeEngineRunner()

DEEP = "[" * 5000 + "]" * 5000  # far past what Python's JSON decoder recurses through


@pytest.fixture(autouse=True)
def _python_s_recursion_limit() -> Iterator[None]:
    """The recursion limit a privault process runs with. A test run raises it once mypy
    has run in-process (to 16,384), and then `DEEP` decodes."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    yield
    sys.setrecursionlimit(before)


def read_all(kind: str, path: Path) -> list[imports.Item]:
    return list(imports.reader(kind)(path))


def pages(items: list[imports.Item]) -> list[Page]:
    return [item for item in items if isinstance(item, Page)]


# ---- JSON nested too deep -------------------------------------------------------------


@pytest.mark.parametrize("block", [1, 7, 1 << 20])
def test_an_element_nested_too_deep_is_reported_and_the_elements_after_it_read(
    block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jsonstream, "BLOCK", block)
    # Brackets and escaped quotes inside its strings do not end it.
    deep = '{"m": ' + "[" * 3000 + '"]]\\"[", {"k": "}"}' + "]" * 3000 + "}"
    text = f'[{{"a": 1}}, {deep}, {{"b": 2}}, {DEEP}]'
    first, broken, second, last = jsonstream.iter_array(io.StringIO(text), "t")
    assert first == {"a": 1} and second == {"b": 2}
    for element, index in ((broken, 1), (last, 3)):
        assert isinstance(element, jsonstream.BrokenElement) and element.index == index
        assert "nested too deep" in element.reason


def test_a_member_nested_too_deep_is_reported_and_the_members_after_it_read() -> None:
    text = f'{{"a": {{"x": {DEEP}}}, "b": [1, {DEEP}, 2], "c": 3}}'
    found = [
        (name, list(value) if name == "b" else value)
        for name, value in jsonstream.iter_members(io.StringIO(text), "t")
    ]
    (a, deep_a), (b, (one, deep_b, two)), c = found
    assert (a, b, one, two, c) == ("a", "b", 1, 2, ("c", 3))
    assert all(isinstance(d, jsonstream.BrokenElement) for d in (deep_a, deep_b))


def test_a_deep_element_cut_short_ends_the_array() -> None:
    *_, broken = jsonstream.iter_array(io.StringIO('[{"a": 1}, ' + "[" * 5000), "t")
    assert isinstance(broken, jsonstream.BrokenElement) and "truncated" in broken.reason


@pytest.mark.parametrize("kind", ["chatgpt", "claude"])
def test_a_conversation_nested_too_deep_is_reported_and_the_rest_imported(
    tmp_path: Path, kind: str
) -> None:
    good = samples.chatgpt_conversation() if kind == "chatgpt" else samples.claude_conversation()
    text = json.dumps(good)
    path = tmp_path / "conversations.json"
    path.write_text(f'[{{"id": "x1", "mapping": {DEEP}}}, {text}]')
    bad, page = read_all(kind, path if kind == "chatgpt" else tmp_path)[:2]
    assert isinstance(bad, Bad) and bad.where == "conversation 1"
    assert "nested too deep" in bad.reason
    assert isinstance(page, Page) and page.label == "conversation"


def test_claude_side_file_nested_too_deep_is_reported_and_conversations_imported(
    tmp_path: Path,
) -> None:
    folder = samples.claude_export(tmp_path, [samples.claude_conversation()])
    (folder / "memories.json").write_text(f'[{{"conversations_memory": {DEEP}}}]')
    items = read_all("claude", folder)
    (bad,) = [i for i in items if isinstance(i, Bad)]
    assert bad.where == "memories.json" and "nested too deep" in bad.reason
    assert {p.label for p in pages(items)} == {"conversation", "project"}


@pytest.mark.parametrize("docs", [5, True, 1.5])
def test_a_claude_project_of_an_odd_shape_is_reported_and_the_rest_imported(
    tmp_path: Path, docs: object
) -> None:
    folder = samples.claude_export(tmp_path, [samples.claude_conversation()])
    projects = json.loads((folder / "projects.json").read_text())
    odd = {"uuid": "p-odd", "name": "Odd", "description": "desc", "docs": docs}
    (folder / "projects.json").write_text(json.dumps([odd, *projects]))
    items = read_all("claude", folder)
    (bad,) = [i for i in items if isinstance(i, Bad)]
    assert (bad.where, bad.key) == ("project 1", "p-odd")  # the key its page would have had
    assert "unreadable project (TypeError" in bad.reason
    assert [p.title for p in pages(items) if p.label == "project"] == ["Garden plan"]
    assert {p.label for p in pages(items)} == {"conversation", "memory", "project"}


@pytest.mark.parametrize("name", ["memories.jsonl", "memories.json"])
def test_a_mem0_memory_nested_too_deep_is_reported_and_the_rest_imported(
    tmp_path: Path, name: str
) -> None:
    records = [
        {"id": "a", "memory": "Likes tea"},
        f'{{"id": "d", "memory": "deep", "metadata": {DEEP}}}',
        {"id": "b", "memory": "Lives in Leeds"},
    ]
    texts = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path = tmp_path / name
    path.write_text("\n".join(texts) if name.endswith("l") else "[" + ", ".join(texts) + "]")
    first, bad, second = read_all("mem0", path)
    assert isinstance(first, Memory) and isinstance(second, Memory)
    assert isinstance(bad, Bad) and "nested too deep" in bad.reason


def test_a_mem0_memory_whose_metadata_nests_too_deep_to_keep_is_reported(tmp_path: Path) -> None:
    # Python decodes a few hundred levels, then every later walk of them (the gate's, the
    # store's) recursed past its limit: a traceback that lost the rest of the import.
    from privault.imports.mem0_records import MAX_METADATA_DEPTH as LEVELS

    def nested(levels: int) -> dict[str, object]:
        return {"x": json.loads("[" * (levels - 1) + "]" * (levels - 1))}

    path = tmp_path / "memories.json"
    path.write_text(
        json.dumps(
            [
                {"id": "a", "memory": "Likes tea", "metadata": nested(LEVELS)},
                {"id": "d", "memory": "Lives in Leeds", "metadata": nested(LEVELS + 1)},
                {"id": "e", "memory": "Walks daily", "metadata": nested(900)},
            ]
        )
    )
    kept, *refused = read_all("mem0", path)
    assert isinstance(kept, Memory) and kept.content == "Likes tea"
    assert [(b.key, b.reason) for b in refused if isinstance(b, Bad)] == [
        (key, f"metadata nested over {LEVELS} levels deep") for key in ("d", "e")
    ]


# ---- YAML front matter --------------------------------------------------------------

IMPOSSIBLE_DATES = ["2024-13-45", "2024-01-01 25:00:00", "2024-02-30", "!!timestamp soon"]


@pytest.mark.parametrize("created", IMPOSSIBLE_DATES)
def test_a_markdown_file_with_an_impossible_date_is_added_dated_when_added(
    tmp_path: Path, created: str
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text(f"---\ntitle: Shed\ncreated: {created}\n---\nThe door sticks.\n")
    (folder / "b.md").write_text("---\ncreated: 2023-11-20\n---\n# Boiler\nServiced.\n")
    before = now_ms()
    added = runner.invoke(app, ["add", str(folder), "--json"])
    assert added.exit_code == 0, added.output
    assert json.loads(added.stdout)["failed"] == []
    docs = json.loads(runner.invoke(app, ["docs", "--json"]).stdout)["documents"]
    dated = {doc["title"]: parse_time(doc["created_at"]) for doc in docs}
    assert dated["Shed"] >= before  # the rest of its front matter still counts
    assert dated["Boiler"] == parse_time("2023-11-20T00:00:00Z")


@pytest.mark.parametrize(
    ("front", "title"),
    [
        ("title: {a: 1}", None),
        ("title: [1, 2]", None),
        ("title: !!binary aGVsbG8=", None),
        ("title: 42", "42"),
        ("title: 2024-05-01", "2024-05-01"),
        ("title: Garden plan", "Garden plan"),
    ],
)
def test_a_front_matter_title_is_its_text_never_a_python_form(
    front: str, title: str | None
) -> None:
    found, _ = split_front_matter(f"---\n{front}\n---\nBody\n")
    assert found is not None and found.title == title


@pytest.mark.parametrize(
    "front",
    ["k: " + "[" * 3000 + "]" * 3000, "n: !!int ten", "b: !!bool maybe", "d: 1" + "0" * 5000],
)
def test_front_matter_yaml_cannot_read_leaves_the_file_as_written(front: str) -> None:
    text = f"---\n{front}\n---\nBody\n"
    assert split_front_matter(text) == (None, text)


def test_obsidian_front_matter_too_deep_or_odd_keeps_it_as_text(tmp_path: Path) -> None:
    root = tmp_path / "V"
    (root / ".obsidian").mkdir(parents=True)
    deep = "k: " + "[" * 3000 + "]" * 3000
    (root / "a.md").write_text(f"---\n{deep}\n---\nDeep body\n")
    (root / "b.md").write_text("---\nb: !!bool maybe\n---\nOdd body\n")
    (root / "c.md").write_text("Plain body\n")
    found = {p.key: p for p in pages(read_all("obsidian", root))}
    assert set(found) == {"V/a.md", "V/b.md", "V/c.md"}
    for key, body in (("V/a.md", "Deep body"), ("V/b.md", "Odd body")):
        assert found[key].text.startswith("---\n") and body in found[key].text
        assert "unreadable YAML front matter" in found[key].metadata["front_matter"]


@pytest.mark.parametrize("created", IMPOSSIBLE_DATES)
def test_obsidian_note_with_an_impossible_date_keeps_the_rest_of_its_front_matter(
    tmp_path: Path, created: str
) -> None:
    root = tmp_path / "V"
    (root / ".obsidian").mkdir(parents=True)
    (root / "2024-03-01.md").write_text(
        f"---\ntitle: Shed\ntags: [garden]\ncreated: {created}\n---\nThe door sticks.\n"
    )
    (note,) = read_all("obsidian", root)
    assert isinstance(note, Page) and (note.title, note.tags) == ("Shed", ("garden",))
    assert note.text == "The door sticks.\n" and "front_matter" not in note.metadata
    assert note.created_at == parse_time("2024-03-01T00:00:00Z")  # then, by its name


# ---- zips inside zips -----------------------------------------------------------------


def test_a_notion_part_that_would_unpack_a_thousandfold_refuses_the_export(
    tmp_path: Path,
) -> None:
    from privault.imports import notion

    # A run of zeros packs a thousandfold: unpacked to a temporary file, a 10 MB download
    # took 10 GB of disk. The part is refused by the size it states, before it is unpacked.
    part = io.BytesIO()
    with zipfile.ZipFile(part, "w") as inner:
        inner.writestr(f"Page {samples.NOTION_CHILD}.md", "# Page\n")
        inner.writestr("zeros.bin", bytes(20_000_000))
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"Export-1/Home {samples.NOTION_PAGE}.md", "# Home\n\nWelcome.\n")
        archive.writestr("part-2.zip", part.getvalue())
    assert path.stat().st_size < 100_000
    stated = zipfile.ZipFile(path).getinfo("part-2.zip")
    refused = runner.invoke(app, ["add", "--from", "notion", str(path)])
    assert isinstance(refused.exception, InputError)
    assert str(refused.exception) == (
        "cannot read export.zip: part-2.zip, a part of the export, would unpack to over "
        f"{stated.compress_size * notion.MAX_PART_RATIO:,} bytes ({stated.file_size:,})"
    )


def test_a_notion_part_over_the_size_limit_refuses_the_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from privault.imports import notion

    path = samples.notion_export(tmp_path, nested=True)  # parts stored: packed as large
    assert len(pages(read_all("notion", path))) > 1
    size = zipfile.ZipFile(path).getinfo("Export-abc-Part-1.zip").file_size
    monkeypatch.setattr(notion, "MAX_PART_BYTES", size - 1)
    with pytest.raises(OSError, match=f"would unpack to over {size - 1:,} bytes"):
        read_all("notion", path)


# ---- named pipes ----------------------------------------------------------------------
# Opening a named pipe to read waits for a writer: without their fixes these tests hang
# until the timeout fails them.


@pytest.mark.timeout(20)
def test_an_obsidian_vault_skips_named_pipes(tmp_path: Path) -> None:
    root = tmp_path / "V"
    (root / ".obsidian").mkdir(parents=True)
    (root / "a.md").write_text("A note\n")
    os.mkfifo(root / "p.md")
    os.mkfifo(root / "q.pdf")
    assert [p.key for p in pages(read_all("obsidian", root))] == ["V/a.md"]


def _daily_notes_settings(root: Path, how: str) -> str:
    """Spoil an Obsidian vault's daily-notes settings in the way `how` names; the reason
    the import gives for not reading it."""
    settings = root / ".obsidian" / "daily-notes.json"
    if how == "named pipe":
        os.mkfifo(settings)
        return "not a regular file"
    if how == "link out":
        outside = root.parent / "elsewhere.json"
        outside.write_text('{"format": "DD.MM.YYYY"}')
        settings.symlink_to(outside)
        return "a link to a file outside the vault folder"
    if how == "too deep":
        settings.write_text("[" * 200_000 + "]" * 200_000)
        return jsonstream.TOO_DEEP
    if how == "too large":
        settings.write_text(json.dumps({"format": "DD.MM.YYYY", "pad": " " * (1 << 20)}))
        return f"not read (daily-notes.json is {settings.stat().st_size:,} bytes, over the "
    if how == "not UTF-8":
        settings.write_bytes(b'{"format": "DD.MM.YYYY \xff"}')
        return "not UTF-8 text"
    settings.write_text('{"format": ')
    return "not valid JSON (Expecting value)"


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    "how", ["named pipe", "link out", "too deep", "too large", "not UTF-8", "not JSON"]
)
def test_obsidian_daily_notes_settings_that_cannot_be_read_are_reported_and_taken_as_absent(
    tmp_path: Path, how: str
) -> None:
    root = tmp_path / "V"
    (root / ".obsidian").mkdir(parents=True)
    (root / "01.03.2024.md").write_text("A daily note in another format\n")
    (root / "2024-03-02.md").write_text("A daily note by the default format\n")
    reason = _daily_notes_settings(root, how)
    items = read_all("obsidian", root)
    (bad,) = [item for item in items if isinstance(item, Bad)]
    assert (bad.where, bad.label, bad.key) == (
        ".obsidian/daily-notes.json",
        "settings",
        "V/.obsidian/daily-notes.json",
    )
    assert bad.reason.startswith(reason)
    assert bad.reason.endswith("; daily notes are dated by YYYY-MM-DD names")
    dated = {page.key: page.created_at for page in pages(items)}
    assert dated == {"V/01.03.2024.md": None, "V/2024-03-02.md": parse_time("2024-03-02")}
    report = runner.invoke(app, ["add", "--from", "obsidian", str(root), "--json"])
    assert report.exit_code == 0, (report.output, report.exception)
    assert json.loads(report.stdout)["added"] == 2


@pytest.mark.timeout(20)
def test_a_notion_folder_skips_named_pipes(tmp_path: Path) -> None:
    root = samples.notion_export(tmp_path, zipped=False)
    expected = [p.key for p in pages(read_all("notion", root))]
    os.mkfifo(root / f"Pipe {samples.NOTION_ROW}.md")
    assert imports.detect(root) == "notion"
    assert [p.key for p in pages(read_all("notion", root))] == expected


@pytest.mark.timeout(20)
@pytest.mark.parametrize("kind", ["chatgpt", "claude", "mem0", "mbox"])
def test_a_named_pipe_where_an_export_should_be_is_refused(tmp_path: Path, kind: str) -> None:
    os.mkfifo(tmp_path / "conversations.json")
    with pytest.raises(NotThisKind, match="not an export privault recognises"):
        imports.detect(tmp_path)
    with pytest.raises(NotThisKind):
        read_all(
            kind, tmp_path if kind in ("chatgpt", "claude") else tmp_path / "conversations.json"
        )


@pytest.mark.timeout(20)
def test_add_refuses_a_named_pipe_given_by_name(tmp_path: Path) -> None:
    pipe = tmp_path / "p.md"
    os.mkfifo(pipe)
    (tmp_path / "a.md").write_text("# A\nA note.\n")
    added = runner.invoke(app, ["add", str(pipe), str(tmp_path / "a.md"), "--json"])
    report = json.loads(added.stdout)
    assert report["added"] == 1
    assert [failed["reason"] for failed in report["failed"]] == [
        f"{pipe}: not a regular file (a named pipe or a device)"
    ]
