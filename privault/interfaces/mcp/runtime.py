"""How every MCP tool call runs: who is calling, on which vault handle, with an audit row.

Tool bodies run on worker threads, each on a vault handle it has to itself, chosen by the
call's lane (`lanes.Lanes`): read tools on a pool of reader handles in parallel, write tools
on the one writer handle (the write and its audit row in one transaction), `ask_memory` on
the ask handle behind a bounded queue (a full queue answers `busy:` at once). The event
loop keeps serving other clients meanwhile, and no two calls ever share a connection.

Identity is resolved per message by `CallerMiddleware`, never taken from tool arguments:
stdio re-reads the agent it was launched as (a revoke applies to the next call), HTTP reads
the agent its bearer-token middleware put on the request. The middleware also hides write
tools from read-only agents and audits calls that fail before a tool body runs.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Awaitable, Callable, Sequence
from contextlib import nullcontext, suppress
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent

from privault.caller import Caller
from privault.errors import (
    AccessDenied,
    Conflict,
    InputError,
    ModelError,
    NotFound,
    PolicyError,
    PrivaultError,
    VaultError,
)
from privault.interfaces.mcp.lanes import LaneBusy, Lanes
from privault.vault import Vault
from privault.vault.agents import AuditEntry
from privault.vault.results import Privacy

T = TypeVar("T")
# (a vault handle, the transport's request or None) -> Caller
CallerResolver = Callable[[Vault, Any], Caller]
BUSY = "busy"  # the code of a call refused because its lane is full: retry later
INTERNAL = "internal_error: the vault could not complete this call (see the server's log)"
log = logging.getLogger("privault.mcp")


@dataclass
class CallState:
    """The tool call being served: its caller, and whether its body wrote the audit row."""

    caller: Caller
    audited: bool = False
    arguments: dict[str, Any] = field(default_factory=dict)  # as sent: the audit keeps them


_current_call: contextvars.ContextVar[CallState | None] = contextvars.ContextVar(
    "privault_mcp_call", default=None
)

ERROR_CODES: tuple[tuple[type[PrivaultError], str], ...] = (
    (NotFound, "not_found"),
    (InputError, "invalid_input"),
    (AccessDenied, "access_denied"),
    (PolicyError, "policy_refused"),
    (Conflict, "conflict"),
    (ModelError, "model_unavailable"),
    (VaultError, "vault_unavailable"),
)
REFUSALS = (AccessDenied, PolicyError)


def error_code(exc: PrivaultError) -> str:
    """The stable code a tool error starts with."""
    for kind, code in ERROR_CODES:
        if isinstance(exc, kind):
            return code
    return "error"


@dataclass
class Outcome:
    """What a tool body tells the audit log besides success: ids touched, privacy facts."""

    ids: Sequence[str] = ()
    privacy: Privacy | None = None
    refused: str | None = None  # why the call was refused, when its reply is a refusal


# What a tool registers: given its handle and caller, the reply and what to audit.
ToolBody = Callable[[Vault, Caller], tuple[T, Outcome]]


@dataclass
class ToolRuntime:
    """The vault behind an MCP server: its lanes, caller resolution and audit.

    Without `lanes`, every call shares `vault` under one lock (the in-process server)."""

    vault: Vault
    resolve_caller: CallerResolver
    write_tools: set[str] = field(default_factory=set)
    agent_name: str | None = None  # the agent a stdio server was launched as, for the audit
    lanes: Lanes | None = None
    # False when `resolve_caller` reads only the request (HTTP: the bearer check already
    # looked the agent up): it then runs on the event loop, without a handle.
    resolver_reads_vault: bool = True

    def __post_init__(self) -> None:
        if self.lanes is None:
            self.lanes = Lanes(self.vault, readers=0)

    @property
    def lane(self) -> Lanes:
        """The lanes calls run in."""
        assert self.lanes is not None  # set in __post_init__
        return self.lanes

    async def in_vault(self, fn: Callable[[], T]) -> T:
        """Run `fn` on a worker thread with the primary vault to itself (the owner's page)."""
        return await self.lane.in_primary(fn)

    async def on_reader(self, fn: Callable[[Vault], T]) -> T:
        """Run `fn(handle)` on a reader handle (token checks, lookups)."""
        return await self.lane.read(fn)

    async def caller_for(self, request: Any) -> Caller:
        """Who sent `request` (AccessDenied when no active agent did)."""
        if not self.resolver_reads_vault:
            return self.resolve_caller(self.vault, request)
        return await self.lane.read(lambda vault: self.resolve_caller(vault, request))

    def caller(self) -> Caller:
        """The caller of the tool call being served."""
        state = _current_call.get()
        if state is None:  # a tool reached without the middleware: refuse, never guess
            raise ToolError("access_denied: no authenticated caller")
        return state.caller

    async def read(self, tool: str, body: ToolBody[T]) -> T:
        """Run a read-only tool body on a reader handle and audit it."""
        return await self._run(tool, body, self.lane.read, writes=False)

    async def write(self, tool: str, body: ToolBody[T]) -> T:
        """Run a write tool body and its audit row in one transaction on the writer."""
        return await self._run(tool, body, self.lane.write, writes=True)

    async def ask(self, tool: str, body: ToolBody[T]) -> T:
        """Run an ask on the ask handle, or answer `busy:` when its queue is full."""
        return await self._run(tool, body, self.lane.ask, writes=False)

    async def _run(
        self,
        tool: str,
        body: ToolBody[T],
        lane: Callable[[Callable[[Vault], T]], Awaitable[T]],
        *,
        writes: bool,
    ) -> T:
        caller = self.caller()
        state = _current_call.get()
        arguments: dict[str, Any] = {}
        if state is not None:
            state.audited = True  # success or failure, the body records its own row
            arguments = state.arguments

        def run(vault: Vault) -> T:
            audit = vault.audit
            try:
                # A read audits in its own write.
                with audit.transaction() if writes else nullcontext():
                    result, outcome = body(vault, caller)
                    audit.record(_entry(caller, tool, outcome, arguments))
                return result
            except PrivaultError as exc:
                # The write (if any) rolled back; the failure gets a row of its own.
                _record_failure(vault, caller.name, tool, exc, arguments)
                raise ToolError(f"{error_code(exc)}: {exc}") from None
            except Exception:
                # A bug, not a refusal: the owner gets the traceback in the server's log;
                # the agent gets a fixed line, never the exception's text (which may quote
                # what the gate would have withheld).
                log.exception("tool %s failed for %s", tool, caller.name)
                _record_failure(vault, caller.name, tool, None, arguments)
                raise ToolError(INTERNAL) from None

        try:
            return await lane(run)
        except LaneBusy as exc:
            reason = f"{BUSY}: {exc}"
            await self.record_rejected(caller.name, tool, reason)
            raise ToolError(reason) from None

    async def record_rejected(
        self,
        agent: str,
        tool: str,
        reason: str,
        *,
        refused: bool = False,
        arguments: dict[str, Any] | None = None,
    ) -> None:
        """Audit a call that never reached its body (bad arguments, unknown tool, a full
        queue, a caller refused before it: revoked since the session opened, or paused)."""
        entry = AuditEntry(
            agent=agent,
            tool=tool[:100],
            ok=False,
            refused=refused,
            reason=reason,
            arguments=arguments or {},
        )
        await self.lane.read(lambda vault: vault.audit.record(entry))


def _record_failure(
    vault: Vault, agent: str, tool: str, exc: PrivaultError | None, arguments: dict[str, Any]
) -> None:
    reason = f"{error_code(exc)}: {exc}" if exc else "internal error"
    refused = isinstance(exc, REFUSALS)
    entry = AuditEntry(
        agent=agent, tool=tool, ok=False, refused=refused, reason=reason, arguments=arguments
    )
    # When the file cannot take even the audit row (locked past the busy timeout, a full
    # disk), the call still fails with its own error rather than this one.
    with suppress(VaultError):
        vault.audit.record(entry)


def _entry(caller: Caller, tool: str, outcome: Outcome, arguments: dict[str, Any]) -> AuditEntry:
    privacy = outcome.privacy
    held = dict(privacy.held_back) if privacy else {}
    if privacy and privacy.withheld_sections:
        held["sections_withheld"] = privacy.withheld_sections
    return AuditEntry(
        agent=caller.name,
        tool=tool,
        ok=outcome.refused is None,
        refused=outcome.refused is not None,
        reason=outcome.refused,
        ids=tuple(outcome.ids),
        policy=privacy.policy if privacy else None,
        held_back=held,
        arguments=arguments,
    )


def _tool_error(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


PAUSED = (
    "agent {name} is paused by the vault's owner; every call is refused until the owner "
    "resumes it (nothing about the vault has changed)"
)


class CallerMiddleware:
    """MCP middleware: resolve the caller for every tool message and enforce its rights."""

    def __init__(self, runtime: ToolRuntime) -> None:
        self.runtime = runtime

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        if ctx.method not in ("tools/list", "tools/call"):
            return await call_next(ctx)
        runtime = self.runtime
        try:
            caller = await runtime.caller_for(ctx.request)
        except AccessDenied as exc:
            if ctx.method == "tools/list":
                return {"tools": []}
            # Refused before any body ran (revoked since the session opened): audited too.
            tool = str((ctx.params or {}).get("name", ""))
            who = runtime.agent_name or "(unknown)"
            await runtime.record_rejected(who, tool, f"access_denied: {exc}", refused=True)
            return _tool_error(f"access_denied: {exc}")
        params = ctx.params or {}
        name = str(params.get("name", "")) if ctx.method == "tools/call" else ""
        if caller.paused and ctx.method == "tools/call":
            # Paused by the owner: the token is valid, every call is refused until resumed.
            reason = f"access_denied: {PAUSED.format(name=caller.name)}"
            sent = params.get("arguments")
            asked = dict(sent) if isinstance(sent, dict) else {}
            await runtime.record_rejected(caller.name, name, reason, refused=True, arguments=asked)
            return _tool_error(reason)
        if caller.read_only and name in runtime.write_tools:
            # Write tools do not exist for a read-only agent: answer as for any unknown tool.
            await runtime.record_rejected(caller.name, name, "read-only agent")
            return _tool_error(f"Unknown tool: {name}")
        sent = params.get("arguments") if ctx.method == "tools/call" else None
        state = CallState(caller, arguments=dict(sent) if isinstance(sent, dict) else {})
        token = _current_call.set(state)
        try:
            result = await call_next(ctx)
        finally:
            _current_call.reset(token)
        if ctx.method == "tools/list" and caller.read_only and isinstance(result, dict):
            tools = [t for t in result.get("tools", []) if t.get("name") not in runtime.write_tools]
            result = {**result, "tools": tools}
        elif ctx.method == "tools/call" and not state.audited:
            # Bad arguments or an unknown tool: the SDK answered before any body ran.
            failed = isinstance(result, dict) and bool(result.get("isError"))
            reason = _first_text(result) if failed else "no audit row written by the tool"
            await runtime.record_rejected(caller.name, name, reason)
        return result


def _first_text(result: Any) -> str:
    if not isinstance(result, dict):
        return ""
    for item in result.get("content") or []:
        if isinstance(item, dict) and item.get("type") == "text":
            return str(item.get("text", ""))[:500]
    return ""
