"""Who can see what, what they did, and how the vault is: agents & shelves, audit, status."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

from privault.errors import InputError, PrivaultError
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
from privault.interfaces.web.documents import day_range
from privault.models import catalog
from privault.timeutil import now_ms
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
    calls: dict[str, tuple[int, int, int]]  # agent -> (last call, calls, refused or failed)
    policy_names: list[str]

    def sees(self, agent: Agent, shelf: Shelf) -> bool:
        """True when `agent` can see `shelf` at all."""
        return agent.active and (not shelf.restricted or agent.name in shelf.agents)


def _agents(web: Web) -> AgentsPage:
    agents = web.vault.agents.list()
    policies = {}
    refuses = web.vault.privacy.access.refuses
    for agent in agents:
        if not agent.active:
            continue
        if refuses(agent.name):
            policies[agent.name] = "none: refused"
        elif agent.paused:
            policies[agent.name] = "none: paused"
        else:
            caller = known_caller(web.vault, agent.name)
            policies[agent.name] = web.vault.privacy.base_policy(caller).name
    return AgentsPage(
        agents,
        web.vault.shelves.list(),
        policies,
        web.vault.audit.last_calls(),
        list(web.vault.privacy.policies.names()),
    )


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


AUDIT_PAGE = 50


@dataclass
class AuditPage:
    """One page of the audit log: which rows, of how many, and the next page's address."""

    entries: list[AuditEntry]
    total: int
    start: int
    next_url: str | None
    agents: list[str]
    filters: dict[str, str]


def audit_cursor(value: str) -> tuple[int, int] | None:
    """A paging cursor `at.id` read back (None for none or a malformed one)."""
    stamp, _, row_id = value.partition(".")
    at, row = whole_number(stamp), whole_number(row_id)
    return None if at is None or row is None else (at, row)


def id_link(value: str) -> str | None:
    """Where an id in an audit row leads on this page: a document or a section of one
    (`d….1.2`, at that section), or None for other ids (statements, watches)."""
    doc_id, dot, _ = value.partition(".")
    if not (doc_id.startswith("d") and doc_id[1:].isalnum() and 6 <= len(doc_id) <= 40):
        return None
    return f"/doc/{doc_id}#{value}" if dot else f"/doc/{doc_id}"


async def audit_page(request: Request) -> Response:
    """GET /audit — tool calls by agents, newest first, a page at a time, filtered by agent,
    tool, outcome and days; each row with what the call asked."""
    web = web_of(request)
    params = request.query_params
    filters = {
        "agent": params.get("agent", "")[:100],
        "tool": params.get("tool", "")[:100],
        "outcome": params.get("outcome", "")[:20],
        "since": params.get("since", "")[:20],
        "until": params.get("until", "")[:20],
    }
    before = audit_cursor(params.get("before", ""))
    start = whole_number(params.get("start", "")) or 1

    def gather() -> AuditPage:
        since, until = day_range(filters["since"], filters["until"])
        if filters["outcome"] and filters["outcome"] not in OUTCOMES:
            raise InputError(f"outcome must be one of {', '.join(OUTCOMES)}")
        agent = filters["agent"] or None
        tool, outcome = filters["tool"] or None, filters["outcome"] or None
        found = web.vault.audit.entries(
            agent=agent,
            tool=tool,
            outcome=outcome,
            since=since,
            until=until,
            limit=AUDIT_PAGE + 1,
            before=before,
        )
        total = web.vault.audit.count(
            agent=agent, tool=tool, outcome=outcome, since=since, until=until
        )
        shown = found[:AUDIT_PAGE]
        following = None
        if len(found) > AUDIT_PAGE:
            last = shown[-1]
            following = url(
                "/audit", **filters, before=f"{last.at}.{last.id}", start=str(start + len(shown))
            )
        agents = [item.name for item in web.vault.agents.list()]
        return AuditPage(shown, total, start, following, agents, filters)

    try:
        found = await web.run(gather)
    except PrivaultError as exc:
        return error_page(request, exc)
    return page(request, "audit.html", "audit", view=found, outcomes=OUTCOMES, id_link=id_link)


@dataclass(frozen=True)
class Running:
    """What runs beside the file: the chat model that answers `ask`, and the scheduler."""

    chat_model: str
    chat_installed: bool
    last_run: int | None
    next_due: int | None


async def status_page(request: Request) -> Response:
    """GET /status — counts, index coverage, the indexer queue, the strong model's coverage,
    the PII re-scan backlog, the chat model, the last and next watch run, models installed."""
    web = web_of(request)

    def gather() -> tuple[VaultStatus, list[ModelState], Running]:
        models = models_of(web.vault.settings.models_dir)
        chat = web.vault.asking.chat_model
        installed = any(model.name == chat and model.installed for model in models)
        last, due = web.vault.watches.run_times(caller=OWNER)
        return web.vault.status(), models, Running(chat, installed, last, due)

    status, models, running = await web.run(gather)
    return page(
        request,
        "status.html",
        "status",
        status=status,
        models=models,
        running=running,
        now=now_ms(),
    )
