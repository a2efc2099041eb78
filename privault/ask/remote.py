"""A remote chat backend speaking the OpenAI-compatible `/chat/completions` API.

Allowed only for context that holds nothing private: the pipeline decides that before this
class is called and never hands it a private section. The client ignores proxy variables
(`trust_env=False`) and does not follow redirects, so the request goes exactly where the
owner configured it and nowhere else.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import httpx

from privault.models.chat import ChatResult, Message


class RemoteReplyError(Exception):
    """The backend answered, but not with a chat completion privault can read."""


class RemoteChat:
    """An OpenAI-compatible chat endpoint (`base_url` ends before `/chat/completions`)."""

    local = False

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.name = f"remote:{model}"
        self.model = model
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            base_url=base_url.rstrip("/") + "/",
            headers=headers,
            timeout=timeout,
            trust_env=False,  # never route through a proxy taken from the environment
            follow_redirects=False,
            transport=transport,
        )

    def chat(self, messages: Sequence[Message], *, max_tokens: int = 256) -> ChatResult:
        """Send the prompt and return the first choice. Raises httpx.HTTPError when the
        request fails, `RemoteReplyError` when the reply is not a completion with text."""
        body = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "max_tokens": max_tokens,
            "temperature": 0,
        }
        started = time.perf_counter()
        response = self._client.post("chat/completions", json=body)
        response.raise_for_status()
        text, usage = _completion(response)
        return ChatResult(
            text=text.strip(),
            prompt_tokens=_count(usage.get("prompt_tokens")),
            completion_tokens=_count(usage.get("completion_tokens")),
            seconds=time.perf_counter() - started,
        )

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()


def _completion(response: httpx.Response) -> tuple[str, dict[str, object]]:
    """The first choice's text and the usage of an OpenAI-style completion."""
    try:
        data = response.json()
    except ValueError:
        raise RemoteReplyError("its reply is not JSON") from None
    choices = data.get("choices") if isinstance(data, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        raise RemoteReplyError("its reply holds no answer text (choices[0].message.content)")
    usage = data.get("usage")
    return content, usage if isinstance(usage, dict) else {}


def _count(value: object) -> int:
    return value if isinstance(value, int) and value >= 0 else 0
