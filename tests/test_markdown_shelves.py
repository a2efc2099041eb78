"""A Markdown export restored with `privault add DIR` keeps its shelves as closed as they were.

The export carries each shelf's access settings in `_shelves.md`; `add` creates the shelves
its documents name with them, leaves a shelf the vault already has as it is, and makes a
new shelf nothing came with the owner's alone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from privault.caller import Caller
from privault.interfaces.cli import app
from tests.helpers import FakeEngineRunner, fake_vault

runner = FakeEngineRunner()
OWNER = Caller.owner()


def run(device: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    """Run a command on one device's vault; its human output, line breaks as spaces."""
    monkeypatch.setenv("PRIVAULT_VAULT", str(device / "vault.db"))
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return " ".join(result.stdout.split())


def on(device: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> dict:
    """Run a command on one device's vault and return its JSON."""
    monkeypatch.setenv("PRIVAULT_VAULT", str(device / "vault.db"))
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _shelves(device: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, dict]:
    return {s["name"]: s for s in on(device, monkeypatch, "shelf", "list")["shelves"]}


@pytest.fixture
def exported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The Markdown export of a vault with a private owner-only shelf, a shelf for claude
    under `strict`, and a note on the public default shelf."""
    old, folder = tmp_path / "old", tmp_path / "md"
    on(old, monkeypatch, "agents", "add", "claude")
    on(old, monkeypatch, "shelf", "add", "journal", "--restricted", "--private")
    on(old, monkeypatch, "shelf", "add", "health", "--agent", "claude", "--policy", "strict")
    on(old, monkeypatch, "note", "Dear diary, today I felt low.", "--shelf", "journal")
    on(old, monkeypatch, "note", "Pulse 60 at rest, diary of training.", "--shelf", "health")
    on(old, monkeypatch, "note", "Buy oat milk for the diary club.", "--title", "Groceries")
    on(old, monkeypatch, "export", "--markdown", str(folder))
    return folder


def test_restoring_an_export_keeps_restricted_shelves_restricted(
    exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    new = tmp_path / "new"
    on(new, monkeypatch, "agents", "add", "eve")
    report = on(new, monkeypatch, "add", str(exported))
    assert report["added"] == 3 and report["failed"] == []
    shelves = _shelves(new, monkeypatch)
    journal, health = shelves["journal"], shelves["health"]
    assert journal["restricted"] and journal["private"] and journal["agents"] == []
    # claude is not registered here: the shelf is the owner's until it is attached.
    assert health["restricted"] and health["policy"] == "strict" and health["agents"] == []
    assert not shelves["default"]["restricted"]
    settled = {s["name"]: s for s in report["shelves"]}
    assert settled["health"]["outcome"] == "created"
    assert settled["health"]["not_attached"] == ["claude"]
    assert settled["journal"]["access"] == {
        "restricted": True,
        "private": True,
        "policy": None,
        "agents": [],
    }
    on(new, monkeypatch, "index")
    seen = on(new, monkeypatch, "search", "diary", "--as", "eve")["results"]
    assert [hit["title"] for hit in seen] == ["Groceries"]
    assert len(on(new, monkeypatch, "search", "diary")["results"]) == 3


def test_an_agent_registered_here_gets_its_shelf_back(
    exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    new = tmp_path / "new"
    on(new, monkeypatch, "agents", "add", "claude")
    output = run(new, monkeypatch, "add", str(exported))
    assert "shelf health created as exported: restricted to claude, policy strict" in output
    assert "shelf journal created as exported: restricted to the owner, private" in output
    health = _shelves(new, monkeypatch)["health"]
    assert health["agents"] == ["claude"] and health["policy"] == "strict"
    on(new, monkeypatch, "index")
    found = on(new, monkeypatch, "search", "pulse training", "--as", "claude")["results"]
    assert "Pulse 60 at rest" in found[0]["text"]


def test_a_shelf_that_exists_here_keeps_its_own_settings(
    exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    new = tmp_path / "new"
    on(new, monkeypatch, "shelf", "add", "journal")  # public here, on purpose
    output = run(new, monkeypatch, "add", str(exported))
    assert (
        "shelf journal exists here and keeps its own access (public); the export had it "
        "restricted to the owner, private" in output
    )
    journal = _shelves(new, monkeypatch)["journal"]
    assert not journal["restricted"] and not journal["private"]


def test_a_new_shelf_with_no_settings_is_the_owners_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file naming a shelf this vault lacks, with no `_shelves.md`, must not open a new
    public shelf: the shelf is created restricted to the owner, and the output says so."""
    new, folder = tmp_path / "new", tmp_path / "notes"
    folder.mkdir()
    (folder / "Diary.md").write_text("---\ntitle: Diary\nshelf: journal\n---\nDear diary.\n")
    (folder / "Plain.md").write_text("# Plain\nNo shelf named here.\n")
    on(new, monkeypatch, "agents", "add", "eve")
    output = run(new, monkeypatch, "add", str(folder))
    assert "shelf journal created restricted to the owner: no access settings came" in output
    shelves = _shelves(new, monkeypatch)
    assert shelves["journal"]["restricted"] and shelves["journal"]["agents"] == []
    assert not shelves["journal"]["private"]
    assert not shelves["default"]["restricted"]  # a file without a shelf: as always
    on(new, monkeypatch, "index")
    assert on(new, monkeypatch, "search", "diary", "--as", "eve")["results"] == []
    # A shelf the owner chose with --shelf is created as `note --shelf` creates one.
    (tmp_path / "Other.md").write_text("---\nshelf: journal\n---\nChosen shelf.\n")
    on(new, monkeypatch, "add", str(tmp_path / "Other.md"), "--shelf", "work")
    assert not _shelves(new, monkeypatch)["work"]["restricted"]


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data["shelves"]["journal"].update(restricted="no"),
        lambda data: data["shelves"]["journal"].pop("private"),
        lambda data: data["shelves"]["journal"].update(agents=["Not A Name"]),
        lambda data: data["shelves"].update({"../x": data["shelves"]["journal"]}),
        lambda data: data.update(shelves=["journal"]),
        lambda data: data.update(privault="notes"),
    ],
    ids=["flag", "missing", "agent", "shelf-name", "not-a-mapping", "unmarked"],
)
def test_damaged_settings_are_refused_and_new_shelves_are_the_owners(
    exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage
) -> None:
    settings = exported / "_shelves.md"
    front, _, rest = settings.read_text().removeprefix("---\n").partition("\n---\n")
    data = yaml.safe_load(front)
    data["shelves"]["journal"]["restricted"] = False  # an edit that would open it...
    damage(data)  # ...in a file that is no longer what the export wrote
    settings.write_text("---\n" + yaml.safe_dump(data) + "---\n" + rest)
    report = on(tmp_path / "new", monkeypatch, "add", str(exported))
    assert [f["path"] for f in report["failed"]] == [str(settings.resolve())]
    assert report["added"] == 3  # the settings file is never taken as a document
    shelves = _shelves(tmp_path / "new", monkeypatch)
    for name in ("journal", "health"):
        assert shelves[name]["restricted"] and shelves[name]["agents"] == []
    assert {s["outcome"] for s in report["shelves"]} == {"owner_only"}


