"""Handles on models that run in supervised workers, shaped as the callers need them.

`WorkerChat` is a `ChatModel` for the ask pipeline and `WorkerEmbedder` a `StrongEmbedder`
for retrieval; each forwards its calls to a `supervisor.ModelProcess`. `local_chat` and
`local_embedder` check a model's manifest and files in the caller (a bad file is refused
at once, with no worker started) and return a handle whose worker starts on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from privault.errors import ModelError
from privault.models import catalog
from privault.models.chat import ChatResult, Message
from privault.models.engines import Spec
from privault.models.llama import DEFAULT_THREADS, DOCUMENT_THREADS, QUERY_THREADS
from privault.models.supervisor import Deadline, Health, ModelProcess

TEXTS_PER_CALL = 8  # documents per embedding call: a query waits behind at most one call


class WorkerChat:
    """A chat model answered by a supervised worker: a `ChatModel` for the ask pipeline."""

    local = True  # run by privault on this machine; private text may go to it

    def __init__(
        self, spec: Spec, *, deadline: Deadline | None = None, process: ModelProcess | None = None
    ) -> None:
        self.name = spec.name
        self.process = process or ModelProcess(spec)
        self.deadline = deadline or Deadline()

    def chat(self, messages: Sequence[Message], *, max_tokens: int = 256) -> ChatResult:
        """Answer `messages` in the worker (raises ModelUnavailable if it dies or hangs)."""
        chars = sum(len(m.content) for m in messages)
        reply, _ = self.process.call(
            {
                "op": "chat",
                "messages": [[m.role, m.content] for m in messages],
                "max_tokens": max_tokens,
            },
            seconds=self.deadline.first(chars),
            silence=self.deadline.between(),
            cap=self.deadline.cap,
        )
        return ChatResult(
            text=str(reply["text"]),
            prompt_tokens=int(reply["prompt_tokens"]),
            cached_tokens=int(reply["cached_tokens"]),
            completion_tokens=int(reply["completion_tokens"]),
            seconds=float(reply["seconds"]),
        )

    def tokens(self, prompt: str) -> list[int]:
        """The model's tokens for a rendered prompt, as `chat` counts them."""
        reply, _ = self.process.call(
            {"op": "tokens", "prompt": prompt}, seconds=self.deadline.first(len(prompt))
        )
        return [int(token) for token in reply["tokens"]]

    def health(self) -> Health:
        """The worker's state."""
        return self.process.health()

    def start(self) -> None:
        """Start the worker now and wait for the model to load."""
        self.process.start()


class WorkerEmbedder:
    """An embedding model run by a supervised worker: a `StrongEmbedder` for retrieval."""

    def __init__(
        self,
        spec: Spec,
        *,
        deadline: Deadline | None = None,
        process: ModelProcess | None = None,
    ) -> None:
        self.name = spec.name
        self.dim = spec.dim
        self.process = process or ModelProcess(spec)
        self.deadline = deadline or Deadline()

    def _embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        reply, payload = self.process.call(
            {"op": "embed", "texts": list(texts), "query": query},
            seconds=self.deadline.embed(len(texts)),
            binary=True,
        )
        assert payload is not None
        rows, dim = reply["shape"]
        return np.frombuffer(payload, dtype=np.float32).reshape(rows, dim).copy()

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for documents, a few per call so a query never waits long behind them."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [
            self._embed(texts[start : start + TEXTS_PER_CALL], query=False)
            for start in range(0, len(texts), TEXTS_PER_CALL)
        ]
        return np.concatenate(parts)

    def embed_query(self, text: str) -> np.ndarray:
        """The vector for one query."""
        return self._embed([text], query=True)[0]

    def health(self) -> Health:
        """The worker's state."""
        return self.process.health()


def local_chat(
    models_dir: Path,
    name: str,
    *,
    threads: int = DEFAULT_THREADS,
    deadline: Deadline | None = None,
    on_change: Callable[[Health], None] | None = None,
    unload_after: float | None = None,
    prefixes: Sequence[str] = (),
) -> WorkerChat:
    """The chat model `name`, checked now (role, files, sha256) and run in a worker that
    starts on the first call (and, with `unload_after`, stops after that many seconds
    without one, to start again on the next). `prefixes`, texts prompts start with, are
    read once however many workers start (see `supervisor`)."""
    role = catalog.manifest(models_dir, name).role
    if role != "chat":  # asked before the files are checked: the wrong model is not hashed
        raise ModelError(f"model {name} is a {role} model, not a chat model")
    catalog.verified_model(models_dir, name)  # a bad file is refused here, in the caller
    spec = Spec("llama-chat", name, str(models_dir), threads=threads, prefixes=tuple(prefixes))
    process = ModelProcess(spec, on_change=on_change, unload_after=unload_after)
    return WorkerChat(spec, deadline=deadline, process=process)


def local_embedder(
    models_dir: Path,
    name: str,
    *,
    threads: int = DOCUMENT_THREADS,
    query_threads: int = QUERY_THREADS,
    deadline: Deadline | None = None,
    on_change: Callable[[Health], None] | None = None,
) -> WorkerEmbedder:
    """The embedding model `name`, checked now and run in a worker started on first use."""
    _, model = catalog.verified_model(models_dir, name)
    dim = int((model.embed or {}).get("dim", 768))
    spec = Spec(
        "llama-embed", name, str(models_dir), threads=threads, query_threads=query_threads, dim=dim
    )
    return WorkerEmbedder(spec, deadline=deadline, process=ModelProcess(spec, on_change=on_change))
