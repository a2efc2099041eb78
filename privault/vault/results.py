"""What the facade returns: frozen values with a stable JSON form (`to_dict()`).

The JSON shapes are part of privault's interface (CLI `--json`, MCP structured output) and
are documented in docs/python-api.md; add fields, never rename them.

Every text field that can carry stored text is typed `Gated`: only the gate makes one, so
mypy refuses a result built from text that skipped it (ids, kinds, shelf names and the
caller's own query are plain `str`; `tests/test_gate_types.py` keeps that list honest).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from privault.privacy.gate import Gated
from privault.timeutil import now_ms, to_iso
from privault.vault.added import Added as Added  # re-exported: writes return it, gate-free
from privault.vault.added import AddReport as AddReport

if TYPE_CHECKING:  # statement_results imports this module
    from privault.vault.statement_results import GatedStatement


def age(created_at: int, now: int | None = None) -> str:
    """A short human age: `3d`, `5h`, `12m`, `now`."""
    seconds = max(0, ((now or now_ms()) - created_at) // 1000)
    for unit, size in (("y", 31_536_000), ("w", 604_800), ("d", 86_400), ("h", 3_600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return "now"


@dataclass(frozen=True)
class Privacy:
    """Which policy a response was gated by and what it held back."""

    policy: str
    mode: str
    held_back: dict[str, int] = field(default_factory=dict)
    withheld_sections: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "policy": self.policy,
            "mode": self.mode,
            "held_back": dict(self.held_back),
            "withheld_sections": self.withheld_sections,
        }


@dataclass(frozen=True)
class Hit:
    """One search result: a whole section, or a bounded excerpt of a long one."""

    node_id: str
    doc_id: str
    title: Gated
    breadcrumb: tuple[Gated, ...]
    text: Gated
    score: float
    kind: str
    shelf: str
    created_at: int
    excerpt: bool
    withheld: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON form (stable keys: node_id, doc_id, title, breadcrumb, text, score)."""
        return {
            "node_id": self.node_id,
            "doc_id": self.doc_id,
            "title": self.title,
            "breadcrumb": list(self.breadcrumb),
            "text": self.text,
            "score": round(self.score, 6),
            "kind": self.kind,
            "shelf": self.shelf,
            "created_at": to_iso(self.created_at),
            "age": age(self.created_at),
            "excerpt": self.excerpt,
            "withheld": self.withheld,
        }


@dataclass(frozen=True)
class SearchResponse:
    """Search results and the privacy facts of the response."""

    query: str
    results: tuple[Hit, ...]
    privacy: Privacy
    statements: tuple[GatedStatement, ...] = ()
    # Recent sections not searchable by meaning yet: queued for the indexer, past the few
    # the owner's search embeds itself (found by their words meanwhile). 0 for gated callers.
    unsearchable: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "query": self.query,
            "results": [hit.to_dict() for hit in self.results],
            "statements": [statement.to_dict() for statement in self.statements],
            "unsearchable": self.unsearchable,
            **self.privacy.to_dict(),
        }


@dataclass(frozen=True)
class ContextSection:
    """A section (or excerpt of one) inside a context pack."""

    node_id: str
    doc_id: str
    title: Gated
    breadcrumb: tuple[Gated, ...]
    text: Gated
    created_at: int
    untrusted: bool
    excerpt: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "node_id": self.node_id,
            "doc_id": self.doc_id,
            "title": self.title,
            "breadcrumb": list(self.breadcrumb),
            "text": self.text,
            "created_at": to_iso(self.created_at),
            "untrusted": self.untrusted,
            "excerpt": self.excerpt,
        }


@dataclass(frozen=True)
class ContextPack:
    """The best sections packed into a token budget, with what did not fit counted."""

    query: str
    text: Gated
    sections: tuple[ContextSection, ...]
    used_tokens: int
    budget: int
    dropped: int
    privacy: Privacy
    statements: tuple[GatedStatement, ...] = ()
    unsearchable: int = 0  # as `SearchResponse.unsearchable`

    def to_dict(self) -> dict[str, Any]:
        """JSON form (stable keys: text, sections, used_tokens, dropped)."""
        return {
            "query": self.query,
            "text": self.text,
            "sections": [section.to_dict() for section in self.sections],
            "statements": [statement.to_dict() for statement in self.statements],
            "used_tokens": self.used_tokens,
            "budget": self.budget,
            "dropped": self.dropped,
            "unsearchable": self.unsearchable,
            **self.privacy.to_dict(),
        }


@dataclass(frozen=True)
class SectionView:
    """One section read by node id, gated for the caller."""

    node_id: str
    doc_id: str
    title: Gated
    breadcrumb: tuple[Gated, ...]
    text: Gated
    kind: str
    shelf: str
    created_at: int
    untrusted: bool
    children: tuple[str, ...]
    privacy: Privacy
    # Node ids of the documents this section links to (an imported note's [[links]], a
    # mail's reply-to); ids only, and only for the owner.
    links: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "node_id": self.node_id,
            "doc_id": self.doc_id,
            "title": self.title,
            "breadcrumb": list(self.breadcrumb),
            "text": self.text,
            "kind": self.kind,
            "shelf": self.shelf,
            "created_at": to_iso(self.created_at),
            "untrusted": self.untrusted,
            "children": list(self.children),
            "links": list(self.links),
            **self.privacy.to_dict(),
        }


@dataclass(frozen=True)
class TreeNode:
    """A section's place in its document's heading tree (headings only, no text)."""

    node_id: str
    heading: Gated
    depth: int
    parent: str | None
    chars: int

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "node_id": self.node_id,
            "heading": self.heading,
            "depth": self.depth,
            "parent": self.parent,
            "chars": self.chars,
        }


@dataclass(frozen=True)
class DocumentTree:
    """A document's title and its heading tree."""

    doc_id: str
    title: Gated
    kind: str
    shelf: str
    nodes: tuple[TreeNode, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "doc_id": self.doc_id,
            "title": self.title,
            "kind": self.kind,
            "shelf": self.shelf,
            "nodes": [node.to_dict() for node in self.nodes],
        }


@dataclass(frozen=True)
class DocumentEntry:
    """A document in a listing, its title gated; `source` only for the owner (paths name
    people and places)."""

    doc_id: str
    kind: str
    title: Gated
    source: Gated | None
    shelf: str
    tags: tuple[Gated, ...]
    created_at: int
    updated_at: int
    untrusted: bool
    current: bool
    previous_id: str | None
    with_source: bool = True

    def to_dict(self) -> dict[str, Any]:
        """JSON form (no `source` key when it is not shown)."""
        data: dict[str, Any] = {
            "doc_id": self.doc_id,
            "kind": self.kind,
            "title": self.title,
            "source": self.source,
            "shelf": self.shelf,
            "tags": list(self.tags),
            "created_at": to_iso(self.created_at),
            "updated_at": to_iso(self.updated_at),
            "untrusted": self.untrusted,
            "current": self.current,
            "previous_id": self.previous_id,
        }
        if not self.with_source:
            data.pop("source")
        return data


@dataclass(frozen=True)
class DocumentList:
    """Documents newest first, and the privacy facts of the response."""

    documents: tuple[DocumentEntry, ...]
    privacy: Privacy

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"documents": [doc.to_dict() for doc in self.documents], **self.privacy.to_dict()}
