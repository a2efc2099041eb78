"""The search page: the owner's results beside exactly what one agent would get.

The agent column is not a re-rendering of the owner's results: it is a second search run
as that agent (its policy, its shelves, the index as it sees it). Sections the owner sees
and the agent does not are counted, so a restricted shelf shows as a gap, not silence.
The context pack the agent's `memory_context` would receive for the same query is a third
search, so it is built only when the owner opens it (`/pack`, fetched by htmx when the
pack's `<details>` opens, or as a page of its own without script).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import Response

from privault.errors import InputError, NotFound, PrivaultError
from privault.interfaces.agents import known_caller
from privault.interfaces.web.common import OWNER, Web, page, status_of, web_of
from privault.vault.results import ContextPack, SearchResponse

LIMIT = 10
BUDGET = 600


@dataclass
class SearchPage:
    """What the search template shows."""

    query: str
    agents: list[str]
    agent: str | None
    owner: SearchResponse | None = None
    as_agent: SearchResponse | None = None
    hidden: set[str] = field(default_factory=set)  # owner hits on shelves the agent cannot see
    errors: dict[str, str] = field(default_factory=dict)


def _gather(web: Web, query: str, wanted: str | None) -> SearchPage:
    agents = web.active_agents()
    agent = wanted if wanted in agents else (agents[0] if agents else None)
    found = SearchPage(query, agents, agent)
    if not query.strip():
        return found
    try:
        found.owner = web.vault.search(query, caller=OWNER, limit=LIMIT)
    except PrivaultError as exc:
        found.errors["owner"] = str(exc)
    if agent is None:
        return found
    try:
        caller = known_caller(web.vault, agent)
        found.as_agent = web.vault.search(query, caller=caller, limit=LIMIT)
    except PrivaultError as exc:
        found.errors["agent"] = str(exc)
        return found
    if found.owner is not None:
        closed = {
            shelf.name
            for shelf in web.vault.shelves.list()
            if shelf.restricted and agent not in shelf.agents
        }
        found.hidden = {hit.node_id for hit in found.owner.results if hit.shelf in closed}
    return found


async def search_page(request: Request) -> Response:
    """GET / — the search form and, with `q`, both columns."""
    web = web_of(request)
    query = request.query_params.get("q", "")[:500]
    wanted = request.query_params.get("agent") or None
    found = await web.run(lambda: _gather(web, query, wanted))
    return page(request, "search.html", "search", view=found)


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
        )
    return page(request, "pack.html", "search", query=query, agent=wanted, pack=pack, error="")
