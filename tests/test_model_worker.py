"""The supervised model worker: a crash, a kill or a hang costs one call, never the caller.

The fake engines run inside real worker processes and fault for real on a directive in
their text (a read of address 0, `abort()`, a SIGKILL of themselves, an endless sleep), so
these tests exercise the same supervisor a real model runs under.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import fake_vault, mcp_call

from privault.caller import Caller
from privault.errors import ModelError, ModelUnavailable
from privault.models.chat import Message
from privault.models.engines import Spec
from privault.models.handles import WorkerChat, WorkerEmbedder
from privault.models.health import board_path, read_board
from privault.models.supervisor import Deadline, ModelProcess, describe_exit
from privault.models.worker import NICENESS
from privault.store import agents, audit
from privault.vault import Vault
from privault.vault.ask import VaultAsk

QUICK = Deadline(2.0, per_prompt_char=0.0, silence=2.0, per_text=0.0, load_scaled=False)


def chat_worker(**options: Any) -> WorkerChat:
    process = ModelProcess(Spec("fake-chat", "fake"), **options)
    return WorkerChat(process.spec, deadline=QUICK, process=process)


def say(text: str) -> list[Message]:
    return [Message("system", "briefing"), Message("user", text)]


@pytest.fixture
def chat() -> Iterator[WorkerChat]:
    handle = chat_worker(backoff=(0.0,))
    yield handle
    handle.process.close()


@pytest.mark.parametrize(
    ("directive", "how"),
    [("[[crash:segv]]", "SIGSEGV"), ("[[crash:abort]]", "SIGABRT"), ("[[kill]]", "SIGKILL")],
)
def test_a_crash_is_one_calls_error_and_the_next_call_is_answered(
    chat: WorkerChat, directive: str, how: str
) -> None:
    assert chat.chat(say("first answer")).text == "first answer"
    first_pid = chat.process.pid
    with pytest.raises(ModelUnavailable, match=f"stopped \\(signal .*{how}.*restarting — retry"):
        chat.chat(say(f"please {directive}"))
    assert chat.chat(say("second answer")).text == "second answer"
    health = chat.health()
    assert health.state == "ready" and health.failures == 0 and health.restarts == 1
    assert how in (health.reason or "") and health.pid not in (None, first_pid)


def test_a_hang_is_cut_at_the_calls_deadline_and_the_worker_replaced(chat: WorkerChat) -> None:
    chat.chat(say("warm"))
    hung = chat.process.pid
    started = time.monotonic()
    with pytest.raises(ModelUnavailable, match="no sign of life for 2 s"):
        chat.chat(say("[[hang]]"))
    assert time.monotonic() - started < QUICK.base + 1.5
    assert hung is not None and not Path(f"/proc/{hung}").exists()  # killed and reaped
    assert chat.chat(say("after the hang")).text == "after the hang"


def test_a_call_broken_off_after_its_request_never_hands_its_answer_to_the_next(
    chat: WorkerChat, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Anything unexpected between sending a request and reading its answer (once, a
    # 400-digit timeout overflowing the deadline sum) left the answer in the pipe: the
    # next call, maybe another caller's, read it as its own.
    assert chat.chat(say("warm")).text == "warm"
    process = chat.process
    receive = process._receive

    def broken(seconds: float, ends: float | None = None) -> bytes:
        monkeypatch.setattr(process, "_receive", receive)
        raise RuntimeError("broken off")

    monkeypatch.setattr(process, "_receive", broken)
    with pytest.raises(RuntimeError, match="broken off"):
        chat.chat(say("the PIN is 4417"))
    health = chat.health()
    assert health.state == "idle" and health.pid is None  # stopped, not shown as ready
    assert "a call was broken off" in (health.reason or "")
    assert chat.chat(say("another question")).text == "another question"


def test_a_worker_killed_while_idle_costs_the_next_call_nothing(chat: WorkerChat) -> None:
    # Killed between calls (the out-of-memory killer, an owner's kill): the next caller
    # got "stopped (signal 9); it is restarting — retry" though no work was in flight.
    assert chat.chat(say("warm")).text == "warm"
    idle = chat.process.pid
    assert idle is not None
    os.kill(idle, signal.SIGKILL)
    ends = time.monotonic() + 5
    while chat.process.pid is not None:  # reaped: the pid is gone
        assert time.monotonic() < ends
        time.sleep(0.02)
    assert chat.chat(say("after the kill")).text == "after the kill"
    assert chat.process.pid not in (None, idle)


def test_a_slow_answer_that_shows_progress_is_not_a_hang(chat: WorkerChat) -> None:
    """Five seconds of writing, with a sign of life every second, against 2 s of silence."""
    assert chat.chat(say("[[trickle:5]] slowly")).text == "[[trickle:5]] slowly"
    assert chat.health().failures == 0


def _wait_for(state: str, handle: WorkerChat, seconds: float = 10.0) -> None:
    ends = time.monotonic() + seconds
    while handle.health().state != state:
        assert time.monotonic() < ends, f"still {handle.health().state}"
        time.sleep(0.05)


def test_an_unused_worker_is_unloaded_and_the_next_call_loads_it_again() -> None:
    handle = chat_worker(unload_after=0.5)
    try:
        assert handle.chat(say("first")).text == "first"
        first_pid = handle.process.pid
        assert first_pid is not None
        _wait_for("idle", handle)
        health = handle.health()
        assert health.pid is None and not _running(first_pid)
        assert health.reason == "unloaded after 0.5 s unused"
        assert handle.chat(say("second")).text == "second"
        health = handle.health()
        assert health.state == "ready" and health.pid not in (None, first_pid)
        assert health.restarts == 0 and health.failures == 0  # neither a restart nor a fault
    finally:
        handle.process.close()


def test_a_worker_in_use_is_not_unloaded() -> None:
    """Calls closer together than `unload_after`, and one answer longer than it, all reach
    the same worker."""
    handle = chat_worker(unload_after=1.0)
    try:
        handle.chat(say("warm"))
        pid = handle.process.pid
        for _ in range(6):
            time.sleep(0.4)
            handle.chat(say("again"))
        assert handle.chat(say("[[trickle:2]] long")).text == "[[trickle:2]] long"
        assert handle.process.pid == pid and handle.health().state == "ready"
        _wait_for("idle", handle)  # and once the calls stop, it goes
    finally:
        handle.process.close()


def test_the_prefix_is_read_once_and_handed_to_every_later_worker() -> None:
    """After an unload and after a crash, the next worker restores the prefix's KV cache
    the first one made (the fake's is its text) instead of reading the prefix again."""
    prefixes = ("<|im_start|>system\nbriefing<|im_end|>\n", "<|im_start|>system\nother<|im_end|>\n")
    process = ModelProcess(Spec("fake-chat", "fake", prefixes=prefixes), unload_after=0.5)
    handle = WorkerChat(process.spec, deadline=QUICK, process=process)
    try:
        assert handle.chat(say("first")).cached_tokens == 2
        assert process.facts["prefix_restored"] is False
        _wait_for("idle", handle)
        assert handle.chat(say("second")).cached_tokens == 2
        assert process.facts["prefix_restored"] is True
        with pytest.raises(ModelUnavailable):
            handle.chat(say("[[crash:segv]]"))
        _wait_for("ready", handle)
        assert process.facts["prefix_restored"] is True
    finally:
        process.close()


def test_a_worker_without_unload_after_stays_loaded() -> None:
    handle = chat_worker()
    try:
        handle.chat(say("warm"))
        pid = handle.process.pid
        time.sleep(1.0)
        assert handle.process.pid == pid and handle.health().state == "ready"
    finally:
        handle.process.close()


def test_the_owners_ask_timeout_bounds_a_whole_answer() -> None:
    process = ModelProcess(Spec("fake-chat", "fake"), backoff=(0.0,))
    chat = WorkerChat(process.spec, deadline=replace(QUICK, cap=3.0), process=process)
    try:
        process.start()  # timed from here: the cap bounds the answer, not the start
        started = time.monotonic()
        with pytest.raises(ModelUnavailable, match="ask_timeout") as cut:
            chat.chat(say("[[trickle:8]] too slowly"))
        assert time.monotonic() - started < 4.5
        assert not cut.value.failed and "restarting — retry" in str(cut.value)
        assert chat.chat(say("quick")).text == "quick"
    finally:
        process.close()


def test_answers_cut_by_the_ask_timeout_never_mark_the_model_failed() -> None:
    """Slowness (a busy machine) is not a fault: MAX_FAILURES cuts in a row leave the model
    usable, where as many crashes would mark it failed."""
    process = ModelProcess(Spec("fake-chat", "fake"), max_failures=2, backoff=(0.0,))
    chat = WorkerChat(process.spec, deadline=replace(QUICK, cap=1.0), process=process)
    try:
        for _ in range(3):
            with pytest.raises(ModelUnavailable, match="ask_timeout") as cut:
                chat.chat(say("[[trickle:3]] too slowly"))
            assert not cut.value.failed
        assert chat.health().state != "failed" and chat.health().failures == 0
        assert chat.chat(say("quick")).text == "quick"
    finally:
        process.close()


def test_kill_9_in_the_middle_of_an_answer(chat: WorkerChat) -> None:
    chat.chat(say("warm"))
    pid = chat.process.pid
    assert pid is not None
    killer = threading.Timer(0.3, os.kill, (pid, signal.SIGKILL))
    killer.start()
    with pytest.raises(ModelUnavailable, match="SIGKILL"):
        chat.chat(say("[[slow:5]] a long answer"))
    killer.join()
    assert chat.chat(say("next")).text == "next"


def test_failures_in_a_row_mark_the_model_failed_until_the_pause_is_over() -> None:
    chat = chat_worker(max_failures=2, retry_failed_after=1.0, backoff=(0.0,))
    try:
        with pytest.raises(ModelUnavailable) as first:
            chat.chat(say("[[crash:segv]]"))
        assert not first.value.failed
        with pytest.raises(ModelUnavailable) as second:
            chat.chat(say("[[crash:abort]]"))
        assert second.value.failed and "2 times in a row" in str(second.value)
        health = chat.health()
        assert health.state == "failed" and "SIGABRT" in (health.reason or "")
        started = time.monotonic()
        with pytest.raises(ModelUnavailable, match="is unavailable") as refused:
            chat.chat(say("refused at once"))
        assert refused.value.failed and time.monotonic() - started < 0.5
        time.sleep(1.1)  # the pause is over: one more try, which works
        assert chat.chat(say("back")).text == "back"
        assert chat.health().state == "ready"
    finally:
        chat.process.close()


def test_a_model_that_cannot_load_is_failed_at_once_with_the_reason(tmp_path: Path) -> None:
    process = ModelProcess(Spec("llama-chat", "smollm2-135m", str(tmp_path)))
    with pytest.raises(ModelError, match="not installed|cannot be used|missing"):
        process.start()
    assert process.health().state == "failed"
    with pytest.raises(ModelUnavailable, match="is unavailable"):
        process.start()  # retrying cannot help a missing file: refused, no new worker
    # Its files changed (installed again, here badly): one more try, without a restart of
    # the server, and then refused again until they change once more.
    folder = tmp_path / "smollm2-135m"
    folder.mkdir()
    (folder / "SmolLM2-135M-Instruct.Q4_1.gguf").write_bytes(b"still not a model")
    with pytest.raises(ModelUnavailable, match="^model smollm2-135m cannot be used"):
        process.start()  # the load's own error: it ran (a refusal says "is unavailable")
    with pytest.raises(ModelUnavailable, match="is unavailable"):
        process.start()
    process.close()


def test_the_worker_writes_no_core_dump_and_dies_with_its_parent(chat: WorkerChat) -> None:
    chat.chat(say("warm"))
    pid = chat.process.pid
    limits = Path(f"/proc/{pid}/limits").read_text()
    core = next(line for line in limits.splitlines() if line.startswith("Max core file size"))
    assert core.split()[4:6] == ["0", "0"]
    status = Path(f"/proc/{pid}/status").read_text()
    assert "SigIgn" in status  # Ctrl-C is the parent's to handle
    sigign = int(
        next(line for line in status.splitlines() if line.startswith("SigIgn")).split()[1], 16
    )
    assert sigign & (1 << (signal.SIGINT - 1))
    # It yields the CPU to the server's own calls.
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, mine + NICENESS)


