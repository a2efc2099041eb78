"""What `privault serve` does before it answers the first request (the page's latency
depends on it): every engine loaded, then the long-lived heap frozen out of the collector."""

from __future__ import annotations

import gc
from pathlib import Path

from helpers import fake_vault

from privault.interfaces.cli.agents import _warm_up


def test_serve_loads_its_engines_then_freezes_the_heap(tmp_path: Path) -> None:
    vault = fake_vault(tmp_path / "v.db")  # no chat model installed: warned, not fatal
    try:
        gc.unfreeze()
        assert vault.privacy._detector is None
        _warm_up(vault)
        assert vault.privacy._detector is not None  # the detector too, not only the embedder
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        vault.close()
