"""`benchmarks.rescan` times re-scan batches and checks that a vault opened again keeps
what was re-scanned."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from benchmarks import rescan
from privault import Caller
from privault.privacy.detector import DetectorConfig, FakeDetector
from tests.helpers import fake_vault


class _NewDetector(FakeDetector):
    """The fake detector under another version: every stored span is stale to it."""

    def __init__(self, config: DetectorConfig | None = None) -> None:
        super().__init__(config)
        self.version = "fake-new-" + self.config.version


def test_batches_are_timed_and_a_reopened_vault_resumes(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    with fake_vault(path) as vault:
        vault.note_many(
            [{"text": f"Call Mr Hale about boiler {i}"} for i in range(30)], caller=Caller.owner()
        )
    opener = partial(fake_vault, detector_factory=_NewDetector)
    out = rescan.measure(path, opener, batches=2, size=10)
    # a batch reads ten sections and ten labels (each note's title)
    assert out["sections_rescanned"] == 20 and out["texts_read"] == 40
    assert out["sections_left_after"] == out["sections_left_before"] - 20
    reopened = out["reopened"]
    assert reopened["kept_what_was_done"] and reopened["sections_left"] == 9
    assert reopened["sections_left_after_it"] == 0  # the last nine, not the done ones again
    assert out["sections_per_second"] > 0 and out["hours_for_the_rest_at_this_rate"] == 0.0


def test_scanned_by_marks_every_scan_as_made_by_that_revision(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    with fake_vault(path) as vault:
        vault.note("Call Mr Hale about the boiler", caller=Caller.owner(), title="Boiler")
    rescan.scanned_by(path, fake_vault, "37")
    with fake_vault(path) as vault:
        expected = vault.privacy.detector.config.version_at("37")  # type: ignore[attr-defined]
        scans = {v for (v,) in vault.conn.execute("SELECT detector_version FROM pii_scans")}
        labels = {v for (v,) in vault.conn.execute("SELECT detector_version FROM label_spans")}
    assert scans == labels == {expected}
