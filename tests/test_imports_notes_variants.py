"""Notes and memories as the apps and their plugins really write them: daily notes named in
any moment.js format, the Linter plugin's dates, aliases with spaces, folders linked into a
vault, mem0's history times. Each vault and export is built here."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from privault import imports
from privault.caller import Caller
from privault.imports import Page
from privault.vault import Vault


def ms(text: str) -> int:
    """An ISO time as epoch ms UTC."""
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp() * 1000)


def obsidian_vault(root: Path, notes: dict[str, str], daily: str | None = None) -> Path:
    """A vault holding `notes` (path: text), its daily notes named in the format `daily`."""
    (root / ".obsidian").mkdir(parents=True)
    if daily is not None:
        (root / ".obsidian" / "daily-notes.json").write_text(json.dumps({"format": daily}))
    for rel, text in notes.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def obsidian_pages(root: Path) -> dict[str, Page]:
    """The vault's notes by path."""
    items = imports.reader("obsidian")(root)
    return {item.key.split("/", 1)[1]: item for item in items if isinstance(item, Page)}


# ---- Obsidian: daily notes --------------------------------------------------------------


@pytest.mark.parametrize(
    ("daily", "name", "day"),
    [
        ("MMMM Do, YYYY", "January 5th, 2024", "2024-01-05"),
        ("MMMM Do, YYYY", "March 22nd, 2023", "2023-03-22"),
        ("Do MMMM YYYY", "1st February 2022", "2022-02-01"),
        ("D.M.YY", "5.1.24", "2024-01-05"),
        ("DD-MM-YY", "05-01-24", "2024-01-05"),
        ("[Week of] YYYY-MM-DD", "Week of 2024-03-04", "2024-03-04"),
        ("YYYY-MM-DD [Daily]", "2024-03-04 Daily", "2024-03-04"),
        ("dddd, MMMM D, YYYY", "Friday, January 5, 2024", "2024-01-05"),
        ("Journal/YYYY/MMMM Do, YYYY", "January 5th, 2024", "2024-01-05"),
    ],
)
def test_a_daily_note_named_in_its_moment_format_is_dated_by_its_name(
    tmp_path: Path, daily: str, name: str, day: str
) -> None:
    root = obsidian_vault(tmp_path / "V", {f"Journal/{name}.md": "Walked the dog.\n"}, daily)
    note = obsidian_pages(root)[f"Journal/{name}.md"]
    assert note.created_at == ms(day)


def test_a_name_that_is_not_in_the_daily_format_is_not_a_date(tmp_path: Path) -> None:
    notes = {"January 5th, 2024.md": "x\n", "Week 2024-03-04.md": "y\n", "2024-03-04.md": "z\n"}
    root = obsidian_vault(tmp_path / "V", notes, "[Week of] YYYY-MM-DD")
    found = obsidian_pages(root)
    assert found["January 5th, 2024.md"].created_at is None  # not its format
    assert found["Week 2024-03-04.md"].created_at is None  # the literal text differs
    assert found["2024-03-04.md"].created_at == ms("2024-03-04")  # ISO names always read


# ---- Obsidian: front matter dates -------------------------------------------------------


@pytest.mark.parametrize(
    ("front", "when"),
    [
        ("date created: Friday, January 5th 2024, 10:20:31 am", "2024-01-05T10:20:31"),
        ("date created: Saturday, March 2nd 2024, 9:05:00 pm", "2024-03-02T21:05:00"),
        ("date created: January 5th 2024, 10:20:31 am", "2024-01-05T10:20:31"),
        ("date created: Friday, January 5th 2024", "2024-01-05"),
        ("date created: 2024-01-05T10:20", "2024-01-05T10:20"),
        ("created_at: 2024-01-05 10:20:31", "2024-01-05T10:20:31"),
        ("created_at: '2024-01-05T10:20:31+02:00'", "2024-01-05T08:20:31"),
        # A creation key before `date`, whichever comes first in the note.
        (
            "date: 2020-01-01\ndate created: Friday, January 5th 2024, 10:20:31 am",
            "2024-01-05T10:20:31",
        ),
        ("created: 2023-03-04\ndate created: Friday, January 5th 2024, 1:00:00 am", "2023-03-04"),
        # One that cannot be read leaves the next key to date the note.
        ("date created: someday\ndate: 2022-02-02", "2022-02-02"),
    ],
)
def test_a_note_is_dated_by_the_creation_keys_plugins_write(
    tmp_path: Path, front: str, when: str
) -> None:
    text = f"---\n{front}\ndate modified: Saturday, January 6th 2024, 9:00:00 am\n---\nBees.\n"
    root = obsidian_vault(tmp_path / "V", {"Linter note.md": text})
    assert obsidian_pages(root)["Linter note.md"].created_at == ms(when)


