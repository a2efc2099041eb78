"""The real llama.cpp models take a second thread only when a core is idle, and give the
same result either way (`models.cores`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from privault.models import cores
from privault.models.chat import Message
from privault.models.llama import LlamaChat, LlamaEmbedder
from privault.retrieval.strong import DEFAULT_STRONG_MODEL

pytestmark = pytest.mark.real


def spy(model: Any, monkeypatch: pytest.MonkeyPatch) -> Callable[[float], list[int]]:
    """Record the threads each call sets; the returned function makes the machine look
    as busy as told (other programs' runnable tasks) on 2 cores."""
    used: list[int] = []
    set_threads = model._set_threads

    def recording(ctx: Any, threads: int, batch_threads: int) -> Any:
        used.append(threads)
        return set_threads(ctx, threads, batch_threads)

    model._set_threads = recording
    monkeypatch.setattr(cores, "cores", lambda: 2)

    def busy(others: float) -> list[int]:
        monkeypatch.setattr(cores, "others_running", lambda: others)
        return used

    return busy


def test_a_query_on_busy_cores_takes_one_thread_and_the_same_vector(
    models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = LlamaEmbedder(models_dir, DEFAULT_STRONG_MODEL, query_threads=2)
    busy = spy(embedder, monkeypatch)
    busy(0.0)
    idle = embedder.embed_query("When did Dana move to Lisbon?")
    used = busy(5.0)
    loaded = embedder.embed_query("When did Dana move to Lisbon?")
    assert used == [2, 1]
    assert float(idle @ loaded) > 0.9999


def test_an_answer_on_busy_cores_takes_one_thread_and_the_same_words(
    models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat = LlamaChat(models_dir, "smollm2-135m", n_threads=2)
    busy = spy(chat, monkeypatch)
    question = [Message("user", "Name three colours.")]
    busy(0.0)
    idle = chat.chat(question, max_tokens=12)
    chat._llm.reset()  # the same prompt again, not a cached one
    used = busy(4.0)
    loaded = chat.chat(question, max_tokens=12)
    assert used == [2, 1]
    assert loaded.text == idle.text and loaded.text
