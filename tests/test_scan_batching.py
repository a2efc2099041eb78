"""Write-time PII scan: one detector batch per write, spans as one-by-one detection."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from privault.caller import Caller
from privault.privacy.detector import DetectorConfig, FakeDetector
from privault.retrieval.embedder import FakeEmbedder
from privault.spans import Span
from privault.vault import Vault
from privault.vault.privacy import label_spans

OWNER = Caller.owner()


class _CountingDetector(FakeDetector):
    batches: list[int] = []

    def __init__(self, config: DetectorConfig | None = None) -> None:
        super().__init__(config)

    def detect_many(self, texts: Sequence[str]) -> list[list[Span]]:
        type(self).batches.append(len(texts))
        return super().detect_many(texts)


def test_note_many_scans_sections_and_labels_in_one_batch(tmp_path: Path) -> None:
    vault = Vault.open(
        tmp_path / "v.db",
        models_dir=tmp_path,
        embedder=FakeEmbedder(),
        detector_factory=_CountingDetector,
    )
    _CountingDetector.batches = []
    notes = [
        {"text": "# Dr. Maria Gonzalez\nCall 555-12-3456 or maria@example.com\n## Later\nx"},
        {"text": "Lunch with Mr. John Smith", "title": "Ms. Jane Roe"},
    ]
    with vault:
        vault.note_many(notes, caller=OWNER)
        assert len(_CountingDetector.batches) == 1
        scanned = vault.privacy.detector
        rows = vault.conn.execute("SELECT doc_id, label, spans FROM label_spans").fetchall()
        assert {label for _, label, _ in rows} >= {"Dr. Maria Gonzalez", "Later", "Ms. Jane Roe"}
        texts = {doc: text for doc, text in vault.conn.execute("SELECT id, body FROM documents")}
        for doc_id, label, _ in rows:
            stored = vault.privacy._load_label_spans(doc_id, label)
            assert stored == label_spans(scanned, label, texts[doc_id])
