"""An Obsidian vault: a folder of Markdown notes (and PDFs), with Obsidian's own syntax.

* YAML front matter: `tags`, `aliases`, a date (`created`, the Linter plugin's
  `date created`, `created_at`, else `date`) and `title` are read; the note keeps the rest
  of it as text.
* Inline `#tags` (not inside code, not a heading, not `#123`) join the front matter tags.
* `[[wikilinks]]` and `![[embeds]]` stay in the text as written, and each one that names a
  note or PDF of the vault becomes a `Link` to it, resolved the way Obsidian does: a path
  from the vault's root, else the file of that name nearest the root.
* A daily note is dated by its file name (the format in `.obsidian/daily-notes.json`, else
  `YYYY-MM-DD`); other notes by front matter, else the file's modification time (the
  formats and keys: `obsidian_dates`). A settings
  file that cannot be read (not a regular file, a link out of the vault, too large, not
  JSON) is reported and taken as absent.
* `.obsidian/`, `.trash/` and every hidden folder are not notes; nor is a file or a folder
  linked in from outside the vault's folder (reported, not read), nor a named pipe or a
  device (as `privault add FOLDER` takes regular files only: reading a pipe waits for a
  writer). A folder linked in from inside the vault is not walked twice; one linked to a
  hidden folder, and a link that leads nowhere (its target gone, or links in a loop), are
  reported as well: the owner learns which notes the import could not bring in.
* Tags, aliases and a title are plain values of the front matter: a nested list or
  mapping (which YAML aliases can make billions of items long) is none of them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path, PurePosixPath
from typing import Any

from privault import yamltext
from privault.encodings import decode_export
from privault.imports.items import Bad, Item, Known, Link, NotThisKind, Page, clean_tags
from privault.imports.jsonstream import TOO_DEEP
from privault.imports.obsidian_dates import MomentFormat, daily_date, daily_format, front_date
from privault.imports.sources import file_bytes, folder_files, inside, left_out
from privault.timeutil import in_range_or_none

KIND = "obsidian"
WHAT = "an Obsidian vault (a folder of Markdown notes)"
NOTE_SUFFIXES = {".md", ".markdown"}
FILE_SUFFIXES = {".pdf"}
MAX_NOTE_BYTES = 20 * 1024 * 1024
DAILY_NOTES = ".obsidian/daily-notes.json"
MAX_SETTINGS_BYTES = 1024 * 1024  # Obsidian writes a few hundred bytes there

_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)^(?:---|\.\.\.)[ \t]*\r?$\n?", re.DOTALL | re.MULTILINE)
_LINK = re.compile(r"(!?)\[\[([^\[\]\n|#^]*)(#[^\[\]\n|]*)?(?:\|([^\[\]\n]*))?\]\]")
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
_TAG = re.compile(r"(?<![\w#&/`(\[])#([\w/-]*[^\W\d][\w/-]*)", re.UNICODE)


def looks_like(path: Path) -> bool:
    """Whether `path` is an Obsidian vault (a folder with `.obsidian/`)."""
    return path.is_dir() and (path / ".obsidian").is_dir()


def read(path: Path, known: Known | None = None) -> Iterator[Item]:
    """Each note and PDF of the vault at `path`, in path order."""
    if not path.is_dir():
        raise NotThisKind(f"not {WHAT}: {path} is not a folder")
    root = path.resolve()
    vault = root.name
    files, linked = vault_files(root)
    if not any(f.suffix.lower() in NOTE_SUFFIXES for f in files) and not looks_like(root):
        raise NotThisKind(f"not {WHAT}: no Markdown note in {path}")
    names = _NameIndex(root, files)
    moment, problem = daily_setting(root)
    if problem is not None:
        # A key, so it is not counted as an item that could not be identified: that
        # would stop the import telling which notes the vault deleted.
        reason = f"{problem}; daily notes are dated by YYYY-MM-DD names"
        yield Bad(DAILY_NOTES, reason, key=f"{vault}/{DAILY_NOTES}", label="settings")
    daily = daily_format(moment)
    for link in linked:
        why = left_out(root, link, "vault")
        if why is not None:
            rel = link.relative_to(root).as_posix()
            label = "folder" if link.is_dir() else "link"
            yield Bad(rel, why, key=f"{vault}/{rel}", label=label)
    for file in files:
        rel = file.relative_to(root).as_posix()
        key = f"{vault}/{rel}"
        label = "pdf" if file.suffix.lower() in FILE_SUFFIXES else "note"
        why = left_out(root, file, "vault")
        if why is not None:
            yield Bad(rel, why, key=key, label=label)
            continue
        if label == "pdf":
            yield Page(
                key=key,
                label="pdf",
                title=file.stem,
                text="",
                updated_at=_mtime(file),
                metadata={"source_app": "Obsidian", "path": rel},
                scope=vault,
                file=str(file),
                origin=str(file),
            )
            continue
        try:
            yield note(file, rel, vault, names, daily)
        except (OSError, ValueError) as exc:
            yield Bad(rel, str(exc), key=key, label="note")


def vault_files(root: Path) -> tuple[list[Path], list[Path]]:
    """The notes and PDFs under `root` that are regular files, hidden files and folders
    (`.obsidian`, `.trash`) left out, in path order; and the links met on the way that are
    not walked (`folder_files`)."""
    files, linked = folder_files(root)
    found = [
        file
        for file in files
        if not file.name.startswith(".")
        and (file.suffix.lower() in NOTE_SUFFIXES or file.suffix.lower() in FILE_SUFFIXES)
        and file.is_file()
    ]
    return found, linked


def note(file: Path, rel: str, vault: str, names: _NameIndex, daily: MomentFormat) -> Item:
    """One Markdown note as a page."""
    size = file.stat().st_size  # before reading: a huge file is not read at all
    if size > MAX_NOTE_BYTES:
        return Bad(
            rel,
            f"{size} bytes, over the {MAX_NOTE_BYTES}-byte limit",
            key=f"{vault}/{rel}",
            label="note",
        )
    text = decode_export(file.read_bytes())
    if "\x00" in text:  # after decoding: UTF-16 text is full of NUL bytes, and is text
        return Bad(rel, "contains NUL bytes; is it binary?", key=f"{vault}/{rel}", label="note")
    front, body, problem = split_front_matter(text)
    title = _plain_text(front.get("title")) or file.stem
    tags = clean_tags(_listed(front.get("tags")) + _listed(front.get("tag")))
    tags = tuple(dict.fromkeys([*tags, *clean_tags(inline_tags(body))]))
    named = _listed(front.get("aliases"), ",") + _listed(front.get("alias"), ",")
    aliases = [str(a) for a in named]
    created = front_date(front)
    if created is None:
        created = daily_date(file.stem, daily)
    metadata: dict[str, Any] = {"source_app": "Obsidian", "path": rel}
    if aliases:
        metadata["aliases"] = aliases
    if problem:
        metadata["front_matter"] = problem
    lead = f"Aliases: {', '.join(aliases)}\n\n" if aliases else ""
    return Page(
        key=f"{vault}/{rel}",
        label="note",
        title=title,
        text=lead + body if body.strip() or lead else body,
        created_at=created,
        updated_at=_mtime(file),
        tags=tags,
        metadata=metadata,
        links=tuple(links(body, rel, vault, names)),
        scope=vault,
        origin=str(file),
    )


def split_front_matter(text: str) -> tuple[dict[str, Any], str, str | None]:
    """(front matter, body, problem): front matter that is not a YAML mapping stays in the
    body, and `problem` says why."""
    match = _FRONT.match(text)
    if not match:
        return {}, text, None
    try:
        data = yamltext.front_matter_load(match.group(1))
    except yamltext.YAMLError as exc:
        return {}, text, f"unreadable YAML front matter ({str(exc).splitlines()[0]})"
    if data is None:
        return {}, text[match.end() :], None
    if not isinstance(data, dict):
        return {}, text, "front matter is not a mapping"
    return {str(k): v for k, v in data.items()}, text[match.end() :], None


def inline_tags(body: str) -> list[str]:
    """`#tags` in a note's text, outside code spans and blocks."""
    return _TAG.findall(_CODE.sub(" ", body))


