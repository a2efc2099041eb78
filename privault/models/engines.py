"""What a model worker can load: the llama.cpp engines, or the fakes of `fakes.py`.

A `Spec` names the engine and its settings; it is all the worker is told, and the same
spec restarts the same model after a crash.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np

from privault.errors import ModelError
from privault.models.chat import ChatResult, Message

EngineKind = Literal["llama-chat", "llama-embed", "fake-chat", "fake-embed"]
KINDS: tuple[str, ...] = ("llama-chat", "llama-embed", "fake-chat", "fake-embed")


@dataclass(frozen=True)
class Spec:
    """Which engine a worker loads, from which models folder, with how many threads."""

    engine: EngineKind
    name: str
    models_dir: str = ""
    threads: int = 2
    query_threads: int = 2
    dim: int = 0  # embedders: the vector size, known from the manifest before loading
    # Chat engines: texts prompts start with (the briefing; the briefing and a worked
    # example), read into KV cache states once, or restored from the states a previous
    # worker gave the parent.
    prefixes: tuple[str, ...] = ()

    @property
    def role(self) -> str:
        """`chat` or `embed`."""
        return "chat" if self.engine.endswith("chat") else "embed"

    def to_json(self) -> dict[str, Any]:
        """The spec as the first message to the worker."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Spec:
        """Parse a spec, refusing an engine this worker does not know."""
        if data.get("engine") not in KINDS:
            raise ModelError(f"unknown engine {data.get('engine')!r}")
        return cls(**{**data, "prefixes": tuple(data.get("prefixes", ()))})


class Engine(Protocol):
    """What the worker calls: chat engines answer `chat`, embedders the other two."""

    def facts(self) -> dict[str, Any]:
        """What the parent may want to know once loaded (e.g. `dim`, `n_ctx`)."""
        ...

    def chat(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 256,
        progress: Callable[[], None] | None = None,
    ) -> ChatResult: ...

    def tokens(self, prompt: str) -> list[int]: ...

    def prepare(self, prefixes: Sequence[str], states: Sequence[bytes]) -> bool:
        """Make each prefix's KV cache, restored from `states` where it can be; True when
        every one was restored rather than read."""
        ...

    def prefix_states(self) -> list[bytes]:
        """The prefixes' KV cache states, for the next worker's `prepare`."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


class Unsupported:
    """The calls an engine of the other role refuses."""

    def chat(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 256,
        progress: Callable[[], None] | None = None,
    ) -> ChatResult:
        raise ModelError("this model does not chat")

    def tokens(self, prompt: str) -> list[int]:
        raise ModelError("this model does not chat")

    def prepare(self, prefixes: Sequence[str], states: Sequence[bytes]) -> bool:
        raise ModelError("this model does not chat")

    def prefix_states(self) -> list[bytes]:
        raise ModelError("this model does not chat")

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        raise ModelError("this model does not embed")

    def embed_query(self, text: str) -> np.ndarray:
        raise ModelError("this model does not embed")


class LlamaChatEngine(Unsupported):
    """A llama.cpp chat model (see `llama.LlamaChat`)."""

    def __init__(self, spec: Spec) -> None:
        from privault.models.llama import LlamaChat

        self._model = LlamaChat(Path(spec.models_dir), spec.name, n_threads=spec.threads)

    def facts(self) -> dict[str, Any]:
        return {"n_ctx": self._model.n_ctx}

    def chat(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 256,
        progress: Callable[[], None] | None = None,
    ) -> ChatResult:
        return self._model.chat(messages, max_tokens=max_tokens, progress=progress)

    def tokens(self, prompt: str) -> list[int]:
        return self._model.tokens(prompt)

    def prepare(self, prefixes: Sequence[str], states: Sequence[bytes]) -> bool:
        return self._model.prepare(prefixes, states)

    def prefix_states(self) -> list[bytes]:
        return self._model.prefix_states()


class LlamaEmbedEngine(Unsupported):
    """A llama.cpp embedding model (see `llama.LlamaEmbedder`)."""

    def __init__(self, spec: Spec) -> None:
        from privault.models.llama import LlamaEmbedder

        self._model = LlamaEmbedder(
            Path(spec.models_dir), spec.name, threads=spec.threads, query_threads=spec.query_threads
        )

    def facts(self) -> dict[str, Any]:
        return {"dim": self._model.dim}

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._model.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self._model.embed_query(text)


def _fake(kind: str) -> type[Any]:
    from privault.models import fakes

    return fakes.FakeChatEngine if kind == "chat" else fakes.FakeEmbedEngine


_ENGINES: dict[str, type[Any]] = {
    "llama-chat": LlamaChatEngine,
    "llama-embed": LlamaEmbedEngine,
}


def load_engine(spec: Spec) -> Engine:
    """The engine `spec` names, loaded (raises ModelError for a bad model file)."""
    factory = _ENGINES.get(spec.engine) or _fake(spec.role)
    engine: Engine = factory(spec)
    return engine
