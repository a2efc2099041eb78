"""The masked entries of the search index: what gated callers search instead of the text.

Each index window of a section is its breadcrumb line and a few lines of text. When that
window holds a value gated callers may not see, it gets a second entry: the same window
with the value replaced by an unnumbered placeholder (`privacy.masking`), embedded like
any window. Windows without such a value need nothing more: gated callers match their
plain entry.

Entries are written with the section (`writing.store_drafts`) and again for just the
sections a change reaches (`remask`): a new known entity, an owner's mark, a re-scan.

Before the first gated search of a process, `build_missing` makes sure no entry is missing
(see `store.masked_index`): a vault indexed before masked entries existed, one whose
policies changed since, or one that lost entries is brought up to date then, so no gated
caller ever matches a plain entry that should have had a masked one.
"""

from __future__ import annotations

import dataclasses
import hashlib
from bisect import bisect_left
from collections.abc import Callable, Sequence

from privault.privacy.masking import IndexMasker
from privault.privacy.recognizers import denied_words
from privault.retrieval.embedder import Embedder
from privault.spans import Span, clip_spans, masked_text
from privault.store import masked_index, sections
from privault.store.connection import Connection, write
from privault.store.sections import IndexedSection
from privault.vault.ingest import chunk_label

LabelSpans = Callable[[str], Sequence[Span]]
SpanLoader = Callable[[Sequence[int]], dict[int, list[Span]]]
LabelLoader = Callable[[str, str], list[Span]]


# How a deny-list value of several words is matched (`recognizers.denied_pattern`): their
# masked entries were made when only spaces stood between the words, so a policy with
# such a value has entries to rebuild since `blue-falcon` is denied with "Blue Falcon"
# (once: other vaults keep their entries).
DENIED_WORDS_JOINED = "denied words joined by spaces, dashes, underscores, dots or slashes"
# Since windows are masked as their whole section is (`masked_windows`), and deny-list
# values sharing a word are each found, a policy with an allow-list or with such values
# has entries to rebuild once: a window opening at the allowed "Becker" of "Dr Jonas
# Becker", or at the "Nest" of "Blue Falcon Nest", held it in clear.
WHOLE_SECTION_MASKS = "windows masked as their whole section, denied values overlapping"


def fingerprint(masker: IndexMasker) -> str:
    """What the masked entries depend on: the combined gated policy (empty: none), and how
    its deny-list's values of several words and its allow-list are applied where it has
    them."""
    policy = "" if masker.policy is None else masker.policy.model_dump_json()
    several = masker.policy is not None and any(
        len(denied_words(entry.value)) > 1 for entry in masker.policy.deny
    )
    if several:
        policy += "\0" + DENIED_WORDS_JOINED
    if masker.policy is not None and (several or masker.policy.allow):
        policy += "\0" + WHOLE_SECTION_MASKS
    return hashlib.sha256(policy.encode("utf-8")).hexdigest()[:16]


class _SpansNear:
    """A section's spans that may reach into a window, in their order: a long section has
    thousands of windows and of spans, and every span read for every window made its
    masked entries cost the product (minutes for a 1.1 MB file)."""

    def __init__(self, spans: Sequence[Span]) -> None:
        self._spans = spans
        self._order = sorted(range(len(spans)), key=lambda index: spans[index].start)
        self._starts = [spans[index].start for index in self._order]
        self._longest = max((span.end - span.start for span in spans), default=0)

    def __call__(self, start: int, end: int) -> list[Span]:
        # A span starting `_longest` or more before the window ends before it.
        first = bisect_left(self._starts, start - self._longest)
        last = bisect_left(self._starts, end)
        return [self._spans[index] for index in sorted(self._order[first:last])]


def masked_windows(
    masker: IndexMasker,
    breadcrumb: Sequence[str],
    text: str,
    chunks: Sequence[tuple[int, int, int]],
    spans: Sequence[Span],
    label_spans: LabelSpans,
    *,
    owner_text: bool,
) -> list[tuple[int, str]]:
    """(chunk position, masked window text) for each window that needs a masked entry."""
    plain_label = chunk_label(breadcrumb, text)
    parts = list(breadcrumb)
    if parts and plain_label != " › ".join(parts):
        parts.pop(0)  # chunk_label left out a title made from the text's own first line
    label = " › ".join(
        masker.mask(part, label_spans(part), owner_text=owner_text) for part in parts
    )
    out = []
    # Each window is masked as the whole text is, cut to it (as `Reading.section` shows
    # it): "Blue Falcon" wrapped across lines leaves "Falcon" at the head of the next
    # window, which alone would not be found, and an allowed "Becker" opening a window
    # is still part of "Dr Jonas Becker", masked whole.
    near = _SpansNear(masker.masking(text, spans, owner_text=owner_text))
    for position, (start, end, _tokens) in enumerate(chunks):
        window = text[start:end]
        masked = masked_text(window, clip_spans(near(start, end), start, end))
        if masked != window or label != " › ".join(parts):
            out.append((position, f"{label}\n{masked}".lstrip("\n")))
    return out


def with_masked(
    masker: IndexMasker,
    embedder: Embedder,
    indexed: Sequence[IndexedSection],
    section_spans: Sequence[Sequence[Span]],
    label_spans: LabelSpans,
    *,
    owner_text: bool,
) -> list[IndexedSection]:
    """Sections about to be written, each with the masked entries its windows need."""
    return with_masked_many(
        masker, embedder, [MaskingJob(indexed, section_spans, label_spans, owner_text)]
    )[0]