def test_the_embedder_worker_returns_the_fakes_vectors_and_survives_a_crash() -> None:
    spec = Spec("fake-embed", "fake-strong", dim=64)
    embedder = WorkerEmbedder(spec, deadline=QUICK, process=ModelProcess(spec, backoff=(0.0,)))
    try:
        texts = [f"line {n} about the garden" for n in range(19)]
        vectors = embedder.embed_documents(texts)
        assert vectors.shape == (19, 64) and vectors.dtype == np.float32
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
        assert np.allclose(embedder.embed_query(texts[0]), embedder.embed_query(texts[0]))
        with pytest.raises(ModelUnavailable):
            embedder.embed_documents(["[[crash:segv]]"])
        assert embedder.embed_query("the garden").shape == (64,)
    finally:
        embedder.process.close()


def test_describe_exit_names_signals_and_statuses() -> None:
    assert describe_exit(-11) == "signal 11 (SIGSEGV)"
    assert describe_exit(3) == "exit status 3"
    assert describe_exit(None) == "it stopped answering"


# -- through the vault and the MCP server --------------------------------------------------


@pytest.fixture
def vault(tmp_path: Path, chat: WorkerChat) -> Iterator[Vault]:
    found = fake_vault(tmp_path / "vault.db")
    agents.issue(found.conn, "alice")
    found.note("# Boiler\n\nThe boiler service is booked for 3 March.", caller=Caller.owner())
    found.asking = VaultAsk(found.shared, chat=chat)
    yield found
    found.close()


