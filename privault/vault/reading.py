"""One response's view of the vault for one caller: the single place text is gated.

Every text a read returns — section text, excerpt, title, breadcrumb, tags — goes through
a `Reading`, and comes out `Gated`. It is made once per response (`PrivacyRuntime.reading`)
with the caller's policy and index view already resolved, picks the policy for each
section's shelf, keeps one `Gate` per policy for the whole response (so `<PERSON_1>` is the
same person throughout the owner's text), and applies spans stored at write time.

Titles are gated whole and clipped after (`TITLE_CHARS`). The caller's query is never
scanned or cut: gated callers search the masked index (`view`), where no form of a masked
value is present to match.

Fail closed: a section whose PII scan has not run yet (it waits in the index queue) comes
back to a gated caller as a stub that says so, and so do the title, headings and tags of a
document whose labels are not scanned yet. Only a policy that masks nothing (the owner's
`open`) sees such text as it is.
"""

from __future__ import annotations

import functools
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from privault.privacy.gate import OWNER_SCOPE, Gate, Gated, GatedText, GateMark, literal
from privault.privacy.policy import Policy
from privault.spans import Override, Span
from privault.store.sections import SectionRow
from privault.vault.results import Privacy

if TYPE_CHECKING:  # the runtime makes every Reading
    from privault.vault.privacy import PrivacyRuntime

TITLE_CHARS = 80  # titles are shown at most this long, clipped after gating
BEING_INDEXED = "[being indexed: not yet scanned for private data]"
LABEL_BEING_INDEXED = "[being indexed]"
_UNUSED_GATE = GateMark(0, {}, {}, 0)  # a gate made after a checkpoint was taken


@dataclass(frozen=True)
class DocumentFacts:
    """What gating a document's texts needs beyond their own spans, read once per reply for
    every document the reply shows: the owner's overrides, the stored spans of its labels
    (title, headings, tags) by label text, and whether those labels still wait for a scan."""

    overrides: tuple[Override, ...] = ()
    label_spans: Mapping[str, list[Span]] = field(default_factory=dict)
    labels_pending: bool = False


def scope_of(author: str, item_id: str) -> str:
    """The placeholder scope of a text: the owner's share one; each agent's text its own."""
    return OWNER_SCOPE if not author else f"{author}:{item_id}"


