"""The in-process llama.cpp chat model that answers questions over private text.

Why in-process: private text never crosses a socket, not even to localhost, so no proxy
variable, firewall rule or stray server can see it. The model is loaded once (from a file
whose sha256 `modelstore.verified_path` has just checked) and kept loaded by the long-running
process that owns it.

Why the prompt is formatted here rather than by llama.cpp's chat handler: we tokenize the
prompt ourselves, so we can tell how many leading tokens match what is already in the KV
cache. llama.cpp reuses that common prefix instead of re-evaluating it; the briefing's
fixed system prefix is the same for every question, so on a warm model only the sections
and the question cost prompt-evaluation time. `ChatResult.cached_tokens` reports the reuse.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from privault import modelstore
from privault.ask.chat import ChatResult, Message
from privault.errors import InputError, ModelError

DEFAULT_CONTEXT = 4096
DEFAULT_THREADS = 2
# Stops for the ChatML family (SmolLM2, Qwen2.5): the end of the assistant turn.
_CHATML_STOPS = ("<|im_end|>", "<|endoftext|>", "<|im_start|>")


def chatml(messages: Sequence[Message]) -> str:
    """Render messages in ChatML, ending with an open assistant turn."""
    turns = [f"<|im_start|>{m.role}\n{m.content}<|im_end|>\n" for m in messages]
    return "".join(turns) + "<|im_start|>assistant\n"


def gguf_file(models_dir: Path, name: str) -> tuple[Path, modelstore.Manifest]:
    """The verified GGUF file of chat model `name` and its manifest (raises ModelError)."""
    role = modelstore.manifest(models_dir, name).role
    if role != "chat":  # asked before the files are checked: the wrong model is not hashed
        raise ModelError(f"model {name} is a {role} model, not a chat model")
    folder, model = modelstore.verified_model(models_dir, name)  # never load a bad file
    path = folder if folder.is_file() else folder / model.files[0].path
    return path, model


class LocalChat:
    """A GGUF chat model loaded in this process with llama.cpp (greedy, deterministic).

    One instance holds one loaded model; calls are serialised with a lock because a
    llama.cpp context is not safe to use from two threads at once.

    `n_threads` is how many CPU threads llama.cpp computes with. A server that answers
    other calls while the model writes gives it fewer than the machine's cores: llama.cpp's
    threads meet at a barrier after every step, so when one of them waits for a core the
    others wait with it. (On a 2-core machine at load average 5, a 911-token prompt took 43 s
    with 2 threads and 20–32 s with 1.)
    """

    local = True

    def __init__(
        self,
        models_dir: Path,
        name: str,
        *,
        n_threads: int = DEFAULT_THREADS,
        n_ctx: int | None = None,
        seed: int = 0,
    ) -> None:
        path, model = gguf_file(models_dir, name)
        settings = model.chat or {}
        chat_format = settings.get("format", "chatml")
        if chat_format != "chatml":
            raise ModelError(f"model {name}: chat format {chat_format!r} is not supported yet")
        try:
            from llama_cpp import Llama  # heavy: imported only when a model is loaded
        except ImportError:
            raise ModelError(
                "llama-cpp-python is not installed; install privault[llm] to ask questions"
            ) from None
        self.name = name
        self.path = path
        self.threads = n_threads
        self.n_ctx = int(n_ctx or min(int(settings.get("context", DEFAULT_CONTEXT)), 8192))
        self._llm: Any = Llama(
            model_path=str(path),
            n_ctx=self.n_ctx,
            n_threads=n_threads,
            n_threads_batch=n_threads,
            seed=seed,
            verbose=False,
        )
        self._lock = threading.Lock()

    def tokens(self, prompt: str) -> list[int]:
        """Tokenize a rendered prompt exactly as `chat` does (special tokens parsed)."""
        return list(self._llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True))

    def complete(self, prompt: str, *, max_tokens: int = 256) -> ChatResult:
        """Continue a rendered prompt greedily; reuses the KV cache's common prefix."""
        with self._lock:
            tokens = self.tokens(prompt)
            if len(tokens) + 1 >= self.n_ctx:
                raise InputError(
                    f"the prompt has {len(tokens)} tokens; model {self.name} holds {self.n_ctx}"
                )
            budget = max(1, min(max_tokens, self.n_ctx - len(tokens) - 1))
            cached = self._cached_prefix(tokens)
            started = time.perf_counter()
            output = self._llm.create_completion(
                tokens,
                max_tokens=budget,
                temperature=0.0,
                stop=list(_CHATML_STOPS),
            )
            seconds = time.perf_counter() - started
        usage = output.get("usage", {})
        return ChatResult(
            text=str(output["choices"][0]["text"]).strip(),
            prompt_tokens=int(usage.get("prompt_tokens", len(tokens))),
            cached_tokens=cached,
            completion_tokens=int(usage.get("completion_tokens", 0)),
            seconds=seconds,
        )

    def chat(self, messages: Sequence[Message], *, max_tokens: int = 256) -> ChatResult:
        """Answer `messages` (rendered as ChatML) with at most `max_tokens` new tokens."""
        return self.complete(chatml(messages), max_tokens=max_tokens)

    def _cached_prefix(self, tokens: list[int]) -> int:
        """How many leading prompt tokens are already evaluated in the KV cache."""
        held = self._llm.input_ids[: self._llm.n_tokens]
        shared = 0
        for old, new in zip(held, tokens, strict=False):
            if old != new:
                break
            shared += 1
        # llama.cpp re-evaluates one token when the whole prompt is cached.
        return min(shared, len(tokens) - 1)
