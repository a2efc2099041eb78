"""Changing what the vault believes: add, supersede, revise, confirm, dispute, invalidate.

Every change runs inside one `BEGIN IMMEDIATE` transaction and re-reads the statement after
taking the lock, so of two writers racing to close the same statement exactly one wins and
the other gets `Conflict`. Nothing is deleted: a change of belief is a new row, a closure
row (the new end of a window, with when it was learned) or a stamp on the old row.

Refusals: a missing id is `NotFound`; acting on a statement that is already closed —
revised, superseded, or past its `valid_to` — is `Conflict` (someone, maybe an earlier you,
changed it first; read it again); an impossible window is `InputError`. Confirming a
closed statement is refused the same way, with `Conflict`.
"""

from __future__ import annotations

from privault import timeutil
from privault.errors import InputError
from privault.statements.model import (
    Embed,
    NewStatement,
    Statement,
    check_unit,
    check_window,
    clean_content,
    clean_entities,
    clean_source,
    dump_metadata,
)
from privault.statements.vectors import embed_many, embed_one, window_start
from privault.statements.view import load
from privault.store.connection import Connection
from privault.store.connection import write as transaction
from privault.store.statements import (
    add_attestation,
    close,
    closure_reason,
    copy_attestations,
    entities_of,
    has_open_dispute,
    insert,
    insert_dispute,
    mark_revised,
    mark_superseded,
    open_disputes,
    open_row,
    save_vector,
    settle_disputes,
    without_vector,
)


def add(
    conn: Connection,
    statement: NewStatement,
    *,
    embed: Embed | None = None,
    now_ms: int | None = None,
    shelf: str = "default",
    author: str = "",
) -> Statement:
    """Record a statement; it is open-ended unless `valid_to` is given.

    `valid_from` defaults to `occurred_at`, else to now. `recorded_at` is always now.
    """
    now = timeutil.now_ms() if now_ms is None else now_ms
    text = clean_content(statement.content)
    occurred_at, valid_from, valid_to = statement.times()
    start = window_start(valid_from, occurred_at, now)
    check_window(start, valid_to)
    salience, confidence = statement.salience, statement.confidence
    fields = {
        "content": text,
        "source": clean_source(statement.source),
        "salience": check_unit("salience", 0.5 if salience is None else salience),
        "confidence": check_unit("confidence", 1.0 if confidence is None else confidence),
        "occurred_at": occurred_at,
        "valid_from": start,
        "metadata": dump_metadata(statement.metadata),
        "shelf": shelf,
        "author": author,
    }
    names = clean_entities(statement.entities or ())
    vector = embed_one(embed, text)
    with transaction(conn):
        new_id = insert(conn, fields, names, valid_to, None, now, vector)
    return load(conn, [new_id], now)[0]


def supersede(
    conn: Connection,
    statement_id: str,
    statement: NewStatement,
    *,
    embed: Embed | None = None,
    now_ms: int | None = None,
    author: str = "",
) -> Statement:
    """The world changed: close `statement_id` exactly where a new statement opens.

    The boundary is `valid_from` (default `occurred_at`, else now). Entities and salience are
    inherited unless given; confidence is 1 unless given. Returns the new statement; the
    old one links to it.
    """
    now = timeutil.now_ms() if now_ms is None else now_ms
    text = clean_content(statement.content)
    occurred_at, valid_from, valid_to = statement.times()
    entities, salience, confidence = statement.entities, statement.salience, statement.confidence
    boundary = window_start(valid_from, occurred_at, now)
    check_window(boundary, valid_to)
    vector = embed_one(embed, text)
    with transaction(conn):
        old = open_row(conn, statement_id, now, "supersede")
        if boundary < old["valid_from"]:
            raise InputError(
                f"boundary {timeutil.to_iso(boundary)} is before {statement_id} opened at "
                f"{timeutil.to_iso(old['valid_from'])}"
            )
        if old["valid_to"] is not None and boundary > old["valid_to"]:
            raise InputError(
                f"{statement_id} already ends at {timeutil.to_iso(old['valid_to'])}; "
                "a boundary after that would leave a gap, so add a new statement instead"
            )
        names = clean_entities(entities) if entities is not None else entities_of(conn, old["id"])
        fields = {
            "content": text,
            "source": clean_source(statement.source),
            "salience": old["salience"] if salience is None else check_unit("salience", salience),
            "confidence": check_unit("confidence", 1.0 if confidence is None else confidence),
            "occurred_at": occurred_at,
            "valid_from": boundary,
            "metadata": dump_metadata(statement.metadata),
            "chain_id": old["chain_id"],
            "supersedes": old["id"],
            "shelf": old["shelf"],
            "author": author,
        }
        new_id = insert(conn, fields, names, valid_to, None, now, vector)
        close(conn, old["id"], boundary, "superseded", now)
        mark_superseded(conn, old["id"], new_id)
        settle_disputes(conn, old["id"], now, f"superseded by {new_id}")
    return load(conn, [new_id], now)[0]


