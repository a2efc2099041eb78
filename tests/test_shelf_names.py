"""Naming a shelf: one check in the facade, the same answer for unknown and hidden.

An agent that could tell "no such shelf" from "a shelf you may not see" could enumerate
hidden shelf names; one that could write to a new name would create shelves nobody
listed. Every write path that takes a shelf name goes through `check_shelf_name`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from privault import Caller
from privault.errors import NotFound
from privault.vault import Vault
from tests.helpers import fake_vault

OWNER = Caller.owner()
AGENT = Caller.agent("claude")

WRITES: dict[str, Callable[[Vault, str], Any]] = {
    "remember": lambda v, shelf: v.note("Buy milk", caller=AGENT, shelf=shelf),
    "write_statement": lambda v, shelf: v.statements.add(
        "Dana likes tea", caller=AGENT, shelf=shelf
    ),
    "add_watch": lambda v, shelf: v.watches.add(
        "remind", "Pay rent", caller=AGENT, every="1d", shelf=shelf
    ),
}


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    opened = fake_vault(tmp_path / "vault.db")
    opened.shelves.add("secret", restricted=True)
    opened.note("# Work\nQuarterly plan.", caller=OWNER, shelf="work")
    yield opened
    opened.close()


def _refusal(write: Callable[[Vault, str], Any], vault: Vault, shelf: str) -> tuple[str, str]:
    with pytest.raises(NotFound) as caught:
        write(vault, shelf)
    return type(caught.value).__name__, str(caught.value).replace(shelf, "<name>")


@pytest.mark.parametrize("path", sorted(WRITES))
def test_unknown_and_hidden_shelves_get_the_same_answer(vault: Vault, path: str) -> None:
    write = WRITES[path]
    assert _refusal(write, vault, "secret") == _refusal(write, vault, "nosuch")


@pytest.mark.parametrize("path", sorted(WRITES))
def test_an_agent_cannot_create_a_shelf_by_writing_to_it(vault: Vault, path: str) -> None:
    before = [shelf.name for shelf in vault.shelves.list()]
    with pytest.raises(NotFound):
        WRITES[path](vault, "phantom")
    assert [shelf.name for shelf in vault.shelves.list()] == before
    for table in ("documents", "statements", "watches", "shelves"):
        column = "name" if table == "shelves" else "shelf"
        found = vault.conn.execute(f"SELECT count(*) FROM {table} WHERE {column} = 'phantom'")
        assert found.fetchone()[0] == 0


@pytest.mark.parametrize("path", sorted(WRITES))
def test_an_agent_writes_to_shelves_it_can_see(vault: Vault, path: str) -> None:
    WRITES[path](vault, "work")
    WRITES[path](vault, "default")
    allowed = Caller.agent("claude", shelves={"secret"})
    vault.note("Seen", caller=allowed, shelf="secret")


def test_the_owner_still_creates_a_shelf_by_naming_it(vault: Vault) -> None:
    vault.note("Fresh start", caller=OWNER, shelf="garden")
    assert "garden" in [shelf.name for shelf in vault.shelves.list()]
