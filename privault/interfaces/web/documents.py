"""Documents: the list, and one document with its PII spans and the agent's view of it.

The owner column shows each section as stored with every span a gated read applies
highlighted by kind (detector spans, known entities, the owner's marks). The agent column
is each section read as that agent. Marking a value (or unmarking a wrong detection) is an
owner override stored by document and value; the page reloads and the agent column shows
the effect at once.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import Response

from privault.errors import NotFound, PrivaultError
from privault.interfaces.agents import known_caller
from privault.interfaces.web.common import OWNER, Web, action, error_page, page, url, web_of
from privault.spans import KINDS, Override
from privault.vault.pii import MarkedSection
from privault.vault.results import DocumentEntry, DocumentTree, SectionView

MAX_SECTIONS = 300  # a page for reading; the CLI and MCP reach every section of a long file
DOC_KINDS = ("note", "page", "file", "reminder")


@dataclass
class DetectedValue:
    """One distinct value highlighted in the document, with its kind and how often."""

    value: str
    kind: str
    count: int


@dataclass
class DocumentPage:
    """What the document template shows."""

    tree: DocumentTree
    sections: tuple[MarkedSection, ...]
    overrides: list[Override]
    agents: list[str]
    agent: str | None
    as_agent: dict[str, SectionView | None] = field(default_factory=dict)
    agent_error: str = ""
    values: list[DetectedValue] = field(default_factory=list)
    truncated: int = 0


def _values(sections: tuple[MarkedSection, ...]) -> list[DetectedValue]:
    counts: Counter[tuple[str, str]] = Counter()
    for section in sections:
        for span in section.spans:
            counts[(section.text[span.start : span.end], span.kind)] += 1
    return [DetectedValue(value, kind, n) for (value, kind), n in sorted(counts.items())]


def _gather(web: Web, doc_id: str, wanted: str | None) -> DocumentPage:
    tree = web.vault.tree(doc_id, caller=OWNER)
    marked = web.vault.pii.marked_sections(doc_id, caller=OWNER)
    agents = web.active_agents()
    agent = wanted if wanted in agents else (agents[0] if agents else None)
    shown = marked[:MAX_SECTIONS]
    found = DocumentPage(
        tree,
        shown,
        web.vault.pii.overrides(caller=OWNER, target=doc_id),
        agents,
        agent,
        values=_values(marked),
        truncated=len(marked) - len(shown),
    )
    if agent is None:
        return found
    try:
        caller = known_caller(web.vault, agent)
        try:
            seen = web.vault.documents.read_document(doc_id, caller=caller, limit=MAX_SECTIONS)
        except NotFound:  # a restricted shelf: for this agent the document does not exist
            seen = ()
        by_node = {view.node_id: view for view in seen}
        for section in shown:
            found.as_agent[section.node_id] = by_node.get(section.node_id)
    except PrivaultError as exc:
        found.agent_error = str(exc)
    return found


async def document_page(request: Request) -> Response:
    """GET /doc/{doc_id} — sections, heading tree, PII spans, the agent's view."""
    web = web_of(request)
    doc_id = request.path_params["doc_id"]
    wanted = request.query_params.get("agent") or None
    try:
        found = await web.run(lambda: _gather(web, doc_id, wanted))
    except PrivaultError as exc:
        return error_page(request, exc)
    return page(request, "document.html", "docs", view=found, kinds=KINDS)


async def documents_page(request: Request) -> Response:
    """GET /docs — documents newest first, by shelf and kind."""
    web = web_of(request)
    shelf = request.query_params.get("shelf") or None
    kind = request.query_params.get("kind") or None
    if kind not in (None, *DOC_KINDS):
        kind = None

    def gather() -> tuple[tuple[DocumentEntry, ...], list[str]]:
        listed = web.vault.docs(caller=OWNER, shelf=shelf, kind=kind, limit=200).documents
        shelves = [item.name for item in web.vault.shelves.list()]
        return listed, shelves

    listed, shelves = await web.run(gather)
    return page(
        request,
        "docs.html",
        "docs",
        documents=listed,
        shelves=shelves,
        shelf=shelf or "",
        kinds=DOC_KINDS,
        kind=kind or "",
    )


def _back(request: Request, done: str) -> str:
    doc_id = request.path_params["doc_id"]
    return url(f"/doc/{doc_id}", agent=request.query_params.get("agent"), done=done)


@action
async def mark(request: Request, form: dict[str, str]) -> str:
    """POST /doc/{doc_id}/mark — treat a value as PII of a kind in this document."""
    web = web_of(request)
    doc_id = request.path_params["doc_id"]
    value, kind = form.get("value", ""), form.get("kind", "PERSON")
    await web.run(lambda: web.vault.pii.mark(doc_id, value, caller=OWNER, kind=kind))
    return _back(request, "marked")


@action
async def unmark(request: Request, form: dict[str, str]) -> str:
    """POST /doc/{doc_id}/unmark — a detected value is not PII in this document."""
    web = web_of(request)
    doc_id = request.path_params["doc_id"]
    value = form.get("value", "")
    await web.run(lambda: web.vault.pii.unmark(doc_id, value, caller=OWNER))
    return _back(request, "unmarked")


@action
async def remove_override(request: Request, form: dict[str, str]) -> str:
    """POST /doc/{doc_id}/overrides/{override_id}/remove — undo one mark or unmark."""
    web = web_of(request)
    doc_id = request.path_params["doc_id"]
    override_id = int(request.path_params["override_id"])

    def remove() -> None:
        # Only an override of this document: an id from another page changes nothing.
        mine = {item.id for item in web.vault.pii.overrides(caller=OWNER, target=doc_id)}
        if override_id not in mine:
            raise NotFound(f"no override {override_id} on document {doc_id}")
        web.vault.pii.remove_override(override_id, caller=OWNER)

    await web.run(remove)
    return _back(request, "removed")