@dataclasses.dataclass(frozen=True)
class MaskingJob:
    """One document's sections about to be written, their spans, and whose text it is."""

    sections: Sequence[IndexedSection]
    section_spans: Sequence[Sequence[Span]]
    label_spans: LabelSpans
    owner_text: bool


def with_masked_many(
    masker: IndexMasker, embedder: Embedder, jobs: Sequence[MaskingJob]
) -> list[list[IndexedSection]]:
    """`with_masked` for many documents, their masked windows embedded in one batch."""
    plans = [
        [
            masked_windows(
                masker,
                section.breadcrumb,
                section.text,
                section.chunks,
                spans,
                job.label_spans,
                owner_text=job.owner_text,
            )
            for section, spans in zip(job.sections, job.section_spans, strict=True)
        ]
        for job in jobs
    ]
    vectors = embedder.embed([text for plan in plans for windows in plan for _, text in windows])
    out, offset = [], 0
    for job, plan in zip(jobs, plans, strict=True):
        sections = []
        for section, windows in zip(job.sections, plan, strict=True):
            masked = tuple(
                (position, text, vectors[offset + i]) for i, (position, text) in enumerate(windows)
            )
            offset += len(windows)
            sections.append(dataclasses.replace(section, masked=masked))
        out.append(sections)
    return out


def _windows(
    masker: IndexMasker,
    row: sections.SectionRow,
    chunks: Sequence[tuple[int, int, int]],
    spans: Sequence[Span],
    load_label_spans: LabelLoader,
) -> list[tuple[int, str]]:
    return masked_windows(
        masker,
        row.breadcrumb,
        row.text,
        chunks,
        spans,
        lambda label: load_label_spans(row.doc_id, label),
        owner_text=row.author == "",
    )


def build_missing(
    conn: Connection,
    masker: IndexMasker,
    embedder: Embedder,
    load_spans: SpanLoader,
    load_label_spans: LabelLoader,
) -> int:
    """Write every masked entry the index lacks for the current masker; return sections
    rewritten. Cheap when nothing is missing: three queries."""
    if masker.policy is None:
        return 0  # no policy masks anything: there are no gated callers to protect
    current = fingerprint(masker)
    denied = [entry.value for entry in masker.policy.deny]  # masked with no stored span
    if masked_index.needs_rebuild(conn, current):
        mentioned = masked_index.sections_mentioning(conn, denied)
        ids = sorted(set(masked_index.sections_to_remask(conn)) | set(mentioned))
        done = remask(conn, masker, embedder, ids, load_spans, load_label_spans)
        masked_index.record_builder(conn, current, replace=True)
        return done
    policy = masker.policy
    counted = [(kind, policy.threshold_for(kind)) for kind in policy.identifying]
    unmasked = masked_index.sections_mentioning(conn, denied, unmasked=True)
    candidates = sorted(
        set(masked_index.unmasked_sections(conn, counted, policy.ner)) | set(unmasked)
    )
    rows = sections.sections_by_ids(conn, candidates) if candidates else {}
    spans = load_spans(list(rows)) if rows else {}
    missing = [
        section_id
        for section_id, row in rows.items()
        if _windows(
            masker,
            row,
            sections.chunk_rows(conn, section_id)[0],
            spans[section_id],
            load_label_spans,
        )
    ]
    return remask(conn, masker, embedder, missing, load_spans, load_label_spans)


def remask(
    conn: Connection,
    masker: IndexMasker,
    embedder: Embedder,
    section_ids: Sequence[int],
    load_spans: SpanLoader,
    load_label_spans: LabelLoader,
) -> int:
    """Write the masked entries of these sections again from their current spans.

    Their chunks are rewritten under new ids (plain vectors copied, only masked windows
    embedded), so vector mirrors pick the change up incrementally. A section whose masked
    entries already say what its spans now mask is left as it is: after a change of
    detector most sections' spans mask the same words, and rewriting them would re-embed
    their masked windows and drop their strong model rows (`strong_chunks` follows the
    chunk id) for the background pass to link again. A section edited in the meantime is
    skipped: its edit wrote fresh entries. Returns sections rewritten.
    """
    done = 0
    for start in range(0, len(section_ids), 64):
        batch = list(section_ids[start : start + 64])
        rows = sections.sections_by_ids(conn, batch)
        spans = load_spans(list(rows))
        plans = []
        for section_id, row in rows.items():
            chunks, texts, vectors = sections.chunk_rows(conn, section_id)
            windows = _windows(masker, row, chunks, spans.get(section_id, []), load_label_spans)
            if windows == sections.masked_texts(conn, section_id):
                continue
            plans.append((row, chunks, texts, vectors, windows))
        embedded = embedder.embed([text for *_, windows in plans for _, text in windows])
        offset = 0
        with write(conn):
            for row, chunks, texts, vectors, windows in plans:
                masked = tuple(
                    (position, text, embedded[offset + i])
                    for i, (position, text) in enumerate(windows)
                )
                offset += len(windows)
                if sections.section_text(conn, row.id) != row.text or not chunks:
                    continue
                sections.replace_chunks(conn, row.id, chunks, texts, vectors, masked)
                done += 1
    return done