def test_two_exports_that_disagree_about_a_shelf_leave_it_the_owners(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    with fake_vault(tmp_path / "a.db") as vault:
        vault.shelves.add("work")
        vault.note("Quarterly numbers.", caller=OWNER, shelf="work")
        vault.sync.export_markdown(one, caller=OWNER)
    with fake_vault(tmp_path / "b.db") as vault:
        vault.shelves.add("work", restricted=True)
        vault.note("Salary review.", caller=OWNER, shelf="work")
        vault.sync.export_markdown(two, caller=OWNER)
    with fake_vault(tmp_path / "c.db") as vault:
        report = vault.add([one, two], caller=OWNER)
        assert [reason for _, reason in report.failed] == [
            "shelf work: settings differ from another file's"
        ]
        work = vault.shelves.get("work")
        assert work.restricted and work.agents == ()
        assert [s.outcome for s in report.shelves] == ["owner_only"]


def test_the_python_api_restores_shelves_too(tmp_path: Path) -> None:
    folder = tmp_path / "md"
    with fake_vault(tmp_path / "a.db") as vault:
        vault.shelves.add("journal", restricted=True, private=True, policy="strict")
        vault.note("Dear diary.", caller=OWNER, shelf="journal", title="_shelves")
        vault.sync.export_markdown(folder, caller=OWNER)
    names = sorted(p.name for p in folder.iterdir())
    assert names[1:] == ["_shelves.md", "_statements.md"]
    assert names[0].startswith("_shelves ")  # a title cannot take the settings file's name
    with fake_vault(tmp_path / "b.db") as vault:
        report = vault.add([folder], caller=OWNER)
        assert report.count("added") == 1 and report.failed == ()
        journal = vault.shelves.get("journal")
        assert (journal.restricted, journal.private, journal.policy) == (True, True, "strict")
        assert vault.search("diary", caller=Caller.agent("eve")).results == ()