class Reading:
    """Gates every text of one response for one caller.

    What the gates apply is read from the file in batches and kept for the reply: a
    section's stored spans and scan state (`prefetch`), and its document's facts
    (`DocumentFacts`), each once, however many titles, breadcrumbs and windows show them.
    """

    def __init__(
        self,
        *,
        base: Policy,
        view: str,
        policy_for_shelf: Callable[[str], Policy],
        runtime: PrivacyRuntime,
    ) -> None:
        self.base = base  # the caller's policy before any shelf makes it stricter
        self.view = view  # the index this caller searches: `plain` or `masked`
        self._policy_for_shelf = policy_for_shelf
        self._runtime = runtime
        self._gates: dict[str, Gate] = {}
        self._shelf_policies: dict[str, Policy] = {}
        self._strictest: dict[tuple[str, ...], Policy] = {}
        self._documents: dict[str, DocumentFacts] = {}
        self._spans: dict[int, list[Span]] = {}
        # (policy, section) -> `masks`, and their ends in order (a window takes those
        # reaching into it by bisection)
        self._masks: dict[tuple[str, int], tuple[list[Span], list[int]]] = {}
        self._pending: set[int] = set()  # of the sections prefetched, those not scanned yet
        self._withheld_unscanned = 0
        # Statement id -> its stored scan (or None: never scanned), loaded once a response.
        self.statement_scans: dict[str, Any] = {}
        # Counted while gating text the response then left out (see `forget_since`).
        self._uncounted: Counter[str] = Counter()
        self._uncounted_withheld = 0

    @property
    def gated(self) -> bool:
        """Whether this caller searches the masked index."""
        return self.view == "masked"

    def gate(self, shelf: str) -> Gate:
        """The response's gate for a shelf's policy."""
        return self.gate_for(self.policy(shelf))

    def policy(self, shelf: str) -> Policy:
        """The policy that applies to a shelf for this caller (looked up once a response)."""
        if shelf not in self._shelf_policies:
            self._shelf_policies[shelf] = self._policy_for_shelf(shelf)
        return self._shelf_policies[shelf]

    def strictest(self, shelves: Iterable[str]) -> Policy:
        """The strictest of the caller's policies for these shelves (its own for none): what
        a text drawn from all of them may carry."""
        key = tuple(sorted(set(shelves)))
        if key not in self._strictest:
            self._strictest[key] = functools.reduce(
                Policy.stricter, map(self.policy, key), self.base
            )
        return self._strictest[key]

    def gate_for(self, policy: Policy) -> Gate:
        """The response's gate for a policy (one per policy, shared by all its texts)."""
        if policy.name not in self._gates:
            self._gates[policy.name] = Gate(policy)
        return self._gates[policy.name]

    def prefetch_documents(self, doc_ids: Iterable[str]) -> None:
        """Read the facts of many documents in one go (three queries, whatever the count)."""
        missing = list(dict.fromkeys(d for d in doc_ids if d not in self._documents))
        if missing:
            self._documents.update(self._runtime.document_facts(missing)[0])

    def document(self, doc_id: str) -> DocumentFacts:
        """A document's facts (read now if no prefetch brought them)."""
        self.prefetch_documents([doc_id])
        return self._documents[doc_id]

    def prefetch(self, sections: Sequence[SectionRow]) -> None:
        """Load the stored spans and scan state of many sections, and their documents'
        facts, in one batch."""
        missing = list({s.id: s for s in sections if s.id not in self._spans}.values())
        if missing:
            # The documents' facts and the sections' scan state come in one round.
            docs = list(dict.fromkeys(s.doc_id for s in missing if s.doc_id not in self._documents))
            ids = [s.id for s in missing]
            if docs:
                facts, pending = self._runtime.document_facts(docs, ids)
                self._documents.update(facts)
            else:
                pending = self._runtime.pending_sections(ids)
            self._pending.update(pending)
            self._spans.update(self._runtime.section_spans(missing, self._documents))

    def is_pending(self, section: SectionRow) -> bool:
        """Whether the section's PII scan has not run yet (it waits for the indexer)."""
        self.prefetch([section])
        return section.id in self._pending

    def labels_pending(self, doc_id: str) -> bool:
        """Whether a document's title, headings and tags are not scanned yet."""
        return self.document(doc_id).labels_pending

    def spans(self, section: SectionRow) -> list[Span]:
        """The stored spans of one section (with owner overrides applied)."""
        self.prefetch([section])
        return self._spans[section.id]

    def section(self, section: SectionRow, start: int = 0, end: int | None = None) -> GatedText:
        """A section's text, or a window of it, as this caller may see it.

        A window is masked as the whole section is, cut to the window: a value wrapped
        across its edge ("…for Blue" / "Falcon next…", a deny-list value) is masked in
        part, and the part of a longer value inside it is never judged afresh (an allowed
        "Becker" opening a window is still part of "Dr Jonas Becker", masked whole)."""
        stop = len(section.text) if end is None else end
        gate = self.gate(section.shelf)
        if gate.policy.mode != "off" and self.is_pending(section):
            self._withheld_unscanned += 1
            return GatedText(literal(BEING_INDEXED), gate.policy.name, withheld=True)
        masks = self.masks(section)
        if masks and (start or stop < len(section.text)):  # those reaching into the window
            ends = self._masks[(gate.policy.name, section.id)][1]
            masks = masks[bisect_right(ends, start) : bisect_left(ends, stop) + 1]
        scope = scope_of(section.author, section.doc_id)
        return gate.apply(section.text, masks, scope=scope, window=(start, stop))

    def masks(self, section: SectionRow) -> list[Span]:
        """What this caller's policy masks in a whole section (merged, nothing counted;
        under `refuse`, what withholds a window holding it); none where the caller reads
        the section as stored, or not at all yet. Windows are cut from it (`section`),
        and `shapes` decides on it where sections are cut."""
        gate = self.gate(section.shelf)
        if gate.policy.mode == "off" or self.is_pending(section):
            return []
        key = (gate.policy.name, section.id)
        if key not in self._masks:
            own = scope_of(section.author, section.doc_id) == OWNER_SCOPE
            masks = gate.masking(section.text, self.spans(section), deny=own)
            self._masks[key] = (masks, [mask.end for mask in masks])
        return self._masks[key][0]

    def label(self, doc_id: str, shelf: str, text: str, *, author: str = "") -> Gated:
        """A heading, tag or source of a document written by `author` ('' for the owner)
        as this caller may see it (spans stored at write time)."""
        return self._label(doc_id, shelf, text, author, None)

    def label_spans(self, doc_id: str, text: str, *, author: str = "") -> list[Span]:
        """The spans a label of a document is gated by: stored at write time, with the
        owner's overrides and (in the owner's text) the known entities applied."""
        return self._runtime.label_spans(self.document(doc_id), doc_id, text, author)

    def title(self, doc_id: str, shelf: str, text: str, *, author: str = "") -> Gated:
        """A title: gated whole, then clipped to `TITLE_CHARS` (a value in the part clipped
        off is neither numbered nor counted, `Gate.clipped`)."""
        return self._label(doc_id, shelf, text, author, TITLE_CHARS)

    def _label(self, doc_id: str, shelf: str, text: str, author: str, limit: int | None) -> Gated:
        gate = self.gate(shelf)
        spans: list[Span] = []
        if gate.policy.mode != "off":
            if self.labels_pending(doc_id):
                return literal(LABEL_BEING_INDEXED)
            spans = self.label_spans(doc_id, text, author=author)
        scope = scope_of(author, doc_id)
        if limit is None:
            return gate.apply(text, spans, scope=scope).text
        return gate.clipped(text, spans, limit, scope=scope).text

    def tags(
        self, doc_id: str, shelf: str, tags: Sequence[str], *, author: str = ""
    ) -> tuple[Gated, ...]:
        """A document's tags, each gated like a label."""
        return tuple(self.label(doc_id, shelf, tag, author=author) for tag in tags)

    def breadcrumb(self, section: SectionRow) -> tuple[Gated, ...]:
        """A section's breadcrumb with each heading gated (its title part clipped too)."""
        return tuple(
            self.title(section.doc_id, section.shelf, part, author=section.author)
            for part in section.breadcrumb
        )

    def _counted(self) -> tuple[Counter[str], int]:
        held: Counter[str] = Counter()
        withheld = self._withheld_unscanned
        for gate in self._gates.values():
            summary = gate.held_back()
            held.update(summary.kinds)
            withheld += summary.texts_withheld
        return held, withheld

    def checkpoint(self) -> Callable[[], None]:
        """A function that undoes everything gated from now on, as if it never was: the
        numbers its values took and what it counted as held back. For text gated to be
        measured and then left out (a window a context pack tried and dropped, statements
        dropped to fit): numbers go on from those of the text the response returns, with
        no gap that tells of a value in text it left out (see `privacy.gate`)."""
        marks = {name: gate.mark() for name, gate in self._gates.items()}
        unscanned = self._withheld_unscanned

        def undo() -> None:
            for name, gate in self._gates.items():
                gate.undo(marks.get(name, _UNUSED_GATE))
            self._withheld_unscanned = unscanned

        return undo

    def count_mark(self) -> tuple[Counter[str], int]:
        """What this response has counted as held back so far: hand it to `forget_since`."""
        return self._counted()

    def forget_since(self, mark: tuple[Counter[str], int]) -> None:
        """Count nothing gated since `mark` as held back: a response that gated text to
        measure it (a context pack trying pieces against its budget) gates again only what
        it returns. Placeholders keep their numbers, so the text gated again is the same."""
        held, withheld = self._counted()
        self._uncounted.update(held - mark[0])
        self._uncounted_withheld += withheld - mark[1]

    def privacy(self) -> Privacy:
        """What the response was gated by and held back (the strictest policy used wins)."""
        gates = list(self._gates.values()) or [Gate(self.base)]
        order = {"off": 0, "redact": 1, "refuse": 2}
        main = max(gates, key=lambda gate: order.get(gate.policy.mode, 3))
        held, withheld = self._counted()
        held.subtract(self._uncounted)
        kept = {kind: count for kind, count in sorted(held.items()) if count > 0}
        return Privacy(
            main.policy.name, main.policy.mode, kept, withheld - self._uncounted_withheld
        )
