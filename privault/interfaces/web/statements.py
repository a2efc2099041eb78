"""Statements per entity: a valid-time timeline and each fact's supersede/revise/dispute
history, as the vault knew it at a chosen day ("as known at"), and, for a chosen agent,
each version as that agent reads it. Without an entity: every entity, and the latest
changes.

The timeline is an SVG whose bars are placed with `x`/`width` attributes in percent: SVG
geometry attributes are not styles, so the page needs no inline style under its CSP.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from starlette.requests import Request
from starlette.responses import Response

from privault.errors import InputError, NotFound, PrivaultError
from privault.interfaces.agents import known_caller
from privault.interfaces.web.common import OWNER, Web, action, error_page, page, url, web_of
from privault.interfaces.web.render import shown
from privault.statements import EntityCount, entity_key
from privault.timeutil import iso_day, now_ms
from privault.vault.statement_results import GatedStatement

DAY_MS = 86_400_000


@dataclass
class Bar:
    """One statement version on the timeline (percent of the axis)."""

    statement: GatedStatement
    x: float
    width: float
    open_ended: bool
    y: int


@dataclass
class Chain:
    """One fact's versions, oldest recorded first."""

    versions: list[GatedStatement]


MOST_VERSIONS = 1000  # versions about one entity on the page (newest first); the rest counted


@dataclass
class StatementsPage:
    """What the statements template shows."""

    entities: list[EntityCount]
    entity: str
    known_at: str  # YYYY-MM-DD or ""
    chains: list[Chain] = field(default_factory=list)
    bars: list[Bar] = field(default_factory=list)
    axis: tuple[str, str] = ("", "")
    now_x: float | None = None
    height: int = 0
    recent: list[GatedStatement] = field(default_factory=list)  # the landing page's changes
    agents: list[str] = field(default_factory=list)
    agent: str | None = None
    as_agent: dict[str, GatedStatement | None] = field(default_factory=dict)  # None: hidden
    shown_versions: int = 0
    left_out: int = 0  # older versions about the entity beyond MOST_VERSIONS, not shown
    list_all: str = ""  # the command that lists them all, quoted for a shell ("": none can)
    spelt_out: bool = False  # the command spells the entity in ANSI-C quotes (`$'…'`)


def known_at_ms(day: str) -> int | None:
    """The end of `day` (UTC) in epoch ms, for "as known at"; None for no day."""
    if not day:
        return None
    try:
        parsed = date.fromisoformat(day)
    except ValueError:
        raise InputError(f"'as known at' must be a day such as 2026-03-01, not {day!r}") from None
    end = datetime(parsed.year, parsed.month, parsed.day, 23, 59, 59, 999000, tzinfo=UTC)
    return int(end.timestamp() * 1000)


def shell_word(word: str) -> str | None:
    """`word` quoted so that a shell given it back reproduces it exactly; None when no
    command line can carry it (a NUL character).

    shlex's quotes hold the characters themselves, and the page writes out a bidi control
    or a run of invisible characters as an escape: the command the owner copied would ask
    for another, literal name. A word holding such characters is spelt in ANSI-C quotes
    (`$'Acme\\u202e'`, read by bash and zsh) in printable ASCII only, which the page shows
    as it is. Inside them only a backslash and a quote are special, and both are escaped:
    nothing in a name an agent chose runs when pasted."""
    if "\x00" in word:
        return None
    if shown(word) == word:
        return shlex.quote(word)
    return "$'" + "".join(_ansi_c(char) for char in word) + "'"


def _ansi_c(char: str) -> str:
    code = ord(char)
    if char in "\\'":
        return "\\" + char
    if 0x20 <= code < 0x7F:
        return char
    if code < 0x80:
        return f"\\x{code:02x}"  # always two digits: a letter after it is not read into it
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def timeline(versions: list[GatedStatement], now: int) -> tuple[list[Bar], tuple[int, int]]:
    """Bars for every version, on an axis from the earliest start to past the latest end."""
    starts = [v.statement.valid_from for v in versions]
    ends = [v.statement.valid_to or now for v in versions]
    low, high = min(starts), max(max(ends), now)
    span = max(high - low, DAY_MS)
    low, high = low - span // 20, high + span // 20
    width = high - low
    bars = []
    for row, version in enumerate(versions):
        stated = version.statement
        end = stated.valid_to if stated.valid_to is not None else high
        x = (stated.valid_from - low) / width * 100
        bars.append(
            Bar(
                version,
                round(x, 2),
                round(max(0.6, (end - stated.valid_from) / width * 100), 2),
                stated.valid_to is None,
                row * 26,
            )
        )
    return bars, (low, high)


