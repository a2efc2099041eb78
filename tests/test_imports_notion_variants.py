"""Notion databases as Notion really lays them out: the rows' folder named with the
database's id (older exports) or without it (newer ones, teamspaces), no folders at all
("Create folders for subpages" off), and row pages whose file names lost part of their
title. Each export is built here."""

from __future__ import annotations

import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from privault import imports
from privault.caller import Caller
from privault.imports import Page
from privault.store import documents
from privault.vault import Vault

OWNER = Caller.owner()
HOME = "106a6c241b8797f52e1e77317b96a201"
DB = "d77d5e503ad1439f585ac494268b351b"
LONG = "A very long task title that goes on and on well beyond fifty characters for sure"
# (title, status, created, row page id, row page file name as Notion writes it, body)
ROWS = [
    ("Renew passport", "Done", "October 13, 2022 6:09 PM", "7c92cf1eee8d99cc85f8355a3d6e4b86",
     "Renew passport", "Bring photo PHRASE_ROW1"),
    ("Q1/Q2 planning: budget", "Todo", "November 2, 2023 10:00 AM",
     "d279186428a75016b17e4df5ea43d080", "Q1 Q2 planning budget", "PHRASE_ROW2 slash title"),
    (LONG, "Todo", "January 3, 2024 9:00 AM", "9d3e622df914d8de7f747b7b8b143c52",
     LONG[:50], "PHRASE_ROW3 long title"),
    ("Call bank", "Todo", "March 4, 2024 8:00 AM", "44379f2b1a5611f625592bbf6e596a47",
     "Call bank", "PHRASE_ROW4 first call"),
    ("Call bank", "Done", "March 5, 2024 8:00 AM", "ed84d589f231f3dc4203153e6fb4b4d5",
     "Call bank", "PHRASE_ROW5 second call"),
]  # fmt: skip
# Where each layout puts the home page, its children (the database), the row pages.
LAYOUTS = {
    "older, folders with ids": ("", f"Home {HOME}/", f"Home {HOME}/Tasks {DB}/"),
    "newer, folders without ids": ("", "Home/", "Home/Tasks/"),
    "teamspace": ("Private & Shared/", "Private & Shared/Home/", "Private & Shared/Home/Tasks/"),
    "no folders for subpages": ("", "", ""),
}


def ms(text: str) -> int:
    """An ISO time as epoch ms UTC."""
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp() * 1000)


def row_page(title: str, status: str, created: str, body: str) -> str:
    """A row's page: its title, its properties as `Key: Value` lines, its text."""
    return f"# {title}\n\nStatus: {status}\nCreated: {created}\n\n{body}\n"


def notion_files(layout: str, rows: list[tuple[str, ...]] = ROWS) -> dict[str, str]:
    """The files of an export with a home page and a Tasks database of `rows`."""
    home, children, row_folder = LAYOUTS[layout]
    table = "Name,Status,Created\n" + "".join(f'{t},{s},"{c}"\n' for t, s, c, *_ in rows)
    files = {
        f"{home}Home {HOME}.md": "# Home\n\nPHRASE_HOME\n",
        f"{children}Tasks {DB}.csv": "\ufeff" + table,
        f"{children}Tasks {DB}_all.csv": "\ufeff" + table,
    }
    for title, status, created, page_id, file_name, body in rows:
        files[f"{row_folder}{file_name} {page_id}.md"] = row_page(title, status, created, body)
    return files


def notion_zip(path: Path, files: dict[str, str]) -> Path:
    """`files` (path: text) as Notion zips them."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return path


def current(vault: Vault) -> list[documents.Document]:
    """The vault's current documents."""
    return documents.list_documents(vault.conn, shelves=None, limit=1000)


