"""What a change to the owner's PII overrides would show to agents, before it is made.

Unmarking a value, or taking back a mark, can let text through to agents. The page asks
the owner to confirm such a change and says which kinds of text become visible to which
agents. This module answers that without writing anything: it reads the affected sections
with the overrides as they are and as they would be, through each active agent's policy for
each section's shelf, and compares which characters that agent's gate masks. A kind is
"revealed" when some of its text was masked before and would not be after — so unmarking
"+44 20 …" as an ORGANIZATION reveals nothing while its PHONE_NUMBER span still masks it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from privault.privacy.gate import OWNER_SCOPE, Gate
from privault.privacy.overrides import apply_overrides
from privault.privacy.recognizers import find_known_entities
from privault.spans import Override, Span, normalise_value
from privault.store import agents, pii, sections
from privault.vault.agents import agent_caller
from privault.vault.context import VaultContext
from privault.vault.privacy import PrivacyRuntime


@dataclass(frozen=True)
class Reveal:
    """One agent that would see more: the kinds of text it would see, in how many sections."""

    agent: str
    policies: tuple[str, ...]
    kinds: tuple[str, ...]
    sections: int


def reveals(
    context: VaultContext,
    doc_id: str,
    edit: Callable[[list[Override]], list[Override]],
    forget: str | None = None,
) -> tuple[Reveal, ...]:
    """Agents that would see text they do not see now if the overrides were `edit(...)`
    (and the known entity `forget` were forgotten: then every section mentioning it counts)."""
    conn, privacy = context.conn, context.privacy
    privacy.refresh()
    section_ids = {row.id for row in sections.sections_of(conn, doc_id)}
    if forget is not None:
        section_ids.update(pii.sections_mentioning(conn, [forget]))
    ids = sorted(section_ids)
    before = spans_if(privacy, ids, lambda overrides: overrides)
    after = spans_if(privacy, ids, edit, forget)
    rows = sections.sections_by_ids(conn, ids)
    found = []
    for agent in agents.list_agents(conn):
        if not agent.active:
            continue
        caller = agent_caller(agent)
        hidden = set(context.hidden_shelves(caller))
        kinds: set[str] = set()
        policies: set[str] = set()
        touched = 0
        for section_id, row in rows.items():
            if row.shelf in hidden:
                continue
            gate = Gate(privacy.policy_for(caller, row.shelf))
            deny = (row.author or OWNER_SCOPE) == OWNER_SCOPE
            newly = _unmasked(gate, row.text, before[section_id], after[section_id], deny)
            if newly:
                kinds |= newly
                touched += 1
                policies.add(gate.policy.name)
        if kinds:
            found.append(Reveal(agent.name, tuple(sorted(policies)), tuple(sorted(kinds)), touched))
    return tuple(found)


def spans_if(
    privacy: PrivacyRuntime,
    section_ids: Sequence[int],
    edit: Callable[[list[Override]], list[Override]],
    forget: str | None = None,
) -> dict[int, list[Span]]:
    """The spans reads would apply to these sections if the overrides were
    `edit(overrides)` and the value `forget` were no longer a known entity (as
    `PrivacyRuntime.section_spans` applies them). Nothing is written."""
    rows = list(sections.sections_by_ids(privacy.conn, section_ids).values())
    doc_ids = sorted({row.doc_id for row in rows})
    by_doc: dict[str, list[Override]] = {doc_id: [] for doc_id in doc_ids}
    for override in edit(pii.list_overrides(privacy.conn, doc_ids)):
        by_doc.setdefault(override.doc_id, []).append(override)
    stored = pii.load_spans(privacy.conn, [row.id for row in rows])
    found = {}
    for row in rows:
        known = privacy.known_for(row.author)
        if forget is not None:
            known = {k: v for k, v in known.items() if normalise_value(k) != forget}
        spans = list(stored[row.id].text) + find_known_entities(row.text, known)
        found[row.id] = apply_overrides(
            row.text, spans, by_doc[row.doc_id], doc_id=row.doc_id, node_id=row.node_id
        )
    return found


def _unmasked(gate: Gate, text: str, before: list[Span], after: list[Span], deny: bool) -> set[str]:
    """Kinds with text `gate` masks under the `before` spans and not under the `after` ones."""
    covered = bytearray(len(text))
    for span in gate.masking(text, after, deny=deny):
        covered[span.start : span.end] = b"\x01" * (span.end - span.start)
    return {
        span.kind
        for span in gate.masking(text, before, deny=deny)
        if not all(covered[span.start : span.end])
    }


def same_value(a: str, b: str) -> bool:
    """Two override values are the same value (case and inner spacing aside)."""
    return normalise_value(a) == normalise_value(b)
