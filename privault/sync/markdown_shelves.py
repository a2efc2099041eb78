"""A Markdown export's shelf settings: `_shelves.md`, which `privault add` reads back.

A document's front matter names its shelf; who may read that shelf belongs to the shelf,
not to the document. So the export writes each shelf's access settings once, in the front
matter of `_shelves.md`: the fields a sync bundle carries for a shelf (`restricted`,
`private`, `policy`, checked by the same rules) and the agents on its access list, with a
table for people below. Adding the folder back creates each shelf its documents name that
the vault does not have yet with those settings (`vault.restored_shelves`).

The file is read as untrusted input (anyone who can write into the folder can edit it):
an entry that is not exactly what the export writes refuses the whole file, and the
shelves it would have described are then created as if nothing had come with them, the
owner's alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from privault.errors import InputError
from privault.jsonform import JsonForm
from privault.retrieval.frontmatter import SHELVES_MARK, front_matter_data
from privault.store.agents import check_name
from privault.sync.markdown import front_matter
from privault.sync.shapes import FIELDS, SHELF_NAME

SHELVES_FILE = "_shelves.md"
_KEYS = ("restricted", "private", "policy", "agents")


@dataclass(frozen=True)
class ShelfAccess(JsonForm):
    """Who may read a shelf: public, or restricted to its agents (none: the owner alone);
    `private` keeps its text from any remote model; `policy` gates agents' reads of it."""

    restricted: bool
    private: bool
    policy: str | None
    agents: tuple[str, ...] = ()

    def describe(self) -> str:
        """One line for people, e.g. `restricted to claude, private, policy strict`."""
        parts = [
            f"restricted to {', '.join(self.agents) or 'the owner'}"
            if self.restricted
            else "public"
        ]
        if self.private:
            parts.append("private")
        if self.policy:
            parts.append(f"policy {self.policy}")
        return ", ".join(parts)


OWNER_ONLY = ShelfAccess(restricted=True, private=False, policy=None)


def render_shelves(shelves: Iterable[tuple[str, ShelfAccess]]) -> str:
    """The `_shelves.md` text: the settings as front matter, then a table."""
    found = sorted(shelves, key=lambda item: item[0])
    data = {
        "privault": SHELVES_MARK,
        "title": "Shelves",
        "shelves": {
            name: {
                "restricted": access.restricted,
                "private": access.private,
                "policy": access.policy,
                "agents": list(access.agents),
            }
            for name, access in found
        },
    }
    # Shelf, agent and policy names are shaped: no `|` or line break can occur in a row.
    rows = "".join(f"| {name} | {access.describe()} |\n" for name, access in found)
    return front_matter(data) + "\n| shelf | access |\n|---|---|\n" + rows


def parse_shelves(data: Mapping[str, Any]) -> dict[str, ShelfAccess]:
    """The settings in a `_shelves.md` front matter; InputError for anything malformed."""
    shelves = data.get("shelves")
    if not isinstance(shelves, dict):
        raise InputError("its `shelves` is not a mapping of shelf names to settings")
    found: dict[str, ShelfAccess] = {}
    for name, entry in shelves.items():
        if not isinstance(name, str) or not SHELF_NAME.match(name):
            raise InputError(f"{name!r} is not a shelf name")
        if not isinstance(entry, dict) or set(entry) != set(_KEYS):
            raise InputError(f"shelf {name}: give exactly {', '.join(_KEYS)}")
        for key in ("restricted", "private", "policy"):
            if not FIELDS["shelf"][key](entry[key]):
                raise InputError(f"shelf {name}: {key} {entry[key]!r} is malformed")
        agents = entry["agents"]
        if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
            raise InputError(f"shelf {name}: agents must be a list of agent names")
        for agent in agents:
            check_name(agent)
        found[name] = ShelfAccess(
            restricted=bool(entry["restricted"]),
            private=bool(entry["private"]),
            policy=entry["policy"],
            agents=tuple(sorted(set(agents))),
        )
    return found


def read_shelves_file(path: Path, max_bytes: int) -> dict[str, ShelfAccess]:
    """The settings a `_shelves.md` file holds; InputError says why it cannot be used."""
    try:
        if path.stat().st_size > max_bytes:
            raise InputError(f"over the {max_bytes}-byte limit")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    found = front_matter_data(text)
    if found is None or found[0].get("privault") != SHELVES_MARK:
        raise InputError(f"its front matter does not say `privault: {SHELVES_MARK}`")
    return parse_shelves(found[0])
