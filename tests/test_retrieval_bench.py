"""The LoCoMo retrieval benchmark's strong-vector cache reads back what it wrote."""

from __future__ import annotations

from pathlib import Path

from benchmarks.retrieval import CachedStrong
from privault.models.fakes import FakeStrongEmbedder


def test_cache_file_is_read_back_under_the_name_it_was_given(tmp_path: Path) -> None:
    path = tmp_path / "strong.cache"  # no ".npz": numpy would have appended one
    first = CachedStrong(FakeStrongEmbedder(dim=4), path)
    first.embed_documents(["one line", "another line"])
    first.save()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["strong.cache"]

    engine = FakeStrongEmbedder(dim=4)
    second = CachedStrong(engine, path)
    vectors = second.embed_documents(["one line", "another line"])
    assert engine.calls == 0  # both came from the file
    assert vectors.shape == (2, 4)