def revise(
    conn: Connection,
    statement_id: str,
    statement: NewStatement,
    *,
    embed: Embed | None = None,
    now_ms: int | None = None,
    author: str = "",
) -> Statement:
    """The wording improves, the world did not change: replace the text in vault time only.

    The revision opens where the original did and inherits its window, attestations,
    entities, source, salience, confidence, metadata and open disputes (each unless given;
    a window cannot be given: that is a supersede). The original gets `invalidated_at` =
    now, reason `revised`; `known_at` before now still finds it.
    """
    if any(time is not None for time in statement.times()):
        raise InputError(
            "a revision keeps the original's times: to say the world changed, supersede it"
        )
    now = timeutil.now_ms() if now_ms is None else now_ms
    text = clean_content(statement.content)
    entities, source, metadata = statement.entities, statement.source, statement.metadata
    salience, confidence = statement.salience, statement.confidence
    vector = embed_one(embed, text)
    with transaction(conn):
        old = open_row(conn, statement_id, now, "revise")
        names = clean_entities(entities) if entities is not None else entities_of(conn, old["id"])
        fields = {
            "content": text,
            "source": old["source"] if source is None else clean_source(source),
            "salience": old["salience"] if salience is None else check_unit("salience", salience),
            "confidence": old["confidence"]
            if confidence is None
            else check_unit("confidence", confidence),
            "occurred_at": old["occurred_at"],
            "valid_from": old["valid_from"],
            "metadata": old["metadata"] if metadata is None else dump_metadata(metadata),
            "chain_id": old["chain_id"],
            "revises": old["id"],
            "shelf": old["shelf"],
            "author": author,
        }
        reason = closure_reason(conn, old["id"])
        new_id = insert(conn, fields, names, old["valid_to"], reason, now, vector)
        copy_attestations(conn, old["id"], new_id)
        for dispute in open_disputes(conn, old["id"]):
            other = dispute["b_id"] if dispute["a_id"] == old["id"] else dispute["a_id"]
            insert_dispute(conn, new_id, other, dispute["reason"], now)
        settle_disputes(conn, old["id"], now, f"revised into {new_id}")
        mark_revised(conn, old["id"], new_id, now)
    return load(conn, [new_id], now)[0]


def confirm(
    conn: Connection,
    statement_id: str,
    *,
    source: str | None = None,
    attested_at: int | None = None,
    now_ms: int | None = None,
) -> Statement:
    """Heard again: add one attestation (when heard, from where). Closed statements: Conflict."""
    now = timeutil.now_ms() if now_ms is None else now_ms
    heard = now if attested_at is None else attested_at
    if heard > now:
        raise InputError(f"attested_at {timeutil.to_iso(heard)} is in the future")
    with transaction(conn):
        open_row(conn, statement_id, now, "confirm")
        add_attestation(conn, statement_id, heard, now, clean_source(source))
    return load(conn, [statement_id], now)[0]


def dispute(
    conn: Connection,
    statement_id: str,
    other_id: str,
    *,
    reason: str | None = None,
    now_ms: int | None = None,
) -> tuple[Statement, Statement]:
    """Mark two open statements as unable to both hold; both stay open, flagged.

    The dispute lasts until one of them is invalidated or superseded; a revision carries
    it over. Disputing a pair already in open dispute changes nothing.
    """
    now = timeutil.now_ms() if now_ms is None else now_ms
    if statement_id == other_id:
        raise InputError("a statement cannot dispute itself")
    with transaction(conn):
        first = open_row(conn, statement_id, now, "dispute")
        second = open_row(conn, other_id, now, "dispute")
        if first["chain_id"] == second["chain_id"]:
            raise InputError(f"{statement_id} and {other_id} are versions of one statement")
        if not has_open_dispute(conn, statement_id, other_id):
            insert_dispute(conn, statement_id, other_id, reason, now)
    found = load(conn, [statement_id, other_id], now)
    return found[0], found[1]


def invalidate(
    conn: Connection,
    statement_id: str,
    *,
    valid_to: int | None = None,
    reason: str | None = None,
    now_ms: int | None = None,
) -> Statement:
    """Close a statement in the world at `valid_to` (default now; the past is fine).

    An open dispute it is part of is settled. A window can only be shortened here.
    """
    now = timeutil.now_ms() if now_ms is None else now_ms
    end = now if valid_to is None else valid_to
    why = (reason or "").strip() or "invalidated"
    with transaction(conn):
        old = open_row(conn, statement_id, now, "invalidate")
        check_window(old["valid_from"], end)
        if old["valid_to"] is not None and end > old["valid_to"]:
            raise InputError(
                f"{statement_id} already ends at {timeutil.to_iso(old['valid_to'])}; "
                "invalidate can only close it earlier"
            )
        close(conn, statement_id, end, why, now)
        settle_disputes(conn, statement_id, now, f"invalidated: {why}")
    return load(conn, [statement_id], now)[0]


def index_embeddings(conn: Connection, embed: Embed, *, batch: int = 64) -> int:
    """Embed every statement that has no vector yet; returns how many were embedded."""
    missing = without_vector(conn)
    for start in range(0, len(missing), batch):
        part = missing[start : start + batch]
        vectors = embed_many(embed, [item["content"] for item in part])
        with transaction(conn):
            for item, vector in zip(part, vectors, strict=True):
                save_vector(conn, item["seq"], vector)
    return len(missing)