def test_an_ask_whose_worker_crashes_is_a_structured_error_audited_and_the_vault_goes_on(
    vault: Vault, chat: WorkerChat
) -> None:
    crashed = mcp_call(vault, "alice", "ask_memory", question="boiler service [[crash:segv]]")
    assert crashed.is_error
    text = crashed.content[0].text
    assert "model_unavailable: the local model fake stopped (signal 11 (SIGSEGV))" in text
    entry = audit.entries(vault.conn, agent="alice")[0]
    assert entry.tool == "ask_memory" and not entry.ok and "signal 11" in (entry.reason or "")
    found = mcp_call(vault, "alice", "memory_search", query="boiler")
    assert not found.is_error and found.structured_content["results"]
    again = mcp_call(vault, "alice", "ask_memory", question="when is the boiler service")
    assert not again.is_error and again.structured_content["refused"] is None


def test_a_failed_model_makes_ask_answer_that_it_is_unavailable(vault: Vault) -> None:
    chat = chat_worker(max_failures=1)
    vault.asking = VaultAsk(vault.shared, chat=chat)
    try:
        crashed = vault.ask("boiler [[crash:abort]]", caller=Caller.owner())
        assert crashed.refused is not None and "SIGABRT" in crashed.refused
        reply = vault.ask("when is the boiler service", caller=Caller.owner())
        assert reply.refused is not None and "is unavailable" in reply.refused
        assert reply.backend is None  # never a remote model instead
        assert vault.search("boiler", caller=Caller.owner()).results  # everything else works
    finally:
        chat.process.close()


