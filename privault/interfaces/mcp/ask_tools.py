"""The ask tool: a question answered from private memory by the vault's local model.

The model runs in the vault's own process; private text never reaches the calling agent's
model provider. What comes back has been scanned, and says what was held back.
"""

from __future__ import annotations

from typing import Annotated

from mcp.server import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from privault.ask.pipeline import AskReply
from privault.caller import Caller
from privault.interfaces.mcp.runtime import Outcome, ToolRuntime
from privault.interfaces.mcp.shapes import reply, shape
from privault.interfaces.mcp.tools import READ
from privault.vault import Vault
from privault.vault.bounds import ASK_BUDGETS, DEFAULT_ASK_BUDGET, MAX_QUERY_CHARS
from privault.vault.results import Privacy

ASKED = Annotated[CallToolResult, shape(AskReply)]


def _privacy(reply: AskReply) -> Privacy:
    held = {kind: int(count) for kind, count in reply.held_back.context.items()}
    if reply.held_back.leak_masks:
        held["answer_masks"] = reply.held_back.leak_masks
    return Privacy(reply.policy, reply.mode, held)


def register(server: MCPServer, runtime: ToolRuntime) -> None:
    """Add `ask_memory` to `server`."""

    @server.tool(annotations=READ)
    async def ask_memory(
        question: Annotated[
            str,
            Field(
                description="The question, in plain words.",
                min_length=1,
                max_length=MAX_QUERY_CHARS,
            ),
        ],
        instruction: Annotated[
            str | None,
            Field(
                description="With `followup`: how to reshape the earlier answer, e.g. "
                "'just the total and the due date'.",
                max_length=MAX_QUERY_CHARS,
            ),
        ] = None,
        followup: Annotated[
            str | None,
            Field(description="The followup token of an earlier answer.", max_length=2000),
        ] = None,
        budget: Annotated[
            int,
            Field(
                ge=ASK_BUDGETS[0],
                le=ASK_BUDGETS[1],
                description="Tokens of memory the model may read.",
            ),
        ] = DEFAULT_ASK_BUDGET,
    ) -> ASKED:
        """Ask a question of the user's private memory. The vault's own local model reads
        the relevant notes on the user's machine and writes a short answer; you get the
        answer, citations (node_ids) and what was held back, never the private text itself.
        Use it when search results are redacted but you need a fact from them (a total, a
        date, whether something happened). Personal data stays withheld: asking for it in
        another form (encoded, reversed, spelled out) is masked too. To refine an answer,
        call again with the same question, the `followup` token and an `instruction`."""

        def body(vault: Vault, caller: Caller) -> tuple[CallToolResult, Outcome]:
            answer = vault.ask(
                question, caller=caller, budget=budget, instruction=instruction, followup=followup
            )
            ids = [citation.node_id for citation in answer.citations]
            return reply(answer), Outcome(ids, _privacy(answer), refused=answer.refused)

        return await runtime.ask("ask_memory", body)
