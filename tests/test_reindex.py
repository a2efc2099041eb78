"""Re-indexing after a chunking change: old vaults are marked, `reindex` re-cuts every chunk."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from privault.caller import Caller
from privault.errors import AccessDenied
from privault.interfaces.cli import app
from privault.retrieval.sectioning import split_chunks
from privault.store import sections
from privault.store.connection import write
from privault.store.migrations import migrate
from privault.vault import ingest
from tests.helpers import FakeEngineRunner, fake_vault

OWNER = Caller.owner()
TRANSCRIPT = "\n".join(
    f"{'Ana' if i % 2 else 'Ben'}: line {i} about the garden, the shed and the roses"
    for i in range(24)
)


def _cut_the_old_way(vault) -> None:
    """Give every section one chunk spanning its whole text, as a fixed chunker might."""
    rows = vault.conn.execute("SELECT id, text FROM sections").fetchall()
    with write(vault.conn):
        for section_id, text in rows:
            vector = np.asarray(vault.embedder.embed([text]), dtype=np.float32)
            sections.replace_chunks(vault.conn, section_id, [(0, len(text), 9)], [text], vector)
        vault.conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('stale_chunking', 'fixed-96')"
        )


def _layout(vault) -> list[tuple[int, int, int]]:
    return vault.conn.execute("SELECT section_id, start, end FROM chunks ORDER BY id").fetchall()


def test_reindex_recuts_every_chunk_and_keeps_sections(tmp_path: Path) -> None:
    with fake_vault(tmp_path / "v.db") as vault:
        added = vault.note(f"# Garden log\n{TRANSCRIPT}", caller=OWNER)
        vault.note("A one-line note about roses", caller=OWNER)
        fresh = _layout(vault)
        nodes = vault.conn.execute("SELECT id, node_id, text FROM sections").fetchall()
        _cut_the_old_way(vault)
        assert _layout(vault) != fresh
        assert vault.status().index.stale_chunking == "fixed-96"

        done: list[tuple[int, int]] = []
        written, chunks = vault.reindex(caller=OWNER, progress=lambda *p: done.append(p))

        assert written == len(nodes) and chunks == len(fresh)
        assert [(s, e) for _, s, e in _layout(vault)] == [(s, e) for _, s, e in fresh]
        assert vault.conn.execute("SELECT id, node_id, text FROM sections").fetchall() == nodes
        index = vault.status().index.to_dict()
        assert index["healthy"] and index["stale_chunking"] is None
        assert done[-1] == (len(nodes), len(nodes))
        section_text = vault.read(f"{added.doc_id}.1", caller=OWNER).text
        assert len(split_chunks(section_text)) == chunks - 1  # plus the one-line note
        assert vault.search("line 17 roses", caller=OWNER).results[0].doc_id == added.doc_id


def test_a_section_edited_during_reindex_is_left_to_the_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "garden.md"
    log.write_text(TRANSCRIPT)
    with fake_vault(tmp_path / "v.db") as vault:
        vault.add([log], caller=OWNER)
        real = ingest.rechunk

        def edit_meanwhile(rows, embedder):  # the file is re-added while reindex embeds
            log.write_text(TRANSCRIPT + "\nAna: one more line")
            assert vault.add([log], caller=OWNER).added[0].status == "updated"
            return real(rows, embedder)

        monkeypatch.setattr(ingest, "rechunk", edit_meanwhile)
        written, _ = vault.reindex(caller=OWNER)
        assert written == 0
        assert vault.status().index.healthy
        assert "one more line" in vault.search("one more line", caller=OWNER).results[0].text


def test_only_the_owner_can_reindex(tmp_path: Path) -> None:
    with fake_vault(tmp_path / "v.db") as vault, pytest.raises(AccessDenied):
        vault.reindex(caller=Caller.agent("claude"))


def test_the_migration_marks_vaults_that_already_have_chunks(tmp_path: Path) -> None:
    with fake_vault(tmp_path / "empty.db") as vault:
        assert vault.status().index.stale_chunking is None  # new vaults start current
    with fake_vault(tmp_path / "old.db") as vault:
        vault.note(TRANSCRIPT, caller=OWNER)
        # As if the vault was written before migration 8: undo its record and re-run it.
        with write(vault.conn):
            vault.conn.execute("DELETE FROM schema_migrations WHERE version = 8")
        migrate(vault.conn)
        assert vault.status().index.stale_chunking == "fixed-96"


def test_cli_reindex_and_status(tmp_path: Path) -> None:
    runner = FakeEngineRunner()
    assert runner.invoke(app, ["note", TRANSCRIPT]).exit_code == 0
    with fake_vault(tmp_path / "home" / "vault.db") as vault:
        _cut_the_old_way(vault)
    status = runner.invoke(app, ["status"])
    assert "privault reindex" in status.output
    result = runner.invoke(app, ["reindex", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"sections": 1, "chunks": len(split_chunks(TRANSCRIPT))}
    assert "privault reindex" not in runner.invoke(app, ["status"]).output
    assert "re-indexed 1 sections" in runner.invoke(app, ["reindex"]).output
