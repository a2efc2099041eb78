"""`benchmarks.sync --data VAULT` measures export and merging on a copy of a kept vault."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

from benchmarks import sync


def test_a_kept_vault_is_measured_on_a_copy(tmp_path: Path) -> None:
    models = tmp_path / "models"
    path = tmp_path / "kept" / "vault.db"
    vault = sync._open(path, False, models)
    sync._fill(vault, 30, random.Random(1))  # 30 notes, 3 statements
    vault.close()
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    out = sync.run_at_size(path, 8, False, models)
    assert out["rows_exported"] == 33 and out["bundle_bytes"] > 0
    # The eight changes (two new notes, two re-tags, two forgets, two superseded
    # statements) and only they are exported after the full export's cursor.
    assert 8 <= out["changes_rows"] < out["rows_exported"]
    assert out["merge_rows"] == 8  # the peer's eight notes
    assert out["merge_again_unchanged"] == 8
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before  # a copy was measured
    assert [p.name for p in path.parent.iterdir()] == ["vault.db"]  # nothing left beside it
