"""Convergence: three devices edit at random, sync in random orders, and end up the same.

Operations: notes, file changes, forgets, tags, shelves, statement add / supersede /
revise / confirm / dispute, owner PII marks, reminder watches and their cancellation.

Each device is a real vault file in its own folder; they share one sync folder, as a
file-sync tool would keep it. After every device has synced enough rounds, the canonical
dumps (every synced row's content) must be equal, and every document forgotten on any
device must be gone from all of them.
"""

from __future__ import annotations

import itertools
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from privault import Caller
from privault.errors import AccessDenied, Conflict, InputError, NotFound
from privault.store import documents
from privault.store.connection import write
from privault.sync import bundle
from privault.vault import Vault
from tests.helpers import examples, fake_vault

OWNER = Caller.owner()
SECRET = "correct horse battery staple"
WORDS = ["plumber", "invoice", "dentist", "garden", "Acme", "Dana", "budget", "train"]


@pytest.fixture(autouse=True)
def _cheap_scrypt(monkeypatch: pytest.MonkeyPatch) -> None:
    # The cost travels in each bundle's header; a low one keeps hundreds of syncs fast.
    monkeypatch.setattr(bundle, "SCRYPT", {"n": 2**10, "r": 8, "p": 1})
    monkeypatch.setattr(bundle, "ACCEPTED_SCRYPT", frozenset({(2**10, 8, 1)}))


def _text(words: list[int]) -> str:
    return " ".join(WORDS[i % len(WORDS)] for i in words)


device = st.integers(0, 2)
pick = st.integers(0, 50)
words = st.lists(st.integers(0, 7), min_size=1, max_size=4)
operation = st.one_of(
    st.tuples(st.just("note"), device, words, st.lists(st.sampled_from(["a", "b", "c"]))),
    st.tuples(st.just("change"), device, st.integers(0, 2), words),
    st.tuples(st.just("forget"), device, pick),
    st.tuples(st.just("tag"), device, pick, st.lists(st.sampled_from(["a", "b", "x"]))),
    st.tuples(st.just("shelf"), device, st.sampled_from(["work", "health"]), st.booleans()),
    st.tuples(st.just("st_add"), device, words),
    st.tuples(st.just("st_supersede"), device, pick, words),
    st.tuples(st.just("st_revise"), device, pick, words),
    st.tuples(st.just("confirm"), device, pick),
    st.tuples(st.just("dispute"), device, pick, pick),
    st.tuples(st.just("mark"), device, pick, st.sampled_from(["Dana", "Acme"]), st.booleans()),
    st.tuples(st.just("watch"), device, words),
    st.tuples(st.just("cancel"), device, pick),
    st.tuples(st.just("sync"), device),
    st.tuples(st.just("sync"), device),  # twice: syncs between edits make conflicts
)


def _current_docs(vault: Vault) -> list[str]:
    return [doc.id for doc in documents.list_documents(vault.conn, shelves=None, limit=1000)]


def _watches(vault: Vault) -> list[str]:
    return [found for (found,) in vault.conn.execute("SELECT id FROM watches ORDER BY id")]


def _open_statements(vault: Vault) -> list[str]:
    return [
        found
        for (found,) in vault.conn.execute(
            "SELECT id FROM statements WHERE superseded_by IS NULL AND invalidated_at IS NULL"
            " AND valid_to IS NULL ORDER BY id"
        )
    ]


