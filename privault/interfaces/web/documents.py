"""Documents: the list, and one document with its PII spans and the agent's view of it.

The owner column shows each section as stored with every span a gated read applies
highlighted by kind (detector spans, known entities, the owner's marks; overlapping spans
merged as the gate merges them). The agent column is each section read as that agent, and
the panel under the text lists what that agent gets masked, one row per value and kind,
with what was detected but is shown to it behind a toggle. Marking a value (or unmarking a
wrong detection of one kind) is an owner override stored by document and value; a change
that would show any agent more text is first spelt out and confirmed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import Response

from privault.errors import NotFound, PrivaultError
from privault.filters import Filters
from privault.interfaces.agents import known_caller
from privault.interfaces.web.common import (
    OWNER,
    Web,
    action,
    error_page,
    page,
    url,
    web_of,
    whole_number,
)
from privault.interfaces.web.statements import DAY_MS, known_at_ms
from privault.spans import KINDS, Override
from privault.vault.agent_masking import AgentMasking, ValueRow, owner_rows
from privault.vault.pii import MarkedSection
from privault.vault.results import DocumentEntry, DocumentTree, SectionView
from privault.vault.reveal import Reveal

MAX_SECTIONS = 300  # a page for reading; the CLI and MCP reach every section of a long file
DOC_KINDS = ("note", "page", "file", "reminder")


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
    masking: AgentMasking | None = None
    values: tuple[ValueRow, ...] = ()  # with no agent: every detected value
    truncated: int = 0
    author: str = ""  # the agent that wrote the document ('': the owner)
    untrusted: bool = False  # a page a watch fetched


def _gather(web: Web, doc_id: str, wanted: str | None) -> DocumentPage:
    tree = web.vault.tree(doc_id, caller=OWNER)
    agents = web.active_agents()
    agent = wanted if wanted in agents else (agents[0] if agents else None)
    masking = None
    if agent is None:
        marked = web.vault.pii.marked_sections(doc_id, caller=OWNER)
    else:
        marked, masking = web.vault.pii.masking_for(
            doc_id, known_caller(web.vault, agent), caller=OWNER
        )
    shown = marked[:MAX_SECTIONS]
    found = DocumentPage(
        tree,
        shown,
        web.vault.pii.overrides(caller=OWNER, target=doc_id),
        agents,
        agent,
        masking=masking,
        truncated=len(marked) - len(shown),
    )
    if tree.nodes:  # who wrote it, told on the page (an agent's note is not the owner's)
        first = web.vault.read(tree.nodes[0].node_id, caller=OWNER)
        found.author, found.untrusted = first.author, first.untrusted
    if agent is None:
        found.values = owner_rows(
            {s.node_id: list(s.spans) for s in marked}, {s.node_id: s.text for s in marked}
        )
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


PAGE_SIZE = 50


@dataclass
class DocumentsPage:
    """One page of the documents list: which, of how many, and the next page's address."""

    documents: tuple[DocumentEntry, ...]
    total: int
    start: int  # 1-based position of the first one shown
    next_url: str | None
    shelves: list[str]
    filters: dict[str, str]


def cursor(value: str) -> tuple[int, str] | None:
    """A paging cursor `stamp.id` read back (a document's `created_at.doc_id`, a reminder's
    `acked_at.id`; None for none or a malformed one)."""
    stamp_text, _, doc_id = value.partition(".")
    stamp = whole_number(stamp_text)
    if stamp is None or not doc_id or len(doc_id) > 64:
        return None
    return stamp, doc_id


def day_range(since: str, until: str) -> tuple[int | None, int | None]:
    """A `since`..`until` pair of days (both included) as epoch ms, `until` exclusive."""
    start = known_at_ms(since)
    end = known_at_ms(until)
    return (None if start is None else start - DAY_MS + 1, None if end is None else end + 1)


