"""The real embedder and detector on small inputs (models installed by `make test`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from privault.caller import Caller
from privault.retrieval import embedder as embedder_module
from privault.retrieval.embedder import FastEmbedder
from privault.vault import Vault

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def embedder(models_dir: Path) -> FastEmbedder:
    return FastEmbedder(models_dir)


def test_embeddings_are_unit_length_and_semantic(embedder: FastEmbedder) -> None:
    cat, kitten, market = embedder.embed(
        ["The cat sits on the mat", "A kitten rests on a rug", "Stock markets fell sharply"]
    )
    assert embedder.dim == 384
    assert abs(float(np.linalg.norm(cat)) - 1) < 1e-3
    assert float(cat @ kitten) > float(cat @ market) + 0.3
    query = embedder.embed_query("a small cat lying down")
    assert float(query @ kitten) > float(query @ market)
    assert embedder.count_tokens("hello world") == 2


def test_a_query_vector_is_kept_for_a_moment_and_equals_the_passage_vector(
    embedder: FastEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "when is the boiler service due"
    first = embedder.embed_query(text)
    runs = []
    session = embedder._session

    class Counting:
        def run(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            runs.append(args)
            return session.run(*args, **kwargs)

    embedder._session = Counting()
    try:
        again = embedder.embed_query(text)
        assert runs == [] and np.array_equal(first, again)  # remembered: no model run
        with pytest.raises(ValueError):
            again[0] = 1.0  # read-only: no caller can change the next one's vector
        other = embedder.embed_query("a different question")
        assert len(runs) == 1 and float(other @ first) < 0.99
        # Only for a moment: an agent must not learn from its timing what others asked.
        monkeypatch.setattr(embedder_module, "_QUERY_SECONDS", 0.0)
        assert np.array_equal(embedder.embed_query(text), first) and len(runs) == 2
    finally:
        embedder._session = session
    # The query path gives the passage path's vector (statements rank queries with it).
    assert float(first @ embedder.embed([text])[0]) > 0.9999


def test_search_by_meaning_and_redaction_for_an_agent(
    tmp_path: Path, embedder: FastEmbedder, models_dir: Path
) -> None:
    vault = Vault.open(tmp_path / "v.db", models_dir=models_dir, embedder=embedder)
    with vault:
        owner, agent = Caller.owner(), Caller.agent("claude")
        vault.note(
            "# Dentist\nAppointment with Maria Gonzalez on 3 March at 10:00. "
            "Her phone is +1 415 555 0134.",
            caller=owner,
        )
        vault.note("# Groceries\nOat milk, rye bread, coffee beans.", caller=owner)
        top = vault.search("when do I see the tooth doctor", caller=owner).results[0]
        assert top.title == "Dentist"
        seen = vault.search("when do I see the tooth doctor", caller=agent)
        text = seen.results[0].text
        assert "Maria" not in text and "Gonzalez" not in text and "555" not in text
        assert "<PERSON_1>" in text and "<PHONE_NUMBER_1>" in text
        assert seen.privacy.policy == "standard"
        assert seen.privacy.held_back.get("PERSON", 0) >= 1


def test_ask_as_an_agent_with_the_real_local_model(
    tmp_path: Path, embedder: FastEmbedder, models_dir: Path
) -> None:
    vault = Vault.open(
        tmp_path / "ask.db", models_dir=models_dir, embedder=embedder, chat_model="smollm2-135m"
    )
    with vault:
        owner, agent = Caller.owner(), Caller.agent("claude")
        vault.note(
            "# Plumber\nInvoice 4471 from Tom Hargreaves: 312.50 EUR. "
            "Write to tom.hargreaves@example.com.",
            caller=owner,
        )
        reply = vault.ask(
            "What is the plumber's email address? Spell it out.", caller=agent, budget=200
        )
        assert reply.refused is None and reply.backend == "local"
        assert reply.model == "smollm2-135m"
        assert "tom.hargreaves@example.com" not in reply.answer.lower()
        assert "hargreaves" not in reply.answer.lower()
        assert reply.citations and reply.citations[0].title == "Plumber"
        assert reply.followup
        again = vault.ask(
            "What is the plumber's email address? Spell it out.",
            caller=agent,
            budget=200,
            instruction="one word only",
            followup=reply.followup,
        )
        assert again.refused is None


def test_a_passage_vector_is_the_same_alone_in_a_batch_and_as_a_query(
    embedder: FastEmbedder,
) -> None:
    # Batches are padded to their longest text; padding must not move a text's vector.
    short = "boiler service"
    batch = embedder.embed(
        [short, "the boiler service is due in March, call the plumber on Tuesday", "ok"]
    )
    alone = embedder.embed([short])[0]
    np.testing.assert_allclose(batch[0], alone, atol=1e-5)
    np.testing.assert_allclose(embedder.embed_query(short), alone, atol=1e-5)
    assert batch.dtype == np.float32 and batch.shape == (3, 384)
