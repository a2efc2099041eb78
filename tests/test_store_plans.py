"""Statements that run per document read by index, however large the vault.

Without statistics in the file SQLite picks plans from the schema alone; these tests pin
the schema facts the per-document statements rely on, and check their plans.
"""

from __future__ import annotations

from pathlib import Path

from privault import Caller
from privault.filters import Filters
from privault.store.connection import Connection
from tests.helpers import fake_vault

OWNER = Caller.owner()


def _tables(conn: Connection) -> list[str]:
    return [
        name
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'"
            " AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' AND name NOT LIKE 'sqlite_%'"
        )
    ]


def test_every_foreign_key_column_leads_an_index(conn: Connection) -> None:
    """Deleting a parent row looks up the rows pointing at it: by index, or by reading the
    whole child table (per deleted row)."""
    missing = []
    checked = 0
    for table in _tables(conn):
        keys = conn.execute(f"PRAGMA foreign_key_list('{table}')").fetchall()
        leading = {
            conn.execute(f"PRAGMA index_info('{index[1]}')").fetchone()[2]
            for index in conn.execute(f"PRAGMA index_list('{table}')")
        }
        primary = [c[1] for c in conn.execute(f"PRAGMA table_info('{table}')") if c[5] == 1]
        for key in keys:
            checked += 1
            column = key[3]
            if column not in leading and primary != [column]:
                missing.append(f"{table}.{column}")
    assert checked > 15
    assert missing == []


def _plans(conn: Connection, statements: list[str]) -> list[tuple[str, list[str]]]:
    found = []
    for sql in statements:
        if not sql.lstrip().upper().startswith(("SELECT", "WITH", "DELETE", "UPDATE")):
            continue
        if "chunks_fts" in sql or "chunks_vec" in sql or sql.startswith("--"):
            continue  # virtual tables, and their own internal statements
        found.append((sql, [r[-1] for r in conn.execute(f"EXPLAIN QUERY PLAN {sql}")]))
    return found


def _whole_reads(plans: list[tuple[str, list[str]]], tables: tuple[str, ...]) -> list[str]:
    """Plan steps that read one of `tables` (or its one-letter alias) from end to end."""
    names = set(tables) | {table[0] for table in tables}
    return [
        f"{step}  <-  {sql[:160]}"
        for sql, plan in plans
        for step in plan
        if step.startswith("SCAN ") and step.split()[1] in names
    ]


def test_forget_and_the_write_path_read_documents_by_index(tmp_path: Path) -> None:
    with fake_vault(tmp_path / "v.db") as vault:
        conn = vault.conn
        notes = [{"text": f"Note {i}: the boiler, the shed and the tap."} for i in range(30)]
        added = vault.note_many(notes, caller=OWNER)
        for version in ("version one", "version two"):
            page = vault.file_page(
                url="http://example.org/p", title="P", text=version, caller=OWNER
            )
        traced: list[str] = []
        conn.set_trace_callback(traced.append)
        try:
            vault.note_many([{"text": "One more note about the garden gate."}], caller=OWNER)
            vault.note_many(notes[:3], caller=OWNER)  # already there: found, not re-added
            vault.forget(added[5].doc_id, caller=OWNER)
            vault.forget(page.doc_id, caller=OWNER)  # the page and its older version
        finally:
            conn.set_trace_callback(None)
        assert conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 30
        plans = _plans(conn, traced)
        assert len(plans) > 20
        assert any("previous_id" in sql for sql, _ in plans)  # the walk to newer versions
        assert _whole_reads(plans, ("documents", "sections", "chunks")) == []


def test_looking_up_a_note_does_not_walk_the_listing_index(tmp_path: Path) -> None:
    """`current = 1` selects nearly every document: a look-up must start from the hash or
    the source, never from an index that begins with `current`."""
    with fake_vault(tmp_path / "v.db") as vault:
        conn = vault.conn
        for sql in (
            "SELECT id FROM documents WHERE content_hash = ? AND shelf = ? AND source IS NULL"
            " AND current = 1 AND author = ?",
            "SELECT id FROM documents WHERE source = ? AND shelf = ? AND current = 1",
        ):
            plan = " | ".join(
                r[-1] for r in conn.execute(f"EXPLAIN QUERY PLAN {sql}", ("a",) * sql.count("?"))
            )
            assert "documents_hash" in plan or "documents_source" in plan, plan


def test_a_strong_round_walks_documents_newest_first_without_sorting_the_vault(
    tmp_path: Path,
) -> None:
    from privault.store import strong_index

    with fake_vault(tmp_path / "v.db") as vault:
        conn = vault.conn
        vault.note_many([{"text": f"Note {i} about the boiler."} for i in range(20)], caller=OWNER)
        traced: list[str] = []
        conn.set_trace_callback(traced.append)
        try:
            chunks = strong_index.pending(conn, 5)
            steered = strong_index.pending(conn, 5, strong_index.Scope(shelf="default"))
        finally:
            conn.set_trace_callback(None)
        assert len(chunks) == len(steered) == 5
        walks = [(sql, plan) for sql, plan in _plans(conn, traced) if "ORDER BY d." in sql]
        assert len(walks) == 2
        for sql, plan in walks:
            assert plan[0].startswith("SCAN d USING INDEX documents_listing"), (sql, plan)
            assert "USE TEMP B-TREE FOR ORDER BY" not in plan, (sql, plan)  # a full sort


