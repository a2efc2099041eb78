"""The second entity recogniser: found only when installed intact, and it adds names."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import untrained_tagger

from privault.errors import ModelError
from privault.privacy import Detector, DetectorConfig, PolicySet
from privault.privacy import detector as detector_module
from privault.privacy.detector import SECOND_NER_MODEL, second_ner_folder

STANDARD = PolicySet.load().resolve("standard")


def test_not_installed_means_the_small_pipeline_alone(tmp_path: Path) -> None:
    assert second_ner_folder(tmp_path / "models") is None
    alone = DetectorConfig.build([STANDARD])
    assert alone.version == DetectorConfig.build([STANDARD], second_ner=None).version


def test_the_version_says_whether_the_second_pass_runs(tmp_path: Path) -> None:
    alone = DetectorConfig.build([STANDARD])
    both = DetectorConfig.build([STANDARD], second_ner=tmp_path)
    elsewhere = DetectorConfig.build([STANDARD], second_ner=tmp_path / "other")
    assert alone.version != both.version
    assert both.version == elsewhere.version  # the model, not where it is installed
    assert DetectorConfig.build([STANDARD], ner=False, second_ner=tmp_path).second_ner is None


@pytest.mark.real
def test_an_altered_install_is_refused_not_skipped(tmp_path: Path, models_dir: Path) -> None:
    copy = tmp_path / "models"
    shutil.copytree(models_dir / SECOND_NER_MODEL, copy / SECOND_NER_MODEL)
    assert second_ner_folder(copy) == copy / SECOND_NER_MODEL
    moves = copy / SECOND_NER_MODEL / "ner" / "moves"
    data = bytearray(moves.read_bytes())
    data[10] ^= 0xFF  # same size, different bytes
    moves.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="sha256 does not match"):
        second_ner_folder(copy)
    moves.unlink()
    with pytest.raises(ModelError, match="missing"):
        second_ner_folder(copy)


@pytest.mark.real
@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Can you send the badge form to Ian? Thanks, Victor", "Victor"),
        ("Özger F. İnönü works for Pinecrest School.", "Özger F. İnönü"),
    ],
)
def test_the_second_pass_finds_names_the_small_one_misses(
    text: str, name: str, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = second_ner_folder(models_dir)
    assert folder is not None, f"run `privault models install {SECOND_NER_MODEL}`"
    alone = Detector(DetectorConfig.build([STANDARD]))
    both = Detector(DetectorConfig.build([STANDARD], second_ner=folder))

    def masked(detector: Detector) -> set[str]:
        return {text[s.start : s.end] for s in detector.detect(text) if STANDARD.counts(s)}

    # The spaCy recognisers alone (no name tagger, which finds most of these names too).
    with monkeypatch.context() as patch:
        patch.setattr(detector_module, "load_tagger", untrained_tagger)
        assert name not in masked(alone)
        assert name in masked(both)
    # Batched detection runs the second pass too, with the same result.
    assert both.detect_many([text, text]) == [both.detect(text)] * 2


@pytest.mark.real
def test_the_second_recogniser_leaves_its_string_table_on_disk_and_finds_the_same(
    models_dir: Path,
) -> None:
    """Its 709,000 strings cost 137 MB of every process that detects; its entities come
    from hashed features, so a load without them finds the same entities."""
    import spacy

    from privault.privacy import engine

    folder = second_ner_folder(models_dir)
    assert folder is not None, f"run `privault models install {SECOND_NER_MODEL}`"
    slim = engine.load_engine(folder)._second
    whole = spacy.load(folder, exclude=[n for n in engine._SECOND_EXCLUDE if n != "strings"])
    assert len(whole.vocab.strings) > 500_000
    texts = [
        "Özger F. İnönü works for Pinecrest School in Ankara.",
        "Met Ilsabet Marrowgate and Dr. Usamov at the Lisbon office on Friday 3 May.",
        "Can you send the badge form to Ian? Thanks, Martin",
    ]

    def entities(nlp: object) -> list[list[tuple[int, int, str]]]:
        docs = nlp.pipe(texts)  # type: ignore[attr-defined]
        return [[(e.start_char, e.end_char, e.label_) for e in doc.ents] for doc in docs]

    found = entities(slim)
    assert sum(map(len, found)) >= 5
    assert found == entities(whole)
    assert len(slim.vocab.strings) < 100_000
