"""The second, stronger relevance model: EmbeddingGemma-300M run by llama.cpp.

all-MiniLM-L6-v2 keeps the write and search paths fast; EmbeddingGemma ranks evidence far
better (on LoCoMo turns, R@10 0.56 → 0.82) but costs about 20× more per token, too much for
a write. So its vectors are computed after the write by a background pass
(`vault.strong`), and `context` and `ask` add it as one more ranked leg.

What is embedded for a window is its own line (`strong_input`): the window's line and the
two before it are what keywords and the fast embedder match, but the strong model does as
well on the line alone at a third of the tokens. Documents and queries get the model's own
prompts (`title: none | text: …`, `task: search result | query: …`).

The engine is one llama.cpp context in embedding mode, many sequences per `llama_decode`
(the model is non-causal: a batch must fit one micro-batch, so both are the same size).
llama.cpp applies the model's two Dense projections and mean pooling itself; vectors are
L2-normalised here. `llama_cpp` is imported only when the real engine is built.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from privault import modelstore
from privault.errors import ModelError

DEFAULT_STRONG_MODEL = "embeddinggemma-300m"
BATCH_TOKENS = 128  # one llama_decode: measured fastest of 64..2048 on 2 shared cores
MAX_TOKENS = 120  # a longer line is cut: the start of a line says what it is about
TEXTS_PER_TURN = 8  # texts embedded per hold of the model lock (~1 s of one thread)
# Threads per llama_decode. A query is one short sequence that a caller waits for: two
# threads halve its time (median 96 → 53 ms on 2 cores) for about the same CPU. Documents
# are the background pass's long batches, where two threads on shared cores measured slower
# than one and would take the core a server's calls need.
DOCUMENT_THREADS = 1
QUERY_THREADS = 2


class StrongEmbedder(Protocol):
    """Turns documents and queries into unit vectors with a model's own prompts."""

    name: str
    dim: int

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for documents, shape (len(texts), dim), float32, L2-normalised."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """The vector for one search query, shape (dim,)."""
        ...


def strong_input(indexed_text: str) -> str:
    """What the strong model embeds for an index entry: the entry's own (last) line.

    An entry is its breadcrumb line and a window of lines ending with the one it stands
    for; a masked entry has the same shape with placeholders in place of values, so its
    last line is the masked form of the same line.
    """
    last = indexed_text.rstrip("\n").rsplit("\n", 1)[-1].strip()
    return last or indexed_text.strip()


def digest(model: str, text: str) -> bytes:
    """The key a vector is stored under: which model embedded which text."""
    return hashlib.blake2b(
        f"{model}\0{text}".encode("utf-8", "surrogatepass"), digest_size=16
    ).digest()


def _unit(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.maximum(norms, 1e-12)).astype(np.float32)


class GemmaEmbedder:
    """EmbeddingGemma as a verified Q8_0 GGUF in a llama.cpp embedding context."""

    def __init__(
        self,
        models_dir: Path,
        name: str = DEFAULT_STRONG_MODEL,
        *,
        threads: int = DOCUMENT_THREADS,
        query_threads: int = QUERY_THREADS,
    ) -> None:
        folder, model = modelstore.verified_model(models_dir, name)
        spec = model.embed or {}
        try:
            import llama_cpp
        except ImportError:
            raise ModelError(
                f"the strong model {name} is installed but llama-cpp-python is not: "
                f"install privault[llm], or delete {folder} to work without it"
            ) from None

        self.name = name
        self.dim = int(spec.get("dim", 768))
        self._document_prompt = str(spec.get("document_prompt", ""))
        self._query_prompt = str(spec.get("query_prompt", ""))
        self._threads = threads
        self._query_threads = query_threads
        self._lock = threading.Lock()
        self._llama: Any = llama_cpp.Llama(
            model_path=str(folder / model.files[0].path),
            embedding=True,
            pooling_type=llama_cpp.LLAMA_POOLING_TYPE_MEAN,
            n_ctx=BATCH_TOKENS,
            n_batch=BATCH_TOKENS,
            n_ubatch=BATCH_TOKENS,
            n_threads=threads,
            n_threads_batch=threads,
            flash_attn=True,
            verbose=False,
        )
        self._set_threads = llama_cpp.llama_set_n_threads

    def _embed(self, texts: Sequence[str], threads: int) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        rows: list[Any] = []
        # A few texts per turn of the lock: a query waits for at most one turn (about a
        # second) while a background pass on a sibling handle embeds a long batch.
        for start in range(0, len(texts), TEXTS_PER_TURN):
            with self._lock:
                self._set_threads(self._llama.ctx, threads, threads)
                # Whole texts, cut to MAX_TOKENS by the tokenizer's own count, so a batch
                # never holds a sequence llama.cpp would cut mid-way (it drops the end token).
                clipped = [self._clip(text) for text in texts[start : start + TEXTS_PER_TURN]]
                rows.extend(self._llama.embed(clipped, normalize=False))
        return _unit(np.asarray(rows, dtype=np.float32))

    def _clip(self, text: str) -> str:
        tokens = self._llama.tokenize(text.encode("utf-8", "replace"), add_bos=False)
        if len(tokens) <= MAX_TOKENS - 2:  # room for the start and end tokens
            return text
        return self._llama.detokenize(tokens[: MAX_TOKENS - 2]).decode("utf-8", "ignore")

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed([self._document_prompt + text for text in texts], self._threads)

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([self._query_prompt + text], self._query_threads)[0]


class FakeStrongEmbedder:
    """A deterministic stand-in for tests: hashed word bigrams and stems, 64 dimensions.

    Unlike `FakeEmbedder` it also scores word order, so the two fakes rank differently and
    tests can tell which leg placed a hit. `calls` counts the documents embedded.
    """

    name = "fake-strong"

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.calls = 0

    def _vector(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        words = [word[:4] for word in re.findall(r"\w+", text.lower())]
        for item in words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]:
            value = hashlib.blake2b(item.encode(), digest_size=8).digest()
            vector[int.from_bytes(value[:4], "little") % self.dim] += 1.0
        norm = float(np.linalg.norm(vector))
        if norm == 0:
            vector[0] = 1.0
            return vector
        return vector / norm

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += len(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vector(text) for text in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)
