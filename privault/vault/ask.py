"""`Vault.ask`: retrieval and gating for the caller, then the local-model ask pipeline.

The facade's part of item 7 of the privacy contract: sections are retrieved and packed
within a token budget and gated for the caller exactly as `context` returns them; each is
marked private when it holds a value any non-`off` policy counts as identifying (or its
shelf is private); the raw values the caller's policy for that shelf masks (with the
vault's known entities, in the owner's text) are handed to the pipeline's leak scan; and
the spans the caller's policy masks, in the answer and in the caller's own question, are
masked in the answer. The local model is loaded once and kept, in the vault's `Engines`:
every handle on the file shares it.

Answer and question are scanned by the detector *without* the vault's known entities:
masking a known name the caller wrote into its question (and only a known one) would
confirm that the vault knows it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from privault.ask.briefing import PREFIXES, AskSection
from privault.ask.followup import FollowupTokens
from privault.ask.pipeline import AskEngines, AskReply, AskRequest
from privault.ask.pipeline import ask as run_pipeline
from privault.caller import Caller
from privault.errors import InputError, ModelError, ModelUnavailable, utf8_text
from privault.filters import EVERYTHING
from privault.models.chat import ChatModel, ChatResult, Message
from privault.models.handles import local_chat
from privault.models.llama import DEFAULT_THREADS
from privault.models.supervisor import Deadline
from privault.privacy.gate import joined
from privault.privacy.policy import Policy
from privault.retrieval.thread import asks_for_items, asks_for_set
from privault.spans import Span
from privault.store import shelves
from privault.timeutil import local_day
from privault.vault.bounds import ASK_BUDGETS, DEFAULT_ASK_BUDGET, MAX_QUERY_CHARS
from privault.vault.context import VaultContext
from privault.vault.finding import Finder
from privault.vault.privacy import PrivacyRuntime

DEFAULT_CHAT_MODEL = "qwen2.5-coder-1.5b"
# A question after several things ("what activities…", "which cities has…", "how many
# times…", `thread.asks_for_set`) has its answer spread over many notes, a line in each:
# on LoCoMo (conversations 1–3) a 300-token pack holds a third of the answer's parts and a
# 1,000-token one two thirds. So such a question reads at least this many tokens of memory,
# whatever smaller budget was asked for; a question after one fact keeps its budget.
SET_BUDGET = 1000


class VaultAsk:
    """Answers questions from the vault with a local model; one per open vault."""

    def __init__(
        self,
        context: VaultContext,
        *,
        chat_model: str | None = None,
        chat: ChatModel | None = None,
        remote: ChatModel | None = None,
    ) -> None:
        self._context = context
        self.chat_model = chat_model or DEFAULT_CHAT_MODEL
        self.remote = remote
        self._chat = chat
        self.tokens = FollowupTokens(context.conn)

    @property
    def chat(self) -> ChatModel:
        """The local model, loaded (and hash-checked) on first use and then kept warm; one
        per process for all handles on the file."""
        return self.load()

    def load(self, threads: int | None = None) -> ChatModel:
        """The local model's handle, computing with `threads` CPU threads (default: the
        engine's) unless this process already holds it; its worker starts on first use."""
        if self._chat is not None:
            return self._chat

        def load() -> ChatModel:
            settings = self._context.settings
            return local_chat(
                settings.models_dir,
                self.chat_model,
                threads=threads or DEFAULT_THREADS,
                deadline=Deadline(cap=settings.ask_timeout),
                on_change=self._context.engines.on_health,
                unload_after=settings.chat_unload_after,
                prefixes=PREFIXES,
            )

        return self._context.engines.chat(self.chat_model, load)

    def ask(
        self,
        question: str,
        *,
        caller: Caller,
        budget: int = DEFAULT_ASK_BUDGET,
        instruction: str | None = None,
        followup: str | None = None,
    ) -> AskReply:
        """Answer `question` for `caller`; see the module docstring for what is released."""
        if not question.strip():
            raise InputError("empty question")
        if len(question) > MAX_QUERY_CHARS:
            raise InputError(f"the question is over {MAX_QUERY_CHARS} characters")
        utf8_text(question, "the question")
        if not ASK_BUDGETS[0] <= budget <= ASK_BUDGETS[1]:
            raise InputError(f"budget must be between {ASK_BUDGETS[0]} and {ASK_BUDGETS[1]} tokens")
        context = self._context
        reading = context.privacy.reading(caller)
        filters = context.filters(caller, EVERYTHING)
        finder = Finder.of(context, reading, owner=caller.is_owner)
        packed, out, rows = finder.context(
            reading, question, filters, read_budget(question, budget)
        )
        # What the answer may not carry, whoever supplied it (the question too): every kind
        # the caller's policy for any shelf the answer draws on masks.
        policy = reading.strictest(rows[item.section_id].shelf for item in packed.sections)
        identifying = self._identifying_kinds()
        known = context.privacy.known_entities()
        private_shelves: dict[str, bool] = {}

        sections = []
        for item, view in zip(packed.sections, out, strict=True):
            row = rows[item.section_id]
            spans = reading.spans(row)
            gate = reading.gate(row.shelf)
            shelf_policy = gate.policy
            # What must not come back in any form: what the gate masks for this caller (under
            # `off`, every identifying value, for answers drawn from web pages alone).
            if shelf_policy.mode != "off":
                masked = gate.spans_to_mask(row.text, spans, deny=not row.author)
            else:
                masked = [s for s in spans if s.kind in identifying]
            values = {row.text[s.start : s.end] for s in masked}
            if not row.author:  # the owner's text is gated with the known entities too
                values.update(v for v, kind in known.items() if kind in shelf_policy.identifying)
            if row.shelf not in private_shelves:
                private_shelves[row.shelf] = shelves.is_private(context.conn, row.shelf)
            sections.append(
                AskSection(
                    node_id=view.node_id,
                    doc_id=view.doc_id,
                    title=view.title,
                    text=view.text,
                    # Not scanned yet: nothing says it holds no PII, so only a local model.
                    private=reading.is_pending(row)
                    or private_shelves[row.shelf]
                    or any(span.kind in identifying for span in spans),
                    untrusted=view.untrusted,
                    pii_values=tuple(sorted(values)),
                    day=local_day(row.created_at),
                    place=joined(" › ", view.breadcrumb),
                )
            )
        summary = reading.privacy()
        request = AskRequest(
            question=question,
            sections=tuple(sections),
            caller_name=caller.name,
            policy_name=summary.policy,
            mode=summary.mode,
            instruction=instruction,
            followup=followup,
            dropped=packed.dropped,
            withheld=dict(summary.held_back),
            several=asks_for_items(question),
            detect=_answer_detector(context.privacy, policy),
        )
        engines = AskEngines(self._chat_if_needed(sections), self.remote, self.tokens)
        return replace(run_pipeline(request, engines), unsearchable=finder.unsearchable)

    def _chat_if_needed(self, sections: list[AskSection]) -> ChatModel | None:
        # No sections: the pipeline answers "nothing matches" without a model.
        if not sections:
            return None
        try:
            return self.chat
        except ModelUnavailable:
            raise
        except ModelError as exc:  # missing or altered files: each ask is refused, saying so
            return _Unusable(self.chat_model, str(exc))

    def _identifying_kinds(self) -> frozenset[str]:
        """Every kind some non-off policy masks: what makes a section private."""
        return frozenset(
            kind
            for policy in self._context.privacy.policies
            if policy.mode != "off"
            for kind in policy.identifying
        )

    def close(self) -> None:
        """Free the remote client (the local model is freed with the process)."""
        close = getattr(self.remote, "close", None)
        if close is not None:
            close()


