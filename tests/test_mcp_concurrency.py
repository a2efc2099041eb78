"""The server under concurrent calls: reads run beside a slow ask, the ask queue is bounded,
concurrent writes all land with their audit rows, and every pooled connection sees what
other connections committed (notes, known entities, revokes).

Real vault files, real threads and the real lanes; the engines are the fakes, and the chat
model is one that stops inside its answer until the test lets it go.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import anyio
import pytest
from mcp import Client

from privault.caller import Caller
from privault.errors import AccessDenied
from privault.interfaces.agents import known_caller
from privault.interfaces.mcp.lanes import Activity, Lanes
from privault.interfaces.mcp.server import for_agent
from privault.models.chat import ChatResult, Message
from privault.privacy.detector import FakeDetector
from privault.retrieval.embedder import FakeEmbedder
from privault.store import audit
from privault.vault import Vault
from privault.vault.ask import DEFAULT_CHAT_MODEL

T = TypeVar("T")
OWNER = Caller.owner()
AGENT = "alice"
WAIT = 20.0  # seconds before a test gives up on something that should happen at once


class HeldChat:
    """A local chat model that stops inside `chat` until `release` is set."""

    name = "held"
    local = True

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.calls = 0

    def chat(self, messages: Sequence[Message], *, max_tokens: int = 256) -> ChatResult:
        self.calls += 1
        self.entered.set()
        if not self.release.wait(WAIT):
            raise RuntimeError("the test never released the model")
        return ChatResult(text="The hotel budget is 400 euros.")


@pytest.fixture
def vault(vault: Vault) -> Vault:
    vault.agents.issue(AGENT)
    for index in range(6):
        vault.note(f"# Trip {index}\n\nThe hotel budget for trip {index} is 400.", caller=OWNER)
    return vault


@pytest.fixture
def held(vault: Vault) -> HeldChat:
    chat = HeldChat()
    # The model every handle on the file shares (loaded once per process, in Engines).
    vault.shared.engines.chat(DEFAULT_CHAT_MODEL, lambda: chat)
    return chat


def other_process(vault: Vault) -> Vault:
    """The same file opened as another process (the CLI) would: its own engines."""
    return Vault.open(
        vault.path,
        models_dir=vault.settings.models_dir,
        embedder=FakeEmbedder(),
        detector_factory=FakeDetector,
    )


def error_text(result: Any) -> str:
    """A tool error's text without the SDK's "Error executing tool NAME: " prefix."""
    text = str(result.content[0].text)
    return text.split(": ", 1)[1] if text.startswith("Error executing tool ") else text


def run(fn: Callable[[], Awaitable[T]]) -> T:
    return anyio.run(fn)


async def on_every_reader(lanes: Lanes, fn: Callable[[Vault], T]) -> list[tuple[int, T]]:
    """`fn` on every reader handle at once (each call holds its handle until all have one),
    as (id of the handle, result)."""
    barrier = threading.Barrier(lanes.readers, timeout=WAIT)
    results: list[tuple[int, T]] = []

    def each(handle: Vault) -> tuple[int, T]:
        barrier.wait()
        return id(handle), fn(handle)

    async def one() -> None:
        results.append(await lanes.read(each))

    async with anyio.create_task_group() as group:
        for _ in range(lanes.readers):
            group.start_soon(one)
    assert len({handle for handle, _ in results}) == lanes.readers
    return results


@pytest.mark.parametrize("readers", [3, 0])
def test_a_search_is_answered_while_an_ask_is_inside_the_model(
    vault: Vault, held: HeldChat, readers: int
) -> None:
    lanes = Lanes(vault, readers=readers)
    server = for_agent(vault, AGENT, lanes=lanes)
    replies: dict[str, Any] = {}

    async def main() -> bool:
        async with Client(server) as asker, Client(server) as searcher:
            searched = anyio.Event()

            async def ask() -> None:
                replies["ask"] = await asker.call_tool("ask_memory", {"question": "hotel budget"})

            async def search() -> None:
                replies["search"] = await searcher.call_tool("memory_search", {"query": "hotel"})
                searched.set()

            async with anyio.create_task_group() as group:
                group.start_soon(ask)
                assert await anyio.to_thread.run_sync(held.entered.wait, WAIT)
                group.start_soon(search)
                with anyio.move_on_after(WAIT if readers else 1.0):
                    await searched.wait()
                answered_while_held = searched.is_set() and "ask" not in replies
                held.release.set()
        return answered_while_held

    answered_while_held = run(main)
    lanes.close()
    # With a pool the search does not wait for the model; under the single lock it does.
    assert answered_while_held is (readers > 0)
    assert not replies["search"].is_error and replies["search"].structured_content["results"]
    assert not replies["ask"].is_error
    assert "400" in replies["ask"].structured_content["answer"]


@pytest.mark.parametrize("readers", [2, 0])
def test_the_lanes_count_the_calls_they_serve(vault: Vault, held: HeldChat, readers: int) -> None:
    lanes = Lanes(vault, readers=readers, activity=Activity(quiet=0))
    server = for_agent(vault, AGENT, lanes=lanes)
    seen: dict[str, bool] = {}

    async def main() -> None:
        seen["before"] = lanes.activity.busy()
        async with Client(server) as asker:
            async with anyio.create_task_group() as group:
                group.start_soon(asker.call_tool, "ask_memory", {"question": "hotel budget"})
                assert await anyio.to_thread.run_sync(held.entered.wait, WAIT)
                seen["ask"] = lanes.activity.busy()
                held.release.set()
            seen["after"] = lanes.activity.busy()
        seen["read"] = await lanes.read(lambda _handle: lanes.activity.busy())
        seen["write"] = await lanes.write(lambda _handle: lanes.activity.busy())
        seen["end"] = lanes.activity.busy()

    run(main)
    lanes.close()
    assert seen == {
        "before": False,
        "ask": True,
        "after": False,
        "read": True,
        "write": True,
        "end": False,
    }


def test_activity_stays_busy_for_a_quiet_moment_after_the_last_call() -> None:
    now = [100.0]
    activity = Activity(quiet=1.0, clock=lambda: now[0])
    assert not activity.busy()
    with activity.call():
        now[0] += 5.0
        assert activity.busy()
    now[0] += 0.9
    assert activity.busy()  # the agent's next call is likely this close behind
    now[0] += 0.2
    assert not activity.busy()


def test_a_full_ask_queue_answers_busy_at_once(vault: Vault, held: HeldChat) -> None:
    lanes = Lanes(vault, readers=2, ask_queue=1)
    server = for_agent(vault, AGENT, lanes=lanes)
    replies: dict[str, Any] = {}

    async def main() -> None:
        async with Client(server) as first, Client(server) as second, Client(server) as third:

            async def ask(client: Any, key: str) -> None:
                replies[key] = await client.call_tool("ask_memory", {"question": "hotel budget"})

            async with anyio.create_task_group() as group:
                group.start_soon(ask, first, "running")
                assert await anyio.to_thread.run_sync(held.entered.wait, WAIT)
                group.start_soon(ask, second, "waiting")
                with anyio.fail_after(WAIT):
                    while lanes.asks < 2:
                        await anyio.sleep(0.01)
                with anyio.fail_after(WAIT):  # refused without waiting for the model
                    await ask(third, "refused")
                held.release.set()

    run(main)
    lanes.close()
    assert not replies["running"].is_error and not replies["waiting"].is_error
    refused = replies["refused"]
    assert refused.is_error and error_text(refused).startswith("busy: ")
    assert held.calls == 2  # the refused ask never reached the model
    rows = audit.entries(vault.conn, agent=AGENT, tools=["ask_memory"])
    assert sorted((row.ok, (row.reason or "")[:5]) for row in rows) == [
        (False, "busy:"),
        (True, ""),
        (True, ""),
    ]


def test_concurrent_writes_all_land_with_their_audit_rows(vault: Vault) -> None:
    lanes = Lanes(vault, readers=3)
    server = for_agent(vault, AGENT, lanes=lanes)
    written: list[str] = []

    async def client_work(client_number: int) -> None:
        async with Client(server) as client:
            for index in range(8):
                text = f"Parcel {client_number}-{index} left at the depot on Elm Road."
                added = await client.call_tool("remember", {"text": text})
                assert not added.is_error, added.content
                written.append(added.structured_content["doc_id"])
                found = await client.call_tool("memory_search", {"query": "parcel depot"})
                assert not found.is_error, found.content

    async def main() -> None:
        async with anyio.create_task_group() as group:
            for client_number in range(4):
                group.start_soon(client_work, client_number)

    run(main)
    lanes.close()
    assert len(set(written)) == 32
    rows = audit.entries(vault.conn, agent=AGENT, tools=["remember"], limit=1000)
    assert len(rows) == 32 and all(row.ok for row in rows)
    assert sorted(row.ids[0] for row in rows) == sorted(written)
    stored = {doc.doc_id for doc in vault.docs(caller=OWNER, limit=200).documents}
    assert set(written) <= stored


def test_every_pooled_reader_sees_a_write_another_connection_committed(vault: Vault) -> None:
    lanes = Lanes(vault, readers=3)
    caller = known_caller(vault, AGENT)

    def search(handle: Vault) -> list[str]:
        return [hit.text for hit in handle.search("zebra crossing", caller=caller).results]

    async def main() -> tuple[list[Any], list[Any]]:
        before = await on_every_reader(lanes, search)  # every reader open, mirrors loaded
        with other_process(vault) as cli:
            cli.note("The zebra crossing on Elm Road gets repainted in May.", caller=OWNER)
        return before, await on_every_reader(lanes, search)

    before, after = run(main)
    lanes.close()
    assert all(found == [] for _, found in before)
    assert all(any("zebra crossing" in text for text in found) for _, found in after)


def test_a_revoke_applies_to_the_next_call_on_every_pooled_reader(vault: Vault) -> None:
    lanes = Lanes(vault, readers=3)
    server = for_agent(vault, AGENT, lanes=lanes)

    def resolve(handle: Vault) -> str:
        try:
            return known_caller(handle, AGENT).name
        except AccessDenied:
            return "refused"

    async def main() -> tuple[list[Any], list[Any], Any]:
        before = await on_every_reader(lanes, resolve)
        with other_process(vault) as cli:
            cli.agents.revoke(AGENT)
        after = await on_every_reader(lanes, resolve)
        async with Client(server) as client:
            refused = await client.call_tool("memory_search", {"query": "hotel"})
        return before, after, refused

    before, after, refused = run(main)
    lanes.close()
    assert [name for _, name in before] == [AGENT] * 3
    assert [name for _, name in after] == ["refused"] * 3
    assert refused.is_error and error_text(refused).startswith("access_denied")
    row = audit.entries(vault.conn, agent=AGENT)[0]
    assert row.refused and not row.ok


def test_every_pooled_reader_masks_a_name_another_process_learnt(vault: Vault) -> None:
    vault.note("quintus abernethy-lowe fixed the boiler on tuesday", caller=OWNER)
    lanes = Lanes(vault, readers=3)
    caller = known_caller(vault, AGENT)

    def shown(handle: Vault) -> str:
        found = handle.search("boiler tuesday", caller=caller).results
        return " ".join(hit.text for hit in found).lower()

    async def main() -> tuple[list[Any], list[Any]]:
        before = await on_every_reader(lanes, shown)
        with other_process(vault) as cli:
            name = "Quintus Abernethy-Lowe"
            cli.statements.add(f"{name} is the heating engineer", caller=OWNER, entities=[name])
        return before, await on_every_reader(lanes, shown)

    before, after = run(main)
    lanes.close()
    assert all("abernethy" in text for _, text in before)  # not yet a known entity
    assert all("boiler" in text and "abernethy" not in text for _, text in after)


def test_handles_share_one_engines_and_one_detector_per_configuration(vault: Vault) -> None:
    with vault.sibling() as sibling:
        assert sibling.shared.engines is vault.shared.engines
        assert sibling.embedder is vault.embedder
        assert sibling.privacy.detector is vault.privacy.detector
        assert sibling.shared.engines.vectors_for("masked") is vault.shared.engines.vectors_for(
            "masked"
        )
        assert sibling.conn is not vault.conn


def test_detection_runs_one_call_at_a_time_across_threads(vault: Vault) -> None:
    inside = 0
    most = 0
    guard = threading.Lock()

    class Recording(FakeDetector):
        def detect_many(self, texts: Sequence[str]) -> list[list[Any]]:
            nonlocal inside, most
            with guard:
                inside += 1
                most = max(most, inside)
            try:
                threading.Event().wait(0.02)  # long enough for the other threads to arrive
                return super().detect_many(texts)
            finally:
                with guard:
                    inside -= 1

    engines = vault.shared.engines
    engines._detector_factory = Recording  # a factory of its own: a detector not yet built
    from privault.privacy.detector import DetectorConfig

    detector = engines.detector(DetectorConfig(ner=False, floor=0.31))
    threads = [
        threading.Thread(target=detector.detect_many, args=(["Call Dr. Jane Roe"],))
        for _ in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert most == 1


def test_the_shared_vector_mirror_loads_what_a_new_reader_can_see(vault: Vault) -> None:
    from privault.retrieval.vectors import VectorIndex
    from privault.store.connection import connect

    index = VectorIndex(vault.embedder.dim)
    first = connect(vault.path)
    index.refresh(first)  # loaded through one connection
    loaded = len(index)
    with other_process(vault) as cli:
        cli.note("The zebra crossing on Elm Road gets repainted in May.", caller=OWNER)
    later = connect(vault.path)  # a reader opened after the write, on the same mirror
    try:
        index.refresh(later)
        assert len(index) > loaded
        new_chunks = later.execute("SELECT count(*) FROM chunks").fetchone()[0]
        assert len(index) == new_chunks
    finally:
        first.close()
        later.close()
