"""The strong model's background pass and its coverage, through the facade.

Writes index every window for keywords and the fast embedder at once; strong vectors come
later, from `index()`: `privault index` runs it in the foreground with a progress bar and
`privault serve` runs it in the background. Each round takes the oldest windows without
strong vectors, embeds the texts of their plain and masked entries that the vault does not
hold a vector for yet (texts are content-addressed: a window re-cut or re-masked under a
new id costs nothing), and writes them with one transaction per round. A pass killed at
any point resumes where it stopped; running it twice does nothing the second time.

Until every window is covered, `context` and `ask` rank uncovered windows by the other
legs alone; without the model installed the vault works exactly as before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from privault.caller import Caller
from privault.errors import AccessDenied, ModelUnavailable
from privault.jsonform import JsonForm, shown
from privault.retrieval.strong import digest, index_name, strong_input
from privault.store import strong_index
from privault.vault.context import VaultContext

ROUND = 32  # windows per round: one transaction, one progress tick


@dataclass(frozen=True)
class StrongCoverage(JsonForm):
    """How much of the index the strong model covers (`model` None: not installed)."""

    model: str | None
    covered: int
    windows: int = field(metadata=shown(then={"complete": "complete"}))
    order: str = strong_index.ORDER  # what the pass covers first
    problem: str | None = None  # why its files cannot be used (context ranks without it)

    @property
    def complete(self) -> bool:
        """Whether every window of a current document has its strong vectors."""
        return self.covered >= self.windows


@dataclass(frozen=True)
class IndexReport:
    """What one run of the pass did."""

    windows: int  # windows given strong vectors
    embedded: int  # texts the model embedded (the rest were already known)
    remaining: int  # windows still without strong vectors
    model: str | None
    stopped: str | None = None  # why the pass ended early: the model's worker failed


class VaultStrong:
    """The strong relevance model's index for one open vault."""

    def __init__(self, context: VaultContext) -> None:
        self._context = context

    def coverage(self) -> StrongCoverage:
        """Windows with strong vectors, out of all windows of current documents."""
        covered, windows = strong_index.coverage(self._context.conn)
        engines = self._context.engines
        name = engines.strong_model_name
        problem = engines.strong_problem if name and engines.strong is None else None
        return StrongCoverage(name, covered, windows, problem=problem)

    def index(
        self,
        *,
        caller: Caller,
        progress: Callable[[int, int], None] | None = None,
        limit: int | None = None,
        stop: Callable[[], bool] | None = None,
        round_windows: int = ROUND,
        shelf: str | None = None,
        since: int | None = None,
    ) -> IndexReport:
        """Give up to `limit` windows (default: all) their strong vectors; owner only.

        Windows are taken in the order `strong_index.ORDER` names; `shelf` and `since` (epoch
        ms) steer the pass to the windows of that shelf, of documents from that date on.

        Works in rounds of `round_windows` windows, each its own transaction; `progress(done,
        total)` is called after every round, and a true `stop()` before a round ends the
        pass there. Without the model installed nothing is done and `model` is None.
        """
        if not caller.is_owner:
            raise AccessDenied("only the owner can index the vault")
        conn = self._context.conn
        engine = self._context.engines.strong
        if engine is None:
            return IndexReport(0, 0, strong_index.coverage(conn)[1], None)
        if strong_index.built_by(conn) != index_name(engine.name):
            # Vectors of another model, or of another input, start over.
            strong_index.claim(conn, index_name(engine.name))
        scope = strong_index.Scope(shelf, since)
        covered, total = strong_index.coverage(conn, scope)
        todo = total - covered if limit is None else min(limit, total - covered)
        windows = embedded = 0
        while windows < todo and not (stop is not None and stop()):
            batch = strong_index.pending(conn, min(round_windows, todo - windows), scope)
            if not batch:
                break
            rows = []
            texts: dict[bytes, str] = {}
            for chunk in batch:
                plain = strong_input(chunk.text, chunk.written)
                masked = (
                    None
                    if chunk.masked_text is None
                    else strong_input(chunk.masked_text, chunk.written)
                )
                plain_key = digest(engine.name, plain)
                texts[plain_key] = plain
                masked_key = None
                if masked is not None:
                    masked_key = digest(engine.name, masked)
                    texts[masked_key] = masked
                rows.append((chunk.chunk_id, plain_key, masked_key))
            known = strong_index.known_digests(conn, list(texts))
            missing = [key for key in texts if key not in known]
            try:
                vectors = engine.embed_documents([texts[key] for key in missing])
            except ModelUnavailable as exc:  # its worker restarts; the next pass goes on
                covered, total = strong_index.coverage(conn)
                return IndexReport(windows, embedded, total - covered, engine.name, str(exc))
            blobs = {
                key: np.asarray(vector, dtype=np.float32).tobytes()
                for key, vector in zip(missing, vectors, strict=True)
            }
            strong_index.store(conn, blobs, rows)
            windows += len(batch)
            embedded += len(missing)
            if progress is not None:
                progress(windows, todo)
        covered, total = strong_index.coverage(conn)
        if covered == total and (windows or limit is None):  # deleted windows leave vectors
            strong_index.drop_orphans(conn)
        return IndexReport(windows, embedded, total - covered, engine.name)
