"""The sync commands end to end in-process: two devices, a shared folder, Markdown export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from privault.interfaces.cli import app
from privault.sync import bundle
from tests.helpers import FakeEngineRunner

runner = FakeEngineRunner()


@pytest.fixture(autouse=True)
def _passphrase(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRIVAULT_SYNC_PASSPHRASE", "shared between my devices")
    monkeypatch.setattr(bundle, "SCRYPT", {"n": 2**10, "r": 8, "p": 1})
    monkeypatch.setattr(bundle, "ACCEPTED_SCRYPT", frozenset({(2**10, 8, 1)}))


def on(device: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> dict:
    """Run a command on one device's vault and return its JSON."""
    monkeypatch.setenv("PRIVAULT_VAULT", str(device / "vault.db"))
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_two_devices_sync_through_a_shared_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop, desktop, shared = tmp_path / "laptop", tmp_path / "desktop", tmp_path / "shared"
    note = on(laptop, monkeypatch, "note", "# Boiler\nService due in March.", "--tag", "home")
    on(laptop, monkeypatch, "st", "add", "The boiler is a Vaillant", "--entity", "boiler")
    first = on(laptop, monkeypatch, "sync", str(shared))
    assert first["written"]["rows"] == 2 and first["imported"] == []
    pulled = on(desktop, monkeypatch, "sync", str(shared))
    assert pulled["imported"][0]["applied"] == {"document": 1, "statement": 1}
    found = on(desktop, monkeypatch, "search", "boiler service")
    assert found["results"][0]["doc_id"] == note["doc_id"]
    # Forgotten on the desktop: gone from the laptop at its next sync.
    on(desktop, monkeypatch, "forget", note["doc_id"])
    on(desktop, monkeypatch, "sync", str(shared))
    back = on(laptop, monkeypatch, "sync", str(shared))
    assert back["imported"][0]["applied"].get("tombstone") == 1
    assert on(laptop, monkeypatch, "docs")["documents"] == []
    # The live vault file never goes into the shared folder.
    assert not [p for p in shared.rglob("*") if p.suffix in (".db", ".db-wal")]


def test_a_damaged_peer_file_is_refused_and_the_rest_merged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two, shared = tmp_path / "one", tmp_path / "two", tmp_path / "shared"
    on(one, monkeypatch, "note", "first note from one")
    on(one, monkeypatch, "sync", str(shared))
    on(one, monkeypatch, "note", "second note from one")
    on(one, monkeypatch, "sync", str(shared))
    first_file = sorted(p for p in shared.rglob("*.pvb"))[0]
    first_file.write_bytes(first_file.read_bytes()[:-10])  # still arriving
    report = on(two, monkeypatch, "sync", str(shared))
    assert len(report["refused"]) == 1 and "truncated" in report["refused"][0]["reason"]
    assert len(report["imported"]) == 1
    assert len(on(two, monkeypatch, "docs")["documents"]) == 1


def test_wrong_passphrase_is_one_line_and_exit_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    on(tmp_path / "a", monkeypatch, "note", "private words")
    on(tmp_path / "a", monkeypatch, "export", str(tmp_path / "x.pvb"))
    monkeypatch.setenv("PRIVAULT_SYNC_PASSPHRASE", "another one")
    monkeypatch.setenv("PRIVAULT_VAULT", str(tmp_path / "b" / "vault.db"))
    result = runner.invoke(app, ["import", str(tmp_path / "x.pvb")])
    assert result.exit_code != 0
    assert "wrong passphrase" in str(result.exception) or "wrong passphrase" in result.output


def test_markdown_export_round_trips_through_add(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new, folder = tmp_path / "old", tmp_path / "new", tmp_path / "md"
    on(old, monkeypatch, "shelf", "add", "health")
    kept = on(
        old,
        monkeypatch,
        "note",
        "# Dentist\nCheck-up on 3 March.",
        "--tag",
        "health",
        "--shelf",
        "health",
    )
    on(old, monkeypatch, "note", "Buy oat milk | and rye", "--title", "Groceries: list")
    on(
        old,
        monkeypatch,
        "st",
        "add",
        "Dana is Acme's contact",
        "--entity",
        "Acme",
        "--entity",
        "Dana",
    )
    written = on(old, monkeypatch, "export", "--markdown", str(folder))
    assert written["documents"] == 2 and written["statements"] == 1
    dentist = (folder / "Dentist.md").read_text()
    assert dentist.startswith("---\nid: " + kept["doc_id"])
    assert "shelf: health" in dentist and "- health" in dentist
    tables = (folder / "_statements.md").read_text()
    assert "## Acme" in tables and "## Dana" in tables and "Dana is Acme's contact" in tables
    report = on(new, monkeypatch, "add", str(folder))
    assert report["added"] == 2 and report["failed"] == []
    before = {d["title"]: d for d in on(old, monkeypatch, "docs")["documents"]}
    after = {d["title"]: d for d in on(new, monkeypatch, "docs")["documents"]}
    assert set(before) == set(after) == {"Dentist", "Groceries: list"}
    for title in before:
        for key in ("tags", "shelf", "created_at"):
            assert after[title][key] == before[title][key], (title, key)
    text = on(new, monkeypatch, "search", "oat milk")["results"][0]["text"]
    assert "Buy oat milk | and rye" in text


def test_an_export_without_statements_adds_back_with_nothing_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new, folder = tmp_path / "old", tmp_path / "new", tmp_path / "md"
    on(old, monkeypatch, "note", "Buy oat milk.", "--title", "Groceries")
    assert on(old, monkeypatch, "export", "--markdown", str(folder))["statements"] == 0
    report = on(new, monkeypatch, "add", str(folder))
    assert report["added"] == 1 and report["failed"] == []


def test_tags_holding_an_address_or_a_number_sync_export_and_filter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop, desktop, restored = tmp_path / "laptop", tmp_path / "desktop", tmp_path / "restored"
    tags = ["jdoe@example.com", "+44-20-7946-0958", "@later"]
    options = [part for tag in tags for part in ("--tag", tag)]
    on(laptop, monkeypatch, "note", "# Boiler\nService due in March.", *options)
    on(laptop, monkeypatch, "sync", str(tmp_path / "shared"))
    on(desktop, monkeypatch, "sync", str(tmp_path / "shared"))
    on(desktop, monkeypatch, "export", "--markdown", str(tmp_path / "md"))
    on(restored, monkeypatch, "add", str(tmp_path / "md"))
    for device in (desktop, restored):
        (doc,) = on(device, monkeypatch, "docs", "--tag", "+44-20-7946-0958")["documents"]
        assert sorted(doc["tags"]) == sorted(tags)
