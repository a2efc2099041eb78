"""Statement vectors: texts embedded (before any write lock) into float32 blobs."""

from __future__ import annotations

import sqlite_vec

from privault.errors import ModelError
from privault.statements.model import Embed

DIMENSIONS = 384  # statements_vec is declared float[384]


def window_start(valid_from: int | None, occurred_at: int | None, now: int) -> int:
    """Where a new window opens: as given, else when it happened, else now."""
    if valid_from is not None:
        return valid_from
    return occurred_at if occurred_at is not None else now


def embed_many(embed: Embed, texts: list[str]) -> list[bytes]:
    """Vectors for texts as float32 blobs; ModelError when the embedder answers wrongly."""
    vectors = embed(texts)
    if len(vectors) != len(texts):
        raise ModelError(f"the embedder returned {len(vectors)} vectors for {len(texts)} texts")
    for vector in vectors:
        if len(vector) != DIMENSIONS:
            raise ModelError(
                f"the embedder returned {len(vector)} dimensions; statements need {DIMENSIONS}"
            )
    return [sqlite_vec.serialize_float32(list(vector)) for vector in vectors]


def embed_one(embed: Embed | None, text: str) -> bytes | None:
    """One text's vector blob, or None without an embedder."""
    # Embedding runs before the write lock is taken: a model call must not block writers.
    return None if embed is None else embed_many(embed, [text])[0]
