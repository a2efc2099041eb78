"""Shared fixtures: every test gets its own real vault file under tmp_path."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from privault.store.connection import Connection, connect
from privault.store.migrations import migrate

# Real models are installed once (by `make test`) into this folder and shared by all tests.
REAL_MODELS = Path(os.environ.get("PRIVAULT_MODELS", Path.home() / ".privault" / "models"))


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point PRIVAULT_HOME and PRIVAULT_VAULT at tmp_path; keep the shared models folder."""
    monkeypatch.setenv("PRIVAULT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PRIVAULT_VAULT", str(tmp_path / "home" / "vault.db"))
    monkeypatch.setenv("PRIVAULT_MODELS", str(REAL_MODELS))
    monkeypatch.delenv("PRIVAULT_KEY", raising=False)
    # A warm searcher started by one test would outlive it: its own tests turn it on.
    monkeypatch.setenv("PRIVAULT_WARM", "off")


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[Connection]:
    """A migrated vault connection on a real file."""
    connection = connect(tmp_path / "store.db")
    migrate(connection)
    yield connection
    connection.close()


@pytest.fixture(scope="session")
def models_dir() -> Path:
    """The folder of installed real models (for tests marked `real`)."""
    return REAL_MODELS
