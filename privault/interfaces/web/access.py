"""Who can see what, what they did, and how the vault is: agents & shelves, audit, status."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

from privault.errors import InputError, PrivaultError
from privault.interfaces.agents import known_caller
from privault.interfaces.web.common import Web, action, error_page, page, url, web_of
from privault.interfaces.web.statements import known_at_ms
from privault.models import catalog
from privault.vault.agents import Agent, AuditEntry
from privault.vault.shelves import Shelf
from privault.vault.status import VaultStatus

OUTCOMES = ("ok", "refused", "error")


@dataclass(frozen=True)
class ModelState:
    """A model with a manifest in the models folder, and whether its files are there."""

    name: str
    role: str
    installed: bool


def models_of(folder: Path) -> list[ModelState]:
    """The models `privault models list` shows, as `privault status` checks them."""
    return [
        ModelState(
            name,
            manifest.role,
            all(catalog.file_path(folder, manifest, f).exists() for f in manifest.files),
        )
        for name, manifest in sorted(catalog.manifests(folder).items())
    ]


@dataclass
class AgentsPage:
    """Agents, shelves and the matrix of who sees which shelf."""

    agents: list[Agent]
    shelves: list[Shelf]
    policies: dict[str, str]  # agent -> policy name it reads under

    def sees(self, agent: Agent, shelf: Shelf) -> bool:
        """True when `agent` can see `shelf` at all."""
        return agent.active and (not shelf.restricted or agent.name in shelf.agents)


def _agents(web: Web) -> AgentsPage:
    agents = web.vault.agents.list()
    policies = {}
    for agent in agents:
        if agent.active:
            caller = known_caller(web.vault, agent.name)
            policies[agent.name] = web.vault.privacy.base_policy(caller).name
    return AgentsPage(agents, web.vault.shelves.list(), policies)


async def agents_page(request: Request) -> Response:
    """GET /agents — agents (read-only, revoke), shelves and who sees which."""
    web = web_of(request)
    try:
        found = await web.run(lambda: _agents(web))
    except PrivaultError as exc:
        return error_page(request, exc)
    return page(request, "agents.html", "agents", view=found)


@action
async def revoke(request: Request, form: dict[str, str]) -> str:
    """POST /agents/{name}/revoke — the agent's token stops working now."""
    web = web_of(request)
    name = request.path_params["name"]
    await web.run(lambda: web.vault.agents.revoke(name))
    return url("/agents", done="revoked")


async def audit_page(request: Request) -> Response:
    """GET /audit — tool calls by agents, filtered by agent, tool, outcome and day."""
    web = web_of(request)
    params = request.query_params
    agent = params.get("agent") or None
    tool = params.get("tool") or None
    outcome = params.get("outcome") or None
    since = params.get("since", "")[:20]
    try:
        limit = min(max(int(params.get("limit") or 100), 1), 1000)
    except ValueError:
        limit = 100

    def gather() -> tuple[list[AuditEntry], list[str]]:
        start = known_at_ms(since)
        if outcome is not None and outcome not in OUTCOMES:
            raise InputError(f"outcome must be one of {', '.join(OUTCOMES)}")
        found = web.vault.audit.entries(
            agent=agent,
            tool=tool,
            outcome=outcome,
            since=None if start is None else start - 86_399_999,  # from the start of that day
            limit=limit,
        )
        return found, [item.name for item in web.vault.agents.list()]

    try:
        entries, agents = await web.run(gather)
    except PrivaultError as exc:
        return error_page(request, exc)
    filters = {"agent": agent or "", "tool": tool or "", "outcome": outcome or "", "since": since}
    return page(
        request,
        "audit.html",
        "audit",
        entries=entries,
        agents=agents,
        outcomes=OUTCOMES,
        filters=filters,
        limit=limit,
    )


async def status_page(request: Request) -> Response:
    """GET /status — counts, index coverage, PII re-scan backlog, models installed."""
    web = web_of(request)

    def gather() -> tuple[VaultStatus, list[ModelState]]:
        return web.vault.status(), models_of(web.vault.settings.models_dir)

    status, models = await web.run(gather)
    return page(request, "status.html", "status", status=status, models=models)
