"""Statement tools: bi-temporal facts the agent can record, correct and query.

A statement is one fact with a validity window in the world (valid_from/valid_to) and a
record of when the vault believed it. Nothing is deleted: superseding closes the old fact
where the new one opens; revising replaces wording; invalidating closes with a reason.
"""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server import MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from privault.caller import Caller
from privault.interfaces.mcp.runtime import Outcome, ToolRuntime
from privault.interfaces.mcp.shapes import reply, shape
from privault.statements import NewStatement
from privault.vault import Vault
from privault.vault.statement_results import EntityList, StatementList, StatementResponse

StatementReply = Annotated[CallToolResult, shape(StatementResponse)]
StatementsReply = Annotated[CallToolResult, shape(StatementList)]
EntitiesReply = Annotated[CallToolResult, shape(EntityList)]

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
WRITE_TOOLS = {
    "write_statement",
    "supersede_statement",
    "revise_statement",
    "confirm_statement",
    "dispute_statements",
    "invalidate_statement",
}

StatementId = Annotated[str, Field(description="A statement id.", max_length=100)]
Content = Annotated[
    str, Field(description="The fact, one sentence, self-contained.", min_length=1, max_length=4000)
]
Entities = Annotated[
    list[Annotated[str, Field(max_length=200)]] | None,
    Field(
        description="Who and what it is about; prefix the kind: person:Ana, org:Acme, "
        "place:Berlin, other:boiler (a bare name is a person).",
        max_length=50,
    ),
]
StatementShelf = Annotated[
    str, Field(description="An existing shelf you may write to (see list_shelves).", max_length=64)
]
Source = Annotated[str | None, Field(description="Where it comes from.", max_length=2000)]
Time = Annotated[str | None, Field(description="ISO 8601 time with offset.", max_length=64)]
Reason = Annotated[str | None, Field(description="Why, in a few words.", max_length=1000)]
Score = Annotated[float | None, Field(ge=0, le=1)]


def _names(entities: list[str] | None) -> tuple[str, ...] | None:
    """None (no entities given: none for a new fact, inherited by a new version) or the list."""
    return None if entities is None else tuple(entities)


def _reply(found: StatementResponse) -> tuple[CallToolResult, Outcome]:
    return reply(found), Outcome([found.statement.statement.id], found.privacy)


def _replies(found: StatementList) -> tuple[CallToolResult, Outcome]:
    ids = [item.statement.id for item in found.statements]
    return reply(found), Outcome(ids, found.privacy)


def register(server: MCPServer, runtime: ToolRuntime) -> None:
    """Add the statement tools to `server` (the vault must have `statements`)."""
    runtime.write_tools |= WRITE_TOOLS
    for add in (
        _write_statement,
        _query_statements,
        _supersede_statement,
        _revise_statement,
        _confirm_statement,
        _dispute_statements,
        _invalidate_statement,
        _statement_history,
        _list_entities,
    ):
        add(server, runtime)


def _write_statement(server: MCPServer, runtime: ToolRuntime) -> None:
    """Add the `write_statement` tool."""

    @server.tool(annotations=WRITE)
    async def write_statement(
        content: Content,
        entities: Entities = None,
        source: Source = None,
        salience: Score = None,
        confidence: Score = None,
        occurred_at: Time = None,
        valid_from: Time = None,
        valid_to: Time = None,
        shelf: StatementShelf = "default",
    ) -> StatementReply:
        """Record a fact that holds from valid_from (default now) until valid_to (default:
        open). Use for durable facts about people, projects, preferences ("Ana leads the
        Berlin office"). To change a fact later use supersede_statement (the world changed)
        or revise_statement (better wording), not a second write."""

        def body(vault: Vault, caller: Caller) -> tuple[CallToolResult, Outcome]:
            return _reply(
                vault.statements.add(
                    NewStatement(
                        content,
                        _names(entities),
                        source,
                        salience,
                        confidence,
                        occurred_at,
                        valid_from,
                        valid_to,
                        metadata={"written_by": caller.name},
                    ),
                    caller=caller,
                    shelf=shelf,
                )
            )

        return await runtime.write("write_statement", body)


def _query_statements(server: MCPServer, runtime: ToolRuntime) -> None:
    """Add the `query_statements` tool."""

    @server.tool(annotations=READ)
    async def query_statements(
        text: Annotated[str | None, Field(description="Words to match.", max_length=2000)] = None,
        entities: Entities = None,
        source: Source = None,
        valid_at: Annotated[
            str | None, Field(description="What held at this ISO time.", max_length=64)
        ] = None,
        known_at: Annotated[
            str | None, Field(description="As the vault believed at this ISO time.", max_length=64)
        ] = None,
        include_closed: bool = False,
        disputed: Annotated[bool, Field(description="Only disputed statements.")] = False,
        order: Literal["relevance", "recency", "salience", "composite"] | None = None,
        limit: Annotated[int, Field(ge=1, le=100)] = 20,
    ) -> StatementsReply:
        """Find facts. By default only those that hold now; valid_at asks about the past
        world, known_at about what the vault believed then. Results not current are
        labelled so — never present them as current."""

        def body(vault: Vault, caller: Caller) -> tuple[CallToolResult, Outcome]:
            return _replies(
                vault.statements.query(
                    caller=caller,
                    text=text,
                    entities=entities or (),
                    source=source,
                    valid_at=valid_at,
                    known_at=known_at,
                    include_closed=include_closed,
                    disputed=disputed,
                    order=order,
                    limit=limit,
                )
            )

        return await runtime.read("query_statements", body)


