"""Shared fixtures: every test gets its own real vault file under tmp_path."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from privault.store.connection import Connection, connect
from privault.store.migrations import migrate
from privault.vault import Vault
from tests.helpers import fake_vault

# Fixture modules the browser tests load as plugins: their asserts are rewritten too.
pytest.register_assert_rewrite("tests.web_browser")

# `make check` runs the property tests on a fifth of their examples (`--hypothesis-profile
# check`); `make test` runs them all. A test that names its own count scales it with
# `tests.helpers.examples`.
settings.register_profile("check", max_examples=20)

# Real models are installed once (by `make test`) into this folder and shared by all tests.
REAL_MODELS = Path(os.environ.get("PRIVAULT_MODELS", Path.home() / ".privault" / "models"))
# Seconds a test marked `real` or `browser` may take (the default is pyproject's `timeout`):
# loading a chat model or starting Chromium on a busy 2-core machine takes a while.
REAL_TIMEOUT = 900


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Give model and browser tests the longer timeout, unless they set their own."""
    for item in items:
        heavy = item.get_closest_marker("real") or item.get_closest_marker("browser")
        if heavy and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(REAL_TIMEOUT))


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


@pytest.fixture
def vault() -> Iterator[Vault]:
    """A vault on the CLI's own file (`PRIVAULT_VAULT`) with the fast fake embedder and
    detector, so what a test writes through the API the CLI reads, and the other way."""
    opened = fake_vault(Path(os.environ["PRIVAULT_VAULT"]))
    yield opened
    opened.close()
