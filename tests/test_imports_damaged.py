"""Exports with one file that cannot be read: a zip member packed with a password, or by a
method Python cannot unpack (Deflate64, which Windows uses for large zips), or damaged; a
link out of the export's folder; a mail too large to read; a file full of NUL bytes. Where
the export has many files or items, that one is reported and the rest imported; where the
export is that one file, the import is refused in one line, never an internal error."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from privault import imports
from privault.encodings import decode_export
from privault.errors import InputError
from privault.imports import Bad, Page
from privault.interfaces.cli import app
from tests import import_samples as samples
from tests.helpers import FakeEngineRunner

runner = FakeEngineRunner()

SPOILS = ["encrypted", "deflate64", "damaged"]
REASONS = {
    "encrypted": "is encrypted (the zip has a password); not read",
    "deflate64": (
        "is packed in a way privault cannot unpack "
        "(zip method 9: That compression method is not supported)"
    ),
    "damaged": "is damaged (Error -3 while decompressing data: invalid block type)",
}


def spoil(path: Path, member: str, how: str) -> None:
    """Make one member of the zip at `path` unreadable, the way `how` names: flagged as
    packed with a password, marked as packed by Deflate64, or its packed bytes broken."""
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(member)
    data = bytearray(path.read_bytes())
    local = info.header_offset
    name = member.encode()
    central = data.find(b"PK\x01\x02")
    while data[central + 46 : central + 46 + len(name)] != name:
        central = data.find(b"PK\x01\x02", central + 4)
    if how == "encrypted":
        data[local + 6] |= 1
        data[central + 8] |= 1
    elif how == "deflate64":
        data[local + 8 : local + 10] = data[central + 10 : central + 12] = (9).to_bytes(2, "little")
    else:
        assert info.compress_type == zipfile.ZIP_DEFLATED
        start = local + 30 + len(name) + int.from_bytes(data[local + 28 : local + 30], "little")
        data[start : start + info.compress_size] = b"\xff" * info.compress_size
    path.write_bytes(bytes(data))


def zipped(path: Path, files: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return path


def imported(path: Path, kind: str) -> dict[str, object]:
    result = runner.invoke(app, ["add", "--from", kind, str(path), "--json"])
    assert result.exit_code == 0, (result.output, result.exception)
    report: dict[str, object] = json.loads(result.stdout)
    return report


# ---- one file of many: reported, the rest imported ------------------------------------


@pytest.mark.parametrize("how", SPOILS)
def test_a_notion_page_that_cannot_be_unpacked_is_reported_and_the_pages_after_it_imported(
    tmp_path: Path, how: str
) -> None:
    ids = ["0" * 31 + "a", "0" * 31 + "b", "0" * 31 + "c"]
    titles = ["A", "B", "C"]
    names = [f"Export-1/{title} page {id_}.md" for title, id_ in zip(titles, ids, strict=True)]
    texts = [f"# {title} page\n\nText of {title}.\n" for title in titles]
    path = zipped(tmp_path / "notion.zip", dict(zip(names, texts, strict=True)))
    spoil(path, names[1], how)
    items = list(imports.reader("notion")(path))
    assert [p.title for p in items if isinstance(p, Page)] == ["A page", "C page"]
    (bad,) = [item for item in items if isinstance(item, Bad)]
    assert bad.key == ids[1]  # still at the source: not reported as deleted there
    report = imported(path, "notion")
    assert report["added"] == 2
    assert report["failed"] == [
        {"item": names[1], "reason": f"cannot read (B page {ids[1]}.md {REASONS[how]})"}
    ]


@pytest.mark.parametrize("how", ["encrypted", "deflate64"])
@pytest.mark.parametrize("which", ["row page", "table"])
def test_a_notion_database_file_that_cannot_be_unpacked_is_reported_and_the_rest_imported(
    tmp_path: Path, how: str, which: str
) -> None:
    path = samples.notion_export(tmp_path)
    rows = f"Home {samples.NOTION_PAGE}/Tasks {samples.NOTION_DB}"
    member = (
        f"{rows}/Renew passport {samples.NOTION_ROW}.md"
        if which == "row page"
        else (f"{rows}_all.csv")
    )
    spoil(path, member, how)
    items = list(imports.reader("notion")(path))
    (bad,) = [item for item in items if isinstance(item, Bad)]
    assert REASONS[how] in bad.reason
    titles = {p.title for p in items if isinstance(p, Page)}
    assert {"Home", "Recipes"} <= titles
    if which == "row page":
        assert {"Call bank", "Hidden row"} <= titles and "Renew passport" not in titles
        assert bad.key == samples.NOTION_ROW


@pytest.mark.parametrize("how", ["encrypted", "deflate64"])
def test_a_claude_side_file_that_cannot_be_unpacked_is_reported_and_the_rest_imported(
    tmp_path: Path, how: str
) -> None:
    path = samples.claude_export(tmp_path, [samples.claude_conversation()], zipped=True)
    spoil(path, "projects.json", how)
    items = list(imports.reader("claude")(path))
    assert [p.label for p in items if isinstance(p, Page)] == ["conversation", "memory"]
    (bad,) = [item for item in items if isinstance(item, Bad)]
    assert (bad.where, bad.reason) == ("projects.json", f"not read (projects.json {REASONS[how]})")


# ---- the export is that one file: refused in one line ---------------------------------


def _chatgpt(tmp_path: Path) -> Path:
    return samples.chatgpt_export(tmp_path, [samples.chatgpt_conversation()], zipped=True)


def _claude(tmp_path: Path) -> Path:
    return samples.claude_export(tmp_path, [samples.claude_conversation()], zipped=True)


def _notion_parts(tmp_path: Path) -> Path:
    return samples.notion_export(tmp_path, nested=True)


def _mem0_lines(tmp_path: Path) -> Path:
    """An OpenMemory zip with its memories as JSON Lines only."""
    with zipfile.ZipFile(samples.mem0_export(tmp_path)) as archive:
        lines = archive.read("memories.jsonl.gz")
    path = tmp_path / "lines.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("memories.jsonl.gz", lines)
    return path


@pytest.mark.parametrize("how", ["encrypted", "deflate64"])
@pytest.mark.parametrize(
    ("kind", "make", "member"),
    [
        ("chatgpt", _chatgpt, "conversations.json"),
        ("claude", _claude, "conversations.json"),
        ("mem0", samples.mem0_export, "memories.json"),
        ("mem0", _mem0_lines, "memories.jsonl.gz"),
        # A part of a Notion export holds thousands of its pages: not one item to skip.
        ("notion", _notion_parts, "Export-abc-Part-1.zip"),
    ],
)
def test_an_export_whose_one_file_cannot_be_unpacked_is_refused_in_one_line(
    tmp_path: Path, how: str, kind: str, make: object, member: str
) -> None:
    assert callable(make)
    path: Path = make(tmp_path)
    spoil(path, member, how)
    imports.fitting(path)  # telling the kind does not fail either
    refused = runner.invoke(app, ["add", "--from", kind, str(path)])
    assert isinstance(refused.exception, InputError), refused.exception
    assert str(refused.exception) == f"cannot read {path.name}: {member} {REASONS[how]}"


def test_a_conversations_file_whose_lzma_stream_breaks_is_refused_in_one_line(
    tmp_path: Path,
) -> None:
    data = json.dumps([samples.chatgpt_conversation()] * 50).encode()
    path = tmp_path / "chatgpt.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_LZMA) as archive:
        archive.writestr("conversations.json", data)
    raw = bytearray(path.read_bytes())
    middle = len(raw) // 2
    raw[middle : middle + 64] = bytes(64)
    path.write_bytes(bytes(raw))
    refused = runner.invoke(app, ["add", "--from", "chatgpt", str(path)])
    assert isinstance(refused.exception, InputError), refused.exception
    assert str(refused.exception).startswith(f"cannot read {path.name}: ")


def test_an_export_whose_deflate_stream_breaks_at_its_start_is_refused_when_told_apart(
    tmp_path: Path,
) -> None:
    """Telling the kind reads the first bytes of conversations.json: a stream damaged
    there raised zlib's own error out of `add` with no --from (an internal error)."""
    path = tmp_path / "chatgpt.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversations.json", json.dumps([samples.chatgpt_conversation()] * 50))
    raw = bytearray(path.read_bytes())
    start = 30 + len("conversations.json") + 5  # into the compressed stream
    raw[start : start + 40] = bytes(b ^ 0xFF for b in raw[start : start + 40])
    path.write_bytes(bytes(raw))
    refused = runner.invoke(app, ["add", str(path)])
    assert isinstance(refused.exception, SystemExit), refused.exception  # not zlib's error
    assert refused.exit_code == 1 and "failed 1" in refused.output


