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
        """Send the prompt and return the first choice. Raises httpx.HTTPError on failure."""
        body = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "max_tokens": max_tokens,
            "temperature": 0,
        }
        started = time.perf_counter()
        response = self._client.post("chat/completions", json=body)
        response.raise_for_status()
        data = response.json()
        usage = data.get("usage") or {}
        return ChatResult(
            text=str(data["choices"][0]["message"]["content"]).strip(),
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            seconds=time.perf_counter() - started,
        )

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()
