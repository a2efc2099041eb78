"""The LoCoMo answer benchmark's oracle vault holds a question's gold evidence and nothing
else, each turn under its own session's date."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from benchmarks.ask_locomo import _oracle_vault
from privault.retrieval.embedder import FakeEmbedder


def _conversation() -> dict[str, Any]:
    def turns(session: int) -> list[dict[str, str]]:
        return [
            {"speaker": "Ann", "dia_id": f"D{session}:{n}", "text": f"line {n} of day {session}"}
            for n in (1, 2, 3)
        ]

    return {
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": turns(1),
            "session_2_date_time": "10:37 am on 27 June, 2023",
            "session_2": turns(2),
        },
        "qa": [
            {"question": "Which lines?", "answer": "two", "evidence": ["D1:2", "D2:3"]},
            {"question": "Other?", "answer": "one", "evidence": ["D1:1"]},
        ],
    }


def test_oracle_vault_holds_only_the_questions_evidence(tmp_path: Path) -> None:
    common = {"models_dir": tmp_path, "embedder": FakeEmbedder()}
    with contextlib.ExitStack() as stack:
        vault = _oracle_vault(stack, _conversation(), "Which lines?", common)
        rows = vault.conn.execute(
            "SELECT d.title, s.text FROM sections s JOIN documents d ON d.id = s.doc_id"
            " ORDER BY d.created_at"
        ).fetchall()
    assert [(title, text) for title, text in rows] == [
        ("Conversation on 8 May 2023", "Ann: line 2 of day 1"),
        ("Conversation on 27 June 2023", "Ann: line 3 of day 2"),
    ]
