"""A tag an agent sees masked cannot be found by asking for it: the filter matches, for a
gated caller, only tags whose stored spans hold no kind a policy counts as identifying and
that hold no value a policy denies."""

from __future__ import annotations

import shutil
from pathlib import Path

from privault import Caller
from privault.filters import Filters
from privault.privacy.policy import shipped_policies_dir
from tests.helpers import fake_vault

OWNER = Caller.owner()
AGENT = Caller.agent("helper")  # unlisted: the `standard` policy (redact)
HELD = "maria@example.com"


def test_an_agent_cannot_find_a_masked_tag_by_asking_for_it(tmp_path: Path) -> None:
    with fake_vault(tmp_path / "v.db", privacy={"agent_default": "standard"}) as vault:
        vault.note("# Lunch\nLunch plans for Friday.", caller=OWNER, tags=[HELD, "food"])
        for caller, tag, found in (
            (OWNER, HELD, 1),
            (AGENT, HELD, 0),  # as for a tag the vault does not hold
            (AGENT, "absent@example.com", 0),
            (AGENT, "food", 1),
        ):
            chosen = Filters(tag=tag)
            hits = vault.search("lunch plans", caller=caller, filters=chosen).results
            listed = vault.docs(caller=caller, filters=chosen).documents
            counted = vault.documents.count(caller=caller, filters=chosen)
            assert (len(hits), len(listed), counted) == (found, found, found), (caller, tag)
        [seen] = vault.docs(caller=AGENT, filters=Filters(tag="food")).documents
        assert HELD not in seen.tags  # and the tag itself is masked where it is shown


def test_an_agent_cannot_find_a_tag_holding_a_denied_value(tmp_path: Path) -> None:
    """A policy's deny-list masks its values when they are read (no span is stored): a tag
    holding one is masked in every reply, so asking for it must find nothing either."""
    policies = tmp_path / "policies"
    shutil.copytree(shipped_policies_dir(), policies)
    standard = policies / "standard.yaml"
    denied = "deny:\n  - value: Falcon\n    kind: ORGANIZATION"
    standard.write_text(standard.read_text().replace("deny: []", denied))
    settings = {"privacy": {"agent_default": "standard"}, "policies_dir": policies}
    with fake_vault(tmp_path / "v.db", **settings) as vault:
        vault.note("# Lunch\nLunch plans for Friday.", caller=OWNER, tags=["project-falcon"])
        for caller, tag, found in (
            (OWNER, "project-falcon", 1),
            (AGENT, "project-falcon", 0),  # as for a tag the vault does not hold
            (AGENT, "project-heron", 0),
        ):
            chosen = Filters(tag=tag)
            hits = vault.search("lunch plans", caller=caller, filters=chosen).results
            context = vault.context("lunch plans", caller=caller, filters=chosen).sections
            listed = vault.docs(caller=caller, filters=chosen).documents
            counted = vault.documents.count(caller=caller, filters=chosen)
            assert (len(hits), len(context), len(listed), counted) == (found,) * 4, (caller, tag)
        [seen] = vault.docs(caller=AGENT).documents
        assert "falcon" not in " ".join(seen.tags).lower()  # masked where it is shown
