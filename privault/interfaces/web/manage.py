"""Managing the vault from the page: agents, shelves and watches.

Every action is a POST with the session's CSRF token, like Revoke. An action that would
show an agent documents it cannot see now (attaching it to a restricted shelf, publishing a
shelf) or text its policy masks now (a looser policy for an agent or a shelf) first says
what would change and asks to confirm; without `confirm=yes` nothing changes. Pausing, the
read-only switch and resuming take effect on the agent's next call, like Revoke. A new
agent's token is shown once, on the page the POST returns (never in an address, never
stored): the vault keeps only its hash.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from privault.errors import InputError, NotFound, PrivaultError
from privault.filters import Filters
from privault.interfaces.agents import known_caller
from privault.interfaces.web.common import OWNER, Web, action, error_page, page, url, web_of
from privault.vault.agents import Agent, AuditEntry
from privault.vault.shelves import Shelf

WATCH_KINDS = ("remind", "url", "search", "folder")


@dataclass
class AgentPanel:
    """One agent: who it is, what it reads under, which shelves it sees, what it did."""

    agent: Agent
    policies: dict[str, str]  # shelf -> the policy it reads that shelf under
    restricted: list[Shelf]  # restricted shelves, to attach or detach
    calls: tuple[int, int, int] | None  # (last call, calls, refused or failed)
    recent: list[AuditEntry]
    policy_names: list[str]  # every policy, to choose from
    configured: str  # the policy the configuration gives it (used when none is set here)


async def agent_page(request: Request) -> Response:
    """GET /agents/{name} — one agent's panel: policy per shelf, shelves, recent calls."""
    web = web_of(request)
    name = request.path_params["name"]

    def gather() -> AgentPanel:
        found = web.vault.agents.get(name)
        if found is None:
            raise NotFound(f"no agent {name!r}")
        access = web.vault.privacy.access
        refused = access.refuses(name)
        reads = found.active and not refused
        policies = web.vault.shelves.policies(known_caller(web.vault, name)) if reads else {}
        restricted = [shelf for shelf in web.vault.shelves.list() if shelf.restricted]
        recent = web.vault.audit.entries(agent=name, limit=10)
        configured = "none: refused" if refused else access.agents.get(name, access.agent_default)
        return AgentPanel(
            found,
            policies,
            restricted,
            web.vault.audit.last_calls().get(name),
            recent,
            list(web.vault.privacy.policies.names()),
            configured,
        )

    try:
        found = await web.run(gather)
    except PrivaultError as exc:
        return error_page(request, exc)
    return page(request, "agent.html", "agents", view=found)


@action
async def add_agent(request: Request, form: dict[str, str]) -> Response:
    """POST /agents/add — register an agent; the page shows its token this once."""
    web = web_of(request)
    name = form.get("name", "").strip()
    read_only = form.get("read_only") == "yes"
    token = await web.run(lambda: web.vault.agents.issue(name, read_only=read_only))
    response = page(request, "token.html", "agents", name=name, token=token, read_only=read_only)
    response.headers["cache-control"] = "no-store"
    return response


def _confirm(
    request: Request, question: str, details: list[str], form: dict[str, str], back: str = ""
) -> Response:
    return page(
        request,
        "confirm.html",
        "agents",
        question=question,
        reveals=(),
        details=details,
        action=str(request.url.path),
        fields={key: value for key, value in form.items() if key not in ("csrf", "confirm")},
        back=back or "/agents",
    )


def _documents_on(web: Web, shelf: str) -> int:
    return web.vault.documents.count(caller=OWNER, filters=Filters(shelf=shelf))


@action
async def attach(request: Request, form: dict[str, str]) -> str | Response:
    """POST /agents/{name}/attach — open a restricted shelf to the agent (asks first)."""
    web = web_of(request)
    name, shelf = request.path_params["name"], form.get("shelf", "")
    if form.get("confirm") != "yes":

        def count_it() -> int:
            if not web.vault.shelves.get(shelf).restricted:
                raise InputError(f"shelf {shelf!r} is public: every agent sees it already")
            return _documents_on(web, shelf)

        count = await web.run(count_it)
        details = [f"{name} would see the {count} document(s) on shelf {shelf}."]
        return _confirm(request, f"Open shelf “{shelf}” to {name}?", details, form)
    await web.run(lambda: web.vault.shelves.attach(shelf, name))
    return url(f"/agents/{name}", done="attached")


@action
async def detach(request: Request, form: dict[str, str]) -> str:
    """POST /agents/{name}/detach — the agent no longer sees a restricted shelf."""
    web = web_of(request)
    name, shelf = request.path_params["name"], form.get("shelf", "")
    await web.run(lambda: web.vault.shelves.detach(shelf, name))
    return url(f"/agents/{name}", done="detached")


@action
async def add_shelf(request: Request, form: dict[str, str]) -> str:
    """POST /shelves/add — a new shelf: public or restricted, with a policy of its own."""
    web = web_of(request)
    name = form.get("name", "").strip()
    policy = form.get("policy") or None
    restricted = form.get("access") != "public"
    await web.run(lambda: web.vault.shelves.add(name, policy=policy, restricted=restricted))
    return url("/agents", done="shelf-added")