def read_pages(path: Path) -> list[Page]:
    """Every page and row the reader yields (a failure would be a `Bad`: none expected)."""
    items = list(imports.reader("notion")(path))
    assert all(isinstance(item, Page) for item in items), items
    return [item for item in items if isinstance(item, Page)]


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_each_row_is_one_document_with_its_page_text_and_its_date(
    tmp_path: Path, layout: str
) -> None:
    found = read_pages(notion_zip(tmp_path / "export.zip", notion_files(layout)))
    assert [p.title for p in found if p.label == "page"] == ["Home"]  # no row page left over
    rows = [p for p in found if p.label == "row"]
    assert [(p.title, p.key) for p in rows] == [(r[0], r[3]) for r in ROWS]
    for row, (_, status, created, _, _, body) in zip(rows, ROWS, strict=True):
        assert row.text.rstrip().endswith(body)  # the page's text, its property lines gone
        assert row.text.count(f"Status: {status}") == 1  # in the front matter, once
        assert row.created_at == ms(datetime.strptime(created, "%B %d, %Y %I:%M %p").isoformat())


def test_a_row_page_is_known_by_its_heading_though_its_file_name_lost_the_title(
    tmp_path: Path,
) -> None:
    # The file names hold neither `/ :` nor the end of the long title: only the heading does.
    found = read_pages(notion_zip(tmp_path / "e.zip", notion_files("older, folders with ids")))
    rows = {p.title: p.text for p in found if p.label == "row"}
    assert "PHRASE_ROW2" in rows["Q1/Q2 planning: budget"]
    assert "PHRASE_ROW3" in rows[LONG]


def test_rows_of_the_same_title_take_their_pages_in_order(tmp_path: Path) -> None:
    found = read_pages(notion_zip(tmp_path / "e.zip", notion_files("newer, folders without ids")))
    calls = [p.text for p in found if p.title == "Call bank"]
    assert len(calls) == 2
    assert "Status: Todo" in calls[0] and calls[0].rstrip().endswith("PHRASE_ROW4 first call")
    assert "Status: Done" in calls[1] and calls[1].rstrip().endswith("PHRASE_ROW5 second call")


def test_a_row_page_without_a_heading_is_known_by_its_file_name(tmp_path: Path) -> None:
    files = notion_files("newer, folders without ids")
    files[f"Home/Tasks/Renew passport {ROWS[0][3]}.md"] = "Bring photo PHRASE_ROW1\n"
    found = read_pages(notion_zip(tmp_path / "e.zip", files))
    (row,) = [p for p in found if p.title == "Renew passport"]
    assert row.label == "row" and row.text.rstrip().endswith("PHRASE_ROW1")


def test_a_page_beside_the_database_is_no_row_when_the_rows_have_their_folder(
    tmp_path: Path,
) -> None:
    # Beside the CSV is looked only in an export without folders: here it is a page of its
    # own that happens to share a row's title.
    files = notion_files("newer, folders without ids")
    files["Home/Renew passport 99999999999999999999999999999999.md"] = "# Renew passport\n\nX\n"
    found = read_pages(notion_zip(tmp_path / "e.zip", files))
    assert [p.key for p in found if p.label == "page"] == [HOME, "9" * 32]
    (row,) = [p for p in found if p.label == "row" and p.title == "Renew passport"]
    assert row.key == ROWS[0][3] and "PHRASE_ROW1" in row.text


def test_in_an_export_without_folders_a_page_is_a_row_only_if_it_holds_its_properties(
    tmp_path: Path,
) -> None:
    # Beside the database any page may share a row's title ("Meeting notes"): one that
    # sorts first took the row, and the row's own page was imported as a page.
    files = {
        "Meeting notes 00000000000000000000000000000001.md": "# Meeting notes\n\nMy own page\n",
        "Tasks d77d5e503ad1439f585ac494268b351b.csv": "Name,Status\nMeeting notes,Done\n",
        "Meeting notes ffffffffffffffffffffffffffffffff.md": (
            "# Meeting notes\n\nStatus: Done\n\nThe row's own text\n"
        ),
    }
    pages = read_pages(notion_zip(tmp_path / "flat.zip", files))
    [row] = [page for page in pages if page.label == "row"]
    [other] = [page for page in pages if page.label == "page"]
    assert row.key == "f" * 32 and "The row's own text" in row.text
    assert "My own page" in other.text and "My own page" not in row.text


