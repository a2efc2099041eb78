"""Text embeddings behind one narrow interface, with a real engine and a deterministic fake.

The real engine is all-MiniLM-L6-v2 (int8 ONNX) from a verified local folder: no hub, no
network. One single-threaded onnxruntime session over that model file, optimised once and
kept beside it (`retrieval.prepared`), embeds queries (one short text on the latency path,
unpadded) and passages (in batches padded to their longest text); parallel passage work
runs on threads (`vault.embedding`). A vector is the mean of the last layer over the
text's own tokens, L2-normalised: sentence-transformers' recipe for this model.
onnxruntime is imported only when the real engine is built, so code and tests that use
the fake never pay for it.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from privault.models import catalog
from privault.retrieval import prepared

DEFAULT_EMBEDDER = "minilm-l6-v2-int8"
QUERY_MAX_TOKENS = 512  # the model's context: longer texts are cut there, passages too
PASSAGE_BATCH = 32  # passages a model call
_COUNT_CACHE = 4096  # token counts remembered, by text
_QUERY_CACHE = 64  # query vectors remembered, by text...
# ...for a moment only: long enough for the searches of one reply to share a vector, too
# short for an agent to learn from its timing that someone else asked the same words.
_QUERY_SECONDS = 2.0


class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors of a fixed dimension."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for passages, shape (len(texts), dim), float32, L2-normalised."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """The vector for one search query, shape (dim,)."""
        ...

    def count_tokens(self, text: str) -> int:
        """How many tokens the text is, as this embedder's tokenizer counts them."""
        ...


class FastEmbedder:
    """all-MiniLM-L6-v2 through onnxruntime, loaded from a folder whose hashes were checked."""

    def __init__(self, models_dir: Path, name: str = DEFAULT_EMBEDDER):
        folder, model = catalog.verified_model(models_dir, name)
        spec = model.embed or {}
        graph_sha256 = next(file.sha256 for file in model.files if file.path == "model.onnx")
        self.name = name
        self.dim = int(spec.get("dim", 384))
        self._folder = folder
        self._normalise = bool(spec.get("normalize", True))
        self._tokenizers_lock = threading.Lock()
        self._tokenizers: dict[tuple[bool, bool], Any] = {}
        self._query_tokenizer = self._tokenizer(truncate=True, pad=False)
        # onnxruntime runs one session from several threads at once (`vault.embedding`).
        self._session = prepared.single_thread_session(folder / "model.onnx", graph_sha256)
        self._inputs = {node.name for node in self._session.get_inputs()}
        self._counts: OrderedDict[bytes, int] = OrderedDict()
        self._counts_lock = threading.Lock()
        self._queries: OrderedDict[str, tuple[float, np.ndarray]] = OrderedDict()

    def _tokenizer(self, *, truncate: bool, pad: bool) -> Any:
        """The model's tokenizer, cut at the model's context or not (a count must see the
        whole text), padding a batch to its longest or not; each kind built on its first
        use (~50 ms), so a search that counts and embeds no passage builds only the query's."""
        key = (truncate, pad)
        with self._tokenizers_lock:
            if key not in self._tokenizers:
                from tokenizers import Tokenizer

                built = Tokenizer.from_file(str(self._folder / "tokenizer.json"))
                if truncate:
                    built.enable_truncation(QUERY_MAX_TOKENS)
                else:
                    built.no_truncation()
                if pad:
                    built.enable_padding()
                else:
                    built.no_padding()
                self._tokenizers[key] = built
            return self._tokenizers[key]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Batches are padded to their longest text: sorted by length, a batch holds texts
        # of similar size and little compute is spent on padding.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        tokenizer = self._tokenizer(truncate=True, pad=True)
        result = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), PASSAGE_BATCH):
            batch = order[start : start + PASSAGE_BATCH]
            encodings = tokenizer.encode_batch([texts[i] for i in batch])
            ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
            mask = np.asarray([e.attention_mask for e in encodings], dtype=np.int64)
            result[batch] = self._pooled(ids, mask)
        return result

    def embed_query(self, text: str) -> np.ndarray:
        # One query is often embedded several times in a row: a search and the statements
        # it includes, the owner's and an agent's view of the same words side by side.
        # Recent vectors are kept briefly (read-only: no caller can change the next one's).
        now = time.monotonic()
        with self._counts_lock:
            found = self._queries.get(text)
            if found is not None and now - found[0] < _QUERY_SECONDS:
                return found[1]
        vector = self._embed_query(text)
        vector.flags.writeable = False
        with self._counts_lock:
            self._queries.pop(text, None)
            self._queries[text] = (now, vector)
            while len(self._queries) > _QUERY_CACHE:
                self._queries.popitem(last=False)
        return vector

    def _embed_query(self, text: str) -> np.ndarray:
        # One short text, unpadded: no batching machinery on the latency path.
        ids = np.asarray([self._query_tokenizer.encode(text).ids], dtype=np.int64)
        return self._pooled(ids, np.ones_like(ids))[0]

    def _pooled(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Vectors of a batch: the last layer averaged over each text's own tokens."""
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        vectors = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        if self._normalise:
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return vectors.astype(np.float32)

    def count_tokens(self, text: str) -> int:
        # Packing counts the same section texts over and over (every hit of a section, every
        # query); WordPiece on a long text costs a thousand times what its digest does.
        # Keyed by digest so the cache never holds large texts alive.
        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        with self._counts_lock:
            found = self._counts.get(key)
            if found is not None:
                self._counts.move_to_end(key)
                return found
        count = len(
            self._tokenizer(truncate=False, pad=False).encode(text, add_special_tokens=False).ids
        )
        with self._counts_lock:
            self._counts[key] = count
            if len(self._counts) > _COUNT_CACHE:
                self._counts.popitem(last=False)
        return count


class FakeEmbedder:
    """A deterministic embedder for tests: hashed bag of word stems, so shared words score.

    Vectors are stable across runs and machines; texts that share words are similar, which
    is enough to test fusion, filtering and ranking without a model.
    """

    name = "fake"

    def __init__(self, dim: int = 384):
        self.dim = dim

    def _vector(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        for word in re.findall(r"\w+", text.lower()):
            stem = word[:5]
            digest = hashlib.blake2b(stem.encode(), digest_size=8).digest()
            index = int.from_bytes(digest[:4], "little") % self.dim
            vector[index] += 1.0 if digest[4] % 2 else -1.0
        norm = float(np.linalg.norm(vector))
        if norm == 0:
            vector[0] = 1.0
            return vector
        return vector / norm

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vector(text) for text in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)

    def count_tokens(self, text: str) -> int:
        return len(re.findall(r"\w+|[^\w\s]", text))
