"""The llama.cpp engines: a chat model and an embedding model, loaded in this process.

Only the model worker (`worker.py`) builds them: a process that serves callers reaches them
through `supervisor.py`, so a native fault in llama.cpp ends the worker, never the server.
Each is loaded once (from a file whose sha256 `catalog.verified_model` has just checked) and
kept loaded by the worker for every call after.

Why the prompt is formatted here rather than by llama.cpp's chat handler: we tokenize the
prompt ourselves, so we can tell how many leading tokens match what is already in the KV
cache. llama.cpp reuses that common prefix instead of re-evaluating it; the briefing's
fixed system prefix is the same for every question, so on a warm model only the sections
and the question cost prompt-evaluation time. `ChatResult.cached_tokens` reports the reuse.
The cache holds one prompt at a time, so `LlamaChat.prepare` also keeps a state of each
fixed prefix (the briefing; the briefing and the when-questions' worked example): a prompt
whose prefix the cache no longer holds starts from that state, and a new worker restores
the states the server kept from the first one instead of reading the prefixes again.
"""

from __future__ import annotations

import ctypes
import functools
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from privault.errors import InputError, ModelError
from privault.models import catalog
from privault.models.chat import CHATML_STOPS, ChatResult, Message, chatml
from privault.models.cores import threads_now

DEFAULT_CONTEXT = 4096
DEFAULT_THREADS = 2
# The embedding context: one llama_decode holds BATCH_TOKENS tokens (measured fastest of
# 64..2048 on 2 shared cores); a longer text is cut to MAX_TOKENS, since the start of a line
# says what it is about.
BATCH_TOKENS = 128
MAX_TOKENS = 120
# Threads per llama_decode, at most (`cores.threads_now` gives fewer when cores are busy).
# A query is one short sequence that a caller waits for: on idle cores two threads roughly
# halve its time for about the same CPU. Documents are the background pass's long batches,
# where two threads on shared cores measured slower than one and would take the core a
# server's calls need (benchmarks.retrieval --blas-threads).
DOCUMENT_THREADS = 1
QUERY_THREADS = 2


def gguf_file(models_dir: Path, name: str) -> tuple[Path, catalog.Manifest]:
    """The verified GGUF file of chat model `name` and its manifest (raises ModelError)."""
    role = catalog.manifest(models_dir, name).role
    if role != "chat":  # asked before the files are checked: the wrong model is not hashed
        raise ModelError(f"model {name} is a {role} model, not a chat model")
    folder, model = catalog.verified_model(models_dir, name)  # never load a bad file
    path = folder if folder.is_file() else folder / model.files[0].path
    return path, model


