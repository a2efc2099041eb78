"""Text embeddings behind one narrow interface, with a real engine and a deterministic fake.

The real engine is all-MiniLM-L6-v2 (int8 ONNX) run by fastembed from a verified local
folder: no hub, no network. fastembed is imported only when the real engine is built, so
code and tests that use the fake never pay for onnxruntime.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from privault import modelstore

DEFAULT_EMBEDDER = "minilm-l6-v2-int8"


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
    """all-MiniLM-L6-v2 through fastembed, loaded from a folder whose hashes were checked."""

    def __init__(self, models_dir: Path, name: str = DEFAULT_EMBEDDER, threads: int = 2):
        folder = modelstore.verified_path(models_dir, name)
        spec = modelstore.manifest(models_dir, name).embed or {}
        from fastembed import TextEmbedding
        from fastembed.common.model_description import ModelSource, PoolingType
        from tokenizers import Tokenizer

        model_id = f"privault/{name}"
        known = {entry["model"] for entry in TextEmbedding.list_supported_models()}
        if model_id not in known:
            TextEmbedding.add_custom_model(
                model=model_id,
                pooling=PoolingType.MEAN,
                normalization=bool(spec.get("normalize", True)),
                sources=ModelSource(hf=model_id),
                dim=int(spec.get("dim", 384)),
                model_file="model.onnx",
            )
        self.name = name
        self.dim = int(spec.get("dim", 384))
        self._model = TextEmbedding(model_id, specific_model_path=str(folder), threads=threads)
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = list(self._model.embed(list(texts), batch_size=64))
        return np.asarray(vectors, dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray(next(iter(self._model.query_embed(text))), dtype=np.float32)

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)


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
