"""A tag an agent sees masked cannot be found by asking for it: the filter matches, for a
gated caller, only tags whose stored spans hold no kind a policy counts as identifying."""

from __future__ import annotations

from pathlib import Path

from privault import Caller
from privault.filters import Filters
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
