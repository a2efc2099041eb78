"""`status` answers from counters and small joins, and they always equal a full count.

Each step below changes what `status` reports in another way (new text, queued text, text
written by an agent, a newer version of a page, a marked value that changes the detector,
a re-scan, the strong pass, forgetting); after each, every count is compared with the one
the vault gives by reading every row.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from privault import Caller, Vault
from privault.store import integrity, pii, strong_index
from tests.helpers import fake_vault

OWNER = Caller.owner()


def counted(vault: Vault) -> dict[str, Any]:
    """What status reports, counted by reading every row (the statements it used before)."""
    conn = vault.conn

    def one(sql: str) -> int:
        return int(conn.execute(sql).fetchone()[0])

    privacy = vault.privacy
    return {
        "documents": one("SELECT count(*) FROM documents"),
        "sections": one("SELECT count(*) FROM sections"),
        "chunks": one("SELECT count(*) FROM chunks"),
        "fts_rows": one("SELECT count(*) FROM chunks_fts"),
        "gated_rows": one("SELECT count(*) FROM gated_fts"),
        "vector_rows": one("SELECT count(*) FROM chunks_vec"),
        "masked_rows": one("SELECT count(*) FROM masked_chunks WHERE embedding != x''"),
        "pending_chunks": one(
            "SELECT count(*) FROM chunks c JOIN index_queue q ON q.section_id = c.section_id"
        ),
        "chunks_searchable": one(
            "SELECT count(*) FROM chunks c JOIN sections s ON s.id = c.section_id "
            "JOIN documents d ON d.id = s.doc_id WHERE d.current = 1"
        ),
        "sections_to_rescan": pii.sections_to_rescan_count_by_reading(
            conn, privacy.detector.version, privacy.plain_detector.version
        ),
        # A scope that selects every document takes the joined count.
        "strong": strong_index.coverage(conn, strong_index.Scope(since=-(2**62))),
    }


def reported(vault: Vault) -> dict[str, Any]:
    status = vault.status()
    index = status.index
    return {
        "documents": status.documents,
        "sections": status.sections,
        "chunks": status.chunks,
        "fts_rows": index.fts_rows,
        "vector_rows": index.vector_rows,
        "masked_rows": index.masked_rows,
        "gated_rows": index.gated_rows,
        "pending_chunks": index.pending_chunks,
        "chunks_searchable": index.chunks_searchable,
        "sections_to_rescan": status.privacy.sections_to_rescan,
        "strong": (status.strong.covered, status.strong.windows),
    }


def same(vault: Vault) -> dict[str, Any]:
    now = reported(vault)
    assert now == counted(vault)
    return now


NOTES = [
    "Ring Ottoline Quade at +44 20 7946 0958 about the boiler.",
    "# Garden\n\nThe shed needs a padlock.\n\n# Kitchen\n\nThe tap drips; call Dr Amos Pell.",
    "Lunch with Marguerite Fenwick on Friday at the harbour.",
]


def test_status_counts_equal_a_full_count_after_every_kind_of_write(tmp_path: Path) -> None:
    with fake_vault(tmp_path / "v.db") as vault:
        seen = [same(vault)]
        added = vault.note_many([{"text": t} for t in NOTES], caller=OWNER)
        seen.append(same(vault))
        vault.note_many(
            [{"text": "Agent's summary: Ottoline Quade called twice.", "author": "claude"}],
            caller=OWNER,
        )
        seen.append(same(vault))
        queued = vault.note_many(
            [{"text": "Queued: the Fenwick account moves to Lisbon."}],
            caller=OWNER,
            background=True,
        )
        assert queued[0].status == "added"
        seen.append(same(vault))
        assert seen[-1]["pending_chunks"] > 0
        for version in ("version one of the page", "version two, with Dr Amos Pell"):
            vault.file_page(url="http://example.org/p", title="P", text=version, caller=OWNER)
        seen.append(same(vault))
        assert seen[-1]["chunks_searchable"] < seen[-1]["chunks"]  # the older version
        vault.pii.mark(added[2].doc_id, "Marguerite Fenwick", caller=OWNER)
        seen.append(same(vault))
        while not vault.indexing.step(caller=OWNER).idle:
            pass
        seen.append(same(vault))
        vault.pii.rescan(caller=OWNER)
        seen.append(same(vault))
        assert seen[-1]["sections_to_rescan"] == 0
        assert vault.status().index.healthy
        pii.mark_for_rescan(vault.conn, added[1].doc_id)
        seen.append(same(vault))
        assert seen[-1]["sections_to_rescan"] == 2
        vault.forget(added[1].doc_id, caller=OWNER)
        seen.append(same(vault))
        pii.mark_for_rescan(vault.conn)
        seen.append(same(vault))
        assert seen[-1]["sections_to_rescan"] == seen[-1]["sections"]
        checks = integrity.half_written(vault.conn)
        names = ("scan_counters_off", "masked_vector_counter_off", "row_counters_off")
        assert [checks[name] for name in names] == [0, 0, 0]
        vault.conn.execute("UPDATE tallies SET n = n + 1")  # counters that drifted are found
        checks = integrity.half_written(vault.conn)
        assert checks["scan_counters_off"] > 0
        assert checks["masked_vector_counter_off"] == 1
        assert checks["row_counters_off"] == 4
    # Each step moved at least one count: the comparison was never between two zeros.
    assert all(a != b for a, b in zip(seen, seen[1:], strict=False))
    assert seen[-1]["masked_rows"] > 0


def test_counters_are_built_from_a_vault_written_before_them(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    with fake_vault(path) as vault:
        vault.note_many([{"text": t} for t in NOTES], caller=OWNER)
        vault.conn.execute("DELETE FROM tallies")  # as a vault from before the counters
        vault.conn.execute(
            "DELETE FROM schema_migrations WHERE name IN ('status_tallies', 'row_tallies')"
        )
        for name in [
            r[0]
            for r in vault.conn.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('trigger', 'index')"
                " AND (name LIKE 'tallies_%' OR name = 'documents_authored')"
            )
        ]:
            kind = "TRIGGER" if name.startswith("tallies_") else "INDEX"
            vault.conn.execute(f"DROP {kind} {name}")
        vault.conn.execute("DROP TABLE tallies")
    with fake_vault(path) as vault:  # the migration runs again and counts what is there
        assert reported(vault)["masked_rows"] > 0
        same(vault)


def test_status_statements_read_no_table_whole_but_by_index(tmp_path: Path) -> None:
    """The joins run from the small side: queued sections, older versions, agents' text."""
    with fake_vault(tmp_path / "v.db") as vault:
        conn = vault.conn
        traced: list[str] = []
        conn.set_trace_callback(traced.append)
        try:
            vault.status()
        finally:
            conn.set_trace_callback(None)
        # (Loading the detector reads the known entities once a process: not a count.)
        joins = [sql for sql in traced if " JOIN " in sql.upper() and "count(" in sql]
        assert len(joins) >= 5
        for sql in joins:
            plan = [r[-1] for r in conn.execute(f"EXPLAIN QUERY PLAN {sql}")]
            # A whole read is of the queue, or of a partial index of the exceptions only:
            # agents' documents, older versions.
            scans = [step for step in plan if step.startswith("SCAN")]
            exceptions = ("documents_authored", "documents_old")
            assert all(
                step.startswith("SCAN q ") or any(name in step for name in exceptions)
                for step in scans
            ), (sql, plan)


def test_the_keyword_row_count_is_read_as_fts5_keeps_it(tmp_path: Path) -> None:
    from privault.store import tallies

    assert tallies._varint(bytes([0x7F])) == 127
    assert tallies._varint(bytes([0x81, 0x00, 0x05])) == 128  # bytes after it are not read
    assert tallies._varint(bytes([0x83, 0xFF, 0x7F])) == (3 << 14) | (0x7F << 7) | 0x7F
    assert tallies._varint(bytes([0xFF] * 8 + [0x01])) == (2**56 - 1) << 8 | 1
    assert tallies._varint(bytes([0x81])) is None  # cut short
    with fake_vault(tmp_path / "v.db") as vault:
        assert tallies.keyword_rows(vault.conn) == 0
        vault.note_many([{"text": t * 40} for t in NOTES], caller=OWNER)
        (rows,) = vault.conn.execute("SELECT count(*) FROM chunks_fts").fetchone()
        assert rows > 3
        assert tallies.keyword_rows(vault.conn) == rows