def test_a_long_date_that_is_no_day_of_the_calendar_is_not_read(tmp_path: Path) -> None:
    text = "---\ndate created: Friday, February 30th 2024, 10:20:31 am\n---\nBees.\n"
    root = obsidian_vault(tmp_path / "V", {"Linter note.md": text})
    assert obsidian_pages(root)["Linter note.md"].created_at is None


# ---- Obsidian: aliases -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("front", "aliases"),
    [
        ("aliases: My Long Alias", ["My Long Alias"]),
        ("aliases: My Long Alias, Another One", ["My Long Alias", "Another One"]),
        ("alias: The Old House", ["The Old House"]),
        ("aliases: [First Alias, Second Alias]", ["First Alias", "Second Alias"]),
        ("aliases:\n  - First Alias\n  - Second Alias", ["First Alias", "Second Alias"]),
    ],
)
def test_an_alias_is_split_only_at_commas(tmp_path: Path, front: str, aliases: list[str]) -> None:
    text = f"---\n{front}\ntags: '#bees #honey, garden'\n---\nHives.\n"
    note = obsidian_pages(obsidian_vault(tmp_path / "V", {"Hives.md": text}))["Hives.md"]
    assert note.metadata["aliases"] == aliases
    assert note.text.startswith(f"Aliases: {', '.join(aliases)}\n\n")
    assert note.tags == ("bees", "honey", "garden")  # tags are still words


# ---- Obsidian: linked folders ------------------------------------------------------------


def test_a_folder_linked_in_from_outside_the_vault_is_reported_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "Shared note.md").write_text("the key under the mat\n")
    root = obsidian_vault(tmp_path / "V", {"Journal/2024-01-06.md": "Walked.\n"})
    (root / "Shared").symlink_to(outside)
    (root / "Journal" / "Deeper").symlink_to(outside)
    (root / "JournalLink").symlink_to(root / "Journal")  # inside: its notes are read once
    items = list(imports.reader("obsidian")(root))
    bad = [(i.where, i.reason, i.key, i.label) for i in items if isinstance(i, imports.Bad)]
    reason = "a link to a folder outside the vault folder; not read"
    assert bad == [
        ("Shared", reason, "V/Shared", "folder"),
        ("Journal/Deeper", reason, "V/Journal/Deeper", "folder"),
    ]
    assert [i.key for i in items if isinstance(i, Page)] == ["V/Journal/2024-01-06.md"]


def test_a_linked_folder_is_reported_each_time_and_leaves_deletions_known(
    tmp_path: Path, vault: Vault
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "Shared note.md").write_text("the key under the mat\n")
    root = obsidian_vault(tmp_path / "V", {"Hives.md": "Bees.\n", "Wax.md": "Candles.\n"})
    (root / "Shared").symlink_to(outside)
    first = vault.import_from("obsidian", root, caller=Caller.owner())
    (root / "Wax.md").unlink()
    again = vault.import_from("obsidian", root, caller=Caller.owner())
    reason = "a link to a folder outside the vault folder; not read"
    assert first.failed == again.failed == (("Shared", reason),)
    assert first.counts["note"]["added"] == 2
    assert again.counts["note"] == {"added": 0, "updated": 0, "skipped": 1}
    assert again.deletions_unknown is None and [g.key for g in again.gone] == ["V/Wax.md"]


def test_a_linked_folder_whose_notes_cannot_be_read_is_reported(tmp_path: Path) -> None:
    drive = tmp_path / "drive" / "Shared"  # a folder on a drive, since unplugged
    drive.mkdir(parents=True)
    root = obsidian_vault(
        tmp_path / "V",
        {"Journal/2024-01-06.md": "Walked.\n", ".archive/Old plans.md": "The old hive.\n"},
    )
    (root / "Shared").symlink_to(drive)
    drive.rmdir()
    (root / "Loop").symlink_to(root / "Loop")  # a link to itself
    (root / "Journal" / "Ring").symlink_to(root / "Journal" / "Round")  # two, in a loop
    (root / "Journal" / "Round").symlink_to(root / "Journal" / "Ring")
    (root / "Moved.md").symlink_to(tmp_path / "gone.md")  # a note whose file went away
    (root / "Archive").symlink_to(root / ".archive")  # a hidden folder: its notes unread
    (root / "Journal" / "Up").symlink_to(root)  # a loop round the vault: notes read once
    (root / "Plans.md").symlink_to(root / ".archive" / "Old plans.md")  # a hidden folder's note
    items = list(imports.reader("obsidian")(root))
    bad = [(i.where, i.reason, i.key, i.label) for i in items if isinstance(i, imports.Bad)]
    nowhere = "a link that leads nowhere (its target is gone, or links loop); not read"
    hidden = "a link to a hidden folder of the vault; not read"
    assert bad == [
        ("Archive", hidden, "V/Archive", "folder"),
        ("Loop", nowhere, "V/Loop", "link"),
        ("Moved.md", nowhere, "V/Moved.md", "link"),
        ("Shared", nowhere, "V/Shared", "link"),
        ("Journal/Ring", nowhere, "V/Journal/Ring", "link"),
        ("Journal/Round", nowhere, "V/Journal/Round", "link"),
        (
            "Plans.md",
            "a link to a file in a hidden folder of the vault; not read",
            "V/Plans.md",
            "note",
        ),
    ]
    assert [i.key for i in items if isinstance(i, Page)] == ["V/Journal/2024-01-06.md"]


