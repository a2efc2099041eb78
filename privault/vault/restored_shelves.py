"""Shelves that added files name: created fail-closed, before their documents land on them.

Without `--shelf`, `privault add` takes each Markdown file's shelf from its front matter,
and a Markdown export (`privault export --markdown`) names every document's shelf that
way. Who may read a shelf belongs to the shelf, so the export carries each shelf's access
settings once, in `_shelves.md` (`sync.markdown_shelves`). Here, before a batch of files is
written, each shelf it names is settled:

- a shelf the vault already has (a row, or documents on it) keeps its own settings:
  adding files never changes who may read an existing shelf. When the export's settings
  for it differ, the report says so, and the owner decides;
- a new shelf the export carried settings for is created with them: restricted or
  public, private, its policy, and those agents on its access list that are registered
  and active here. The others are reported, not attached: an agent of the same name on
  another vault is not this vault's agent until the owner registers it here;
- a new shelf no settings came with (a file from elsewhere, a file added on its own, a
  missing or damaged `_shelves.md`, two that disagree about it) is created restricted to
  the owner. A file can name any shelf, and opening a new shelf to every agent on its word
  could publish text that was private where it came from. It is not made private (nothing
  says it was, and no command clears that flag): the owner opens it with `shelf publish`
  or `shelf attach`, or creates it with other settings before adding the files.

`default` is where a file without a shelf lands: with nothing carried for it, it stays
the public shelf it always is.

A file named `_shelves.md` is the export's settings, never a document: one that cannot be
read is reported failed, and the shelves it would have described are settled as if
nothing had come with them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from privault.errors import InputError
from privault.store import agents
from privault.store import shelves as shelf_store
from privault.store.connection import Connection, write
from privault.sync.markdown_shelves import (
    OWNER_ONLY,
    SHELVES_FILE,
    ShelfAccess,
    read_shelves_file,
)
from privault.timeutil import now_ms
from privault.vault import writing
from privault.vault.added import Added, AddReport, SettledShelf
from privault.vault.ingest import Draft

DEFAULT_SHELF = "default"
PUBLIC = ShelfAccess(restricted=False, private=False, policy=None)


def _claim_settings(
    files: Sequence[Path], failed: list[tuple[str, str]], max_bytes: int
) -> tuple[dict[str, ShelfAccess], list[Path]]:
    """The settings the `_shelves.md` files among `files` carry, and the other files.

    A shelf two files describe differently carries nothing (the export folders disagree,
    and neither is more believable); that is reported as a failure of the later file."""
    carried: dict[str, ShelfAccess] = {}
    disputed: set[str] = set()
    documents: list[Path] = []
    for path in files:
        if path.name.casefold() != SHELVES_FILE:
            documents.append(path)
            continue
        try:
            found = read_shelves_file(path, max_bytes)
        except InputError as exc:
            reason = f"shelf settings not used, new shelves are the owner's alone: {exc}"
            failed.append((str(path), reason))
            continue
        for name, access in found.items():
            if name in carried and carried[name] != access:
                disputed.add(name)
                failed.append((str(path), f"shelf {name}: settings differ from another file's"))
            carried.setdefault(name, access)
    return {k: v for k, v in carried.items() if k not in disputed}, documents


class ShelfRestorer:
    """Settles the shelves added files name (see the module docstring)."""

    def __init__(self, conn: Connection, carried: dict[str, ShelfAccess]) -> None:
        self._conn = conn
        self._carried = carried
        self._seen: set[str] = set()
        self.settled: list[SettledShelf] = []

    def prepare(self, drafts: Sequence[Draft]) -> None:
        """Settle each shelf `drafts` name that no earlier batch named, in one write."""
        names = sorted({draft.shelf for draft in drafts} - self._seen)
        if not names:
            return
        self._seen.update(names)
        with write(self._conn):
            for name in names:
                outcome = self._settle(name)
                if outcome is not None:
                    self.settled.append(outcome)

    def _settle(self, name: str) -> SettledShelf | None:
        exported = self._carried.get(name)
        if shelf_store.exists(self._conn, name):
            here = self._access_here(name)
            same = exported is None or (
                (here.restricted, here.private, here.policy)
                == (exported.restricted, exported.private, exported.policy)
            )
            return None if same else SettledShelf(name, "kept", here, exported)
        now = now_ms()
        if exported is None:
            if name == DEFAULT_SHELF:
                return None
            shelf_store.insert(self._conn, name, None, True, False, now)
            return SettledShelf(name, "owner_only", OWNER_ONLY, None)
        if exported == PUBLIC:
            return None  # what a shelf without a row is: nothing to create or to say
        shelf_store.insert(
            self._conn, name, exported.policy, exported.restricted, exported.private, now
        )
        attached, missing = [], []
        for agent in exported.agents:
            found = agents.get(self._conn, agent)
            if found is None or not found.active:
                missing.append(agent)
                continue
            agents.attach(self._conn, name, agent)
            attached.append(agent)
        access = replace(exported, agents=tuple(attached))
        return SettledShelf(name, "created", access, exported, tuple(missing))

    def _access_here(self, name: str) -> ShelfAccess:
        row = shelf_store.shelf_row(self._conn, name)
        if row is None:
            return ShelfAccess(restricted=False, private=False, policy=None)
        return ShelfAccess(
            restricted=bool(row["restricted"]),
            private=bool(row["private"]),
            policy=row["policy"],
            agents=agents.attached_agents(self._conn, name),
        )


def add_files(
    conn: Connection,
    paths: Sequence[str | Path],
    *,
    shelf: str | None,
    tags: tuple[str, ...],
    max_bytes: int,
    check: Callable[[str], None],
    store: Callable[[list[Draft]], list[Added]],
    progress: Callable[[str], None] | None = None,
    batch: int = 16,
) -> AddReport:
    """Add files and folders: each batch's shelves settled (unless `shelf` was chosen,
    which the owner named and gets as it is), then the batch written by `store`."""
    found, failed = writing.expand_paths(paths)
    carried, files = _claim_settings(found, failed, max_bytes)
    if progress:  # the settings files count as done
        for path in found:
            if path.name.casefold() == SHELVES_FILE:
                progress(str(path))
    restorer = ShelfRestorer(conn, carried)
    added: list[Added] = []
    for drafts in writing.file_batches(
        files, shelf, tags, max_bytes, check=check, failed=failed, progress=progress, batch=batch
    ):
        if not drafts:
            continue
        if shelf is None:
            restorer.prepare(drafts)
        added.extend(store(drafts))
    return AddReport(tuple(added), tuple(failed), tuple(restorer.settled))
