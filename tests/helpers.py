"""Test helpers: a vault on a real file with the fast fake embedder and detector."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from privault.privacy.detector import FakeDetector
from privault.retrieval.embedder import FakeEmbedder
from privault.vault import Vault
from privault.vault_privacy import PrivacyRuntime


def fake_vault(path: Path, privacy: dict[str, Any] | None = None, **settings: Any) -> Vault:
    """A real vault file whose heavy engines are the deterministic fakes."""
    vault = Vault.open(path, models_dir=path.parent / "models", embedder=FakeEmbedder(), **settings)
    vault.privacy = PrivacyRuntime(
        vault.conn, settings.get("policies_dir"), privacy or {}, detector_factory=FakeDetector
    )
    return vault