def _apply(vaults: list[Vault], folder: Path, op: tuple[Any, ...], forgotten: set[str]) -> None:
    name, who, *args = op
    vault = vaults[who]
    try:
        if name == "note":
            vault.note(_text(args[0]), caller=OWNER, tags=args[1])
        elif name == "change":  # a file re-added with new text: updated in place
            source = f"/notes/file{args[0]}.md"
            item = {"text": _text(args[1]), "source": source, "kind": "file", "title": source}
            vault.note_many([item], caller=OWNER)
        elif name == "forget" and (docs := _current_docs(vault)):
            doc_id = docs[args[0] % len(docs)]
            forgotten.update(documents.version_chain(vault.conn, doc_id))
            vault.forget(doc_id, caller=OWNER)
        elif name == "tag" and (docs := _current_docs(vault)):
            with write(vault.conn):  # privault has no re-tag command: the store's own write
                documents.set_tags(vault.conn, docs[args[0] % len(docs)], args[1])
        elif name == "shelf":
            policy = "strict" if args[1] else None
            vault.shelves.add(args[0], policy=policy)
        elif name == "st_add":
            vault.statements.add(_text(args[0]), caller=OWNER, entities=["Acme"])
        elif name in ("st_supersede", "st_revise", "confirm", "dispute") and (
            open_ids := _open_statements(vault)
        ):
            target = open_ids[args[0] % len(open_ids)]
            if name == "st_supersede":
                vault.statements.supersede(target, "now " + _text(args[1]), caller=OWNER)
            elif name == "st_revise":
                vault.statements.revise(target, "better " + _text(args[1]), caller=OWNER)
            elif name == "confirm":
                vault.statements.confirm(target, caller=OWNER)
            else:
                other = open_ids[args[1] % len(open_ids)]
                vault.statements.dispute(target, other, caller=OWNER)
        elif name == "mark" and (docs := _current_docs(vault)):
            target_doc = docs[args[0] % len(docs)]
            if args[2]:
                vault.pii.mark(target_doc, args[1], caller=OWNER)
            else:
                vault.pii.unmark(target_doc, args[1], caller=OWNER)
        elif name == "watch":
            vault.watches.add("remind", _text(args[0]), caller=OWNER, every="1d")
        elif name == "cancel" and (watches := _watches(vault)):
            vault.watches.cancel(watches[args[0] % len(watches)], caller=OWNER)
        elif name == "sync":
            report = vault.sync.sync(folder, secret=SECRET, caller=OWNER)
            assert report.refused == ()
    except (Conflict, InputError, NotFound, AccessDenied):
        pass  # refused on this device (e.g. the shelf exists): a legitimate outcome


@settings(
    max_examples=examples(30),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(ops=st.lists(operation, min_size=1, max_size=25), orders=st.randoms())
@example(  # three devices make one shelf, one of them strict: merges follow merges
    ops=[
        ("note", 0, [0], []),
        ("shelf", 1, "health", True),
        ("shelf", 2, "health", False),
        ("note", 0, [0], []),
        ("shelf", 0, "health", False),
    ],
    orders=random.Random(5),
)
def test_three_devices_converge(ops: list[tuple[Any, ...]], orders: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "shared"
        vaults = [fake_vault(root / f"device{i}" / "vault.db") for i in range(3)]
        forgotten: set[str] = set()
        try:
            for op in ops:
                _apply(vaults, folder, op, forgotten)
            # Rounds in random orders until one in which no device has anything to write
            # (a shelf merged stricter than both sides is a new change, sent on): every
            # change has then reached every device. Two rounds were assumed before, which
            # three devices merging one shelf can outlast.
            for _ in range(5):
                wrote = False
                for who in orders.sample(range(3), 3):
                    report = vaults[who].sync.sync(folder, secret=SECRET, caller=OWNER)
                    assert report.refused == ()
                    wrote = wrote or report.written is not None
                if not wrote:
                    break
            assert not wrote, "the devices still had changes to send after five rounds"
            dumps = [vault.sync.dump() for vault in vaults]
            for one, other in itertools.combinations(dumps, 2):
                assert one == other
            for vault in vaults:
                held = {row_id for (row_id,) in vault.conn.execute("SELECT id FROM documents")}
                assert not held & forgotten
                assert forgotten <= set(dumps[0]["tombstone"])
                assert vault.status().index.healthy
                waiting = vault.conn.execute("SELECT count(*) FROM sync_pending").fetchone()[0]
                assert waiting == 0
        finally:
            for vault in vaults:
                vault.close()