def test_status_shows_a_failed_worker_with_its_reason_to_every_process(vault: Vault) -> None:
    engines = vault.shared.engines
    spec = Spec("fake-chat", "fake-answerer")
    process = ModelProcess(spec, max_failures=1, on_change=engines.on_health)
    vault.asking = VaultAsk(vault.shared, chat=WorkerChat(spec, deadline=QUICK, process=process))
    try:
        assert vault.ask("boiler", caller=Caller.owner()).refused is None
        (ready,) = [w for w in vault.status().workers if w["name"] == "fake-answerer"]
        assert ready["state"] == "ready" and ready["pid"] == process.pid
        vault.ask("boiler [[crash:segv]]", caller=Caller.owner())
        (failed,) = [w for w in vault.status().workers if w["name"] == "fake-answerer"]
        assert failed["state"] == "failed" and "SIGSEGV" in failed["reason"]
        # What another process reads: the file beside the vault, rows of live processes only.
        board = board_path(vault.path)
        rows = json.loads(board.read_text())
        assert [row["state"] for row in rows.values() if row["name"] == "fake-answerer"] == [
            "failed"
        ]
        rows["ghost@999999999"] = dict(failed, process=999999999)
        board.write_text(json.dumps(rows))
        assert len([w for w in read_board(board) if w["name"] == "fake-answerer"]) == 1
    finally:
        process.close()


def test_a_worker_ends_soon_after_its_parent_is_killed() -> None:
    """No orphaned worker holds private text after the server dies (kill -9 included)."""
    code = (
        "import time\n"
        "from privault.models.engines import Spec\n"
        "from privault.models.supervisor import ModelProcess\n"
        "process = ModelProcess(Spec('fake-chat', 'orphan'))\n"
        "process.start()\n"
        "print(process.pid, flush=True)\n"
        "time.sleep(120)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    worker = int(parent.stdout.readline())
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _running(worker):
        time.sleep(0.1)
    assert not _running(worker)


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