async def documents_page(request: Request) -> Response:
    """GET /docs — documents newest first, a page at a time, by shelf, kind, tag, title words
    and creation day."""
    web = web_of(request)
    params = request.query_params
    kind = params.get("kind") or None
    if kind not in (None, *DOC_KINDS):
        kind = None
    filters = {
        "shelf": params.get("shelf", "")[:100],
        "kind": kind or "",
        "tag": params.get("tag", "")[:100],
        "q": params.get("q", "")[:200],
        "since": params.get("since", "")[:20],
        "until": params.get("until", "")[:20],
    }
    after = cursor(params.get("after", ""))
    start = whole_number(params.get("start", "")) or 1

    def gather() -> DocumentsPage:
        since, until = day_range(filters["since"], filters["until"])
        chosen = Filters(filters["shelf"] or None, kind, filters["tag"] or None, since, until)
        title = filters["q"] or None
        listed = web.vault.docs(
            caller=OWNER, filters=chosen, limit=PAGE_SIZE + 1, after=after, title=title
        )
        total = web.vault.documents.count(caller=OWNER, filters=chosen, title=title)
        shown = listed.documents[:PAGE_SIZE]
        following = None
        if len(listed.documents) > PAGE_SIZE:
            last = shown[-1]
            following = url(
                "/docs",
                **filters,
                after=f"{last.created_at}.{last.doc_id}",
                start=str(start + len(shown)),
            )
        shelves = web.vault.shelves.names()
        return DocumentsPage(shown, total, start, following, shelves, filters)

    try:
        found = await web.run(gather)
    except PrivaultError as exc:
        return error_page(request, exc)
    return page(request, "docs.html", "docs", view=found, kinds=DOC_KINDS)


def _back(request: Request, done: str) -> str:
    doc_id = request.path_params["doc_id"]
    return url(f"/doc/{doc_id}", agent=request.query_params.get("agent"), done=done)


def _confirm(
    request: Request, question: str, reveals: tuple[Reveal, ...], form: dict[str, str]
) -> Response:
    """The page that asks before a change shows text to agents (posts `form` again, with
    `confirm=yes`, to the same address)."""
    return page(
        request,
        "confirm.html",
        "docs",
        question=question,
        reveals=reveals,
        action=str(request.url.path) + (f"?{request.url.query}" if request.url.query else ""),
        fields={key: value for key, value in form.items() if key not in ("csrf", "confirm")},
        back=_back(request, ""),
    )


@action
async def mark(request: Request, form: dict[str, str]) -> str:
    """POST /doc/{doc_id}/mark — treat a value as PII of a kind in this document."""
    web = web_of(request)
    doc_id = request.path_params["doc_id"]
    value, kind = form.get("value", ""), form.get("kind", "PERSON")

    def run() -> bool:
        if value.strip() and not web.vault.pii.occurrences(doc_id, value, caller=OWNER):
            return False
        web.vault.pii.mark(doc_id, value, caller=OWNER, kind=kind)
        return True

    done = await web.run(run)
    return _back(request, "marked" if done else "absent")


@action
async def unmark(request: Request, form: dict[str, str]) -> str | Response:
    """POST /doc/{doc_id}/unmark — a detected value is not PII of a kind in this document.
    If that shows any agent text it does not see now, the page asks first."""
    web = web_of(request)
    doc_id = request.path_params["doc_id"]
    value, kind = form.get("value", ""), form.get("kind") or None
    confirmed = form.get("confirm") == "yes"

    def run() -> tuple[Reveal, ...] | None:
        reveals = web.vault.pii.unmark_reveals(doc_id, value, caller=OWNER, kind=kind)
        if reveals and not confirmed:
            return reveals
        web.vault.pii.unmark(doc_id, value, caller=OWNER, kind=kind)
        return None if reveals else ()

    reveals = await web.run(run)
    if reveals:
        question = f"Treat “{value}” as not {kind or 'PII of any kind'} in this document?"
        return _confirm(request, question, reveals, form)
    return _back(request, "unmarked" if reveals is None else "unmarked-hidden")


@action
async def remove_override(request: Request, form: dict[str, str]) -> str | Response:
    """POST /doc/{doc_id}/overrides/{override_id}/remove — undo one mark or unmark (asking
    first when taking back a mark would show agents more)."""
    web = web_of(request)
    doc_id = request.path_params["doc_id"]
    override_id = int(request.path_params["override_id"])
    confirmed = form.get("confirm") == "yes"

    def remove() -> tuple[tuple[Reveal, ...], Override]:
        # Only an override of this document: an id from another page changes nothing.
        mine = {item.id: item for item in web.vault.pii.overrides(caller=OWNER, target=doc_id)}
        if override_id not in mine:
            raise NotFound(f"no override {override_id} on document {doc_id}")
        reveals = web.vault.pii.remove_reveals(override_id, caller=OWNER)
        if reveals and not confirmed:
            return reveals, mine[override_id]
        web.vault.pii.remove_override(override_id, caller=OWNER)
        return (), mine[override_id]

    reveals, removed = await web.run(remove)
    if reveals:
        question = f"Take back your mark of “{removed.value}” as {removed.kind}?"
        return _confirm(request, question, reveals, form)
    return _back(request, "removed")
