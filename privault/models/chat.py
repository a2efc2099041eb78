"""The narrow interface every chat backend speaks: messages in, one answer out.

The pipeline only ever sees a `ChatModel`: the local llama.cpp model in its worker, the remote
OpenAI-compatible backend and the deterministic fakes used by tests all fit it, so the
privacy rules in the pipeline are exercised the same way whichever model answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class Message:
    """One turn of a chat prompt."""

    role: Role
    content: str


@dataclass(frozen=True)
class ChatResult:
    """What a backend answered, with the numbers the benchmarks and the reply report.

    `cached_tokens` is how many prompt tokens were reused from the previous call (the
    briefing prefix kept in llama.cpp's KV cache); backends that cannot tell report 0.
    """

    text: str
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


@runtime_checkable
class ChatModel(Protocol):
    """A chat model that answers a prompt. `local` is True only for models run by privault
    on this machine (in its supervised worker process), never for a remote backend."""

    name: str
    local: bool

    def chat(self, messages: Sequence[Message], *, max_tokens: int = 256) -> ChatResult:
        """Answer the conversation `messages` with at most `max_tokens` new tokens."""
        ...


# Stops for the ChatML family (SmolLM2, Qwen2.5): the end of the assistant turn.
CHATML_STOPS = ("<|im_end|>", "<|endoftext|>", "<|im_start|>")


def chatml_turns(messages: Sequence[Message]) -> str:
    """Render messages in ChatML, closed turns only: what every prompt that starts with
    these messages starts with."""
    return "".join(f"<|im_start|>{m.role}\n{m.content}<|im_end|>\n" for m in messages)


def chatml(messages: Sequence[Message]) -> str:
    """Render messages in ChatML, ending with an open assistant turn."""
    return chatml_turns(messages) + "<|im_start|>assistant\n"
