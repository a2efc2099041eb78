"""The second, stronger relevance model: EmbeddingGemma-300M run by llama.cpp.

all-MiniLM-L6-v2 keeps the write and search paths fast; EmbeddingGemma ranks evidence far
better (on LoCoMo turns, R@10 0.56 → 0.82) but costs about 20× more per token, too much for
a write. So its vectors are computed after the write by a background pass
(`vault.strong`), and `context` and `ask` add it as one more ranked leg.

What is embedded for a window is its own line, after the day its document was written
(`strong_input`): the window's line and the two before it are what keywords and the fast
embedder match, but the strong model does as well on the line alone at a third of the
tokens, and the day lets "what did … in May" and "after the trip…" find the right days.
The vault records which input its vectors were made from (`index_name`): vectors of
another input are re-made by the background pass. Documents and queries get the model's own
prompts (`title: none | text: …`, `task: search result | query: …`).

The engine (`models.llama.LlamaEmbedder`) runs in the model worker process; this module
holds what retrieval needs of it: the `StrongEmbedder` interface, what is embedded for an
index entry and the key a vector is stored under (its fake for tests is
`models.fakes.FakeStrongEmbedder`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence
from datetime import UTC, datetime
from typing import Protocol

import numpy as np

from privault.timeutil import in_range

DEFAULT_STRONG_MODEL = "embeddinggemma-300m"


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


# What `strong_input` makes of a window; a vault's vectors made from another input are
# re-made (`index_name`). "line": the window's own line; "dated-line": the same after the
# day its document was written. Measured on LoCoMo (all evidence in a 2,000-token pack):
# "dated-line" 0.880 against 0.872 on conversations 1-3, 0.836 against 0.836 on 4-5 (at
# 1,000 tokens 0.793 against 0.796 there): not worth re-embedding every vault.
STRONG_INPUT = "line"


def index_name(model: str) -> str:
    """What a vault records its strong vectors as made by: the model and the input."""
    return model if STRONG_INPUT == "line" else f"{model}+{STRONG_INPUT}"


def strong_input(indexed_text: str, written: int | None = None) -> str:
    """What the strong model embeds for an index entry: the entry's own (last) line, after
    the day (UTC) its document was written (`written`, epoch ms) when there is one.

    An entry is its breadcrumb line and a window of lines ending with the one it stands
    for; a masked entry has the same shape with placeholders in place of values, so its
    last line is the masked form of the same line.
    """
    last = indexed_text.rstrip("\n").rsplit("\n", 1)[-1].strip() or indexed_text.strip()
    # A day outside the years privault keeps (stored by an older version) has no calendar
    # day to name: the line alone is embedded, as for an undated entry.
    if written is None or STRONG_INPUT == "line" or not in_range(written):
        return last
    day = datetime.fromtimestamp(written / 1000, tz=UTC)
    return f"{day.day} {day:%B %Y}: {last}"


def digest(model: str, text: str) -> bytes:
    """The key a vector is stored under: which model embedded which text."""
    return hashlib.blake2b(
        f"{model}\0{text}".encode("utf-8", "surrogatepass"), digest_size=16
    ).digest()


def partial_ranking(
    shortlist: Sequence[int], covered: Collection[int], ranked: Sequence[int]
) -> list[int]:
    """The strong model's ranking while its pass is partial: each window of the fast legs'
    shortlist (best first) that it has not reached (not in `covered`) keeps its place, and
    the other places go to the windows it has reached in its own order (`ranked`, best
    first, each in `covered`), whether the fast legs found them or not.

    Ranked alone, a partial strong index fills its places with the windows it covers (the
    newest first) and pushes the others' evidence out of the pack; lending a window it has
    not reached the mean cosine of its covered neighbours did too (the best real cosines
    stand above any mean). Once every window is covered this is `ranked` itself.
    """
    kept = {place: cid for place, cid in enumerate(shortlist) if cid not in covered}
    others = iter(ranked)
    order: list[int] = []
    for place in range(len(shortlist) + len(ranked)):
        if place in kept:
            order.append(kept[place])
        elif (following := next(others, None)) is not None:
            order.append(following)
    return order
