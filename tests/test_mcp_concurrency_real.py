"""The real engines shared by pooled handles: searches on four handles at once answer
exactly as one handle does alone, and notes written through the real detector and
embedder while those searches run are masked exactly as a lone writer masks them."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from privault.caller import Caller
from privault.interfaces.agents import known_caller
from privault.vault import Vault

pytestmark = pytest.mark.real

OWNER = Caller.owner()
NOTES = [
    "# Boiler\n\nThe boiler service is booked with Jane Roe, jane.roe@example.com, for May.",
    "# Rent\n\nRent goes to GB29 NWBK 6016 1331 9268 19 on the first of every month.",
    "# Dentist\n\nCheck-up with Dr. Maria Gonzalez on 3 March, phone +44 20 7946 0958.",
    "# Garden\n\nPlant the tulips in October; the shed by the hedge needs a new padlock.",
]
LATER = [
    f"# Visit {index}\n\nTomasz Wójcik came by on day {index} about the fence, "
    f"call him on +44 20 7946 09{index:02d}."
    for index in range(5)
]
QUERIES = ["boiler service", "rent", "dentist phone", "tulips shed"]


def answers(vault: Vault, caller: Caller, query: str) -> list[tuple[str, str]]:
    return [(hit.node_id, hit.text) for hit in vault.search(query, caller=caller).results]


def in_threads(jobs: list[Callable[[], None]]) -> None:
    """Run every job at once (released together); re-raise the first failure."""
    start = threading.Barrier(len(jobs))
    failures: list[BaseException] = []

    def run(job: Callable[[], None]) -> None:
        try:
            start.wait()
            job()
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(600)
    if failures:
        raise failures[0]


def masked_visits(vault: Vault, caller: Caller) -> list[str]:
    """What the agent reads of each visit note, in order."""
    listed = vault.docs(caller=OWNER, limit=100).documents
    ids = {str(doc.title): doc.doc_id for doc in listed}
    texts = []
    for index in range(len(LATER)):
        tree = vault.tree(ids[f"Visit {index}"], caller=OWNER)
        texts.append(vault.read(tree.nodes[-1].node_id, caller=caller).text)
    return texts


def test_pooled_handles_on_the_real_engines_answer_as_one_does(
    tmp_path: Path, models_dir: Path
) -> None:
    with Vault.open(tmp_path / "v.db", models_dir=models_dir) as vault:
        vault.agents.issue("claude")
        for text in NOTES:
            vault.note(text, caller=OWNER)
        caller = known_caller(vault, "claude")
        alone = {query: answers(vault, caller, query) for query in QUERIES}
        assert all(alone.values())
        readers = [vault.sibling() for _ in range(4)]
        writer = vault.sibling()
        seen: list[tuple[str, list[tuple[str, str]]]] = []

        def read(handle: Vault) -> Callable[[], None]:
            def job() -> None:
                for _ in range(3):
                    for query in QUERIES:
                        seen.append((query, answers(handle, caller, query)))

            return job

        in_threads([read(handle) for handle in readers])
        assert len(seen) == 4 * 3 * len(QUERIES)
        assert all(got == alone[query] for query, got in seen)

        def write() -> None:
            for text in LATER:
                writer.note(text, caller=OWNER)

        in_threads([write, *(read(handle) for handle in readers)])
        concurrent = masked_visits(vault, caller)
        for handle in [*readers, writer]:
            handle.close()

    with Vault.open(tmp_path / "alone.db", models_dir=models_dir) as lone:
        lone.agents.issue("claude")
        for text in LATER:
            lone.note(text, caller=OWNER)
        assert concurrent == masked_visits(lone, known_caller(lone, "claude"))
    assert all("Wójcik" not in text and "7946" not in text for text in concurrent)
