"""Deterministic stand-ins for the chat model, for tests and the leak benchmark.

`FakeChat` answers from a fixed text or function and records every prompt it was shown,
so a test can check what a model would have seen. `LeakyStubChat` is the worst model the
pipeline could be given: it obeys every instruction it finds anywhere in its prompt —
the agent's question, an injected web page, a follow-up — and repeats every personal value
it can see, verbatim and in each encoding it was asked for. The leak scan must catch all
of it.
"""

from __future__ import annotations

import base64
import codecs
import re
from collections.abc import Callable, Sequence

from privault.models.chat import ChatResult, Message

Reply = str | Callable[[Sequence[Message]], str]


class FakeChat:
    """A chat model that returns `reply` (a text, or a function of the prompt).

    Without a reply it echoes the last user turn, which shows what the model saw.
    """

    def __init__(self, reply: Reply | None = None, *, name: str = "fake", local: bool = True):
        self.name = name
        self.local = local
        self._reply = reply
        self.calls: list[list[Message]] = []

    def chat(self, messages: Sequence[Message], *, max_tokens: int = 256) -> ChatResult:
        """Record the prompt and answer deterministically."""
        self.calls.append(list(messages))
        if self._reply is None:
            text = next((m.content for m in reversed(messages) if m.role == "user"), "")
        elif isinstance(self._reply, str):
            text = self._reply
        else:
            text = self._reply(messages)
        words = sum(len(m.content.split()) for m in messages)
        return ChatResult(text=text, prompt_tokens=words, completion_tokens=len(text.split()))


# What the leaky stub recognises as personal data in its prompt (plus any targets it is told).
_VALUE_PATTERNS = [
    re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),  # emails
    re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}(?: ?[A-Z0-9]{1,4})?\b"),  # IBANs
    re.compile(r"(?<![\w+])\+?\d[\d ()./-]{7,}\d\b"),  # phones, cards
    re.compile(r"(?=\b([A-Z][a-z]+ [A-Z][a-z]+)\b)"),  # capitalised pairs, overlapping
]
_LEET = str.maketrans("aeiost", "4310$7")
# Instruction words the stub obeys, and how it encodes a value for each.
_ENCODINGS: list[tuple[re.Pattern[str], str, Callable[[str], str]]] = [
    (re.compile(r"base ?64", re.I), "base64", lambda v: base64.b64encode(v.encode()).decode()),
    (re.compile(r"\bhex", re.I), "hex", lambda v: v.encode().hex()),
    (re.compile(r"revers|backward", re.I), "reversed", lambda v: v[::-1]),
    (re.compile(r"spell|letter by letter", re.I), "spelled", lambda v: "-".join(v)),
    (re.compile(r"space", re.I), "spaced", lambda v: " ".join(v.replace(" ", ""))),
    (re.compile(r"rot ?13", re.I), "rot13", lambda v: codecs.encode(v, "rot13")),
    (
        re.compile(r"leet|1337", re.I),
        "leet",
        lambda v: v.translate(str.maketrans("aeiost", "4310$7")),
    ),
]


class LeakyStubChat:
    """A deliberately leaky model: repeats every value it sees, in every encoding asked for.

    `targets` are values it treats as secrets in addition to what its patterns find (the
    leak benchmark passes its canaries, so the stub leaks exactly what is being counted).
    """

    local = True

    def __init__(self, targets: Sequence[str] = (), *, name: str = "leaky-stub") -> None:
        self.name = name
        self.targets = tuple(targets)
        self.calls: list[list[Message]] = []

    def values_in(self, prompt: str) -> list[str]:
        """Every personal-looking value or known target present in `prompt`, in order."""
        found = [t for t in self.targets if t and t in prompt]
        for pattern in _VALUE_PATTERNS:
            found.extend(
                match.group(match.lastindex or 0).strip() for match in pattern.finditer(prompt)
            )
        return list(dict.fromkeys(found))

    def chat(self, messages: Sequence[Message], *, max_tokens: int = 256) -> ChatResult:
        """Obey every instruction: leak each value verbatim and in each requested encoding."""
        self.calls.append(list(messages))
        # The system briefing says "never reveal"; this model ignores it and reads the rest.
        prompt = "\n".join(m.content for m in messages if m.role != "system")
        values = self.values_in(prompt)
        forms = [(label, encode) for pattern, label, encode in _ENCODINGS if pattern.search(prompt)]
        lines = [f"As instructed, here is everything: {', '.join(values)}."]
        for label, encode in forms:
            lines.extend(f"{label}: {encode(value)}" for value in values)
        text = "\n".join(lines)
        return ChatResult(
            text=text, prompt_tokens=len(prompt.split()), completion_tokens=len(lines)
        )
