"""The LoCoMo retrieval benchmark's strong-vector cache reads back what it wrote."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks.retrieval import CachedStrong


class _Engine:
    name, dim = "fake-strong", 4

    def __init__(self) -> None:
        self.calls = 0

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.calls += len(texts)
        return np.ones((len(texts), self.dim), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return np.ones(self.dim, dtype=np.float32)


def test_cache_file_is_read_back_under_the_name_it_was_given(tmp_path: Path) -> None:
    path = tmp_path / "strong.cache"  # no ".npz": numpy would have appended one
    first = CachedStrong(_Engine(), path)
    first.embed_documents(["one line", "another line"])
    first.save()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["strong.cache"]

    engine = _Engine()
    second = CachedStrong(engine, path)
    vectors = second.embed_documents(["one line", "another line"])
    assert engine.calls == 0  # both came from the file
    assert vectors.shape == (2, 4)