def _gather(web: Web, entity: str, day: str, wanted: str | None) -> StatementsPage:
    known = known_at_ms(day)
    listed = web.vault.statements.entities(caller=OWNER, include_closed=True, known_at=known)
    found = StatementsPage(list(listed.entities), entity, day)
    found.agents = web.active_agents()
    found.agent = wanted if wanted in found.agents else None
    if not entity:
        found.recent = list(
            web.vault.statements.query(
                caller=OWNER, include_closed=True, known_at=known, order="recency", limit=12
            ).statements
        )
        return found
    versions = web.vault.statements.query(
        caller=OWNER,
        entities=[entity],
        include_closed=True,
        known_at=known,
        order="recency",
        limit=MOST_VERSIONS,
    ).statements
    if not versions:
        return found
    named = [item.count for item in listed.entities if item.key == entity_key(entity)]
    found.shown_versions, found.left_out = len(versions), max(0, sum(named) - len(versions))
    quoted = shell_word(entity)
    if quoted is not None:
        found.list_all = f"privault statement query --entity {quoted} --all --limit 100000"
        found.spelt_out = quoted.startswith("$'")
    chains: dict[str, list[GatedStatement]] = {}
    for version in versions:
        chains.setdefault(version.statement.chain_id, []).append(version)
    ordered = []
    for chain in chains.values():
        ordered.append(Chain(sorted(chain, key=lambda v: v.statement.recorded_at)))
    ordered.sort(key=lambda c: c.versions[0].statement.valid_from)
    found.chains = ordered
    flat = [v for chain in ordered for v in chain.versions]
    now = known if known is not None else now_ms()
    found.bars, (low, high) = timeline(flat, now)
    found.axis = (iso_day(low), iso_day(high))
    found.now_x = round((now - low) / (high - low) * 100, 2)
    found.height = len(flat) * 26 + 8
    if found.agent is not None:
        caller = known_caller(web.vault, found.agent)
        for version in flat:
            statement_id = version.statement.id
            try:
                seen = web.vault.statements.get(statement_id, caller=caller, known_at=known)
                found.as_agent[statement_id] = seen.statement
            except NotFound:  # on a shelf the agent cannot see: for it, no such statement
                found.as_agent[statement_id] = None
    return found


async def statements_page(request: Request) -> Response:
    """GET /statements — entities; with `entity`, its timeline and histories."""
    web = web_of(request)
    entity = request.query_params.get("entity", "")[:200]
    day = request.query_params.get("known_at", "")[:20]
    wanted = request.query_params.get("agent") or None
    try:
        found = await web.run(lambda: _gather(web, entity, day, wanted))
    except PrivaultError as exc:
        return error_page(request, exc)
    return page(request, "statements.html", "statements", view=found)


@action
async def supersede(request: Request, form: dict[str, str]) -> str:
    """POST /statements/{statement_id}/supersede — the world changed: the new text holds
    from now and the old statement closes exactly there (it stays in the history)."""
    web = web_of(request)
    statement_id, content = request.path_params["statement_id"], form.get("content", "").strip()
    if not content:
        raise InputError("write what holds now to supersede a statement")
    await web.run(lambda: web.vault.statements.supersede(statement_id, content, caller=OWNER))
    return url("/statements", entity=form.get("entity", "")[:200], done="superseded")


@action
async def close(request: Request, form: dict[str, str]) -> str:
    """POST /statements/{statement_id}/close — it no longer holds, from now (with a reason)."""
    web = web_of(request)
    statement_id, reason = request.path_params["statement_id"], form.get("reason", "").strip()
    await web.run(
        lambda: web.vault.statements.invalidate(statement_id, caller=OWNER, reason=reason or None)
    )
    return url("/statements", entity=form.get("entity", "")[:200], done="closed")
