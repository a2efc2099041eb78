"""Context packs: the first ranking, the thread it points to, and pieces shaped by question.

`Finder.hits` ranks chunk windows (keywords, the fast embedder and, where the vault has
it, the strong model). Here that ranking becomes a pack:

1. **Follow the thread** (`follow`: `context` packs, not `ask`'s; only where the strong
   model ranked the best hits, in an index of at most `FOLLOW_MAX_ROWS` windows; see
   below). The names and numbers the best hits mention and the question does not
   (`thread.leads`) are added to the question for one more keyword ranking, fused in:
   the windows that mention the same person, place or day join the candidates. Only the
   keyword index is asked again (a few ms at that size); no model runs twice. Names are
   taken only from text the caller reads as stored (the owner's, an `off` policy's): a
   masked value never becomes a search term.
2. **Shape by question** (`SET_PIECE = "line"`; off by default). A question after a set
   (`thread.asks_for_set`) gets each hit's own line from more candidates, and a
   section's second, third… line counts a little less each time, so the pack spreads
   over sessions; any other question gets each hit's window (the line that matched and
   the two before it, where a fact's answer often is).
3. **Sized to relevance.** Pieces go in best first until the budget is spent or, when
   the pack may `stop_early`, until the next candidate is clearly weaker than the best:
   no ranking scores it near that ranking's best candidate (`relevance.relevant`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

from privault.retrieval import fts, packing, relevance, search, thread
from privault.retrieval.search import ChunkHit
from privault.store import index_reads, sections
from privault.store.connection import Connection
from privault.store.index_reads import Filters
from privault.vault.reading import Reading
from privault.vault.shapes import Shapes

# Measured on LoCoMo conversations 1-2 with the fast embedder alone (all evidence in the
# pack, 1,000 / 2,000 tokens): the first ranking's windows for every question .805 / .848;
# set questions as lines from 120 candidates, spread over sections, .805 / .831; with the
# thread followed too .801 / .840. Set questions packed as lines lost most where the line
# before the match held the answer. So both ship off; they stay switchable, to be measured
# on other data (`benchmarks.retrieval`). Spreading set questions' windows over sessions
# (SET_REPEAT_DISCOUNT 0.6, windows, 60 candidates) was measured with the strong leg too,
# conversations 1-3: .825 → .830 at 1,000 tokens but .872 → .869 (hit .974 → .971) at the
# 2,000-token cap, and .849 → .841 there with the fast embedder alone: it stays off.
# Measured again with the strong leg (2,000-token cap; tuned on conversations 1-3, then
# 4-5 once): set questions as lines from 120 candidates, not spread, .875 → .883 on 1-3 and
# .836 → .841 on 4-5, but .849 → .846 with the fast embedder alone on 1-3; pieces by rank
# (the best 5 hits as windows, the rest as their own line, for every question) .875 →
# .890 on 1-3 but .836 → .833 on 4-5 (temporal .970 → .909: the line before held the
# date) and .830 → .817 there with the fast embedder alone. Windows of two lines for
# every question .875 (no change), of one line .869. Of the evidence lines 1-3 missed,
# 33 of 71 were not among the 60 candidates, 26 were inside the relevance cut but past
# what fits, 7 after the cut, 5 only inside another hit's window.
# Following the thread with the strong leg (tuned on 1-3, then 4-5 once; hit / all): at the
# 2,000-token cap, the best 5 hits' names fused at weight 1.0 lift all .872 → .880 on 1-3
# (multi-hop .514 → .554) and .836 → .844 on 4-5 (hit .958 → .960); weight 0.5, 3 or 10
# hits, 8 names, or set questions only gain no more. But the fast embedder alone loses
# hit (.950 → .940 on 1-3, .955 → .952 on 4-5, all +.005 / +.008), and at 1,000 tokens,
# where `ask` packs a set question, it gains nothing (strong .820 → .820, set .491 →
# .474; fast embedder alone .802 → .794). So it is followed for `context`'s packs where
# the strong model ranked the best hits, and not for `ask`'s nor without that model.
CANDIDATES = 60  # chunk hits considered for a single-fact question
SET_CANDIDATES = 60  # …and for a question after a set (120 was measured with lines)
FOLLOW_TOP = 5  # best hits whose names are followed (0: the thread is never followed)
FOLLOW_LEADS = 4  # names followed at most
FOLLOW_WEIGHT = 1.0  # the followed ranking's weight (the first ranking's legs weigh 1–2)
# Following costs a second keyword ranking, of the question and its leads: on the
# million-section vault of `benchmarks.perf --keep` (weekdays and months among the leads)
# p50 / p95 223 / 687 ms against 54 / 149 for the question alone. So it is followed only
# in an index of at most this many windows (LoCoMo's conversations, where it was
# measured, hold about 600).
FOLLOW_MAX_ROWS = 50_000
SET_PIECE = "window"  # what a set question packs of each hit: "line" or "window"
SET_REPEAT_DISCOUNT = 1.0  # a set question's n-th piece of one section counts this**n


class Ranker(Protocol):
    """What a pack needs from the finder: its connection, view and first ranking."""

    @property
    def conn(self) -> Connection: ...

    @property
    def view(self) -> str: ...

    def hits(
        self, query: str, filters: Filters, limit: int, *, strong: bool = False
    ) -> list[ChunkHit]: ...


def context(
    finder: Ranker,
    reading: Reading,
    query: str,
    filters: Filters,
    budget: int,
    count_tokens: Callable[[str], int],
    header: Callable[[Reading, sections.SectionRow], str],
    stop_early: bool = False,
    follow: bool = False,
) -> tuple[packing.Pack, dict[int, sections.SectionRow]]:
    """The best pieces for `query` packed into `budget` tokens of gated text, and the rows
    of the sections they come from; with `follow`, the thread the best hits point to is
    followed where the strong model ranked them (see the module docstring)."""
    conn = finder.conn
    set_question = thread.asks_for_set(query)
    limit = SET_CANDIDATES if set_question else CANDIDATES
    hits = finder.hits(query, filters, limit, strong=True)
    if stop_early:
        hits = relevance.relevant(hits)
    rows = sections.sections_by_ids(conn, list({hit.section_id for hit in hits}))
    reading.prefetch(list(rows.values()))

    shapes = Shapes(reading)  # sections whole or cut as the caller reads them (`shapes`)
    wholes: dict[int, bool] = {}

    def whole(section_id: int) -> bool:  # short sections are packed whole: no span needed
        if section_id not in wholes:
            shape = shapes.text(rows[section_id])
            wholes[section_id] = count_tokens(shape) <= packing.WHOLE_SECTION_TOKENS
        return wholes[section_id]

    # Where in its section each hit sits: for long sections, and the hits a lead is read from.
    strong = any(hit.strong_similarity is not None for hit in hits[:FOLLOW_TOP])
    small = follow and index_reads.keyword_rows(conn, finder.view) <= FOLLOW_MAX_ROWS
    followed = hits[:FOLLOW_TOP] if strong and small else []
    needed = [hit for hit in hits if not whole(hit.section_id)] + followed
    spans = index_reads.chunk_spans(conn, list({hit.chunk_id for hit in needed}))
    if followed:
        # Followed only through text the caller reads as stored: a masking gate counts
        # what it holds back, and a lead must never be a value the caller may not see.
        top = [hit for hit in hits[:FOLLOW_TOP] if _as_stored(reading, rows[hit.section_id])]
        lines = [own_line(reading, rows[hit.section_id], spans[hit.chunk_id]) for hit in top]
        names = thread.leads(lines, query, limit=FOLLOW_LEADS)
        if names:
            seen = {hit.chunk_id for hit in hits}
            hits = _followed(finder, query, names, filters, hits, limit)
            new = [hit for hit in hits if hit.chunk_id not in seen]
            if new:
                rows.update(sections.sections_by_ids(conn, list({h.section_id for h in new})))
                reading.prefetch(list(rows.values()))
                long = [hit.chunk_id for hit in new if not whole(hit.section_id)]
                spans.update(index_reads.chunk_spans(conn, long))
    pieces = []
    for hit in hits:
        section = rows[hit.section_id]
        if whole(hit.section_id):
            start, end = 0, len(section.text)
        elif set_question and SET_PIECE == "line":
            start, end = last_line(section.text, spans[hit.chunk_id])
        else:
            start, end = spans[hit.chunk_id]
        pieces.append(packing.Piece(section.id, start, end, hit.score))
    if set_question:
        pieces = spread(pieces, SET_REPEAT_DISCOUNT)
    # Packing gates every piece it tries (and a merged window again): a piece that does
    # not fit is undone (the numbers its values took go to the next value shown), and
    # what was held back is counted afresh from the sections and windows the pack returns.
    mark = reading.count_mark()
    packed = packing.pack(
        pieces,
        budget,
        header=lambda sid: header(reading, rows[sid]),
        window_text=lambda p: reading.section(rows[p.section_id], p.start, p.end).text,
        count_tokens=count_tokens,
        checkpoint=reading.checkpoint,
    )
    reading.forget_since(mark)
    for item in packed.sections:
        header(reading, rows[item.section_id])
        for start, end, _ in item.windows:
            reading.section(rows[item.section_id], start, end)
    return packed, rows


def _followed(
    finder: Ranker,
    query: str,
    names: list[str],
    filters: Filters,
    hits: list[ChunkHit],
    limit: int,
) -> list[ChunkHit]:
    """The first ranking with a keyword ranking of the question and `names` fused in."""
    conn = finder.conn
    ranked = fts.ranked(conn, " ".join([query, *names]), limit * fts.OVERFETCH, finder.view)
    known = {hit.chunk_id: hit for hit in hits}
    visible = index_reads.visible_chunks(
        conn, [cid for cid, _ in ranked if cid not in known], filters
    )
    led = [cid for cid, _ in ranked if cid in known or cid in visible][:limit]
    fused = thread.fuse_leads(
        [(hit.chunk_id, hit.score) for hit in hits], led, FOLLOW_WEIGHT, search.RRF_K
    )
    out = []
    for chunk_id, score in fused[:limit]:
        found = known.get(chunk_id)
        if found is not None:
            out.append(replace(found, score=score))
        else:
            out.append(ChunkHit(chunk_id, visible[chunk_id], score, None, None))
    return out


def spread(pieces: list[packing.Piece], discount: float) -> list[packing.Piece]:
    """Pieces re-ranked so each further piece of one section counts `discount` times less
    than the one before it (stable: equal scores keep their order)."""
    seen: dict[int, int] = {}
    scored = []
    for piece in pieces:
        repeat = seen.get(piece.section_id, 0)
        seen[piece.section_id] = repeat + 1
        scored.append(replace(piece, score=piece.score * discount**repeat))
    return sorted(scored, key=lambda piece: -piece.score)


def last_line(text: str, span: tuple[int, int]) -> tuple[int, int]:
    """The span of a window's own line: its last line."""
    start, end = span
    return max(start, text.rfind("\n", start, end) + 1), end


def _as_stored(reading: Reading, section: sections.SectionRow) -> bool:
    """Whether the caller reads this section's text as stored (nothing masked or counted)."""
    return reading.policy(section.shelf).mode == "off" and not reading.is_pending(section)


def own_line(reading: Reading, section: sections.SectionRow, span: tuple[int, int]) -> str:
    """A window's own line as the caller may read it."""
    start, end = last_line(section.text, span)
    return str(reading.section(section, start, end).text)