@pytest.mark.parametrize("table", ["Name\nDune\n", "Name,Status\nDune,\n"])
def test_in_an_export_without_folders_a_row_page_without_properties_is_still_its_row(
    tmp_path: Path, table: str
) -> None:
    # A title-only database, or a row whose properties are empty: its page holds no
    # property line, and is still the row's (the lone page of that title).
    files = {
        "Books d77d5e503ad1439f585ac494268b351b.csv": table,
        "Dune ffffffffffffffffffffffffffffffff.md": "# Dune\n\nOwn text\n",
    }
    [row] = read_pages(notion_zip(tmp_path / "flat.zip", files))
    assert row.label == "row" and "Own text" in row.text


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_importing_again_skips_every_row_and_page(
    vault: Vault, tmp_path: Path, layout: str
) -> None:
    path = notion_zip(tmp_path / "export.zip", notion_files(layout))
    first = vault.import_from("notion", path, caller=OWNER)
    assert (first.total("added"), first.total("updated")) == (6, 0)
    assert len(vault.docs(caller=OWNER).documents) == 6  # one document per row, and Home
    again = vault.import_from("notion", path, caller=OWNER)
    assert (again.total("added"), again.total("updated"), again.total("skipped")) == (0, 0, 6)
    assert again.gone == ()