def _supersede_statement(server: MCPServer, runtime: ToolRuntime) -> None:
    """Add the `supersede_statement` tool."""

    @server.tool(annotations=WRITE)
    async def supersede_statement(
        statement_id: StatementId,
        content: Content,
        valid_from: Time = None,
        valid_to: Time = None,
        entities: Entities = None,
        source: Source = None,
    ) -> StatementReply:
        """The world changed: close statement_id exactly when the new fact starts
        (valid_from, default now) and record the new fact. Entities are inherited unless
        given. Returns the new statement."""

        def body(vault: Vault, caller: Caller) -> tuple[CallToolResult, Outcome]:
            return _reply(
                vault.statements.supersede(
                    statement_id,
                    NewStatement(
                        content,
                        _names(entities),
                        source,
                        valid_from=valid_from,
                        valid_to=valid_to,
                    ),
                    caller=caller,
                )
            )

        return await runtime.write("supersede_statement", body)


def _revise_statement(server: MCPServer, runtime: ToolRuntime) -> None:
    """Add the `revise_statement` tool."""

    @server.tool(annotations=WRITE)
    async def revise_statement(
        statement_id: StatementId,
        content: Content,
        entities: Entities = None,
        source: Source = None,
    ) -> StatementReply:
        """Fix the wording of a fact without saying the world changed (a typo, a more
        precise phrasing). The revision replaces the original; its window is kept."""

        def body(vault: Vault, caller: Caller) -> tuple[CallToolResult, Outcome]:
            return _reply(
                vault.statements.revise(
                    statement_id, NewStatement(content, _names(entities), source), caller=caller
                )
            )

        return await runtime.write("revise_statement", body)


def _confirm_statement(server: MCPServer, runtime: ToolRuntime) -> None:
    """Add the `confirm_statement` tool."""

    @server.tool(annotations=WRITE)
    async def confirm_statement(statement_id: StatementId, source: Source = None) -> StatementReply:
        """You heard a fact again: add an attestation (raises its confirmed_count)."""

        def body(vault: Vault, caller: Caller) -> tuple[CallToolResult, Outcome]:
            return _reply(vault.statements.confirm(statement_id, caller=caller, source=source))

        return await runtime.write("confirm_statement", body)


def _dispute_statements(server: MCPServer, runtime: ToolRuntime) -> None:
    """Add the `dispute_statements` tool."""

    @server.tool(annotations=WRITE)
    async def dispute_statements(
        statement_id: StatementId, other_id: StatementId, reason: Reason = None
    ) -> StatementsReply:
        """Two current facts contradict each other and you cannot tell which is right:
        flag both as disputed (both stay open) so the user can decide."""

        def body(vault: Vault, caller: Caller) -> tuple[CallToolResult, Outcome]:
            return _replies(
                vault.statements.dispute(statement_id, other_id, caller=caller, reason=reason)
            )

        return await runtime.write("dispute_statements", body)


def _invalidate_statement(server: MCPServer, runtime: ToolRuntime) -> None:
    """Add the `invalidate_statement` tool."""

    @server.tool(annotations=WRITE)
    async def invalidate_statement(
        statement_id: StatementId, valid_to: Time = None, reason: Reason = None
    ) -> StatementReply:
        """A fact stopped being true (or never was) and nothing replaces it: close it at
        valid_to (default now) with a reason. Nothing is deleted."""

        def body(vault: Vault, caller: Caller) -> tuple[CallToolResult, Outcome]:
            return _reply(
                vault.statements.invalidate(
                    statement_id, caller=caller, valid_to=valid_to, reason=reason
                )
            )

        return await runtime.write("invalidate_statement", body)


def _statement_history(server: MCPServer, runtime: ToolRuntime) -> None:
    """Add the `statement_history` tool."""

    @server.tool(annotations=READ)
    async def statement_history(
        statement_id: StatementId, known_at: Time = None
    ) -> StatementsReply:
        """Every version of a fact (supersessions and revisions), oldest first."""

        def body(vault: Vault, caller: Caller) -> tuple[CallToolResult, Outcome]:
            return _replies(
                vault.statements.history(statement_id, caller=caller, known_at=known_at)
            )

        return await runtime.read("statement_history", body)


def _list_entities(server: MCPServer, runtime: ToolRuntime) -> None:
    """Add the `list_entities` tool."""

    @server.tool(annotations=READ)
    async def list_entities(
        include_closed: bool = False,
        valid_at: Time = None,
        min_count: Annotated[int, Field(ge=1, le=1_000_000)] = 1,
    ) -> EntitiesReply:
        """The people, organisations and things the recorded facts are about, most named
        first. Names withheld by the privacy policy are left out."""

        def body(vault: Vault, caller: Caller) -> tuple[CallToolResult, Outcome]:
            found = vault.statements.entities(
                caller=caller, include_closed=include_closed, valid_at=valid_at, min_count=min_count
            )
            return reply(found), Outcome(privacy=found.privacy)

        return await runtime.read("list_entities", body)
