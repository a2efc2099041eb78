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

from collections.abc import Callable, Iterable, Sequence

from privault.privacy.gate import OWNER_SCOPE, Gate, Gated, GatedText, literal
from privault.privacy.gate import clip as clip_text
from privault.privacy.policy import Policy
from privault.spans import Span
from privault.store.sections import SectionRow
from privault.vault.results import Privacy

SpanLoader = Callable[[Sequence[int]], dict[int, list[Span]]]
LabelLoader = Callable[[str, str], list[Span]]
PendingLoader = Callable[[Sequence[int]], set[int]]
TITLE_CHARS = 80  # titles are shown at most this long, clipped after gating
BEING_INDEXED = "[being indexed: not yet scanned for private data]"
LABEL_BEING_INDEXED = "[being indexed]"


def _none_pending(section_ids: Sequence[int]) -> set[int]:
    return set()


def _no_labels_pending(doc_id: str) -> bool:
    return False


def scope_of(author: str, item_id: str) -> str:
    """The placeholder scope of a text: the owner's share one; each agent's text its own."""
    return OWNER_SCOPE if not author else f"{author}:{item_id}"


def clip(spans: Iterable[Span], start: int, end: int) -> list[Span]:
    """Spans of `text[start:end]`, shifted to offsets in that window (cut at its edges)."""
    clipped = []
    for span in spans:
        lo, hi = max(span.start, start), min(span.end, end)
        if lo < hi:
            clipped.append(Span(lo - start, hi - start, span.kind, span.score, span.source))
    return clipped


class Reading:
    """Gates every text of one response for one caller."""

    def __init__(
        self,
        *,
        base: Policy,
        view: str,
        policy_for_shelf: Callable[[str], Policy],
        load_spans: SpanLoader,
        load_label_spans: LabelLoader,
        load_pending: PendingLoader = _none_pending,
        labels_pending: Callable[[str], bool] = _no_labels_pending,
    ) -> None:
        self.base = base  # the caller's policy before any shelf makes it stricter
        self.view = view  # the index this caller searches: `plain` or `masked`
        self._policy_for_shelf = policy_for_shelf
        self._load_spans = load_spans
        self._load_label_spans = load_label_spans
        self._load_pending = load_pending
        self._labels_pending = labels_pending
        self._gates: dict[str, Gate] = {}
        self._shelf_policies: dict[str, Policy] = {}
        self._spans: dict[int, list[Span]] = {}
        self._pending: set[int] = set()  # of the sections prefetched, those not scanned yet
        self._pending_labels: dict[str, bool] = {}
        self._withheld_unscanned = 0

    @property
    def gated(self) -> bool:
        """Whether this caller searches the masked index."""
        return self.view == "masked"

    @property
    def base_gate(self) -> Gate:
        """The response's gate for the caller's own policy."""
        return self.gate_for(self.base)

    def gate(self, shelf: str) -> Gate:
        """The response's gate for a shelf's policy."""
        return self.gate_for(self.policy(shelf))

    def policy(self, shelf: str) -> Policy:
        """The policy that applies to a shelf for this caller (looked up once a response)."""
        if shelf not in self._shelf_policies:
            self._shelf_policies[shelf] = self._policy_for_shelf(shelf)
        return self._shelf_policies[shelf]

    def gate_for(self, policy: Policy) -> Gate:
        """The response's gate for a policy (one per policy, shared by all its texts)."""
        if policy.name not in self._gates:
            self._gates[policy.name] = Gate(policy)
        return self._gates[policy.name]

    def prefetch(self, section_ids: Sequence[int]) -> None:
        """Load stored spans for many sections in one query."""
        missing = [sid for sid in section_ids if sid not in self._spans]
        if missing:
            loaded = self._load_spans(missing)
            self._pending.update(self._load_pending(missing))
            for sid in missing:
                self._spans[sid] = loaded.get(sid, [])

    def is_pending(self, section: SectionRow) -> bool:
        """Whether the section's PII scan has not run yet (it waits for the indexer)."""
        self.prefetch([section.id])
        return section.id in self._pending

    def labels_pending(self, doc_id: str) -> bool:
        """Whether a document's title, headings and tags are not scanned yet."""
        if doc_id not in self._pending_labels:
            self._pending_labels[doc_id] = self._labels_pending(doc_id)
        return self._pending_labels[doc_id]

    def spans(self, section: SectionRow) -> list[Span]:
        """The stored spans of one section (with owner overrides applied)."""
        self.prefetch([section.id])
        return self._spans[section.id]

    def section(self, section: SectionRow, start: int = 0, end: int | None = None) -> GatedText:
        """A section's text, or a window of it, as this caller may see it."""
        stop = len(section.text) if end is None else end
        window = section.text[start:stop]
        gate = self.gate(section.shelf)
        if gate.policy.mode != "off" and self.is_pending(section):
            self._withheld_unscanned += 1
            return GatedText(literal(BEING_INDEXED), gate.policy.name, withheld=True)
        return gate.apply(
            window,
            clip(self.spans(section), start, stop),
            scope=scope_of(section.author, section.doc_id),
        )

    def label(self, doc_id: str, shelf: str, text: str, *, author: str = "") -> Gated:
        """A heading or tag as this caller may see it (spans stored at write time)."""
        gate = self.gate(shelf)
        if gate.policy.mode != "off" and self.labels_pending(doc_id):
            return literal(LABEL_BEING_INDEXED)
        spans = [] if gate.policy.mode == "off" else self._load_label_spans(doc_id, text)
        return gate.apply(text, spans, scope=scope_of(author, doc_id)).text

    def title(self, doc_id: str, shelf: str, text: str, *, author: str = "") -> Gated:
        """A title: gated whole, then clipped to `TITLE_CHARS`."""
        return clip_text(self.label(doc_id, shelf, text, author=author), TITLE_CHARS)

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

    def privacy(self) -> Privacy:
        """What the response was gated by and held back (the strictest policy used wins)."""
        gates = list(self._gates.values()) or [Gate(self.base)]
        order = {"off": 0, "redact": 1, "refuse": 2}
        main = max(gates, key=lambda gate: order.get(gate.policy.mode, 3))
        held: dict[str, int] = {}
        withheld = self._withheld_unscanned
        for gate in gates:
            summary = gate.held_back()
            for kind, count in summary.kinds.items():
                held[kind] = held.get(kind, 0) + count
            withheld += summary.texts_withheld
        return Privacy(main.policy.name, main.policy.mode, dict(sorted(held.items())), withheld)