@action
async def publish(request: Request, form: dict[str, str]) -> str | Response:
    """POST /shelves/{shelf}/publish — every agent sees the shelf from now on (asks first)."""
    web = web_of(request)
    shelf = request.path_params["shelf"]
    if form.get("confirm") != "yes":

        def who() -> tuple[int, list[str]]:
            found = web.vault.shelves.get(shelf)
            blind = [
                a.name for a in web.vault.agents.list() if a.active and a.name not in found.agents
            ]
            return _documents_on(web, shelf), blind

        count, blind = await web.run(who)
        details = [
            f"{', '.join(blind) or 'no agent'} would see the {count} document(s) on it "
            "(under the shelf's policy, or their own)."
        ]
        return _confirm(request, f"Make shelf “{shelf}” public?", details, form)
    await web.run(lambda: web.vault.shelves.publish(shelf))
    return url("/agents", done="published")


@action
async def restrict(request: Request, form: dict[str, str]) -> str:
    """POST /shelves/{shelf}/restrict — only agents on the shelf's list see it from now on."""
    web = web_of(request)
    shelf = request.path_params["shelf"]
    await web.run(lambda: (web.vault.shelves.get(shelf), web.vault.shelves.restrict(shelf)))
    return url("/agents", done="restricted")


@action
async def add_watch(request: Request, form: dict[str, str]) -> str:
    """POST /watches/add — a reminder, a page to watch, a search or a folder."""
    web = web_of(request)
    kind = form.get("kind", "")
    if kind not in WATCH_KINDS:
        raise InputError(f"a watch is one of {', '.join(WATCH_KINDS)}")
    target = form.get("target", "").strip()
    every = form.get("every", "").strip() or None
    at = form.get("at", "").strip() or None
    await web.run(lambda: web.vault.watches.add(kind, target, caller=OWNER, every=every, at=at))
    return url("/watches", done="watch-added")


WATCH_ACTIONS = {"run": "ran", "pause": "paused", "resume": "resumed", "cancel": "cancelled"}


@action
async def watch_action(request: Request, form: dict[str, str]) -> str:
    """POST /watches/{watch_id}/{run|pause|resume|cancel}."""
    web = web_of(request)
    watch_id, verb = request.path_params["watch_id"], request.path_params["verb"]
    if verb not in WATCH_ACTIONS:
        raise NotFound(f"no watch action {verb!r}")
    method = getattr(web.vault.watches, verb)
    await web.run(lambda: method(watch_id, caller=OWNER))
    return url("/watches", done=f"watch-{WATCH_ACTIONS[verb]}")


@action
async def agent_policy(request: Request, form: dict[str, str]) -> str | Response:
    """POST /agents/{name}/policy — the policy the agent reads under (empty: the
    configuration's); a policy that could show it more asks first."""
    web = web_of(request)
    name, policy = request.path_params["name"], form.get("policy", "").strip() or None
    if form.get("confirm") != "yes" and await web.run(
        lambda: web.vault.agents.policy_loosens(name, policy)
    ):
        chosen = f"policy {policy}" if policy else "the configuration's policy"
        details = [
            f"{name} would read under {chosen}: text its policy masks now may be shown to it "
            "from its next call."
        ]
        back = f"/agents/{name}"
        return _confirm(request, f"Loosen {name}'s policy?", details, form, back)
    await web.run(lambda: web.vault.agents.set_policy(name, policy))
    return url(f"/agents/{name}", done="agent-policy")


@action
async def agent_switch(request: Request, form: dict[str, str]) -> str:
    """POST /agents/{name}/{pause|resume|read-only|writable} — from the agent's next call."""
    web = web_of(request)
    name, verb = request.path_params["name"], request.path_params["verb"]
    agents = web.vault.agents
    changes = {
        "pause": lambda: agents.pause(name),
        "resume": lambda: agents.resume(name),
        "read-only": lambda: agents.set_read_only(name, True),
        "writable": lambda: agents.set_read_only(name, False),
    }
    if verb not in changes:
        raise NotFound(f"no agent action {verb!r}")
    await web.run(changes[verb])
    return url(f"/agents/{name}", done=f"agent-{verb}")


@action
async def shelf_policy(request: Request, form: dict[str, str]) -> str | Response:
    """POST /shelves/{shelf}/policy — the policy agents read the shelf under (empty: each
    agent's own); one that could show agents more asks first."""
    web = web_of(request)
    shelf, policy = request.path_params["shelf"], form.get("policy", "").strip() or None
    if form.get("confirm") != "yes" and await web.run(
        lambda: (web.vault.shelves.get(shelf), web.vault.shelves.policy_loosens(shelf, policy))[1]
    ):
        chosen = f"policy {policy}" if policy else "each agent's own policy"
        details = [
            f"Agents would read shelf {shelf} under {chosen}: text masked there now may be "
            "shown to them from their next call."
        ]
        return _confirm(request, f"Loosen shelf “{shelf}”'s policy?", details, form)
    await web.run(lambda: web.vault.shelves.set_policy(shelf, policy))
    return url("/agents", done="shelf-policy")
