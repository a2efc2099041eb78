"""What one agent gets masked in one document, as the owner's page lists it.

The detector reports every span it finds, overlapping and nested ("Jonas", "Becker" and
"Jonas Becker"; "EUR" as an organisation). What matters to the owner is what an agent's
gate does with them: its policy for the document's shelf picks the spans it counts and
merges overlapping ones, so each masked stretch is one value of one kind. Spans the policy
does not count, and that no masked stretch covers, are "detected but shown" to that agent.

The document's labels count too: its title, headings and tags are gated for the agent
wherever it reads them (a listing, a tree, a breadcrumb), through the same `Reading` as
its replies. Each distinct label is counted once (a note's title is its first heading),
a title as far as the agent reads it: what is cut off after gating is neither masked nor
shown to it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from privault.caller import Caller
from privault.spans import Span, merge_spans
from privault.store import documents, sections
from privault.vault.context import VaultContext
from privault.vault.labels import clip_to
from privault.vault.reading import TITLE_CHARS, scope_of


@dataclass(frozen=True)
class ValueRow:
    """One distinct value of one kind in a document, and how often it occurs."""

    value: str
    kind: str
    count: int


@dataclass(frozen=True)
class AgentMasking:
    """One agent's masking of one document: rows masked, rows detected but shown, and the
    merged masked spans of each section it can see (by node id) for highlighting."""

    agent: str
    policies: tuple[str, ...]
    masked: tuple[ValueRow, ...]
    shown: tuple[ValueRow, ...]
    spans: dict[str, tuple[Span, ...]]
    hidden_sections: int  # sections on a shelf the agent cannot see (for it: absent)


def _rows(counts: Counter[tuple[str, str]]) -> tuple[ValueRow, ...]:
    ordered = sorted(counts.items(), key=lambda item: (item[0][1], item[0][0].casefold()))
    return tuple(ValueRow(value, kind, n) for (value, kind), n in ordered)


def agent_masking(
    context: VaultContext, doc_id: str, agent: Caller, spans: dict[str, list[Span]]
) -> AgentMasking:
    """How `agent`'s gate treats the spans of a document (`spans`: node id → every span the
    reads apply, as `VaultPII.marked_sections` gives them) and its labels."""
    reading = context.privacy.reading(agent)
    hidden = set(context.hidden_shelves(agent))
    masked: Counter[tuple[str, str]] = Counter()
    shown: Counter[tuple[str, str]] = Counter()
    by_node: dict[str, tuple[Span, ...]] = {}
    policies: set[str] = set()

    def tally(text: str, found: list[Span], chosen: list[Span]) -> None:
        covered = bytearray(len(text))
        for span in chosen:
            masked[(text[span.start : span.end], span.kind)] += 1
            covered[span.start : span.end] = b"\x01" * (span.end - span.start)
        # Detected but let through: merged like masked ones, so parts fold into the whole.
        for span in merge_spans(s for s in found if not all(covered[s.start : s.end])):
            shown[(text[span.start : span.end], span.kind)] += 1

    rows = sections.sections_of(context.conn, doc_id)
    seen = [row for row in rows if row.shelf not in hidden]
    for row in seen:
        found = spans.get(row.node_id, [])
        gate = reading.gate(row.shelf)
        policies.add(gate.policy.name)
        chosen = gate.masking(row.text, found, deny=not row.author)
        by_node[row.node_id] = tuple(chosen)
        tally(row.text, found, chosen)
    document = documents.get(context.conn, doc_id)
    # Labels not scanned yet reach the agent as a stub: nothing of them is masked or shown.
    if seen and document is not None and not reading.labels_pending(doc_id):
        gate = reading.gate(document.shelf)
        headings = {row.heading for row in seen}
        labels = [document.title, *headings, *document.tags]
        for label in dict.fromkeys(label for label in labels if label.strip()):
            found = reading.label_spans(doc_id, label, author=document.author)
            chosen = gate.masking(label, found, deny=not document.author)
            # A title is shown clipped (a heading of the same words whole, in the tree):
            # what is cut off is neither masked nor shown to the agent.
            if label == document.title and label not in headings:
                scope = scope_of(document.author, doc_id)
                read = gate.shown_length(label, found, TITLE_CHARS, scope=scope)
                found, chosen = clip_to(found, read), [s for s in chosen if s.end <= read]
            tally(label, found, chosen)
    return AgentMasking(
        agent.name,
        tuple(sorted(policies)),
        _rows(masked),
        _rows(shown),
        by_node,
        len(rows) - len(seen),
    )


def owner_rows(spans: dict[str, list[Span]], texts: dict[str, str]) -> tuple[ValueRow, ...]:
    """Every detected value with no agent to compare: merged, one row per value and kind."""
    counts: Counter[tuple[str, str]] = Counter()
    for node_id, found in spans.items():
        text = texts[node_id]
        for span in merge_spans(found):
            counts[(text[span.start : span.end], span.kind)] += 1
    return _rows(counts)
