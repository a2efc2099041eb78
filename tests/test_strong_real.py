"""The real strong model (EmbeddingGemma-300M as converted at install) on small inputs.

The reference vectors in `fixtures/embeddinggemma_reference.*` were computed once with
sentence-transformers and torch from the same fp32 weights (never a dependency of
privault): the Q8_0 GGUF run by llama.cpp must agree with them to a cosine of 0.999, which
checks the conversion, the prompts, the Dense projections and the pooling together.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from privault import Caller, Vault
from privault.errors import ModelError
from privault.models import catalog
from privault.models.handles import WorkerEmbedder, local_embedder
from privault.privacy.detector import FakeDetector
from privault.retrieval.embedder import DEFAULT_EMBEDDER as FAST_MODEL
from privault.retrieval.embedder import FakeEmbedder
from privault.retrieval.strong import DEFAULT_STRONG_MODEL
from privault.store.index_reads import Filters
from privault.vault.finding import Finder

pytestmark = pytest.mark.real
FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def gemma(models_dir: Path) -> Iterator[WorkerEmbedder]:
    embedder = local_embedder(models_dir, DEFAULT_STRONG_MODEL)
    yield embedder
    embedder.process.close()


def _real_strong_vault(tmp_path: Path, models_dir: Path) -> Vault:
    """A vault file with the real strong model beside the fake fast embedder and detector."""
    return Vault.open(
        tmp_path / "v.db",
        models_dir=models_dir,
        embedder=FakeEmbedder(),
        detector_factory=FakeDetector,
        strong_embedder=local_embedder(models_dir, DEFAULT_STRONG_MODEL),
    )


def test_vectors_match_sentence_transformers(gemma: WorkerEmbedder) -> None:
    texts = json.loads((FIXTURES / "embeddinggemma_reference.json").read_text(encoding="utf-8"))
    with np.load(FIXTURES / "embeddinggemma_reference.npz") as reference:
        queries = reference["queries"].astype(np.float32)
        documents = reference["documents"].astype(np.float32)
    got_documents = gemma.embed_documents(texts["documents"])
    got_queries = np.stack([gemma.embed_query(q) for q in texts["queries"]])
    assert got_documents.shape == (len(texts["documents"]), 768)
    assert np.allclose(np.linalg.norm(got_documents, axis=1), 1.0, atol=1e-4)
    for got, want in ((got_documents, documents), (got_queries, queries)):
        cosine = (got * want).sum(axis=1) / np.linalg.norm(want, axis=1)
        assert cosine.min() >= 0.999, cosine
    # And it ranks: each query's best document is the one it is about.
    assert list((got_queries @ got_documents.T).argmax(axis=1)) == [0, 1, 2]


def test_a_batch_gives_the_vectors_one_at_a_time_gives(gemma: WorkerEmbedder) -> None:
    texts = [f"Line {i}: the boiler was fixed on day {i} by the plumber." for i in range(7)]
    together = gemma.embed_documents(texts)
    alone = np.stack([gemma.embed_documents([text])[0] for text in texts])
    # The same vectors up to quantised arithmetic (batched matrix kernels round differently);
    # a sequence that saw its neighbours in the batch would be far off.
    assert (together * alone).sum(axis=1).min() >= 0.999


def test_the_vault_indexes_and_ranks_with_the_real_model(tmp_path: Path, models_dir: Path) -> None:
    owner = Caller.owner()
    lines = [
        "Dana: the kids loved the aquarium, especially the octopus.",
        "Lee: I finally repaired the garden fence last weekend.",
        "Dana: my sister moved to Lisbon for a new job in March.",
        "Lee: we adopted a grey kitten from the shelter.",
    ]
    with _real_strong_vault(tmp_path, models_dir) as vault:
        vault.note("\n".join(lines), caller=owner, title="Chat")
        report = vault.strong.index(caller=owner)
        assert report.windows == len(lines) and vault.strong.coverage().complete
        index = vault.shared.engines.strong_vectors_for("plain")
        assert index is not None
        index.refresh(vault.conn)
        engine = vault.shared.engines.strong
        assert engine is not None
        best = index.search(engine.embed_query("Which pet did they get?"), 1, conn=vault.conn)[0][0]
        spans = vault.conn.execute("SELECT start, end FROM chunks WHERE id = ?", (best,))
        start, end = spans.fetchone()
        window = vault.conn.execute(
            "SELECT s.text FROM chunks c JOIN sections s ON s.id = c.section_id WHERE c.id = ?",
            (best,),
        ).fetchone()[0][start:end]
        assert window.endswith(lines[3])


def test_a_partial_pass_ranks_what_it_covered_with_the_real_model(
    tmp_path: Path, models_dir: Path
) -> None:
    """Half covered: the windows the real model embedded carry its cosine, the pet line's
    the highest; the others are ranked by the fast legs alone."""
    owner = Caller.owner()
    notes = [  # the pass covers the newest first: the last two
        "Lee: I finally repaired the garden fence last weekend.",
        "Dana: my sister moved to Lisbon for a new job in March.",
        "Dana: the kids loved the aquarium, especially the octopus.",
        "Lee: we adopted a grey kitten from the shelter.",
    ]
    with _real_strong_vault(tmp_path, models_dir) as vault:
        for text in notes:
            vault.note(text, caller=owner, title="Chat")
        vault.strong.index(caller=owner, limit=2)
        assert vault.strong.coverage().covered == 2 and not vault.strong.coverage().complete
        hits = Finder.of(vault.shared).hits("Which pet did they get?", Filters(), 10, strong=True)
        texts = dict(vault.conn.execute("SELECT id, text FROM sections").fetchall())
    scored = {texts[hit.section_id]: hit.strong_similarity for hit in hits}
    assert {text for text, cosine in scored.items() if cosine is not None} == set(notes[2:])
    assert (scored[notes[3]] or 0) > (scored[notes[2]] or 0)


def test_an_altered_model_file_is_refused(tmp_path: Path, models_dir: Path) -> None:
    model = catalog.manifest(models_dir, DEFAULT_STRONG_MODEL)
    copy = tmp_path / "models"
    (copy / DEFAULT_STRONG_MODEL).mkdir(parents=True)
    source = models_dir / DEFAULT_STRONG_MODEL / model.files[0].path
    broken = copy / DEFAULT_STRONG_MODEL / model.files[0].path
    data = bytearray(source.read_bytes())
    data[len(data) // 2] ^= 0xFF
    broken.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="sha256"):
        local_embedder(copy, DEFAULT_STRONG_MODEL)
    # A vault whose strong model is altered ranks without it; it does not fail every
    # context and ask call (the model only ranks), and its status names the fault.
    (copy / FAST_MODEL).symlink_to(models_dir / FAST_MODEL)
    with Vault.open(tmp_path / "v.db", models_dir=copy, detector_factory=FakeDetector) as vault:
        vault.note("The boiler was serviced in March by the plumber.", caller=Caller.owner())
        found = vault.context("when was the boiler serviced", caller=Caller.owner())
        assert [piece.text for piece in found.sections][:1] == [
            "The boiler was serviced in March by the plumber."
        ]
        coverage = vault.strong.coverage()
        assert coverage.model == DEFAULT_STRONG_MODEL
        assert "sha256 does not match" in (coverage.problem or "")


def test_an_installed_model_without_llama_cpp_is_a_clear_error(
    tmp_path: Path, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shadow = tmp_path / "shadow" / "llama_cpp"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('not built')\n")
    # The worker process imports llama.cpp; this one never does.
    paths = [str(shadow.parent), *sys.path]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))
    embedder = local_embedder(models_dir, DEFAULT_STRONG_MODEL)
    try:
        with pytest.raises(ModelError, match=r"llama-cpp-python is not: install privault\[llm\]"):
            embedder.embed_query("a query")
        assert embedder.health().state == "failed"
    finally:
        embedder.process.close()
