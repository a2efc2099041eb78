"""The vault's embedder: a one-threaded model session, fed in parts on two threads.

onnxruntime runs a session's work on its own thread pool whose threads spin while they
wait; on two cores shared with the detector (which runs beside the embedder on every
write, see `writing`) a two-threaded session spent about 70% more CPU per note than a
one-threaded one, for the same vectors. So the vault's session runs each call on one
thread, and a long list of texts is cut into parts of texts of about one length (a batch
is padded to its longest) that run on two threads at once: the same two cores, without
the spinning.
Every vector is what the model gives the text alone.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from privault.retrieval.embedder import Embedder

PART = 32  # texts per part: one model call
THREADS = 2  # parts embedded at once

_pool: list[ThreadPoolExecutor] = []
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    with _pool_lock:
        if not _pool:
            _pool.append(ThreadPoolExecutor(THREADS, thread_name_prefix="privault-embed"))
        return _pool[0]


class PartedEmbedder:
    """An embedder whose long batches run in parts on `THREADS` threads."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for passages, as `inner.embed` gives them, in parts at once."""
        if len(texts) <= PART:
            return self.inner.embed(texts)
        import numpy as np

        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        parts = [
            _executor().submit(self.inner.embed, [texts[i] for i in order[start : start + PART]])
            for start in range(0, len(order), PART)
        ]
        vectors = np.empty((len(texts), self.dim), dtype=np.float32)
        vectors[order] = np.concatenate([part.result() for part in parts])
        return vectors

    def embed_query(self, text: str) -> np.ndarray:
        """The vector for one search query."""
        return self.inner.embed_query(text)

    def count_tokens(self, text: str) -> int:
        """Tokens in `text`, as the model counts them."""
        return self.inner.count_tokens(text)


def default_embedder(models_dir: Path) -> PartedEmbedder:
    """The embedder a vault loads when it is given none: the installed MiniLM, verified."""
    from privault.retrieval.embedder import FastEmbedder

    return PartedEmbedder(FastEmbedder(models_dir))
