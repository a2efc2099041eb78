"""The search page: each of the owner's results beside the same section as one agent gets it.

For every owner hit the page reads that section as the agent (its policy, its shelves): the
agent's version, or why it has none (a restricted shelf, not yet scanned, withheld whole by
a strict policy). Held-back badges count the placeholders the agent's side actually shows;
statements are listed only when they share a word with the query.
What needs a second search, run as the agent, is loaded once the page is shown (`/own`,
fetched by htmx, or a page of its own without script): where the agent's own results rank
each of the owner's, what it gets that the owner's first page did not, and the statements
it gets. So a page request runs one search, as the owner.
The context pack the agent's `memory_context` would receive for the same query is a third
search, so it is built only when the owner opens it (`/pack`, fetched by htmx when the
pack's `<details>` opens, or as a page of its own without script).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response

from privault.caller import Caller
from privault.errors import InputError, NotFound, PrivaultError
from privault.interfaces.agents import known_caller
from privault.interfaces.web.common import OWNER, Web, page, status_of, web_of
from privault.interfaces.web.render import held_in
from privault.statements.ranking import overlap_scores
from privault.vault.reading import BEING_INDEXED
from privault.vault.results import ContextPack, Hit, Privacy, SearchResponse, SectionView
from privault.vault.statement_results import GatedStatement

LIMIT = 10
MODES = {"off": 0, "redact": 1, "refuse": 2}  # the strictest policy names a reply
BUDGET = 600


@dataclass
class Pair:
    """One owner hit and the same section as the agent gets it, or why it gets nothing."""

    hit: Hit
    seen: SectionView | None
    why: str  # "" when the agent reads the section; else the reason it cannot


@dataclass
class SearchPage:
    """What the search template shows."""

    query: str
    agents: list[str]
    agent: str | None
    owner: SearchResponse | None = None
    pairs: list[Pair] = field(default_factory=list)
    owner_statements: tuple[GatedStatement, ...] = ()
    agent_privacy: Privacy | None = None  # of the agent's reads of the owner's results
    agent_held: dict[str, int] = field(default_factory=dict)
    hidden: int = 0  # owner hits on shelves the agent cannot see
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def own_url(self) -> str:
        """Where the agent's own search for these words is loaded from (`own_page`)."""
        mine = ",".join(pair.hit.node_id for pair in self.pairs)
        return "/own?" + urlencode({"q": self.query, "agent": self.agent or "", "mine": mine})


@dataclass
class AgentOwn:
    """The agent's own search for the words: where it ranks the owner's results (1-based,
    None: not among its results), what else it gets, and its statements."""

    query: str
    agent: str
    found: SearchResponse
    ranks: list[tuple[int, int | None]]  # (the owner's position, the agent's rank)
    only_agent: list[Hit]  # the agent's hits the owner's first page did not have
    statements: tuple[GatedStatement, ...]
    held: dict[str, int]


def matching(statements: tuple[GatedStatement, ...], query: str) -> tuple[GatedStatement, ...]:
    """The statements that share a word with the query (as each is shown): the vault adds
    the nearest facts to every search, and a fact about something else is noise here."""
    scores = overlap_scores({str(i): s.statement.content for i, s in enumerate(statements)}, query)
    return tuple(s for i, s in enumerate(statements) if str(i) in scores)


def _why_not(seen: SectionView | None) -> str:
    if seen is None:
        return "on a restricted shelf: for this agent the section does not exist"
    if not seen.privacy.withheld_sections:
        return ""  # whatever its text says (a note may quote the marker below)
    if seen.text == BEING_INDEXED and not seen.privacy.held_back:
        return "not yet scanned for private data: withheld until it is"
    return f"withheld whole by policy {seen.privacy.policy}"


def _gather(web: Web, query: str, wanted: str | None) -> SearchPage:
    agents = web.active_agents()
    agent = wanted if wanted in agents else (agents[0] if agents else None)
    found = SearchPage(query, agents, agent)
    if not query.strip():
        return found
    try:
        found.owner = web.vault.search(query, caller=OWNER, limit=LIMIT)
        found.owner_statements = matching(found.owner.statements, query)
    except PrivaultError as exc:
        found.errors["owner"] = str(exc)
    if agent is None:
        return found
    try:
        caller = known_caller(web.vault, agent)
        for hit in found.owner.results if found.owner else ():
            try:
                seen: SectionView | None = web.vault.read(hit.node_id, caller=caller)
            except NotFound:
                seen = None
            found.pairs.append(Pair(hit, seen, _why_not(seen)))
        found.agent_privacy = _agent_privacy(web, caller, found.pairs)
    except PrivaultError as exc:
        found.errors["agent"] = str(exc)
        return found
    found.hidden = sum(1 for pair in found.pairs if pair.seen is None)
    shown: list[str] = []
    for pair in found.pairs:
        if pair.seen is not None:
            shown += [pair.seen.title, *pair.seen.breadcrumb, pair.seen.text]
    found.agent_held = held_in(shown)
    return found