def test_a_link_that_leads_nowhere_is_in_the_report_and_leaves_deletions_known(
    tmp_path: Path, vault: Vault
) -> None:
    root = obsidian_vault(tmp_path / "V", {"Hives.md": "Bees.\n", "Wax.md": "Candles.\n"})
    (root / "Shared").symlink_to(root / "Shared")
    first = vault.import_from("obsidian", root, caller=Caller.owner())
    (root / "Wax.md").unlink()
    again = vault.import_from("obsidian", root, caller=Caller.owner())
    reason = "a link that leads nowhere (its target is gone, or links loop); not read"
    assert first.failed == again.failed == (("Shared", reason),)
    assert again.deletions_unknown is None and [g.key for g in again.gone] == ["V/Wax.md"]


# ---- mem0: when a rewording happened --------------------------------------------------------


def mem0_get_all(path: Path, deleted: bool = False) -> Path:
    """What mem0's `get_all` returns, with one memory's `history()` beside it: mem0 writes
    the memory's creation time as every event's `created_at`, and the time of a rewording
    (or a deletion) as its `updated_at`."""
    created, reworded, gone = (
        "2024-07-27T10:00:00-07:00",
        "2024-08-01T10:00:00-07:00",
        "2024-08-05T10:00:00-07:00",
    )
    history = [
        {"event": "ADD", "new_memory": "Allergic to peanuts", "created_at": created},
        {
            "event": "UPDATE",
            "old_memory": "Allergic to peanuts",
            "new_memory": "Allergic to nuts",
            "created_at": created,
            "updated_at": reworded,
        },
    ]
    if deleted:
        history.append(
            {"event": "DELETE", "old_memory": "Allergic to nuts", "new_memory": None}
            | {"created_at": created, "updated_at": gone, "is_deleted": True}
        )
    memory = {
        "id": "p2",
        "memory": "Allergic to nuts",
        "user_id": "alice",
        "created_at": created,
        "updated_at": gone if deleted else reworded,
        "history": history,
    }
    if deleted:
        memory["state"] = "deleted"  # as OpenMemory keeps one
    path.write_text(json.dumps({"results": [memory]}))
    return path


def test_a_rewording_holds_from_when_mem0_made_it(tmp_path: Path, vault: Vault) -> None:
    path = mem0_get_all(tmp_path / "mem0_get_all.json")
    first = vault.import_from("mem0", path, caller=Caller.owner())
    assert first.counts["memory"]["added"] == 1

    def held(at: str) -> list[str]:
        found = vault.statements.query(caller=Caller.owner(), valid_at=at).statements
        return [s.statement.content for s in found]

    assert held("2024-07-30T00:00:00+00:00") == ["Allergic to peanuts"]
    assert held("2024-08-02T00:00:00+00:00") == ["Allergic to nuts"]
    (now,) = vault.statements.query(caller=Caller.owner()).statements
    assert now.statement.valid_from == ms("2024-08-01T17:00:00")
    again = vault.import_from("mem0", path, caller=Caller.owner())
    assert again.counts["memory"] == {"added": 0, "updated": 0, "skipped": 1}


def test_a_deletion_is_dated_by_when_mem0_made_it(tmp_path: Path) -> None:
    from privault.imports.mem0_records import memory

    record = json.loads(mem0_get_all(tmp_path / "m.json", deleted=True).read_text())
    found = memory(record["results"][0], 1, {}, {}, {})
    assert isinstance(found, imports.Memory) and found.deleted
    assert [(r.event, r.at) for r in found.history] == [
        ("ADD", ms("2024-07-27T17:00:00")),
        ("UPDATE", ms("2024-08-01T17:00:00")),
        ("DELETE", ms("2024-08-05T17:00:00")),
    ]
