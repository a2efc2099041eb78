"""Claude's artifacts (a document, code or page Claude wrote beside its answer), as the
export holds them.

An artifact is not in a message's text, which shows a placeholder where it stood: it is
the input of an `artifacts` tool call. `create` and `rewrite` give its whole text;
`update` replaces one passage (`old_str` → `new_str`) of the version before it, which an
earlier message of the conversation may have written. So a conversation's artifacts are
replayed in order, and each call leaves the artifact's text as it stood after it.

An edit of a few words repeats the whole artifact, so a conversation of many small edits
to a long artifact would be stored many times its size: past a budget, an edit keeps only
the passage it wrote.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

TOOL_NAME = "artifacts"
WHOLE_VERSIONS_CHARS = 8 * 1024 * 1024  # edited versions shown whole, per conversation
# Artifact types that are code without naming their language; prose types are not fenced.
_LANGUAGES = {
    "text/html": "html",
    "image/svg+xml": "svg",
    "application/vnd.ant.react": "jsx",
    "application/vnd.ant.mermaid": "mermaid",
}
_PROSE = {"", "text/markdown", "text/plain", "text/md"}


@dataclass(frozen=True)
class Version:
    """One artifact as it stood after a call."""

    title: str
    text: str
    language: str | None  # the code fence's language; None for prose


class Artifacts:
    """The latest version of each artifact of one conversation, by the artifact's id."""

    def __init__(self) -> None:
        self._latest: dict[str, Version] = {}
        self._edited_chars = 0  # of the edited versions shown whole so far

    def apply(self, call: Mapping[str, Any]) -> str:
        """The artifact's text after the call whose input is `call`, headed by its title;
        '' when the call leaves nothing to read."""
        key = str(call.get("id") or "")
        before = self._latest.get(key) if key else None
        if call.get("command") == "update":
            return self._update(key, before, call)
        if not isinstance(call.get("content"), str):
            return ""
        version = Version(_title(call, before), call["content"], _language(call, before))
        if key:
            self._latest[key] = version
        return _shown(version)

    def _update(self, key: str, before: Version | None, call: Mapping[str, Any]) -> str:
        if before is None:  # the version edited is not in this conversation
            return _edit(call, _title(call, None))
        if self._edited_chars > WHOLE_VERSIONS_CHARS:  # not replayed further: see above
            return _edit(call, _title(call, before))
        old = _field(call, "old_str")
        if not old or old not in before.text:
            return ""  # Claude refuses such an edit: the artifact stays as it was
        text = before.text.replace(old, _field(call, "new_str"), 1)
        version = replace(before, title=_title(call, before), text=text)
        self._latest[key] = version
        self._edited_chars += len(text)
        return _shown(version)


def _edit(call: Mapping[str, Any], title: str) -> str:
    """What an edit wrote, where the version it edits is not shown whole."""
    return _shown(Version(f"{title} (edited)", _field(call, "new_str"), None))


def _field(call: Mapping[str, Any], name: str) -> str:
    value = call.get(name)
    return value if isinstance(value, str) else ""


def _title(call: Mapping[str, Any], before: Version | None) -> str:
    title = " ".join(_field(call, "title").split())
    return title or (before.title if before else "Untitled artifact")


def _language(call: Mapping[str, Any], before: Version | None) -> str | None:
    kind = _field(call, "type")
    if not kind:
        return before.language if before else None
    if kind in _PROSE:
        return None
    return _field(call, "language") or _LANGUAGES.get(kind, "")


def _shown(version: Version) -> str:
    if not version.text.strip():
        return ""
    text = version.text.strip("\n")
    if version.language is not None:
        text = f"```{version.language}\n{text}\n```"
    return f"### Artifact: {version.title}\n\n{text}"
