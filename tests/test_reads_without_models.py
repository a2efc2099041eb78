"""Listing, reading and outlining documents need no index: they work, and stay light,
where no embedding model is installed (a CLI `privault docs` loaded one just to list)."""

from __future__ import annotations

from pathlib import Path

import pytest

from privault import Caller, Vault
from privault.errors import PrivaultError
from privault.privacy.detector import FakeDetector
from tests.helpers import fake_vault

OWNER = Caller.owner()
AGENT = Caller.agent("claude")


def test_docs_read_and_tree_work_without_an_embedding_model(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    with fake_vault(path) as vault:
        added = vault.note("# Garden\nPlant the tulips.\n## Shed\nFix the door.", caller=OWNER)
    empty = tmp_path / "no-models"
    empty.mkdir()
    with Vault.open(path, models_dir=empty, detector_factory=FakeDetector) as vault:
        for caller in (OWNER, AGENT):
            listed = vault.docs(caller=caller)
            assert [entry.doc_id for entry in listed.documents] == [added.doc_id]
            outline = vault.tree(added.doc_id, caller=caller)
            assert [node.heading for node in outline.nodes] == ["Garden", "Shed"]
            first = vault.read(outline.nodes[0].node_id, caller=caller)
            assert "tulips" in first.text
            assert len(vault.documents.read_document(added.doc_id, caller=caller)) == 2
        with pytest.raises(PrivaultError, match="minilm"):  # a search does need the model
            vault.search("tulips", caller=OWNER)