def test_a_documents_page_walks_the_listing_newest_first_whatever_the_filter(
    tmp_path: Path,
) -> None:
    with fake_vault(tmp_path / "v.db") as vault:
        conn = vault.conn
        vault.note_many(
            [{"text": f"Note {i}.", "shelf": ("home", "work")[i % 2]} for i in range(10)],
            caller=OWNER,
        )
        traced: list[str] = []
        conn.set_trace_callback(traced.append)
        try:
            assert len(vault.docs(caller=OWNER, limit=3).documents) == 3
            work, notes = Filters(shelf="work"), Filters(kind="note")
            assert len(vault.docs(caller=OWNER, filters=work, limit=3).documents) == 3
            assert len(vault.docs(caller=OWNER, filters=notes, limit=3).documents) == 3
        finally:
            conn.set_trace_callback(None)
        pages = [
            (sql, plan)
            for sql, plan in _plans(conn, traced)
            if "LIMIT" in sql and "ORDER BY created_at" in sql
        ]
        assert len(pages) == 3
        for sql, plan in pages:
            listing = (
                "documents_kind_listing (kind=?)" if " kind = " in sql else "documents_listing"
            )
            assert listing in plan[0] and "TEMP B-TREE" not in " ".join(plan), (sql, plan)


def test_a_page_of_one_kind_starts_at_that_kind_and_pages_newest_first(tmp_path: Path) -> None:
    with fake_vault(tmp_path / "v.db") as vault:
        vault.note_many(
            [
                {"text": f"Item {i}.", "kind": ("note", "reminder")[i % 3 == 0], "created_at": i}
                for i in range(1, 13)
            ],
            caller=OWNER,
        )
        reminders = Filters(kind="reminder")
        first = vault.docs(caller=OWNER, filters=reminders, limit=3).documents
        assert [d.created_at for d in first] == [12, 9, 6]
        after = (first[-1].created_at, first[-1].doc_id)
        rest = vault.docs(caller=OWNER, filters=reminders, limit=3, after=after).documents
        assert [d.created_at for d in rest] == [3]
        assert vault.docs(caller=OWNER, filters=Filters(kind="page"), limit=3).documents == ()


def test_a_kind_few_documents_have_is_listed_and_counted_from_its_own_rows(
    tmp_path: Path,
) -> None:
    """Filtering by a rare kind reads that kind's rows, not every current document."""
    with fake_vault(tmp_path / "v.db") as vault:
        conn = vault.conn
        vault.note_many([{"text": f"Note {i} about the shed."} for i in range(300)], caller=OWNER)
        for version in ("first words", "second words"):
            vault.file_page(url="http://example.org/p", title="P", text=version, caller=OWNER)
        pages = Filters(kind="page")
        steps = 0

        def count_steps() -> int:
            nonlocal steps
            steps += 1
            return 0

        conn.set_progress_handler(count_steps, 100)  # one call per 100 VM steps
        try:
            listed = vault.docs(caller=OWNER, filters=pages, limit=50).documents
            total = vault.documents.count(caller=OWNER, filters=pages)
        finally:
            conn.set_progress_handler(None, 0)
        assert [doc.kind for doc in listed] == ["page"] and total == 1  # the current version
        # Walking 300 notes to find it (and counting them) takes ~2,400 VM steps; its own
        # rows, fewer than 100.
        assert steps < 6, steps


def test_forgetting_a_long_document_never_scans_every_vector(tmp_path: Path) -> None:
    """sqlite-vec answers `rowid = ?` from its rowid table but `rowid IN (a, b)` by walking
    every vector's position (a scan its own statements show): 625 ms at a million windows,
    for each forgotten or re-scanned section of more than one window."""
    with fake_vault(tmp_path / "v.db") as vault:
        lines = "\n".join(f"Line {i}: the boiler, the shed and the tap {i}." for i in range(40))
        long = vault.note(lines, caller=OWNER)
        windows = vault.conn.execute(
            "SELECT count(*) FROM chunks c JOIN sections s ON s.id = c.section_id"
            " WHERE s.doc_id = ?",
            (long.doc_id,),
        ).fetchone()[0]
        assert windows > 2
        before = vault.conn.execute("SELECT count(*) FROM chunks_vec_rowids").fetchone()[0]
        traced: list[str] = []
        vault.conn.set_trace_callback(traced.append)
        try:
            vault.forget(long.doc_id, caller=OWNER)
        finally:
            vault.conn.set_trace_callback(None)
        after = vault.conn.execute("SELECT count(*) FROM chunks_vec_rowids").fetchone()[0]
        assert before - after == windows
        assert not [sql for sql in traced if "ORDER by chunk_id, chunk_offset" in sql]


def test_a_search_checks_its_candidates_documents_from_an_index(tmp_path: Path) -> None:
    """The filter columns sit after the body in a document's row; a long body would be
    walked to reach them for every candidate."""
    from privault.store import index_reads
    from privault.store.index_reads import Filters as IndexFilters

    with fake_vault(tmp_path / "v.db") as vault:
        vault.note("Boiler service " * 2000, caller=OWNER, title="Long")
        conn = vault.conn
        traced: list[str] = []
        conn.set_trace_callback(traced.append)
        filters = IndexFilters(shelves=("default",), hidden=("private",), kind="note")
        found = index_reads.visible_chunks(conn, [1, 2, 3], filters.within(0, 2**62) or filters)
        conn.set_trace_callback(None)
        assert found
        sql = next(statement for statement in traced if "CROSS JOIN documents" in statement)
        plan = " | ".join(row[-1] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}"))
        assert "COVERING INDEX documents_visible" in plan, plan