def _agent_privacy(web: Web, caller: Caller, pairs: list[Pair]) -> Privacy:
    """The policy the agent's side was read under (the strictest of its reads, else its
    own) and the sections withheld whole; the kinds held back are counted from the page."""
    views = [pair.seen.privacy for pair in pairs if pair.seen is not None]
    base = web.vault.privacy.base_policy(caller)
    main = max(views, key=lambda p: MODES.get(p.mode, 3), default=Privacy(base.name, base.mode))
    return Privacy(main.policy, main.mode, {}, sum(p.withheld_sections for p in views))


def _own(web: Web, query: str, agent: str, mine: list[str]) -> AgentOwn:
    """The agent's own search, set against the owner's results `mine` (their node ids)."""
    if agent not in web.active_agents():
        raise NotFound(f"no active agent {agent!r}: `privault agents list` shows them")
    if not query.strip():
        raise InputError("give the words to search for (q)")
    found = web.vault.search(query, caller=known_caller(web.vault, agent), limit=LIMIT)
    ranks = {hit.node_id: i for i, hit in enumerate(found.results, 1)}
    only = [hit for hit in found.results if hit.node_id not in set(mine)]
    statements = matching(found.statements, query)
    shown: list[str] = []
    for hit in only:
        shown += [hit.title, *hit.breadcrumb, hit.text]
    shown += [s.statement.content for s in statements]
    return AgentOwn(
        query,
        agent,
        found,
        [(i, ranks.get(node)) for i, node in enumerate(mine, 1)],
        only,
        statements,
        held_in(shown),
    )


async def search_page(request: Request) -> Response:
    """GET / — the search form and, with `q`, both columns."""
    web = web_of(request)
    query = request.query_params.get("q", "")[:500]
    wanted = request.query_params.get("agent") or None
    found = await web.run(lambda: _gather(web, query, wanted))
    return page(request, "search.html", "search", view=found)


async def own_page(request: Request) -> Response:
    """GET /own — the agent's own search for `q` beside the owner's results `mine`
    (loaded on demand: it is the page's second search)."""
    web = web_of(request)
    query = request.query_params.get("q", "")[:500]
    agent = request.query_params.get("agent", "")
    mine = [node for node in request.query_params.get("mine", "").split(",") if node][:LIMIT]
    try:
        own = await web.run(lambda: _own(web, query, agent, mine))
    except PrivaultError as exc:
        # In its place, not the whole page's: htmx swaps a 4xx in like a 200.
        return page(
            request,
            "own.html",
            "search",
            status_of(exc),
            query=query,
            agent=agent,
            own=None,
            error=str(exc),
        )
    return page(request, "own.html", "search", query=query, agent=agent, own=own, error="")


async def pack_page(request: Request) -> Response:
    """GET /pack — the context pack one agent would get for `q` (loaded on demand)."""
    web = web_of(request)
    query = request.query_params.get("q", "")[:500]
    wanted = request.query_params.get("agent", "")

    def gather() -> ContextPack:
        if wanted not in web.active_agents():
            raise NotFound(f"no active agent {wanted!r}: `privault agents list` shows them")
        if not query.strip():
            raise InputError("give the words to search for (q)")
        return web.vault.context(query, caller=known_caller(web.vault, wanted), budget=BUDGET)

    try:
        pack = await web.run(gather)
    except PrivaultError as exc:
        # In the pack's place, not the whole page's: htmx swaps a 4xx in like a 200.
        return page(
            request,
            "pack.html",
            "search",
            status_of(exc),
            query=query,
            agent=wanted,
            pack=None,
            error=str(exc),
            held={},
        )
    held = held_in([pack.text])
    return page(
        request, "pack.html", "search", query=query, agent=wanted, pack=pack, error="", held=held
    )
