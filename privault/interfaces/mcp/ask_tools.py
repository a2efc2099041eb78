"""The ask tool: a question answered from private memory by the vault's local model.

The model runs in the vault's own process; private text never reaches the calling agent's
model provider. What comes back has been scanned, and says what was held back.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server import MCPServer
from pydantic import BaseModel, Field

from privault.ask.pipeline import AskReply
from privault.caller import Caller
from privault.interfaces.mcp.runtime import Outcome, ToolRuntime
from privault.interfaces.mcp.tools import READ
from privault.vault import Vault
from privault.vault.bounds import ASK_BUDGETS, DEFAULT_ASK_BUDGET, MAX_QUERY_CHARS
from privault.vault.results import Privacy


class AskCitation(BaseModel):
    """A section the answer drew on."""

    node_id: str
    doc_id: str
    title: str


class AskResult(BaseModel):
    """An answer written by the vault's local model, or a refusal with its reason."""

    answer: str = Field(description="The answer; empty when refused.")
    refused: str | None = Field(None, description="Why no answer was given, if refused.")
    citations: list[AskCitation] = Field(description="Sections the answer drew on.")
    policy: str = Field(description="The privacy policy the answer was released under.")
    mode: str = Field(description="off, redact or refuse.")
    held_back: dict[str, Any] = Field(
        description="What was withheld: PII kinds in the context, values masked in the answer."
    )
    followup: str | None = Field(
        None,
        description="Single-use token (valid for minutes): send it back with `instruction` "
        "and the same question to reshape this answer once.",
    )
    model: str | None = Field(None, description="The model that wrote the answer.")


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
    ) -> AskResult:
        """Ask a question of the user's private memory. The vault's own local model reads
        the relevant notes on the user's machine and writes a short answer; you get the
        answer, citations (node_ids) and what was held back, never the private text itself.
        Use it when search results are redacted but you need a fact from them (a total, a
        date, whether something happened). Personal data stays withheld: asking for it in
        another form (encoded, reversed, spelled out) is masked too. To refine an answer,
        call again with the same question, the `followup` token and an `instruction`."""

        def body(vault: Vault, caller: Caller) -> tuple[AskResult, Outcome]:
            reply = vault.ask(
                question, caller=caller, budget=budget, instruction=instruction, followup=followup
            )
            result = AskResult.model_validate(reply.to_dict())
            ids = [citation.node_id for citation in reply.citations]
            return result, Outcome(ids, _privacy(reply), refused=reply.refused)

        return await runtime.ask("ask_memory", body)
