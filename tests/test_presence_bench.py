"""The presence benchmark's parts on a small vault: which names it probes, their twins."""

from __future__ import annotations

import random
from pathlib import Path

from benchmarks import presence
from privault import Caller
from tests.helpers import fake_vault

OWNER = Caller.owner()


def test_it_probes_held_names_against_absent_twins_of_their_shape(tmp_path: Path) -> None:
    with fake_vault(tmp_path / "v.db") as vault:
        notes = [{"text": f"Mr Dana Quill wrote about flat {i}."} for i in range(5)]
        notes += [{"text": "Dr. Olu Brant called once."}]
        vault.note_many(notes, caller=OWNER)
        names = presence.held_names(vault, 5)
        assert names == ["Dana Quill", "Olu Brant"]  # most frequent first, titles dropped
        twin = presence.absent_twin(vault, "Dana Quill", random.Random(1))
        assert [len(w) for w in twin.split()] == [4, 5] and twin.istitle()
        assert not vault.search(twin, caller=OWNER).results
        cpu, steps = presence.measure(vault, Caller.agent("claude"), f"what did {twin} say")
        assert cpu >= 0 and steps > 0
