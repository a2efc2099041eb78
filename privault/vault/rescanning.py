"""Bringing stored spans up to the current detector, without racing the writers.

When the detector changes (a new known entity, a policy pattern, a new recognizer) the
spans stored before are stale. The background re-scan reads a batch of stale sections and
labels, scans them outside the write lock, and saves what it found only where the text is
still the one it scanned: section ids are never reused (m011) and the text is compared in
the saving transaction (`pii.save_spans_if_current`), labels are only updated while still
stale. Each text is judged by its author's detector — the owner's with the vault's known
entities, an agent's without (matching an agent's words against them would tell it what
the vault knows) — and a label the way it was judged when written (`vault.labels`).
A text the detector's last revisions could not have changed (`Detector.rereads`) is not
read: its spans are marked current as they are (`pii.mark_current`), again only while it
still holds the text judged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from privault.store import label_spans as label_store
from privault.store import pii, sections
from privault.vault.labels import found_in, scan_text

if TYPE_CHECKING:
    from privault.retrieval.embedder import Embedder
    from privault.vault.privacy import PrivacyRuntime


def rescan(privacy: PrivacyRuntime, limit: int = 200, embedder: Embedder | None = None) -> int:
    """Re-scan sections and labels whose spans came from another detector version than
    their author's (the owner's text: the detector with known entities; an agent's: the
    one without); return how many were read.

    Texts are read, scanned in one batch, and saved only if they are still what was
    scanned (`pii.save_spans_if_current`): a section deleted or rewritten meanwhile
    keeps what its own write stored. With `embedder`, the masked index entries of the
    sections scanned, and of the documents whose labels were, are written again where
    what they mask changed (`gated_index.remask`).
    """
    privacy.refresh()
    owner, agent = privacy.detector.version, privacy.plain_detector.version
    # Each batch resumes after the last one's sections; when nothing is left past there,
    # one look from the start finds what went stale behind (a new mark, a rewrite).
    after = privacy.rescan_after
    pending = pii.sections_to_scan(privacy.conn, owner, limit, agent_version=agent, after=after)
    if not pending and after:
        pending = pii.sections_to_scan(privacy.conn, owner, limit, agent_version=agent)
    privacy.rescan_after = pending[-1][0] if pending else 0
    # What the detector's last revisions could not have changed keeps its spans.
    again = [privacy.detector_for(author).rereads(text, old) for _, text, author, old in pending]
    pii.mark_current(
        privacy.conn,
        [
            (section_id, text, str(old), privacy.detector_for(author).version)
            for (section_id, text, author, old), read in zip(pending, again, strict=True)
            if not read
        ],
    )
    reread = [row for row, read in zip(pending, again, strict=True) if read]
    found = privacy.detect_by_author([(author, text) for _, text, author, _ in reread])
    saved = pii.save_spans_if_current(
        privacy.conn,
        [
            (section_id, text, spans, privacy.detector_for(author).version)
            for (section_id, text, author, _), spans in zip(reread, found, strict=True)
        ],
    )
    start = privacy.rescan_labels_after
    stale = label_store.stale(privacy.conn, owner, limit, agent_version=agent, after=start)
    if not stale and start != ("", ""):
        stale = label_store.stale(privacy.conn, owner, limit, agent_version=agent)
    privacy.rescan_labels_after = (stale[-1][0], stale[-1][1]) if stale else ("", "")
    # Judged as at write time: a title made from the first line as that line, any other
    # label with the opening of its document after it.
    texts = [scan_text(label, body, opening) for _, label, _, body, opening, _ in stale]
    again = [
        privacy.detector_for(row[2]).rereads(text, row[5])
        for row, text in zip(stale, texts, strict=True)
    ]
    label_store.mark_current(
        privacy.conn,
        [
            (doc_id, label, old, privacy.detector_for(author).version)
            for (doc_id, label, author, _, _, old), read in zip(stale, again, strict=True)
            if not read
        ],
    )
    read = [(row, text) for row, text, flag in zip(stale, texts, again, strict=True) if flag]
    spans = privacy.detect_by_author([(row[2], text) for row, text in read])
    judged = [
        (doc_id, label, bool(author), found_in(label, opening, found))
        for ((doc_id, label, author, _, opening, _), _), found in zip(read, spans, strict=True)
    ]
    before = label_store.of_documents(privacy.conn, list(dict.fromkeys(doc for doc, *_ in judged)))
    for version, is_agent in ((owner, False), (agent, True)):
        label_store.update(
            privacy.conn,
            [(doc, label, new) for doc, label, agent_text, new in judged if agent_text == is_agent],
            version,
        )
    if embedder is not None:
        # After the labels: a masked entry starts with its breadcrumb, masked by the labels'
        # spans, so the sections of a document whose labels now mask otherwise are looked
        # at too (and only those whose masked text changed are written).
        relabelled = dict.fromkeys(
            doc for doc, label, _, new in judged if before.get(doc, {}).get(label) != new
        )
        others = [row.id for doc in relabelled for row in sections.sections_of(privacy.conn, doc)]
        privacy.remask(list(dict.fromkeys([*saved, *others])), embedder)
    return len(pending) + len(stale)  # those kept as they were count as read
