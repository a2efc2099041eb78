"""Statements through the facade (`vault.statements`): each operation takes a `Caller`.

The domain layer (`privault.statements`) knows nothing of callers or privacy. Here every
write is refused for read-only agents and scanned for PII before it is stored, and every
statement, entity name and count that goes back to a caller passes the caller's gate and
carries the `Privacy` summary of the response. Times may be given as ISO 8601 text with an
offset or as UTC epoch ms; they are parsed once, here.

Statements live on shelves like documents: a statement on a shelf the caller may not see
does not exist for it, and the shelf's policy gates it. Statements an agent writes carry
its name: their entities are not known entities (an agent cannot change what others see),
and they are gated by detection alone (see `StatementGate`).

A gated caller's filters are inputs too, never an oracle: its words, source and entity
names are matched against statements *as it sees them* (placeholders for masked values);
filtering by entity is refused where entity names are identifying under its own policy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from privault import statements as st
from privault.caller import Caller
from privault.errors import AccessDenied, InputError, NotFound
from privault.spans import Span
from privault.statements import NewStatement, Statement
from privault.store import statement_spans
from privault.store.connection import write
from privault.timeutil import Time, to_ms
from privault.vault.context import VaultContext
from privault.vault.detection import SpanDetector
from privault.vault.ingest import check_shelf
from privault.vault.reading import Reading
from privault.vault.statement_gate import (
    OWN_REASONS,
    StatementGate,
    StatementScan,
    metadata_texts,
    short_texts,
)
from privault.vault.statement_matching import as_seen, author_of, best_seen, query_embedder
from privault.vault.statement_results import (
    EntityList,
    GatedStatement,
    StatementList,
    StatementResponse,
    StatsResponse,
)

_PERSON = Span(0, 1, "PERSON", 0.9, "known")  # whether a policy counts entity names


class VaultStatements:
    """Bi-temporal statements of one vault, for callers (see `privault.statements`)."""

    def __init__(self, context: VaultContext) -> None:
        self._context = context
        self.conn = context.conn

    # ---- plumbing --------------------------------------------------------------------

    def _embed(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = self._context.embedder.embed(texts).tolist()
        return vectors

    def _writer(self, caller: Caller) -> Reading:
        reading = self._context.privacy.reading(caller)  # unknown callers are refused first
        if caller.read_only:
            raise AccessDenied(f"agent {caller.name} is read-only")
        return reading

    def _gate(self, reading: Reading) -> StatementGate:
        privacy = self._context.privacy
        return StatementGate(self.conn, reading, privacy.detector_for, privacy.known_for)

    def _visible(self, statement_id: str, caller: Caller, known: int | None = None) -> Statement:
        """A statement the caller may see; one on a hidden shelf is the same NotFound."""
        found = st.get(self.conn, statement_id, known_at=known)
        if found.shelf in self._context.hidden_shelves(caller):
            raise NotFound(f"no statement {statement_id}")
        return found

    def _gated(self, found: Sequence[Statement], reading: Reading) -> list[GatedStatement]:
        pairs = self._gate(reading).statements(found)
        return [GatedStatement(s, texts, s.is_current, withheld) for s, texts, withheld in pairs]

    def _one(self, found: Statement, reading: Reading) -> StatementResponse:
        return StatementResponse(self._gated([found], reading)[0], reading.privacy())

    def _many(self, found: Sequence[Statement], reading: Reading) -> StatementList:
        return StatementList(tuple(self._gated(found, reading)), reading.privacy())

    def _write(
        self, caller: Caller, texts: Iterable[str | None], operation: Callable[[], Statement]
    ) -> StatementResponse:
        """Scan, write, store the spans, reply gated.

        Detection runs before the write, so a detector that cannot load refuses the write
        up front and no model call happens under the write lock. Texts the operation
        inherits (entities, metadata of the old version) are scanned after it.
        """
        reading = self._writer(caller)
        privacy = self._context.privacy
        detector = privacy.detector_for(author_of(caller))
        pre = {t: detector.detect(t) for t in dict.fromkeys(texts) if t and t.strip()}
        found = operation()
        self._store_scan(found, detector, pre)
        if not found.author and found.entities:
            # The owner's entities are known entities from now on, in every process.
            privacy.known_changed(list(found.entities), self._context.embedder)
        return self._one(found, reading)

    def _store_scan(
        self, found: Statement, detector: SpanDetector, pre: Mapping[str, list[Span]]
    ) -> None:
        def spans(text: str) -> tuple[Span, ...]:
            return tuple(pre[text] if text in pre else detector.detect(text))

        texts = {text: spans(text) for text in short_texts(found)}
        statement_spans.save_scan(
            self.conn, found.id, StatementScan(spans(found.content), texts, detector.version)
        )

    # ---- writing ---------------------------------------------------------------------

    def _statement_write(
        self, caller: Caller, statement: NewStatement, operation: Callable[[], Statement]
    ) -> StatementResponse:
        texts = [*statement.texts(), *metadata_texts(statement.metadata or {})]
        return self._write(caller, texts, operation)

    def add(
        self,
        content: str | NewStatement,
        *,
        caller: Caller,
        entities: Iterable[str] = (),
        source: str | None = None,
        salience: float | None = None,
        confidence: float | None = None,
        occurred_at: Time = None,
        valid_from: Time = None,
        valid_to: Time = None,
        metadata: Mapping[str, Any] | None = None,
        shelf: str = "default",
    ) -> StatementResponse:
        """Record a statement on `shelf`, open-ended unless `valid_to` is given.

        `content` is the text with the other fields as keywords, or a whole `NewStatement`
        (then no field is given as a keyword).
        """
        names = tuple(entities) or None
        given = NewStatement(
            "", names, source, salience, confidence, occurred_at, valid_from, valid_to, metadata
        )
        statement = _one_of(content, given).parsed()
        shelf = check_shelf(shelf)
        self._context.check_write(caller, shelf)
        return self._statement_write(
            caller,
            statement,
            lambda: st.add(
                self.conn, statement, embed=self._embed, shelf=shelf, author=author_of(caller)
            ),
        )

    def supersede(
        self,
        statement_id: str,
        content: str | NewStatement,
        *,
        caller: Caller,
        valid_from: Time = None,
        valid_to: Time = None,
        entities: Iterable[str] | None = None,
        source: str | None = None,
        salience: float | None = None,
        confidence: float | None = None,
        occurred_at: Time = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> StatementResponse:
        """The world changed: close `statement_id` exactly where the new statement opens.

        Entities and salience are inherited unless given; the boundary defaults to now.
        `content` is the text, or a whole `NewStatement` (as in `add`).
        """
        names = None if entities is None else tuple(entities)
        given = NewStatement(
            "", names, source, salience, confidence, occurred_at, valid_from, valid_to, metadata
        )
        statement = _one_of(content, given).parsed()
        self._context.check_write(caller, self._visible(statement_id, caller).shelf)
        return self._statement_write(
            caller,
            statement,
            lambda: st.supersede(
                self.conn, statement_id, statement, embed=self._embed, author=author_of(caller)
            ),
        )

    def revise(
        self,
        statement_id: str,
        content: str | NewStatement,
        *,
        caller: Caller,
        entities: Iterable[str] | None = None,
        source: str | None = None,
        salience: float | None = None,
        confidence: float | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> StatementResponse:
        """Better wording, same world: the revision replaces the original in vault time.

        Window, attestations, entities, source, salience, metadata and open disputes are
        inherited unless given. `content` is the text, or a whole `NewStatement` without
        times (as in `add`).
        """
        names = None if entities is None else tuple(entities)
        given = NewStatement("", names, source, salience, confidence, metadata=metadata)
        statement = _one_of(content, given)
        self._context.check_write(caller, self._visible(statement_id, caller).shelf)
        return self._statement_write(
            caller,
            statement,
            lambda: st.revise(
                self.conn, statement_id, statement, embed=self._embed, author=author_of(caller)
            ),
        )

    def confirm(
        self,
        statement_id: str,
        *,
        caller: Caller,
        source: str | None = None,
        attested_at: Time = None,
    ) -> StatementResponse:
        """Heard again: one more attestation. Confirming a closed statement is a Conflict."""
        heard = to_ms(attested_at, "attested_at")
        reading = self._writer(caller)
        self._context.check_write(caller, self._visible(statement_id, caller).shelf)
        found = st.confirm(self.conn, statement_id, source=source, attested_at=heard)
        return self._one(found, reading)

    def dispute(
        self, statement_id: str, other_id: str, *, caller: Caller, reason: str | None = None
    ) -> StatementList:
        """Two open statements cannot both hold: both stay open, flagged with each other."""
        reading = self._writer(caller)
        for one in (statement_id, other_id):
            self._context.check_write(caller, self._visible(one, caller).shelf)
        pair = st.dispute(self.conn, statement_id, other_id, reason=reason)
        return self._many(pair, reading)

    def invalidate(
        self,
        statement_id: str,
        *,
        caller: Caller,
        valid_to: Time = None,
        reason: str | None = None,
    ) -> StatementResponse:
        """Close a statement at `valid_to` (default now; the past is fine), with a reason."""
        end = to_ms(valid_to, "valid_to")
        reading = self._writer(caller)
        self._context.check_write(caller, self._visible(statement_id, caller).shelf)
        why = (reason or "").strip()
        spans = None
        if why and why not in OWN_REASONS:
            detector = self._context.privacy.detector_for(author_of(caller))
            spans = detector.detect(why)  # before the write, as in _write
        found = st.invalidate(self.conn, statement_id, valid_to=end, reason=reason)
        if spans is not None:
            statement_spans.add_texts(self.conn, statement_id, {why: spans})
        return self._one(found, reading)

    # ---- reading ---------------------------------------------------------------------

    def get(self, statement_id: str, *, caller: Caller, known_at: Time = None) -> StatementResponse:
        """One statement as the vault saw it at `known_at` (default now)."""
        known = to_ms(known_at, "known_at")
        reading = self._context.privacy.reading(caller)
        return self._one(self._visible(statement_id, caller, known), reading)

    def query(
        self,
        *,
        caller: Caller,
        text: str | None = None,
        entities: Iterable[str] = (),
        source: str | None = None,
        valid_at: Time = None,
        known_at: Time = None,
        include_closed: bool = False,
        disputed: bool = False,
        order: str | None = None,
        limit: int | None = 20,
    ) -> StatementList:
        """Statements matching every filter (default: those that hold now, newest first)."""
        valid, known = to_ms(valid_at, "valid_at"), to_ms(known_at, "known_at")
        names = list(entities)
        reading = self._context.privacy.reading(caller)
        hidden = self._context.hidden_shelves(caller)
        gated = reading.gated  # its own policy or a shelf's masks something
        if names and reading.base.mode != "off" and reading.base.counts(_PERSON):
            raise AccessDenied(
                f"filtering by entity is not available under policy {reading.base.name}:"
                " entity names are identifying there; search by words instead"
            )
        if not gated:
            found = st.query(
                self.conn,
                text=text,
                entities=names,
                source=source,
                valid_at=valid,
                known_at=known,
                include_closed=include_closed,
                disputed=disputed,
                order=order,
                limit=limit,
                embed=query_embedder(self._context.embedder),
                hidden=hidden,
            )
            return self._many(found, reading)
        # A gated caller matches statements as it sees them: words, source and names
        # against the gated texts. No form of a masked value can match.
        every = st.query(
            self.conn,
            valid_at=valid,
            known_at=known,
            include_closed=include_closed,
            disputed=disputed,
            order="recency" if order in (None, "relevance") else order,
            limit=None,
            hidden=hidden,
        )
        if names:
            every = self._context.privacy.seen_words.naming(every, self._gate(reading), names)
        if source is None:  # only the statements returned are gated, so only they count
            ranked = self._context.privacy.seen_words.ranked(every, self._gate(reading), text)
            return self._many(ranked[:limit] if limit else ranked, reading)
        shown = as_seen(self._gated(every, reading), text, source)  # sources as shown: all
        return StatementList(tuple(shown[:limit] if limit else shown), reading.privacy())

    def history(self, statement_id: str, *, caller: Caller, known_at: Time = None) -> StatementList:
        """Every version of the chain `statement_id` belongs to, oldest first."""
        known = to_ms(known_at, "known_at")
        reading = self._context.privacy.reading(caller)
        self._visible(statement_id, caller, known)
        return self._many(st.history(self.conn, statement_id, known_at=known), reading)

    def entities(
        self,
        *,
        caller: Caller,
        include_closed: bool = False,
        valid_at: Time = None,
        known_at: Time = None,
        min_count: int = 1,
    ) -> EntityList:
        """Entities named by visible statements, most named first; names gated."""
        valid, known = to_ms(valid_at, "valid_at"), to_ms(known_at, "known_at")
        if min_count < 1:
            raise InputError(f"min must be at least 1, got {min_count}")
        reading = self._context.privacy.reading(caller)
        gate = self._gate(reading)
        # Gated callers count each author's mentions apart: an agent naming an entity the
        # owner named must not see a count go up (nor the owner's spelling).
        found = st.entities(
            self.conn,
            include_closed=include_closed,
            valid_at=valid,
            known_at=known,
            min_count=min_count,
            hidden=self._context.hidden_shelves(caller),
            by_author=reading.gated,
        )
        listed = [shown for item in found if (shown := gate.entity(item)) is not None]
        return EntityList(tuple(listed), reading.privacy())

    def stats(self, *, caller: Caller) -> StatsResponse:
        """Counts: open, closed, superseded, revised, disputed."""
        reading = self._context.privacy.reading(caller)
        return StatsResponse(st.stats(self.conn), reading.privacy())

    # ---- for search and context ------------------------------------------------------

    def for_context(
        self,
        reading: Reading,
        query: str,
        include_superseded: bool = False,
        limit: int = 5,
        hidden: Sequence[str] = (),
        fits: Callable[[list[GatedStatement]], bool] | None = None,
    ) -> list[GatedStatement]:
        """Statements that hold now matching `query` (none on `hidden` shelves), gated through
        the response's `reading`; a gated caller matches them as it sees them (`best_seen`).
        With `include_superseded`, closed versions come too, labelled NOT current."""
        if not query.strip():
            return []
        if not reading.gated:
            found = st.query(
                self.conn,
                text=query,
                include_closed=include_superseded,
                order="relevance",
                limit=limit,
                embed=query_embedder(self._context.embedder),
                hidden=hidden,
            )
            return self._gated(found, reading)
        every = st.query(self.conn, include_closed=include_superseded, limit=None, hidden=hidden)
        ranked = self._context.privacy.seen_words.ranked(every, self._gate(reading), query)
        gate = lambda found: self._gated(found, reading)  # noqa: E731
        return best_seen(ranked, gate, reading, limit, fits)

    def scan(self, statement_ids: Sequence[str]) -> None:
        """Scan these statements by the current detector, in one transaction."""
        detector = self._context.privacy.detector
        found = [st.get(self.conn, statement_id) for statement_id in statement_ids]
        with write(self.conn):
            for statement in found:
                self._store_scan(statement, detector, {})

    def rescan(self, limit: int = 200) -> int:
        """Scan statements never scanned or scanned by another detector version; return count."""
        version = self._context.privacy.detector.version
        ids = statement_spans.stale_statements(self.conn, version, limit)
        self.scan(ids)
        return len(ids)


def _one_of(content: str | NewStatement, given: NewStatement) -> NewStatement:
    """The statement a writer means: its text with the fields given as keywords, or a whole
    `NewStatement` (and then no field as a keyword: one place says each field)."""
    if isinstance(content, str):
        return replace(given, content=content)
    if given != NewStatement(""):
        raise InputError("give a statement's fields in its NewStatement or as keywords, not both")
    return content