def test_an_export_read_before_rows_were_known_by_their_heading_is_mended_on_import(
    vault: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Read as before (rows found by file name only), the two rows whose file names lost
    # their titles were each a row without its text and a page of its own, dated today.
    from privault.imports import notion

    path = notion_zip(tmp_path / "export.zip", notion_files("older, folders with ids"))
    with monkeypatch.context() as before:
        before.setattr(notion, "_heading", lambda entry: None)
        vault.import_from("notion", path, caller=OWNER)
    strays = {d.title: d.source for d in current(vault) if "database" not in d.metadata}
    assert set(strays) == {"Home", "Q1/Q2 planning: budget", LONG}

    report = vault.import_from("notion", path, caller=OWNER)
    # Each stray page is now its row (the row page's id was its key and still is): its
    # properties and the row's date added. The rows without text are gone at the source.
    assert report.counts["row"]["updated"] == 2 and len(report.gone) == 2
    by_source = {d.source: d for d in current(vault)}
    assert by_source[strays[LONG]].metadata["database"] == "Tasks"
    assert by_source[strays[LONG]].created_at == ms("2024-01-03T09:00")
    vault.import_from("notion", path, caller=OWNER, prune=True)
    titles = sorted(d.title for d in current(vault))
    assert titles == sorted(["Home", *(r[0] for r in ROWS)])


# ---- an unpacked export: links not followed ----------------------------------------------

OLDER = "older, folders with ids"
NOWHERE = "a link that leads nowhere (its target is gone, or links loop); not read"


def notion_folder(root: Path, files: dict[str, str]) -> Path:
    """`files` (path: text) as an unpacked export."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def reported(items: list[imports.Item]) -> list[tuple[str, str, str | None, str]]:
    """What the reader reported not read: (where, why, key, label)."""
    return [(i.where, i.reason, i.key, i.label) for i in items if isinstance(i, imports.Bad)]


def test_a_file_or_folder_linked_in_from_outside_the_export_is_reported_not_read(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / f"Secret {'5' * 32}.md").write_text("# Secret\n\nthe key under the mat\n")
    (outside / "Ledger.csv").write_text("Name\nthe key under the mat\n")
    root = notion_folder(tmp_path / "export", notion_files(OLDER))
    home = root / f"Home {HOME}"
    ledger = f"Ledger {'6' * 32}.csv"
    (root / ledger).symlink_to(outside / "Ledger.csv")
    (root / "Shared").symlink_to(outside)
    (home / "Deeper").symlink_to(outside)
    (root / "HomeLink").symlink_to(home)  # inside: its pages are read once, where they lie
    items = list(imports.reader("notion")(root))
    to_file = "a link to a file outside the export folder; not read"
    to_folder = "a link to a folder outside the export folder; not read"
    assert reported(items) == [
        (ledger, to_file, ledger, "link"),
        ("Shared", to_folder, "Shared", "folder"),
        (f"Home {HOME}/Deeper", to_folder, f"Home {HOME}/Deeper", "folder"),
    ]
    found = [i for i in items if isinstance(i, Page)]
    assert sorted(p.key for p in found) == sorted([HOME, *(r[3] for r in ROWS)])
    assert not any("under the mat" in p.text for p in found)


def test_a_link_in_the_export_that_leads_nowhere_or_to_a_hidden_folder_is_reported(
    tmp_path: Path,
) -> None:
    drive = tmp_path / "drive" / "Shared"  # a folder on a drive, since unplugged
    drive.mkdir(parents=True)
    files = notion_files(OLDER) | {f".archive/Old plans {'7' * 32}.md": "# Old plans\n\nHive\n"}
    root = notion_folder(tmp_path / "export", files)
    home = root / f"Home {HOME}"
    moved = f"Moved {'8' * 32}.md"
    (root / "Shared").symlink_to(drive)
    drive.rmdir()
    (root / "Loop").symlink_to(root / "Loop")  # a link to itself
    (home / "Ring").symlink_to(home / "Round")  # two, in a loop
    (home / "Round").symlink_to(home / "Ring")
    (root / moved).symlink_to(tmp_path / "gone.md")  # a page whose file went away
    (root / "Archive").symlink_to(root / ".archive")  # a hidden folder: its pages unread
    (home / "Up").symlink_to(root)  # a loop round the export: its pages read once
    items = list(imports.reader("notion")(root))
    hidden = "a link to a hidden folder of the export; not read"
    assert reported(items) == [
        ("Archive", hidden, "Archive", "folder"),
        ("Loop", NOWHERE, "Loop", "link"),
        ("Shared", NOWHERE, "Shared", "link"),
        (f"Home {HOME}/Ring", NOWHERE, f"Home {HOME}/Ring", "link"),
        (f"Home {HOME}/Round", NOWHERE, f"Home {HOME}/Round", "link"),
        (moved, f"cannot read ({NOWHERE})", "8" * 32, "page"),  # still the page's key
    ]
    found = [i for i in items if isinstance(i, Page)]
    assert sorted(p.key for p in found) == sorted([HOME, *(r[3] for r in ROWS)])


def test_links_not_followed_are_reported_each_time_and_leave_deletions_known(
    tmp_path: Path, vault: Vault
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "Ledger.csv").write_text("Name\nRent\n")
    wax = "9" * 32
    files = notion_files(OLDER) | {f"Wax {wax}.md": "# Wax\n\nCandles.\n"}
    root = notion_folder(tmp_path / "export", files)
    (root / f"Ledger {'6' * 32}.csv").symlink_to(outside / "Ledger.csv")  # its rows unknown
    (root / "Shared").symlink_to(outside)
    (root / "Loop").symlink_to(root / "Loop")
    first = vault.import_from("notion", root, caller=OWNER)
    (root / f"Wax {wax}.md").unlink()
    again = vault.import_from("notion", root, caller=OWNER)
    assert (
        first.failed
        == again.failed
        == (
            (f"Ledger {'6' * 32}.csv", "a link to a file outside the export folder; not read"),
            ("Shared", "a link to a folder outside the export folder; not read"),
            ("Loop", NOWHERE),
        )
    )
    assert again.deletions_unknown is None and [g.key for g in again.gone] == [wax]


def test_a_row_page_whose_file_went_away_is_reported_under_its_row_key_not_copied(
    tmp_path: Path, vault: Vault
) -> None:
    root = notion_folder(tmp_path / "export", notion_files(OLDER))
    vault.import_from("notion", root, caller=OWNER)
    row_page = root / f"Home {HOME}/Tasks {DB}/Renew passport {ROWS[0][3]}.md"
    row_page.unlink()
    row_page.symlink_to(tmp_path / "gone.md")  # moved away, the link left behind
    again = vault.import_from("notion", root, caller=OWNER)
    assert again.failed == (("Tasks row 'Renew passport'", f"cannot read ({NOWHERE})"),)
    assert again.total("added") == 0  # not the row again, without its text, under a new key
    assert again.deletions_unknown is None and again.gone == ()
