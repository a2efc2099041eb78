"""The web benchmark, small: every page it times answers, paging and marking included."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import web

pytestmark = pytest.mark.real


def test_every_page_and_the_mark_action_are_timed(tmp_path: Path, models_dir: Path) -> None:
    path = tmp_path / "vault.db"
    web.build(path, 110, models_dir, fake_embedder=True, documents=120)
    report = web.measure(path, models_dir, repeat=2)
    assert report["documents"] == 10 + 120 + 100  # notes, short notes, filed reminders
    assert set(report["pages"]) == set(web.PAGES)
    for name, page in {**report["pages"], **report["actions"]}.items():
        assert 0 < page["p50_ms"] <= page["p95_ms"] <= page["max_ms"], name
    # Page 2 of each list is a real second page, reached by its cursor.
    assert (
        web._next('<a href="/docs?after=1.d1&amp;start=51" rel="next" id="docs-next">', "docs")
        == "/docs?after=1.d1&start=51"
    )
    assert web._next("no pager here", "audit") == "/audit"