def read_budget(question: str, budget: int) -> int:
    """The tokens of memory the model reads for `question`: `budget`, or `SET_BUDGET` for a
    question after several things when that is more."""
    return max(budget, SET_BUDGET) if asks_for_set(question) else budget


def _answer_detector(runtime: PrivacyRuntime, policy: Policy) -> Any:
    """Spans in an answer or a question that the caller's policy masks (dates and the like
    stay), found without the vault's known entities (see the module docstring)."""

    def detect(text: str) -> list[Span]:
        found = runtime.plain_detector.detect(text)
        return [span for span in found if policy.counts(span)]

    return detect


def remote_chat(settings: dict[str, Any] | None) -> ChatModel | None:
    """The configured OpenAI-compatible backend (`url`, `model`, optional `api_key`)."""
    if not settings:
        return None
    from privault.ask.remote import RemoteChat

    try:
        return RemoteChat(
            str(settings["url"]), str(settings["model"]), api_key=settings.get("api_key")
        )
    except KeyError as exc:
        raise InputError(f"remote_chat needs {exc.args[0]!r} (url and model)") from None


class _Unusable:
    """The local answerer whose files failed their check (`catalog.problems`, which reads
    an unchanged altered file once a process): asking it is refused with the reason, as
    when its worker has failed for good."""

    local = True

    def __init__(self, name: str, problem: str) -> None:
        self.name = name
        self._problem = problem

    def chat(self, messages: Sequence[Message], *, max_tokens: int = 256) -> ChatResult:
        """Never an answer: the refusal's reason."""
        raise ModelUnavailable(self._problem, failed=True)
