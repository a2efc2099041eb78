"""The privacy side of the facade: policies, the detector, stored spans, one Reading per reply.

Write time: every section's text and label (title, headings, tags) of a document is scanned
once; spans are stored with the detector's version. Read time: stored spans, plus
the owner's overrides, plus a live match of the vault's known entities (a name learnt after a
text was scanned is caught before any re-scan reaches it), are applied by the caller's policy.

Known entities are vault state: a counter in the file (`pii.known_generation`) moves
whenever they change, and every `reading` checks it, so a running server masks a name
another process learnt on its very next request.

Text an agent wrote is scanned and gated without the known entities: masking an agent's own
words by what the vault knows would tell the agent what the vault knows.

Gated callers search masked index entries (`vault.gated_index`): `with_masked_entries`
adds them when a document is written, `remask` when its spans change, and
`ensure_masked_index` builds any that are missing before a process's first gated search.

Policies and the access configuration load lazily and fail closed: a broken policy file
refuses every gated operation with a `PolicyError` instead of falling back to anything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from privault.caller import Caller
from privault.errors import PolicyError
from privault.privacy.access import AccessConfig, policy_for
from privault.privacy.detector import Detector, DetectorConfig, second_ner_folder
from privault.privacy.masking import IndexMasker
from privault.privacy.overrides import apply_overrides
from privault.privacy.policy import Policy, PolicySet
from privault.privacy.recognizers import find_known_entities
from privault.retrieval.embedder import Embedder
from privault.spans import Override, Span
from privault.store import index_queue, masked_index, pii, shelves
from privault.store import label_spans as label_store
from privault.store import sections as section_store
from privault.store.connection import Connection
from privault.store.sections import IndexedSection, SectionRow
from privault.vault import gated_index
from privault.vault.detection import (
    DetectorFactory,
    Scan,
    SpanDetector,
    statement_known_entities,
)
from privault.vault.ingest import Draft
from privault.vault.labels import document_labels, found_in, is_first_line, label_text, scan_text
from privault.vault.labels import label_spans as label_spans  # re-exported for tests
from privault.vault.reading import DocumentFacts, Reading
from privault.vault.statement_matching import SeenWords
from privault.vault.status import PrivacyStatus


class PrivacyRuntime:
    """Policies, detector and span storage for one open vault."""

    def __init__(
        self,
        conn: Connection,
        policies_dir: Path | None,
        config: dict[str, Any],
        *,
        models_dir: Path | None = None,
        detector_factory: DetectorFactory = Detector,
    ) -> None:
        self.conn = conn
        self._models_dir = models_dir
        self._policies_dir = policies_dir
        self._raw_config = config
        self._detector_factory = detector_factory
        self._policies: PolicySet | None = None
        self._access: AccessConfig | None = None
        self._detector: SpanDetector | None = None
        self._plain_detector: SpanDetector | None = None
        self._known: dict[str, str] | None = None
        self._generation: int | None = None
        self._masker: IndexMasker | None = None
        self._masked_checked = False  # this process made sure no masked entry is missing
        # What each policy shows of each statement, for matching words against it.
        self.seen_words = SeenWords(self.known_entities)
        self.rescan_after = 0  # the last section id a re-scan batch read (`rescanning`)
        self.rescan_labels_after = ("", "")  # and the last (doc id, label)

    # ---- configuration ---------------------------------------------------------------

    @property
    def policies(self) -> PolicySet:
        """Every policy, loaded once; a broken file raises `PolicyError` on every call."""
        if self._policies is None:
            self._policies = PolicySet.load(self._policies_dir)
        return self._policies

    @property
    def access(self) -> AccessConfig:
        """The caller → policy configuration, validated."""
        if self._access is None:
            try:
                self._access = AccessConfig.model_validate(self._raw_config)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(part) for part in first["loc"])
                raise PolicyError(f"privacy config: {where}: {first['msg']}") from None
        return self._access

    def access_for(self, caller: Caller) -> AccessConfig:
        """The access configuration with the policy the owner chose in the vault for this
        agent (`privault agents policy`) in place of the file's entry. Interfaces read it
        with the agent's row on every call, so a change applies to its next call."""
        access = self.access
        chosen = caller.policy if caller.kind == "agent" and caller.name else None
        if chosen is None or access.agents.get(caller.name) == chosen:
            return access
        return access.model_copy(update={"agents": {**access.agents, caller.name: chosen}})

    def base_policy(self, caller: Caller) -> Policy:
        """The caller's policy before any shelf makes it stricter."""
        return policy_for(caller, None, self.access_for(caller), self.policies)

    def policy_for(self, caller: Caller, shelf: str) -> Policy:
        """The policy for a caller reading a shelf."""
        shelf_policy = shelves.policy_of(self.conn, shelf)
        return policy_for(caller, shelf_policy, self.access_for(caller), self.policies)

    # ---- detection -------------------------------------------------------------------

    def known_entities(self) -> dict[str, str]:
        """Names the vault knows (owner marks and statement entities): value → kind."""
        if self._known is None:
            known = statement_known_entities(self.conn)
            known.update(pii.marked_values(self.conn))
            self._known = known
        return self._known

    def forget_known(self) -> None:
        """Drop cached known entities and detectors (after a mark or a new entity)."""
        self._known = None
        self._detector = None
        self._generation = None

    def refresh(self) -> None:
        """Drop what this process cached about known entities if any process changed them."""
        generation = pii.known_generation(self.conn)
        if generation != self._generation:
            self.forget_known()
            self._generation = generation

    def known_changed(self, values: Sequence[str], embedder: Embedder) -> None:
        """Known entities changed (a new statement entity, a mark): tell every process, and
        re-mask the index windows of the owner's text that hold one of `values`."""
        pii.bump_known_generation(self.conn)
        self.forget_known()
        if values:
            self.remask(pii.sections_mentioning(self.conn, values), embedder)

    @property
    def detector(self) -> SpanDetector:
        """The detector for the current policies and known entities (the owner's text)."""
        if self._detector is None:
            # Resolved here, not at open: verifying the model hashes ~35 MB.
            second = second_ner_folder(self._models_dir) if self._models_dir else None
            config = DetectorConfig.build(self.policies, self.known_entities(), second_ner=second)
            self._detector = self._detector_factory(config)
        return self._detector

    @property
    def plain_detector(self) -> SpanDetector:
        """The detector without the vault's known entities (text agents wrote)."""
        if self._plain_detector is None:
            self._plain_detector = self._detector_factory(DetectorConfig.build(self.policies))
        return self._plain_detector

    def detector_for(self, author: str) -> SpanDetector:
        """The detector for text written by `author` ('' for the owner)."""
        return self.plain_detector if author else self.detector

    def known_for(self, author: str) -> dict[str, str]:
        """The known entities matched in text written by `author` (none in an agent's)."""
        return {} if author else self.known_entities()

    @property
    def masker(self) -> IndexMasker:
        """What the gated index masks (every gated policy's values, combined)."""
        if self._masker is None:
            self._masker = IndexMasker(self.policies)
        return self._masker

    def scan_drafts(
        self, drafts: Sequence[Draft], indexed: Sequence[Sequence[IndexedSection]]
    ) -> list[Scan]:
        """Detect PII in every section and label of documents about to be written.

        Every text of the batch (sections, and labels with their context) goes to the
        detector in one `detect_many` call, so the NER model runs over them in batches.
        """
        if not drafts:
            return []
        self.refresh()
        scans: dict[int, Scan] = {}
        for owner_text in (True, False):
            chosen = [i for i, draft in enumerate(drafts) if (draft.author == "") == owner_text]
            if chosen:
                detector = self.detector if owner_text else self.plain_detector
                found = self._scan(
                    [drafts[i] for i in chosen], [indexed[i] for i in chosen], detector
                )
                scans.update(zip(chosen, found, strict=True))
        return [scans[i] for i in range(len(drafts))]

    def _scan(
        self,
        drafts: Sequence[Draft],
        indexed: Sequence[Sequence[IndexedSection]],
        detector: SpanDetector,
    ) -> list[Scan]:
        texts: list[str] = []
        plans = []
        for draft, sections in zip(drafts, indexed, strict=True):
            labels = document_labels(draft.title, [s.heading for s in sections], draft.tags)
            opening = sections[0].text if sections else ""
            # A title made from the first line takes the first section's spans (`labels`).
            scanned = [label for label in labels if not is_first_line(label, opening)]
            first = len(texts)
            texts.extend(section.text for section in sections)
            texts.extend(label_text(label, draft.text) for label in scanned)
            plans.append((first, len(sections), labels, scanned, opening))
        found = detector.detect_many(texts)
        scans = []
        for first, count, labels, scanned, opening in plans:
            sections_found = found[first : first + count]
            hits = {label: found[first + count + i] for i, label in enumerate(scanned)}
            scans.append(
                Scan(
                    sections=tuple(tuple(spans) for spans in sections_found),
                    labels={
                        label: tuple(found_in(label, opening, hits.get(label) or sections_found[0]))
                        for label in labels
                    },
                    detector_version=detector.version,
                )
            )
        return scans

    def scan_labels(self, documents: Sequence[tuple[Draft, Sequence[str], str]]) -> list[Scan]:
        """The labels alone (title, headings, tags) of documents whose sections are kept as
        stored — (draft, its headings, its first section's text) each — judged as every
        write judges them; each a `Scan` without sections (for `store_scan` with none)."""
        self.refresh()
        jobs = [
            (draft, document_labels(draft.title, headings, draft.tags), opening)
            for draft, headings, opening in documents
        ]
        texts = [
            (draft.author, scan_text(label, draft.text, opening))
            for draft, labels, opening in jobs
            for label in labels
        ]
        found = iter(self.detect_by_author(texts))
        scans = []
        for draft, labels, opening in jobs:
            spans = {label: tuple(found_in(label, opening, next(found))) for label in labels}
            scans.append(Scan((), spans, self.detector_for(draft.author).version))
        return scans

    def with_masked_entries(
        self,
        drafts: Sequence[Draft],
        indexed: Sequence[Sequence[IndexedSection]],
        scans: Sequence[Scan],
        embedder: Embedder,
    ) -> list[list[IndexedSection]]:
        """Each draft's sections with the masked index entries their windows need, all of the
        batch's masked windows embedded in one call (a label no scan took is detected now)."""
        if not self._masked_checked:  # a vault's first writes say which masker built it
            masked_index.record_builder_if_empty(self.conn, gated_index.fingerprint(self.masker))
        jobs = [
            gated_index.MaskingJob(
                sections,
                scan.sections,
                lambda label, labels=scan.labels, found=self.detector_for(draft.author): (  # type: ignore[misc]
                    labels[label] if label in labels else found.detect(label)
                ),
                draft.author == "",
            )
            for draft, sections, scan in zip(drafts, indexed, scans, strict=True)
        ]
        return gated_index.with_masked_many(self.masker, embedder, jobs)

    def ensure_masked_index(self, embedder: Embedder, *, force: bool = False) -> int:
        """Build the masked index entries that are missing (see `gated_index`), once per
        process unless `force`; return the sections rewritten."""
        if self._masked_checked and not force:
            return 0
        done = gated_index.build_missing(
            self.conn, self.masker, embedder, self._load_spans, self._load_label_spans
        )
        self._masked_checked = True
        return done

    def record_masked_index(self) -> None:
        """Every section's masked entries were just written by this process's masker."""
        masked_index.record_builder(self.conn, gated_index.fingerprint(self.masker), replace=True)
        self._masked_checked = True

    def remask(self, section_ids: Sequence[int], embedder: Embedder) -> int:
        """Write the masked index entries of these sections again from their spans now."""
        if not section_ids:
            return 0
        return gated_index.remask(
            self.conn,
            self.masker,
            embedder,
            section_ids,
            self._load_spans,
            self._load_label_spans,
        )

    def store_scan(self, doc_id: str, section_ids: Sequence[int], scan: Scan) -> None:
        """Store a document's spans (inside the caller's write transaction)."""
        for section_id, spans in zip(section_ids, scan.sections, strict=True):
            pii.save_spans(self.conn, section_id, spans, scan.detector_version)
        label_store.replace(self.conn, doc_id, scan.labels, scan.detector_version)

    def rescan(self, limit: int = 200, embedder: Embedder | None = None) -> int:
        """Re-scan sections and labels whose spans came from another detector version than
        their author's; return how many were read (see `vault.rescanning`). With
        `embedder`, the masked entries of re-scanned sections are rewritten too."""
        from privault.vault.rescanning import rescan

        return rescan(self, limit, embedder)

    def detect_by_author(self, texts: Sequence[tuple[str, str]]) -> list[list[Span]]:
        """Spans of (author, text) pairs, each by its author's detector (the owner's text:
        with the known entities; an agent's: without), one batch each."""
        found: dict[int, list[Span]] = {}
        for is_agent in (False, True):
            chosen = [i for i, (author, _) in enumerate(texts) if bool(author) == is_agent]
            if chosen:
                detector = self.plain_detector if is_agent else self.detector
                batch = detector.detect_many([texts[i][1] for i in chosen])
                found.update(zip(chosen, batch, strict=True))
        return [found[i] for i in range(len(texts))]

    # ---- reading ---------------------------------------------------------------------

    def reading(self, caller: Caller) -> Reading:
        """The gates of one response to `caller`, its policy resolved once, here: an unknown
        caller or a broken policy refuses up front. The one entry of every gated reply."""
        self.refresh()
        base = self.base_policy(caller)
        return Reading(
            base=base,
            view=self.view_for(caller, base),
            policy_for_shelf=lambda shelf: self.policy_for(caller, shelf),
            runtime=self,
        )

    def view_for(self, caller: Caller, base: Policy) -> str:
        """Which index a caller searches: `plain` only when no policy of theirs masks
        anything (the owner's `open`), else `masked`."""
        if base.mode != "off":
            return "masked"
        if caller.is_owner:
            return "plain"
        gated = (
            self.policy_for(caller, shelf).mode != "off" for shelf in shelves.with_policy(self.conn)
        )
        return "masked" if any(gated) else "plain"

    def document_facts(
        self, doc_ids: Sequence[str], section_ids: Sequence[int] = ()
    ) -> tuple[dict[str, DocumentFacts], set[int]]:
        """What gating these documents' texts needs besides their spans (`DocumentFacts`),
        and which of `section_ids` still wait for their PII scan: three queries for any
        number of documents and sections."""
        overrides: dict[str, list[Override]] = {doc_id: [] for doc_id in doc_ids}
        for override in pii.list_overrides(self.conn, doc_ids):
            overrides[override.doc_id].append(override)
        labels = label_store.of_documents(self.conn, doc_ids)
        pending, sections_pending = index_queue.waiting(self.conn, doc_ids, section_ids)
        facts = {
            doc_id: DocumentFacts(tuple(overrides[doc_id]), labels[doc_id], doc_id in pending)
            for doc_id in doc_ids
        }
        return facts, sections_pending

    def section_spans(
        self, rows: Sequence[SectionRow], documents: Mapping[str, DocumentFacts]
    ) -> dict[int, list[Span]]:
        """The spans reads apply to these sections: stored at write time, plus the known
        entities (in the owner's text), with the owner's overrides applied."""
        stored = pii.load_spans(self.conn, [row.id for row in rows])
        found = {}
        for row in rows:
            spans = list(stored[row.id].text) + find_known_entities(
                row.text, self.known_for(row.author)
            )
            overrides = documents[row.doc_id].overrides
            found[row.id] = apply_overrides(
                row.text, spans, overrides, doc_id=row.doc_id, node_id=row.node_id
            )
        return found

    def pending_sections(self, section_ids: Sequence[int]) -> set[int]:
        """Which of these sections still wait for their PII scan."""
        return index_queue.pending_sections(self.conn, section_ids)

    def label_spans(self, facts: DocumentFacts, doc_id: str, label: str, author: str) -> list[Span]:
        """A label's spans as readers apply them: stored (a label never scanned, such as a
        tag of an older vault, is scanned now rather than shown), plus the known entities
        in the owner's text, with the owner's overrides applied."""
        found = facts.label_spans.get(label)
        spans = self.detector_for(author).detect(label) if found is None else list(found)
        spans += find_known_entities(label, self.known_for(author))
        return apply_overrides(label, spans, facts.overrides, doc_id=doc_id)

    def _load_spans(self, section_ids: Sequence[int]) -> dict[int, list[Span]]:
        rows = list(section_store.sections_by_ids(self.conn, section_ids).values())
        facts, _ = self.document_facts(sorted({r.doc_id for r in rows}))
        return self.section_spans(rows, facts)

    def label_spans_of(self, doc_id: str, label: str) -> list[Span]:
        """A stored label's spans as readers apply them (overrides, known entities)."""
        return self._load_label_spans(doc_id, label)

    def _load_label_spans(self, doc_id: str, label: str) -> list[Span]:
        author = section_store.document_authors(self.conn, [doc_id]).get(doc_id, "")
        facts, _ = self.document_facts([doc_id])
        return self.label_spans(facts[doc_id], doc_id, label, author)

    def status(self) -> PrivacyStatus:
        """Detector version and how many sections wait for a re-scan."""
        try:
            version = self.detector.version
        except Exception as exc:  # status must report a broken policy, not crash on it
            return PrivacyStatus(error=str(exc))
        return PrivacyStatus(
            detector_version=version,
            sections_to_rescan=pii.sections_to_rescan_count(
                self.conn, version, self.plain_detector.version
            ),
            policies=tuple(self.policies.names()),
        )
