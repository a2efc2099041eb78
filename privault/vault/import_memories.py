"""mem0 memories as statement chains (see `vault.importing`).

A memory's history (its first wording, each rewording, its deletion) is replayed as
statements at the source's own times: `recorded_at` is when the memory tool learnt it and
`valid_from` when it became so, so `known_at` and `valid_at` views reach back before the
import. Each write goes through the statements facade's own write (scanned before it is
stored, entities known from then on). Importing again replays only what is new since, and
brings the chain to where the memory stands now.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from privault import statements as st
from privault.caller import Caller
from privault.errors import Conflict, InputError
from privault.imports import Memory
from privault.statements import NewStatement, Statement
from privault.store.imported import ImportedItem
from privault.timeutil import now_ms
from privault.vault.import_results import source_of
from privault.vault.statement_gate import metadata_texts
from privault.vault.statements import VaultStatements

T = TypeVar("T")


class MemoryWriter:
    """Replays a memory's history as statements, from where the last import stopped."""

    def __init__(
        self,
        statements: VaultStatements,
        memory: Memory,
        before: ImportedItem | None,
        *,
        caller: Caller,
        kind: str,
        shelf: str,
        tags: Sequence[str],
    ) -> None:
        self.statements = statements
        self.memory = memory
        self.before = before
        self.caller = caller
        self.kind = kind
        self.shelf = before.shelf if before else shelf
        self.tags = tags

    def write(self) -> ImportedItem:
        """Replay what is new and return the item's row (its hash left to the caller)."""
        memory, before = self.memory, self.before
        done = int(before.detail.get("revisions", 0)) if before else 0
        current = before.statement_id if before else None
        chain = before.chain_id if before else None
        open_now = bool(before.detail.get("open", True)) if before else False
        last = str(before.detail.get("content", "")) if before else ""
        history = list(memory.history)
        # The events this import has not replayed yet (all of them the first time).
        for revision in history[done:]:
            if revision.event == "DELETE":
                if current and open_now:
                    self._close(current, revision.at)
                    open_now = False
            elif not (revision.content == last and open_now):
                current, chain, open_now = self._put(
                    current, chain, open_now, revision.content, revision.at
                )
                last = revision.content
        # Where the memory stands now, even if its history was rewritten or is missing.
        want_open = not memory.deleted and bool(history) and history[-1].event != "DELETE"
        if want_open and (not open_now or last != memory.content):
            current, chain, open_now = self._put(
                current, chain, open_now, memory.content, memory.updated_at
            )
            last = memory.content
        elif not want_open and current and open_now:
            self._close(current, memory.updated_at)
            open_now = False
        shelf = self.shelf
        return ImportedItem(
            self.kind,
            memory.key,
            memory.scope,
            shelf,
            "",
            chain_id=chain,
            statement_id=current,
            detail={"revisions": len(history), "open": open_now, "content": last},
        )

    def _put(
        self, current: str | None, chain: str | None, open_now: bool, content: str, at: int | None
    ) -> tuple[str, str, bool]:
        """The memory says `content` from `at`: supersede the open statement, or start one."""
        if current and open_now:
            return self._supersede(current, content, at), chain or current, True
        added = self._add(content, at)
        return added, chain or added, True

    def _metadata(self) -> dict[str, Any]:
        tags = list(dict.fromkeys([*self.memory.tags, *self.tags]))
        return {**self.memory.metadata, "tags": tags, "imported_from": self.kind}

    def _write(self, texts: Sequence[str | None], operation: Callable[[], Statement]) -> str:
        """Through the statements facade's write: scanned before it is stored, its
        entities known entities from then on. The vault time is the source's (`now_ms`),
        so a `known_at` view reaches back to when the memory tool learnt it."""
        metadata = self._metadata()
        every = [*texts, *self.memory.entities, *metadata_texts(metadata)]
        response = self.statements._write(self.caller, every, operation)
        return str(response.statement.statement.id)

    def _add(self, content: str, at: int | None) -> str:
        shelf = self.shelf
        source = source_of(self.kind, self.memory.key)
        return _at_or_now(
            lambda when: self._write(
                [content, source],
                lambda: st.add(
                    self.statements.conn,
                    NewStatement(
                        content,
                        tuple(self.memory.entities),
                        source,
                        valid_from=when,
                        metadata=self._metadata(),
                    ),
                    embed=self.statements._embed,
                    now_ms=when,
                    shelf=shelf,
                ),
            ),
            at,
        )

    def _supersede(self, current: str, content: str, at: int | None) -> str:
        source = source_of(self.kind, self.memory.key)
        return _at_or_now(
            lambda when: self._write(
                [content, source],
                lambda: st.supersede(
                    self.statements.conn,
                    current,
                    NewStatement(
                        content, source=source, valid_from=when, metadata=self._metadata()
                    ),
                    embed=self.statements._embed,
                    now_ms=when,
                ),
            ),
            at,
        )

    def _close(self, current: str, at: int | None) -> None:
        _at_or_now(
            # No reason of its own: the vault's own word ("invalidated") needs no scan.
            lambda when: st.invalidate(self.statements.conn, current, valid_to=when, now_ms=when),
            at,
        )


def _at_or_now(write_at: Callable[[int | None], T], at: int | None) -> T:
    """Write at the source's time; where the vault cannot place it there (a time before
    the statement it follows, or in the future), at now."""
    if at is not None and at <= now_ms():
        try:
            return write_at(at)
        except (InputError, Conflict):
            pass
    return write_at(None)