class LlamaChat:
    """A GGUF chat model loaded in this process with llama.cpp (greedy, deterministic).

    One instance holds one loaded model; calls are serialised with a lock because a
    llama.cpp context is not safe to use from two threads at once.

    `n_threads` is how many CPU threads llama.cpp computes with. A server that answers
    other calls while the model writes gives it fewer than the machine's cores: llama.cpp's
    threads meet at a barrier after every step, so when one of them waits for a core the
    others wait with it. (On a 2-core machine at load average 5, a 911-token prompt took 43 s
    with 2 threads and 20–32 s with 1.) So `n_threads` is a ceiling: each call takes only
    as many as there are idle cores when it starts (`cores.threads_now`).
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
            import llama_cpp  # heavy: imported only when a model is loaded
        except ImportError:
            raise ModelError(
                "llama-cpp-python is not installed; install privault[llm] to ask questions"
            ) from None
        load_backends()
        self.name = name
        self.path = path
        self.threads = n_threads
        self.n_ctx = int(n_ctx or min(int(settings.get("context", DEFAULT_CONTEXT)), 8192))
        self._llm: Any = llama_cpp.Llama(
            model_path=str(path),
            n_ctx=self.n_ctx,
            n_threads=n_threads,
            n_threads_batch=n_threads,
            seed=seed,
            # Read, not mapped: the CPU backend repacks quantised weights into its own layout,
            # and a mapped file stays resident beside that copy (the 1.5B answerer: 1,949 →
            # 1,359 MB resident after a 721-token prompt; loads in the same 1–3 s).
            use_mmap=False,
            verbose=False,
        )
        self._lock = threading.Lock()
        self._set_threads = llama_cpp.llama_set_n_threads
        # Each prefix's tokens and KV cache state (`prepare`); a state is made only while
        # the cache holds that prefix and nothing after it (None: not made yet).
        self._held: list[tuple[list[int], bytes | None]] = []

    def prepare(self, prefixes: Sequence[str], states: Sequence[bytes]) -> bool:
        """Hold the KV cache state of each of `prefixes` (the briefing; the briefing and the
        worked example), restored from `states` (what `prefix_states` gave for this model
        in another process) where that works. The first, which every prompt starts with,
        is read now if it was not restored; the others when a prompt first starts with
        them, at no extra cost (`complete`). True when the first was restored."""
        with self._lock:
            self._held = []
            restored = False
            for index, prefix in enumerate(prefixes):
                tokens = self.tokens(prefix)
                state = states[index] if index < len(states) else b""
                if state and self._restore(tokens, state):
                    self._held.append((tokens, state))
                    restored = restored or index == 0
                elif index == 0:
                    self._read(tokens)
                    self._held.append((tokens, self._state()))
                else:
                    self._held.append((tokens, None))
            return restored

    def prefix_states(self) -> list[bytes]:
        """The states made so far, one per prefix (empty: not made yet). Each was made
        while the cache held its prefix alone, so no text but the prefixes' ever leaves
        this process."""
        with self._lock:
            return [state or b"" for _, state in self._held]

    def _read(self, tokens: list[int]) -> None:
        """Evaluate `tokens`, keeping what the cache already holds of them, and nothing else."""
        import llama_cpp

        shared = self._shared(tokens)
        llama_cpp.llama_memory_seq_rm(llama_cpp.llama_get_memory(self._llm.ctx), -1, shared, -1)
        self._llm.n_tokens = shared
        self._llm.eval(tokens[shared:])

    def _state(self) -> bytes:
        import llama_cpp

        size = llama_cpp.llama_state_seq_get_size(self._llm.ctx, 0)
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_seq_get_data(self._llm.ctx, buffer, size, 0)
        return bytes(buffer)[:written]

    def _restore(self, tokens: list[int], state: bytes) -> bool:
        """Replace the cache with `state`, the cache of `tokens`; False (and an empty cache)
        when llama.cpp refuses it (another model's or build's)."""
        import llama_cpp

        self._clear()
        buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
        if llama_cpp.llama_state_seq_set_data(self._llm.ctx, buffer, len(state), 0) == 0:
            self._clear()
            return False
        self._llm.input_ids[: len(tokens)] = tokens
        self._llm.n_tokens = len(tokens)
        self._llm._requires_eval = True  # its logits were not computed here
        return True

    def _clear(self) -> None:
        import llama_cpp

        llama_cpp.llama_memory_seq_rm(llama_cpp.llama_get_memory(self._llm.ctx), -1, 0, -1)
        self._llm.n_tokens = 0

    def _begin_from_held(self, tokens: list[int]) -> int:
        """Start from the state of the longest held prefix `tokens` begin with, when the
        cache holds less of them (a when-question after another kind of question: its
        worked example restored in milliseconds instead of read in a second or two); a
        prefix met for the first time is read now and its state kept. Returns how many
        leading tokens were in the cache before this call read any."""
        shared = self._shared(tokens)
        starts = [i for i, (prefix, _) in enumerate(self._held) if tokens[: len(prefix)] == prefix]
        index = max(starts, key=lambda i: len(self._held[i][0]), default=None)
        if index is None or len(self._held[index][0]) <= shared:
            return shared
        prefix, state = self._held[index]
        if state is not None and self._restore(prefix, state):
            return len(prefix)
        self._read(prefix)
        self._held[index] = (prefix, self._state())
        return shared

    def tokens(self, prompt: str) -> list[int]:
        """Tokenize a rendered prompt exactly as `chat` does (special tokens parsed)."""
        return list(self._llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True))

    def complete(
        self, prompt: str, *, max_tokens: int = 256, progress: Callable[[], None] | None = None
    ) -> ChatResult:
        """Continue a rendered prompt greedily; reuses the KV cache's common prefix.
        `progress()` is called after each new token (the worker's sign of life)."""
        with self._lock:
            tokens = self.tokens(prompt)
            if len(tokens) + 1 >= self.n_ctx:
                raise InputError(
                    f"the prompt has {len(tokens)} tokens; model {self.name} holds {self.n_ctx}"
                )
            budget = max(1, min(max_tokens, self.n_ctx - len(tokens) - 1))
            threads = threads_now(self.threads)
            self._set_threads(self._llm.ctx, threads, threads)
            started = time.perf_counter()
            # llama.cpp re-reads one token of a prompt it holds whole.
            cached = min(self._begin_from_held(tokens), len(tokens) - 1)
            output = self._llm.create_completion(
                tokens,
                max_tokens=budget,
                temperature=0.0,
                stop=list(CHATML_STOPS),
                stopping_criteria=self._signs_of_life(progress),
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

    def chat(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 256,
        progress: Callable[[], None] | None = None,
    ) -> ChatResult:
        """Answer `messages` (rendered as ChatML) with at most `max_tokens` new tokens."""
        return self.complete(chatml(messages), max_tokens=max_tokens, progress=progress)

    @staticmethod
    def _signs_of_life(progress: Callable[[], None] | None) -> Any:
        if progress is None:
            return None
        from llama_cpp import StoppingCriteriaList

        def tick(_ids: Any, _logits: Any) -> bool:
            progress()
            return False  # never stops the answer; only says it is being written

        return StoppingCriteriaList([tick])

    def _shared(self, tokens: list[int]) -> int:
        """How many leading tokens of `tokens` the KV cache holds already."""
        held = self._llm.input_ids[: self._llm.n_tokens]
        shared = 0
        for old, new in zip(held, tokens, strict=False):
            if old != new:
                break
            shared += 1
        return shared


class LlamaEmbedder:
    """An embedding model (EmbeddingGemma) as a verified GGUF in a llama.cpp context.

    One llama.cpp context in embedding mode, many sequences per `llama_decode` (the model is
    non-causal: a batch must fit one micro-batch, so both are the same size). llama.cpp
    applies the model's Dense projections and mean pooling itself; vectors are
    L2-normalised here, with the model's own document and query prompts."""

    def __init__(
        self,
        models_dir: Path,
        name: str,
        *,
        threads: int = DOCUMENT_THREADS,
        query_threads: int = QUERY_THREADS,
    ) -> None:
        folder, model = catalog.verified_model(models_dir, name)
        spec = model.embed or {}
        try:
            import llama_cpp
        except ImportError:
            raise ModelError(
                f"the strong model {name} is installed but llama-cpp-python is not: "
                f"install privault[llm], or delete {folder} to work without it"
            ) from None

        load_backends()
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
        with self._lock:
            threads = threads_now(threads)
            self._set_threads(self._llama.ctx, threads, threads)
            # Whole texts, cut to MAX_TOKENS by the tokenizer's own count, so a batch never
            # holds a sequence llama.cpp would cut mid-way (it drops the end token).
            rows = self._llama.embed([self._clip(text) for text in texts], normalize=False)
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


def _unit(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.maximum(norms, 1e-12)).astype(np.float32)


# ggml's AMX matrix kernels fault on the first real decode (see docs/models.md): a CPU
# backend library that holds them can be told by this symbol.
AMX_MARK = b"ggml_backend_amx_buffer_type"
GGML_SONAME = "libggml.so.0"  # of the pinned llama-cpp-python (pyproject.toml)


@functools.cache
def load_backends() -> int:
    """Make sure llama.cpp has its CPU backend; returns how many backends it has.

    A build with `GGML_BACKEND_DL` + `GGML_CPU_ALL_VARIANTS` keeps each CPU variant
    (x86-64, AVX2, AVX-512, …) in its own library beside llama.cpp's and registers none
    until asked. ggml's own choice would be the best variant this CPU runs — on a Sapphire
    Rapids-class Xeon the AMX one, which faults — so the choice is made here: the
    best-scoring variant that holds no AMX kernels. Ordinary builds have their backend
    linked in, and this does nothing."""
    import llama_cpp

    folder = Path(llama_cpp.__file__).parent / "lib"
    if not (folder / "libggml.so").exists():  # laid out otherwise: the backend is linked in
        return 0
    # By its soname: a wheel holds libggml.so and libggml.so.0 as two copies of one file,
    # and the backend must be registered in the copy libllama uses (the .so.0).
    ggml = ctypes.CDLL(GGML_SONAME)
    ggml.ggml_backend_reg_count.restype = ctypes.c_size_t
    if ggml.ggml_backend_reg_count() == 0:
        best = best_variant(cpu_variants(Path(llama_cpp.__file__).parent))
        if best is None:
            raise ModelError(
                "llama.cpp was built with runtime CPU variants, but none that runs on this CPU "
                f"is installed beside {folder.parent}"
            )
        ggml.ggml_backend_load.restype = ctypes.c_void_p
        ggml.ggml_backend_load.argtypes = [ctypes.c_char_p]
        if not ggml.ggml_backend_load(str(best).encode()):
            raise ModelError(f"llama.cpp could not load its CPU backend {best.name}")
    return int(ggml.ggml_backend_reg_count())


def cpu_variants(package: Path) -> list[Path]:
    """The CPU variant libraries of a runtime-dispatched build of the `llama_cpp` package
    in `package` (none in an ordinary one). pip installs them in the `bin` folder beside
    the package (llama-cpp-python copies only the libraries it names into its own)."""
    folders = (package / "lib", package.parent / "bin")
    return [path for folder in folders for path in sorted(folder.glob("libggml-cpu-*.so"))]


def linked_cpu_libraries(package: Path) -> list[Path]:
    """The CPU backend library an ordinary build of `package` links in (none when dispatched)."""
    return [
        path for path in (package / "lib").glob("libggml-cpu.*") if path.suffix in (".so", ".dylib")
    ]


def holds_amx(library: Path) -> bool:
    """Whether a CPU backend library can select ggml's AMX kernels."""
    return AMX_MARK in library.read_bytes()


def best_variant(variants: Sequence[Path]) -> Path | None:
    """The variant that scores best on this CPU (its own `ggml_backend_score`: 0 when the
    CPU lacks a feature it needs), AMX-holding ones left out."""
    import _ctypes

    scored = []
    for path in variants:
        if holds_amx(path):
            continue
        library = ctypes.CDLL(str(path))
        score = getattr(library, "ggml_backend_score", None)
        if score is not None:
            score.restype = ctypes.c_int
            scored.append((int(score()), path))
        _ctypes.dlclose(library._handle)
    runnable = [(score, path) for score, path in scored if score > 0]
    return max(runnable)[1] if runnable else None


def system_info() -> str:
    """llama.cpp's own line of the CPU features this build computes with (`AVX2 = 1 | …`)."""
    import llama_cpp

    load_backends()
    return bytes(llama_cpp.llama_print_system_info()).decode("utf-8", "replace").strip()