def links(body: str, rel: str, vault: str, names: _NameIndex) -> Iterator[Link]:
    """Each `[[link]]` and `![[embed]]` that names a file of the vault."""
    for match in _LINK.finditer(_CODE.sub(" ", body)):
        target = match.group(2).strip()
        if not target:  # [[#Heading]]: a link inside the same note
            continue
        found = names.resolve(target, rel)
        if found is not None:
            yield Link(label=target, key=f"{vault}/{found}")


class _NameIndex:
    """How Obsidian finds a link's file: a path from the root, a path relative to the
    linking note, else the file of that name nearest the root."""

    def __init__(self, root: Path, files: list[Path]) -> None:
        self.paths = {
            f.relative_to(root).as_posix().lower(): f.relative_to(root).as_posix() for f in files
        }
        self.by_name: dict[str, str] = {}
        for rel in sorted(self.paths.values(), key=lambda p: (p.count("/"), p)):
            for name in _names(PurePosixPath(rel)):
                self.by_name.setdefault(name, rel)

    def resolve(self, target: str, rel: str) -> str | None:
        wanted = target.strip().lstrip("/").lower()
        for candidate in (wanted, f"{wanted}.md"):
            if candidate in self.paths:
                return self.paths[candidate]
            beside = str(PurePosixPath(rel).parent / candidate).lower()
            if beside in self.paths:
                return self.paths[beside]
        return self.by_name.get(wanted)


