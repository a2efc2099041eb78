"""The ask pipeline: gated sections in, a scanned answer out.

The facade retrieves, packs and gates the sections for the caller; this module decides who
may answer, briefs the model, scans what it wrote and builds the reply:

1. Private context (any section holding identifying PII, or from a private shelf) is
   answered only by a local model (run by privault in its supervised worker). A
   configured remote backend is passed over *before* a single byte is sent; with no local
   model the ask is refused.
2. The model sees the sections as gated (placeholders under `redact`, stubs under
   `refuse`, as stored under `off`) with web pages and the agent's follow-up instruction
   marked untrusted (`briefing.py`).
3. The answer is scanned before release (`privacy/leaks.py`): every value the caller's
   policy masks that the model was *shown* (a gate that missed it, a web page under
   `off`), in any normalised or encoded form; every span the detector finds in the
   answer of a kind the policy masks; and every such value the detector finds in the
   caller's own question or instruction, in any form, whether the vault holds it or not.
   So an answer never carries a value of a masked kind, whoever supplied it: the model
   cannot confirm a guess by repeating it, nor pick the right one out of a list. What is
   masked depends only on what the model was shown and on the caller's own words, never
   on what else the vault holds, so a present value and an absent one of the same shape
   come back alike (no presence oracle). Under `off` nothing is masked (the policy
   releases it all), unless every section came from the web: a web page alone is never
   the basis for releasing personal data.
4. The reply carries citations, what was held back, and a follow-up token that lets the
   caller send one instruction back, run by the local model over the same sections.

One ask is one frozen `AskRequest` (the question, its gated sections, who asks under which
policy) answered by `AskEngines` (the models and the follow-up token store). Refusals are
values (`AskReply.refused`), not exceptions.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

import httpx

from privault.ask.answers import grounded, tidy, unrepeated
from privault.ask.briefing import AskSection, build_messages, render_sections
from privault.ask.followup import FollowupTokens
from privault.ask.remote import RemoteReplyError
from privault.errors import InputError, ModelUnavailable
from privault.jsonform import JsonForm
from privault.jsonform import shown as json_shown
from privault.models.chat import ChatModel, ChatResult
from privault.privacy.leaks import MASK, find_leaks, mask_ranges, shown

__all__ = [
    "AskEngines",
    "AskHeldBack",
    "AskReply",
    "AskRequest",
    "AskSection",
    "Citation",
    "ask",
]

Backend = Literal["local", "remote"]
MODES = ("off", "redact", "refuse")
NO_CONTEXT = "Nothing in the vault matches this question."


class SpanLike(Protocol):
    """What a detector reports for the answer: a stretch and its kind."""

    start: int
    end: int
    kind: str


Detect = Callable[[str], Sequence[SpanLike]]


@dataclass(frozen=True)
class AskRequest:
    """One ask, as the facade hands it over: everything in it is already resolved.

    `sections` are gated for the caller; `mode` is the caller's policy mode. With
    `followup` and `instruction`, the token is redeemed and the local model re-runs over
    the same sections with the (untrusted) instruction. `dropped` counts sections that
    did not fit the budget, `withheld` the kinds the gate held back from the context;
    both are reported in `held_back`. `detect` finds spans the caller's policy masks in
    the answer (None: none are looked for).
    """

    question: str
    sections: tuple[AskSection, ...]
    caller_name: str
    policy_name: str
    mode: str
    instruction: str | None = None
    followup: str | None = None
    dropped: int = 0
    withheld: dict[str, int] = field(default_factory=dict)
    detect: Detect | None = None
    max_tokens: int = 160
    several: bool = False  # the question asks for several things: the model lists them all

    @property
    def is_followup(self) -> bool:
        """Whether this ask redeems a follow-up token (or tries to)."""
        return self.followup is not None or self.instruction is not None


@dataclass(frozen=True)
class AskEngines:
    """What answers an ask: the local model (None: none loaded), an optional remote
    backend (used only for context that holds nothing private), and the token store."""

    chat: ChatModel | None
    remote: ChatModel | None
    tokens: FollowupTokens


@dataclass(frozen=True)
class Citation(JsonForm):
    """A section the answer was drawn from (title already gated for the caller)."""

    node_id: str
    doc_id: str
    title: str


@dataclass(frozen=True)
class AskHeldBack(JsonForm):
    """What an ask held back: from the answer, and from the context it was drawn from."""

    answer_spans: dict[str, int] = field(default_factory=dict)  # kind -> spans masked
    leak_masks: int = 0  # context PII values found (in any form) in the answer and masked
    leak_forms: dict[str, int] = field(default_factory=dict)  # form -> leaks masked
    dropped: int = 0  # sections that did not fit the budget
    context: dict[str, int] = field(default_factory=dict)  # kind -> held back by the gate


@dataclass(frozen=True)
class AskReply(JsonForm):
    """The outcome of an ask: an answer, or a refusal with a reason, never both."""

    answer: str = field(metadata=json_shown("The answer; empty when refused."))
    citations: tuple[Citation, ...] = field(metadata=json_shown("Sections the answer drew on."))
    policy: str = field(metadata=json_shown("The privacy policy the answer was released under."))
    mode: str = field(metadata=json_shown("off, redact or refuse."))
    held_back: AskHeldBack = field(
        metadata=json_shown(
            "What was withheld: PII kinds in the context, values masked in the answer."
        )
    )
    refused: str | None = field(
        default=None, metadata=json_shown("Why no answer was given, if refused.")
    )
    followup: str | None = field(
        default=None,
        metadata=json_shown(
            "Single-use token (valid for minutes): send it back with `instruction` and the "
            "same question to reshape this answer once."
        ),
    )
    model: str | None = field(default=None, metadata=json_shown("The model that wrote the answer."))
    backend: Backend | None = field(default=None, metadata=json_shown(agents=False))
    # why a configured remote backend was not used
    remote_refused: str | None = field(default=None, metadata=json_shown(agents=False))
    timings: dict[str, float] = field(default_factory=dict, metadata=json_shown(agents=False))
    # Recent sections the search could not rank by meaning yet (queued past the bound the
    # owner's search embeds at query time); always 0 for gated callers.
    unsearchable: int = field(default=0, metadata=json_shown(agents=False))


def _refusal(reason: str, request: AskRequest, **extra: Any) -> AskReply:
    return AskReply(
        answer="",
        citations=_citations(request.sections),
        policy=request.policy_name,
        mode=request.mode,
        held_back=AskHeldBack(),
        refused=reason,
        **extra,
    )


def _citations(sections: Sequence[AskSection]) -> tuple[Citation, ...]:
    return tuple(Citation(s.node_id, s.doc_id, s.title) for s in sections)


def _choose(
    private: bool, followup: bool, chat: ChatModel | None, remote: ChatModel | None
) -> tuple[ChatModel | None, str | None]:
    """Which backend answers, and why the remote one was passed over (if it was)."""
    remote_refused = None
    if remote is not None:
        if private:
            remote_refused = "the context is private: only the local model may read it"
        elif followup:
            remote_refused = "follow-ups run on the local model only"
        else:
            return remote, None
    if chat is not None and not chat.local:
        return None, "the configured answerer is not a local model"
    return chat, remote_refused


def _scan(answer: str, request: AskRequest) -> tuple[str, AskHeldBack]:
    """Mask, per the mode, the context values the model was shown, the detector's spans in
    the answer, and the caller's own values of a masked kind wherever the answer repeats
    them."""
    sections, mode = request.sections, request.mode
    web_only = all(section.untrusted for section in sections)
    if mode == "off" and not web_only:
        return answer, AskHeldBack()
    values = [
        value
        for section in sections
        for value in shown(section.pii_values, f"{section.where}\n{section.text}")
    ]
    leaks = find_leaks(answer, values)
    ranges = [(leak.start, leak.end, MASK) for leak in leaks]
    labelled: list[tuple[int, int, str]] = []
    if request.detect is not None and mode != "off":
        labelled += [(s.start, s.end, s.kind) for s in request.detect(answer) if s.end > s.start]
        supplied = f"{request.question}\n{request.instruction or ''}"
        asked: dict[str, set[str]] = {}
        for span in request.detect(supplied):
            asked.setdefault(span.kind, set()).add(supplied[span.start : span.end])
        for kind, kind_values in sorted(asked.items()):
            labelled += [(leak.start, leak.end, kind) for leak in find_leaks(answer, kind_values)]
    ranges += [(start, end, f"<{kind}>") for start, end, kind in labelled]
    text, _ = mask_ranges(answer, ranges)
    leaked = [(leak.start, leak.end) for leak in leaks]
    outside = [
        (start, end, kind)
        for start, end, kind in _merged(labelled)
        if not any(a <= start and end <= b for a, b in leaked)
    ]
    return text, AskHeldBack(
        answer_spans=dict(Counter(kind for _, _, kind in outside)),
        leak_masks=len(leaks),
        leak_forms=dict(Counter(leak.form for leak in leaks)),
    )


def _merged(ranges: Sequence[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Overlapping stretches of the same kind counted once (the widest first)."""
    kept: list[tuple[int, int, str]] = []
    for start, end, kind in sorted(set(ranges), key=lambda r: (r[0], -r[1])):
        if any(k == kind and a <= start and end <= b for a, b, k in kept):
            continue
        kept.append((start, end, kind))
    return kept