# ---- mail: a link out of the folder, a message too large to read ----------------------


def test_an_mbox_folder_reports_a_link_out_of_it_and_reads_the_rest(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.mbox"
    outside.write_bytes(samples.MBOX)
    folder = tmp_path / "Mail"
    folder.mkdir()
    (folder / "Inbox").write_bytes(samples.MBOX)
    (folder / "Linked").symlink_to(outside)
    (tmp_path / "Old").mkdir()
    (tmp_path / "Old" / "Sent").write_bytes(samples.MBOX)
    (folder / "Old").symlink_to(tmp_path / "Old")  # a folder of mailboxes outside
    (folder / "Here").symlink_to(folder, target_is_directory=True)  # read where it lies
    items = list(imports.reader("mbox")(folder))
    bad = [(item.where, item.reason) for item in items if isinstance(item, Bad)]
    assert bad == [
        ("Linked", "a link to a file outside the mailbox folder; not read"),
        ("Old", "a link to a folder outside the mailbox folder; not read"),
    ]
    assert {page.scope for page in items if isinstance(page, Page)} == {"Inbox"}
    assert len([item for item in items if isinstance(item, Page)]) == 3


def test_an_mbox_folder_reports_a_link_that_leads_nowhere_as_such(tmp_path: Path) -> None:
    folder = tmp_path / "Mail"
    folder.mkdir()
    (folder / "Inbox").write_bytes(samples.MBOX)
    (folder / "Loop").symlink_to(folder / "Loop")  # not a link out of the folder
    (folder / "Moved").symlink_to(folder / "Archive")  # a mailbox since moved away
    items = list(imports.reader("mbox")(folder))
    nowhere = "a link that leads nowhere (its target is gone, or links loop); not read"
    bad = [(item.where, item.reason) for item in items if isinstance(item, Bad)]
    assert bad == [("Loop", nowhere), ("Moved", nowhere)]
    assert len([item for item in items if isinstance(item, Page)]) == 3


def _mail(number: int, body: bytes) -> bytes:
    return (
        (
            f"From a@example.com Mon Jan  1 10:0{number}:00 2024\n"
            f"From: A <a@example.com>\nSubject: Mail {number}\n"
            f"Message-ID: <m{number}@example.com>\n\n"
        ).encode()
        + body
        + b"\n\n"
    )


def test_an_mbox_message_over_the_limit_is_reported_unread_and_the_rest_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from privault.imports import mbox

    limit = 64 * 1024
    monkeypatch.setattr(mbox, "MAX_MESSAGE_BYTES", limit)
    monkeypatch.setattr(mbox, "_SCAN_BYTES", 4096)
    path = tmp_path / "mail.mbox"
    path.write_bytes(
        _mail(1, b"Small one.") + _mail(2, b"x" * (4 * limit)) + _mail(3, b"Small too.")
    )
    largest: list[int] = []
    opened = Path.open

    class Watched:
        """The mailbox file, noting how much each read asks for."""

        def __init__(self, stream: io.BufferedReader) -> None:
            self.stream = stream

        def __enter__(self) -> Watched:
            return self

        def __exit__(self, *exc: object) -> None:
            self.stream.close()

        def seek(self, offset: int) -> int:
            return self.stream.seek(offset)

        def read(self, size: int) -> bytes:
            largest.append(size)
            return self.stream.read(size)

    monkeypatch.setattr(Path, "open", lambda self, *a, **k: Watched(opened(self, *a, **k)))
    items = list(imports.reader("mbox")(path))
    monkeypatch.undo()
    assert [p.title for p in items if isinstance(p, Page)] == ["Mail 1", "Mail 3"]
    (bad,) = [item for item in items if isinstance(item, Bad)]
    size = len(_mail(2, b"x" * (4 * limit)))  # its place in the file, `From ` line and all
    assert (bad.where, bad.key) == ("mail.mbox message 2", "m2@example.com")
    assert bad.reason == f"{size:,} bytes, over the {limit:,}-byte limit; not read"
    assert max(largest) <= limit  # never read whole


# ---- a file full of NUL bytes: not text ----------------------------------------------


@pytest.mark.parametrize(
    "data",
    ["A note saved as UTF-16 with no byte order mark\n".encode("utf-16-le"), b"\x7fELF\x02\x00"],
    ids=["UTF-16 with no mark", "binary"],
)
def test_decode_export_refuses_bytes_with_nul_it_cannot_read_as_text(data: bytes) -> None:
    with pytest.raises(ValueError, match="contains NUL bytes; is it binary"):
        decode_export(data)


def test_decode_export_still_reads_utf_16_by_its_byte_order_mark() -> None:
    assert decode_export("A note\n".encode("utf-16")) == "A note\n"  # the mark written first


@pytest.mark.parametrize("which", ["row page", "table"])
def test_a_notion_database_file_full_of_nul_bytes_is_reported_and_the_rest_imported(
    tmp_path: Path, which: str
) -> None:
    files = samples.notion_files()
    rows = f"Home {samples.NOTION_PAGE}/Tasks {samples.NOTION_DB}"
    spoiled = (
        f"{rows}/Renew passport {samples.NOTION_ROW}.md"
        if which == "row page"
        else (f"{rows}_all.csv")
    )
    path = tmp_path / "notion.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            # UTF-16 with no byte order mark: read as text, its every other byte a NUL
            unmarked = text.lstrip("\ufeff").encode("utf-16-le")
            archive.writestr(name, unmarked if name == spoiled else text.encode())
    items = list(imports.reader("notion")(path))
    (bad,) = [item for item in items if isinstance(item, Bad)]
    assert bad.reason.endswith("(contains NUL bytes; is it binary?)")
    found = [item for item in items if isinstance(item, Page)]
    assert not [page.title for page in found if "\x00" in page.text + page.title]
    titles = {page.title for page in found}
    assert {"Home", "Recipes"} <= titles
    if which == "row page":
        assert {"Call bank", "Hidden row"} <= titles and "Renew passport" not in titles
        assert bad.key == samples.NOTION_ROW
