"""The clock inside `privault serve`: polling due watches and re-scanning stale spans."""

from __future__ import annotations

from pathlib import Path

from privault.caller import Caller
from privault.interfaces.scheduler import Clock
from privault.timeutil import now_ms
from tests.helpers import fake_vault

OWNER = Caller.owner()


def test_the_clock_polls_due_watches_and_rescans(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    with fake_vault(path) as vault:
        vault.watches.add("remind", "Renew the passport", caller=OWNER, at=now_ms() - 1000)
        added = vault.note("Quillon called about the roof", caller=OWNER)
        vault.pii.mark(added.doc_id, "Quillon", caller=OWNER)  # new known entity: stale spans
    clock = Clock(lambda: fake_vault(path))
    clock.start()
    try:
        clock.poll()
        clock.rescan()
    finally:
        clock.stop()
    with fake_vault(path) as vault:
        due = vault.watches.reminders(caller=OWNER).reminders
        assert [r.text for r in due] == ["Renew the passport"]
        assert vault.privacy.status().sections_to_rescan == 0


def test_a_failing_job_does_not_stop_the_clock(tmp_path: Path, caplog) -> None:
    path = tmp_path / "v.db"
    fake_vault(path).close()
    clock = Clock(lambda: fake_vault(path))
    clock.start()
    try:
        assert clock._vault is not None
        clock._vault.watches.poll = None  # type: ignore[method-assign,assignment]
        clock.poll()  # logs, does not raise
        assert "watch poll failed" in caplog.text
    finally:
        clock.stop()