def _names(path: PurePosixPath) -> list[str]:
    names = [path.name.lower()]
    if path.suffix.lower() in NOTE_SUFFIXES:
        names.append(path.stem.lower())
    return names


_PLAIN = (str, int, float, date)  # a front matter value that can be a tag, alias or title


def _plain_text(value: Any) -> str:
    """A front matter value as text, or '' when it is empty or not a plain value."""
    return str(value).strip() if value and isinstance(value, _PLAIN) else ""


def _listed(value: Any, between: str = r"[,\s]+") -> list[Any]:
    """A front matter list's plain values. A string is split where `between` matches: tags
    at commas and spaces (a tag has no space: `#bees #honey`), aliases only at commas
    (`aliases: My Long Alias` is one name)."""
    if isinstance(value, str):
        return [part.strip() for part in re.split(between, value) if part.strip()]
    if isinstance(value, list | tuple):
        return [v for v in value if isinstance(v, _PLAIN)]
    return [value] if isinstance(value, _PLAIN) else []


def _mtime(file: Path) -> int | None:
    try:
        return in_range_or_none(int(file.stat().st_mtime * 1000))
    except OSError:
        return None


def daily_setting(root: Path) -> tuple[str, str | None]:
    """The daily notes' file-name format as Obsidian writes it ('' when none is set), and
    why its settings file was not read, when it was not (then ''). Read as a note is: not
    through a link out of the vault, not a named pipe (reading one waits for a writer), not
    past a size limit."""
    file = root / DAILY_NOTES
    if not (file.exists() or file.is_symlink()):
        return "", None
    if not inside(root, file):
        return "", "a link to a file outside the vault folder"
    if not file.is_file():
        return "", "not a regular file"
    try:
        settings = json.loads(file_bytes(file, MAX_SETTINGS_BYTES).decode("utf-8-sig"))
    except OSError as exc:
        return "", f"not read ({exc})"
    except UnicodeDecodeError:
        return "", "not UTF-8 text"
    except json.JSONDecodeError as exc:
        return "", f"not valid JSON ({exc.msg})"
    except RecursionError:
        return "", TOO_DEEP
    return (str(settings.get("format") or "") if isinstance(settings, dict) else ""), None