def _tidied(request: AskRequest, text: str) -> str:
    """What the model wrote, as `answers` tidies it. A first answer loses an opening that
    restates the question (`tidy`); a list, the items that name a thing again
    (`unrepeated`) and those no note the model was shown holds (`grounded`). A follow-up
    keeps its words but for the repeats: it may ask for the answer in other words, the
    notes' or not (translated, say)."""
    if request.is_followup:
        return unrepeated(text) if request.several else text
    answer = tidy(request.question, text)
    if not request.several:
        return answer
    shown = f"{render_sections(request.sections)}\n{request.question}"
    return grounded(unrepeated(answer), shown)


def ask(request: AskRequest, engines: AskEngines) -> AskReply:
    """Answer `request` from its gated sections, releasing nothing private."""
    if request.mode not in MODES:
        raise InputError(
            f"unknown policy mode {request.mode!r}; expected one of {', '.join(MODES)}"
        )
    started = time.perf_counter()
    sections = request.sections
    node_ids = [section.node_id for section in sections]
    question, instruction = request.question, request.instruction
    if request.is_followup:
        if not (request.followup and instruction and instruction.strip()):
            return _refusal("a follow-up needs both a token and an instruction", request)
        redeemed = engines.tokens.redeem(request.followup, request.caller_name, question, node_ids)
        if not redeemed.ok:
            return _refusal(str(redeemed.reason), request)
    private = any(section.private for section in sections)
    model, remote_refused = _choose(private, request.is_followup, engines.chat, engines.remote)
    backend: Backend | None = None
    if not sections:
        answer, result, model_name = NO_CONTEXT, ChatResult(NO_CONTEXT), None
    elif model is None:
        reason = remote_refused or "no local model is loaded to answer"
        if remote_refused:
            reason += "; nothing was sent, and no local model is loaded to answer instead"
        return _refusal(reason, request, remote_refused=remote_refused)
    else:
        messages = build_messages(
            question, sections, instruction=instruction, several=request.several
        )
        try:
            result = model.chat(messages, max_tokens=request.max_tokens)
        except InputError as exc:  # the packed context does not fit the model's window
            return _refusal(f"{exc}; ask with a smaller budget", request)
        except ModelUnavailable as exc:
            if not exc.failed:
                raise  # it is restarting: this call gets the error, the next one may work
            # Never a remote model instead: the context was judged for the local one.
            return _refusal(str(exc), request)
        except httpx.HTTPError as exc:
            return _refusal(f"the remote chat backend failed ({type(exc).__name__})", request)
        except RemoteReplyError as exc:
            return _refusal(f"the remote chat backend failed: {exc}", request)
        answer = _tidied(request, result.text)
        model_name = model.name
        backend = "local" if model.local else "remote"
    model_done = time.perf_counter()
    text, scanned = _scan(answer, request)
    held = replace(scanned, dropped=request.dropped, context=dict(request.withheld))
    token = None
    if sections and not request.is_followup:
        token = engines.tokens.issue(request.caller_name, question, node_ids)
    finished = time.perf_counter()
    return AskReply(
        answer=text,
        citations=_citations(sections),
        policy=request.policy_name,
        mode=request.mode,
        held_back=held,
        followup=token,
        model=model_name,
        backend=backend,
        remote_refused=remote_refused,
        timings={
            "total_ms": round((finished - started) * 1000, 2),
            "model_ms": round(result.seconds * 1000, 2),
            "scan_ms": round((finished - model_done) * 1000, 2),
            "prompt_tokens": result.prompt_tokens,
            "cached_tokens": result.cached_tokens,
            "completion_tokens": result.completion_tokens,
        },
    )
