"""Search results and context packs: chunk hits turned into gated sections.

The facade resolves the caller, the filters and the query as matching may use it; this
module turns fused chunk hits into whole sections (or bounded excerpts of long ones) and
into token-budgeted context packs. Every text it returns went through the `Reading`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

import numpy as np

from privault.errors import ModelUnavailable
from privault.privacy.gate import Gated, assembled, joined
from privault.retrieval import packing, periods, search
from privault.retrieval.early import EarlyWindows
from privault.retrieval.embedder import Embedder
from privault.retrieval.strong import index_name, partial_ranking
from privault.retrieval.strong_vectors import StrongIndex
from privault.retrieval.vectors import VectorIndex
from privault.store import documents, index_reads, sections, strong_index
from privault.store.connection import Connection
from privault.store.index_reads import Filters
from privault.timeutil import iso_day
from privault.vault import packs
from privault.vault.context import Engines, VaultContext
from privault.vault.reading import Reading
from privault.vault.results import (
    ContextSection,
    DocumentEntry,
    DocumentTree,
    Hit,
    Privacy,
    SectionView,
    TreeNode,
)
from privault.vault.shapes import Shapes

EXCERPT_CHARS = 1500  # a section longer than this comes back as an excerpt around its hit
CANDIDATES = 60  # chunk hits considered before grouping and packing
# How `context` and `ask` use the strong model: "leg" fuses its ranking of the whole index
# as a third leg; "rerank" re-orders the fast legs' best RERANK_DEPTH hits by it. While its
# pass is partial, the leg ranks only the places the fast legs gave windows it covers
# (`partial_ranking`). Ranked as a whole leg, a partial index filled its places with the
# covered windows, newest first, and pushed the evidence of older sessions out (LoCoMo
# held-out "all" .833 → .721 at 10% coverage); waiting for the last window instead left a
# vault that is written to without the leg most of the time.
STRONG_MODE = "leg"
RERANK_DEPTH = 200


@dataclass(frozen=True)
class Finder:
    """Everything a search needs from the open vault."""

    conn: Connection
    vectors: VectorIndex
    embedder: Embedder
    engines: Engines | None = None  # for the strong leg of `context` (loaded there only)
    early: EarlyWindows | None = None  # the owner's: queued windows embedded at query time

    @property
    def view(self) -> str:
        """The index view this finder searches (`plain`, or `masked` for gated callers)."""
        return self.vectors.view

    @classmethod
    def of(
        cls, context: VaultContext, reading: Reading | None = None, *, owner: bool = False
    ) -> Finder:
        """The finder over an open vault's indexes, in the view `reading`'s caller searches
        (the masked one for gated callers, its missing entries built first; plain without
        a reading). For the `owner` reading the plain view, the newest queued sections are
        embedded at query time too (`retrieval.early`); no one else ever gets them."""
        view = reading.view if reading is not None else "plain"
        if view == "masked":  # never match a plain entry that should have had a masked one
            context.privacy.ensure_masked_index(context.embedder)
        early = (
            EarlyWindows.read(context.conn, context.embedder)
            if owner and reading is not None and view == "plain"
            else None
        )
        return cls(
            context.conn,
            context.engines.vectors_for(view),
            context.embedder,
            context.engines,
            early,
        )

    @property
    def unsearchable(self) -> int:
        """Recent sections (queued, past the bound) this finder could not search by meaning;
        0 for gated callers, whose searches never include queued text."""
        return self.early.left_out if self.early is not None else 0

    def hits(
        self, query: str, filters: Filters, limit: int, *, strong: bool = False
    ) -> list[search.ChunkHit]:
        """Fused chunk hits for a query; with `strong`, the strong model's ranking joins
        them where the vault has one (see STRONG_MODE)."""
        if not query.strip():
            return []
        found = self._hits(query, filters, limit, strong=strong)
        if self.early is not None:
            self.early.keep(self.conn)  # for the next search and the indexer
        return found

    def _hits(
        self, query: str, filters: Filters, limit: int, *, strong: bool
    ) -> list[search.ChunkHit]:
        vector = partial(self.embedder.embed_query, query)  # embedded beside the keyword leg
        period = periods.envelope(periods.mentioned_periods(query))
        # The fast legs' ranking of `limit` hits (and a strong leg's, given one).
        fast = partial(
            search.hybrid,
            self.conn,
            self.vectors,
            query,
            vector,
            filters,
            period=period,
            early=self.early,
        )
        engines = self.engines if strong else None
        engine = engines.strong if engines is not None else None
        index = engines.strong_vectors_for(self.vectors.view) if engines and engine else None
        covered, windows = 0, 0
        built = engine is not None and strong_index.built_by(self.conn) == index_name(engine.name)
        if built and index is not None:
            covered, windows = strong_index.coverage(self.conn)
        if index is None or engine is None or not covered:
            return fast(limit)
        index.refresh(self.conn)
        try:
            strong_query = engine.embed_query(query)
        except ModelUnavailable:  # its worker is restarting or failed: rank without it
            return fast(limit)
        if STRONG_MODE == "rerank":
            return self._reranked(fast, limit, index, strong_query)
        ranked = index.search(strong_query, limit * search.VECTOR_OVERFETCH, conn=self.conn)
        if covered < windows:
            share = covered / windows
            return self._partial(fast(limit), limit, filters, index, strong_query, ranked, share)
        return fast(limit, strong=[cid for cid, _ in ranked], strong_similarity=dict(ranked))

    def _partial(
        self,
        base: list[search.ChunkHit],
        limit: int,
        filters: Filters,
        index: StrongIndex,
        strong_query: np.ndarray,
        ranked: list[tuple[int, float]],
        share: float,
    ) -> list[search.ChunkHit]:
        """The strong leg while its pass is partial (`partial_ranking`), fused into the fast
        legs' hits (`base`) as `search.hybrid` fuses a whole leg (reciprocal ranks add up)
        without ranking those legs twice, at STRONG_WEIGHT times the `share` of the windows
        it covers: on LoCoMo at full weight it lost ~0.005–0.009 of "all" at 10–30%
        coverage with 1,000-token packs (it re-orders a few windows, the newest, by little
        evidence); weighted by its share it loses nothing there and keeps most of its gain
        at 90%."""
        shortlist = [hit.chunk_id for hit in base]
        hits = {hit.chunk_id: hit for hit in base}
        others = [cid for cid, _ in ranked if cid not in hits]
        sections = index_reads.visible_chunks(self.conn, others, filters) if others else {}
        cosines = dict(ranked) | index.scores(strong_query, shortlist, conn=self.conn)
        # What it covers and the caller may see, by cosine: its best windows the fast legs
        # missed and the covered ones they found, however far down its own search put them.
        known = sorted(
            (cid for cid in cosines if cid in hits or cid in sections), key=lambda c: -cosines[c]
        )
        order = partial_ranking(shortlist, cosines, known)[:limit]
        for cid in sections:
            hits[cid] = search.ChunkHit(cid, sections[cid], 0.0, None, None)
        boost = dict(search.fuse([order], weights=[search.STRONG_WEIGHT * share]))
        scored = [
            replace(hit, score=hit.score + boost.get(cid, 0.0), strong_similarity=cosines.get(cid))
            for cid, hit in hits.items()
            if cid in boost or cid not in sections
        ]
        return sorted(scored, key=lambda hit: (-hit.score, hit.chunk_id))[:limit]

    def _reranked(
        self,
        fast: Callable[[int], list[search.ChunkHit]],
        limit: int,
        index: StrongIndex,
        strong_query: np.ndarray,
    ) -> list[search.ChunkHit]:
        """STRONG_MODE "rerank": the fast legs' best RERANK_DEPTH hits in the strong model's
        order, fused with their own."""
        base = fast(max(limit, RERANK_DEPTH))
        scores = index.scores(strong_query, [hit.chunk_id for hit in base], conn=self.conn)
        by_strong = sorted(scores, key=lambda cid: -scores[cid])
        by_id = {hit.chunk_id: hit for hit in base}
        fused = search.fuse(
            [[hit.chunk_id for hit in base], by_strong], weights=(1.0, search.STRONG_WEIGHT)
        )
        return [by_id[cid] for cid, _ in fused][:limit]

    def search(self, reading: Reading, query: str, filters: Filters, limit: int) -> list[Hit]:
        """The best `limit` sections, whole or as excerpts, gated."""
        by_section: dict[int, list[search.ChunkHit]] = {}
        for hit in self.hits(query, filters, max(CANDIDATES, limit * 4)):
            by_section.setdefault(hit.section_id, []).append(hit)
        chosen = list(by_section)[:limit]
        rows = sections.sections_by_ids(self.conn, chosen)
        reading.prefetch([rows[section_id] for section_id in chosen])
        # A long section comes back as an excerpt around its best chunk, both decided on
        # the text as the caller reads it (see `shapes`).
        shapes = Shapes(reading)
        long = [sid for sid in chosen if len(shapes.text(rows[sid])) > EXCERPT_CHARS]
        spans = index_reads.chunk_spans(self.conn, [by_section[sid][0].chunk_id for sid in long])
        results = []
        for section_id in chosen:
            section = rows[section_id]
            start, end = 0, len(section.text)
            if section_id in long:
                around = shapes.to_shape(section, spans[by_section[section_id][0].chunk_id])
                window = excerpt_window(shapes.text(section), around, EXCERPT_CHARS)
                start, end = shapes.to_stored(section, window)
            gated = reading.section(section, start, end)
            results.append(
                Hit(
                    node_id=section.node_id,
                    doc_id=section.doc_id,
                    title=reading.title(
                        section.doc_id, section.shelf, section.title, author=section.author
                    ),
                    breadcrumb=reading.breadcrumb(section),
                    text=gated.text,
                    score=by_section[section_id][0].score,
                    kind=section.kind,
                    shelf=section.shelf,
                    created_at=section.created_at,
                    excerpt=(start, end) != (0, len(section.text)),
                    withheld=gated.withheld,
                    author=section.author,
                )
            )
        return results

    def context(
        self,
        reading: Reading,
        query: str,
        filters: Filters,
        budget: int,
        stop_early: bool = False,
        follow: bool = False,
    ) -> tuple[packing.Pack, list[ContextSection], dict[int, sections.SectionRow]]:
        """The best pieces packed into `budget` tokens of gated text (and their sections),
        ranked with the strong model's leg where the vault has one; with `stop_early`,
        the pack ends before the first clearly weaker candidate, with `follow` the thread
        of the best hits is followed (see `packs`)."""
        packed, rows = packs.context(
            self,
            reading,
            query,
            filters,
            budget,
            self.embedder.count_tokens,
            context_header,
            stop_early,
            follow,
        )
        out = []
        for item in packed.sections:
            section = rows[item.section_id]
            whole = [(s, e) for s, e, _ in item.windows] == [(0, len(section.text))]
            out.append(
                ContextSection(
                    node_id=section.node_id,
                    doc_id=section.doc_id,
                    title=reading.title(
                        section.doc_id, section.shelf, section.title, author=section.author
                    ),
                    breadcrumb=reading.breadcrumb(section),
                    text=item.body(),
                    created_at=section.created_at,
                    untrusted=section.untrusted,
                    excerpt=not whole,
                )
            )
        return packed, out, rows


def read_section(
    conn: Connection,
    reading: Reading,
    section: sections.SectionRow,
    children: tuple[str, ...] | None = None,
) -> SectionView:
    """One whole section, gated (its privacy summary is filled in by the facade);
    `children`: its children's node ids when the caller has them at hand. No index is
    needed: a read, a tree or a listing never loads the embedder."""
    gated = reading.section(section)
    if children is None:
        children = sections.child_nodes(conn, section.node_id)
    return SectionView(
        node_id=section.node_id,
        doc_id=section.doc_id,
        title=reading.title(section.doc_id, section.shelf, section.title, author=section.author),
        breadcrumb=reading.breadcrumb(section),
        text=gated.text,
        kind=section.kind,
        shelf=section.shelf,
        created_at=section.created_at,
        untrusted=section.untrusted,
        children=children,
        privacy=Privacy("", ""),
    )


def tree(conn: Connection, reading: Reading, doc: documents.Document) -> DocumentTree:
    """A document's heading tree with gated headings, each section's length as the caller
    would read it (the stored length, beside the text read, told how long a masked value
    is: `<PERSON_1>` with 38 characters stored is an 11-letter name)."""
    rows = sections.sections_of(conn, doc.id)
    # The title and headings first: their placeholders keep the numbers a listing gives.
    title = reading.title(doc.id, doc.shelf, doc.title, author=doc.author)
    headings = [reading.label(doc.id, doc.shelf, s.heading, author=doc.author) for s in rows]
    lengths = [len(s.text) for s in rows]
    if reading.gated:  # a tree carries no privacy summary: gating to measure counts nothing
        reading.prefetch(rows)
        lengths = [len(reading.section(s).text) for s in rows]
    nodes = tuple(
        TreeNode(s.node_id, heading, s.depth, s.parent_node, length)
        for s, heading, length in zip(rows, headings, lengths, strict=True)
    )
    return DocumentTree(doc.id, title, doc.kind, doc.shelf, nodes)


def listing(reading: Reading, doc: documents.Document, *, with_source: bool) -> DocumentEntry:
    """A document's list entry with its title gated; paths only for the owner (they name
    people and places)."""
    return DocumentEntry(
        doc_id=doc.id,
        kind=doc.kind,
        title=reading.title(doc.id, doc.shelf, doc.title, author=doc.author),
        source=reading.label(doc.id, doc.shelf, doc.source, author=doc.author)
        if with_source and doc.source
        else None,
        shelf=doc.shelf,
        tags=reading.tags(doc.id, doc.shelf, doc.tags, author=doc.author),
        created_at=doc.created_at,
        updated_at=doc.updated_at,
        untrusted=doc.untrusted,
        current=doc.current,
        previous_id=doc.previous_id,
        with_source=with_source,
        author=doc.author if with_source else "",  # the source and author: the owner's
    )


def excerpt_window(text: str, hit: tuple[int, int], size: int) -> tuple[int, int]:
    """A window of about `size` characters around a hit, widened to line boundaries."""
    middle = (hit[0] + hit[1]) // 2
    start = max(0, min(middle - size // 2, len(text) - size))
    start = min(start, hit[0])
    end = min(len(text), max(start + size, hit[1]))
    line_start = text.rfind("\n", 0, start)
    start = 0 if line_start < 0 else line_start + 1
    line_end = text.find("\n", end)
    return start, len(text) if line_end < 0 else line_end


def context_header(reading: Reading, section: sections.SectionRow) -> Gated:
    """The line above a section in a context pack: breadcrumb, date, node id, trust."""
    crumb = joined(" › ", reading.breadcrumb(section))
    day = iso_day(section.created_at)
    trust = " [untrusted web page]" if section.untrusted else ""
    return assembled("## ", crumb, f" ({day}; {section.node_id}){trust}")
