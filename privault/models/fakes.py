"""Deterministic stand-ins for the models: a fake strong embedder, and worker engines that
fail on request.

`FakeStrongEmbedder` runs in the caller's process, for unit tests of retrieval. The fake
engines run inside a real model worker, so the supervisor's handling of crashes, kills and
hangs is tested and benchmarked without a real model: each reads a directive in the text it
is given (`[[crash:segv]]`, `[[crash:abort]]`, `[[kill]]`, `[[hang]]`, `[[slow:SECONDS]]`)
and does exactly that — a real segmentation fault, a real abort, a real SIGKILL of itself
(as the kernel's out-of-memory killer sends). Only a parent holding the worker's pipe can
send them text.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import signal
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from privault.models.chat import ChatResult, Message, chatml
from privault.models.engines import Spec, Unsupported


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


_DIRECTIVE = re.compile(r"\[\[(crash:segv|crash:abort|kill|hang|slow:[0-9.]+|trickle:[0-9.]+)\]\]")


def obey(text: str, progress: Callable[[], None] | None = None) -> None:
    """Do what the first directive in `text` says (nothing when it holds none).
    `trickle:S` writes slowly for S seconds, showing progress all along."""
    found = _DIRECTIVE.search(text)
    if found is None:
        return
    directive = found.group(1)
    if directive == "crash:segv":
        ctypes.string_at(0)  # a real read of address 0: SIGSEGV, as a faulty kernel gives
    elif directive == "crash:abort":
        os.abort()
    elif directive == "kill":
        os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's out-of-memory killer does
    elif directive == "hang":
        while True:
            time.sleep(3600)
    elif directive.startswith("trickle:"):
        ends = time.monotonic() + float(directive.split(":", 1)[1])
        while time.monotonic() < ends:
            time.sleep(0.1)
            if progress is not None:
                progress()
    else:
        time.sleep(float(directive.split(":", 1)[1]))


class FakeChatEngine(Unsupported):
    """Echoes the last user turn, after obeying any directive in it."""

    def __init__(self, spec: Spec) -> None:
        self.name = spec.name
        self._prefixes: list[str] = []

    def facts(self) -> dict[str, Any]:
        return {"n_ctx": 4096}

    def prepare(self, prefixes: Sequence[str], states: Sequence[bytes]) -> bool:
        self._prefixes = list(prefixes)
        return list(states) == self.prefix_states()

    def prefix_states(self) -> list[bytes]:
        return [b"fake KV of " + prefix.encode() for prefix in self._prefixes]

    def chat(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 256,
        progress: Callable[[], None] | None = None,
    ) -> ChatResult:
        started = time.perf_counter()
        last = next((m.content for m in reversed(messages) if m.role == "user"), "")
        obey(last, progress)
        words = last.split()
        for _ in words[:max_tokens]:
            if progress is not None:
                progress()
        prompt = chatml(messages)
        held = max((p for p in self._prefixes if prompt.startswith(p)), key=len, default="")
        return ChatResult(
            text=" ".join(words[:max_tokens]),
            prompt_tokens=len(prompt.split()),
            cached_tokens=len(held.split()),
            completion_tokens=min(len(words), max_tokens),
            seconds=time.perf_counter() - started,
        )

    def tokens(self, prompt: str) -> list[int]:
        return [len(word) for word in prompt.split()]


class FakeEmbedEngine(Unsupported):
    """The deterministic fake strong embedder, after obeying any directive in its texts."""

    def __init__(self, spec: Spec) -> None:
        self._model = FakeStrongEmbedder(spec.dim or 64)

    def facts(self) -> dict[str, Any]:
        return {"dim": self._model.dim}

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        for text in texts:
            obey(text)
        return self._model.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        obey(text)
        return self._model.embed_query(text)
