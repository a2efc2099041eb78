"""An import indexed by the real detector and embedder: what an agent sees of imported
mail and memories is redacted (models installed by `make test`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from privault.caller import Caller
from privault.vault import Vault
from tests import import_samples as samples

pytestmark = pytest.mark.real

OWNER = Caller.owner()
AGENT = Caller.agent("claude")


def test_imported_mail_and_memories_reach_agents_only_redacted(
    tmp_path: Path, models_dir: Path
) -> None:
    mail = tmp_path / "Inbox"
    mail.write_bytes(samples.MBOX)
    memories = tmp_path / "memories.json"
    memories.write_text(
        json.dumps(
            [
                {
                    "id": "m1",
                    "memory": "Dentist is Dr. Maria Gonzalez, phone +1 415 555 0134",
                    "created_at": "2024-01-01T00:00:00Z",
                }
            ]
        )
    )
    with Vault.open(
        tmp_path / "v.db", models_dir=models_dir, privacy={"agent_default": "standard"}
    ) as vault:
        vault.import_from("mbox", mail, caller=OWNER)
        vault.import_from("mem0", memories, caller=OWNER)
        assert vault.search("boat Saturday", caller=AGENT).results == ()  # not indexed yet
        while not (step := vault.indexing.step(caller=OWNER)).idle:
            assert step.error is None, step.error
        hits = vault.search("boat trip Saturday", caller=AGENT).results
        assert hits, "indexed imported mail is found by agents"
        seen = json.dumps(vault.search("boat trip", caller=AGENT).to_dict())
        assert "alice@example.com" not in seen
        facts = json.dumps(vault.statements.query(caller=AGENT).to_dict())
        assert "555 0134" not in facts and "Gonzalez" not in facts
        owner_view = json.dumps(vault.search("boat trip", caller=OWNER).to_dict())
        assert "alice@example.com" in owner_view
