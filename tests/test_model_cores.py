"""A llama.cpp call takes a second thread only when a core is idle (`models.cores`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from privault.models import cores


@pytest.mark.parametrize(
    ("machine", "others", "wanted", "threads"),
    [
        (2, 0, 2, 2),  # nothing else runs: both cores
        (2, 1, 2, 1),  # another program wants a core: one thread
        (2, 5, 2, 1),  # a busy machine
        (8, 2, 2, 2),  # idle cores to spare: no more than asked
        (8, 2, 16, 6),
        (2, 0, 1, 1),
        (1, 0, 2, 1),
    ],
)
def test_threads_follow_the_idle_cores(
    monkeypatch: pytest.MonkeyPatch, machine: int, others: int, wanted: int, threads: int
) -> None:
    monkeypatch.setattr(cores, "cores", lambda: machine)
    monkeypatch.setattr(cores, "others_running", lambda: float(others))
    assert cores.threads_now(wanted) == threads


@pytest.mark.parametrize(
    ("machine", "others", "spare"), [(2, 0, True), (2, 1, False), (2, 0.5, False), (4, 2, True)]
)
def test_a_spare_core_is_one_no_other_program_wants(
    monkeypatch: pytest.MonkeyPatch, machine: int, others: float, spare: bool
) -> None:
    monkeypatch.setattr(cores, "cores", lambda: machine)
    monkeypatch.setattr(cores, "others_running", lambda: others)
    monkeypatch.setattr(cores, "_spare", (-cores.SPARE_CORE_TTL_S, not spare))
    assert cores.spare_core() is spare
    monkeypatch.setattr(cores, "others_running", lambda: machine)  # a second later: busy
    assert cores.spare_core() is spare  # one look serves a second


def fake_proc(root: Path, running: int, threads: dict[str, str]) -> None:
    """A /proc with `running` runnable tasks and processes' threads in the given states
    (`"self/1": "R"`); a thread's name holds a parenthesis, as real ones may."""
    root.mkdir()
    (root / "stat").write_text(f"cpu  1 2 3\nprocs_running {running}\nprocs_blocked 0\n")
    for name, state in threads.items():
        task = root / name.replace("/", "/task/")
        task.mkdir(parents=True)
        (task / "stat").write_text(f"{task.name} (py (worker)) {state} 1 2 3\n")


def test_this_process_and_its_parent_are_not_other_programs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    parent = os.getppid()
    threads = {"self/1": "R", "self/2": "S", f"{parent}/7": "R", f"{parent}/8": "R", "99/5": "R"}
    fake_proc(tmp_path / "proc", 5, threads)
    monkeypatch.setattr(cores, "_PROC", tmp_path / "proc")
    assert cores._runnable_threads("self") == 1
    assert cores.others_running() == 2  # 5 runnable, 3 of them this process and its parent


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_caller_is_running_when_it_looks() -> None:
    assert cores._runnable_threads("self") >= 1
    assert cores.cores() >= 1


def test_without_proc_the_load_average_stands_in(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(cores, "_PROC", tmp_path / "missing")
    monkeypatch.setattr(cores.os, "getloadavg", lambda: (3.0, 2.0, 1.0))
    assert cores.others_running() == 3.0


def test_a_moment_of_other_work_does_not_take_the_second_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    looks = iter([1.0, 0.0, 1.0])
    monkeypatch.setattr(cores, "cores", lambda: 2)
    monkeypatch.setattr(cores, "others_running", lambda: next(looks))
    monkeypatch.setattr(cores, "SAMPLE_GAP_S", 0.0)
    assert cores.threads_now(2) == 2


def test_other_work_seen_at_every_look_does(monkeypatch: pytest.MonkeyPatch) -> None:
    looks = iter([2.0, 1.0, 1.0])
    monkeypatch.setattr(cores, "cores", lambda: 2)
    monkeypatch.setattr(cores, "others_running", lambda: next(looks))
    monkeypatch.setattr(cores, "SAMPLE_GAP_S", 0.0)
    assert cores.threads_now(2) == 1
