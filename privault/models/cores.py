"""How many CPU threads a llama.cpp call may use right now.

llama.cpp's threads meet at a barrier after every operation of a decode, and the ones that
arrive first spin while they wait. When a second thread has no idle core to run on, the
whole decode moves at the pace of the descheduled one: on 2 cores with other programs
running (load 6), a 17-token query embedding took 1.2 s at the median and 5.9 s at p95
with two threads, against 0.17 / 0.23 s with one. A call therefore takes more than one
thread only for the cores that other programs leave idle when it starts.

numpy's BLAS gets one thread in any process that opens a vault (`one_blas_thread`): its
products here are small, and OpenBLAS's helper thread spins for about a tenth of a second
after each one, on the core a model worker's second thread wanted.

"Other programs" are the tasks the kernel counts as runnable (`procs_running` in
/proc/stat) less the runnable threads of this process and of its parent (the server a
model worker answers, whose short search legs run beside a query on purpose). Where /proc
is not there, the one-minute load average stands in.
"""

from __future__ import annotations

import functools
import os
import time
from pathlib import Path

_PROC = Path("/proc")


def cores() -> int:
    """CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def _runnable_threads(pid: int | str) -> int:
    """Threads of process `pid` in state R (0 if it cannot be read)."""
    count = 0
    try:
        tasks = list((_PROC / str(pid) / "task").iterdir())
    except OSError:
        return 0
    for task in tasks:
        try:
            stat = (task / "stat").read_text()
        except OSError:  # the thread ended meanwhile
            continue
        if stat[stat.rfind(")") + 2 : stat.rfind(")") + 3] == "R":
            count += 1
    return count


def others_running() -> float:
    """Tasks of other programs that want a CPU now."""
    try:
        for line in (_PROC / "stat").read_text().splitlines():
            if line.startswith("procs_running "):
                running = int(line.split()[1])
                return max(0, running - _runnable_threads("self") - _runnable_threads(os.getppid()))
    except OSError:
        pass
    return os.getloadavg()[0]


SPARE_CORE_TTL_S = 1.0
_spare: tuple[float, bool] = (-SPARE_CORE_TTL_S, False)


def spare_core() -> bool:
    """Whether a core is idle for a second thread of this process, for work of a few
    milliseconds (a search leg). One answer serves a second: looking reads a file per
    thread of this process and its parent (5 ms a search at load 3, when every search
    looked), and takes the fewest others of a few looks as `threads_now` does (with one
    look, a moment of a kernel thread turned the split off for a second: 28% of the
    searches of a quiet run)."""
    global _spare
    now = time.monotonic()
    if now - _spare[0] >= SPARE_CORE_TTL_S:
        _spare = (now, threads_now(2) >= 2)
    return _spare[1]


SAMPLES = 3  # looks, a millisecond apart: a kernel thread's moment on a core is not load
SAMPLE_GAP_S = 0.001


def threads_now(wanted: int) -> int:
    """At most `wanted` threads: as many as there are cores other programs leave idle,
    and always one. The fewest others seen in a few looks counts: one look on an idle
    machine sees a kernel thread running about one time in sixteen, and a call decides
    its threads once for all of its work (a whole answer)."""
    if wanted <= 1:
        return 1
    others = others_running()
    for _ in range(SAMPLES - 1):
        if others == 0:
            break
        time.sleep(SAMPLE_GAP_S)
        others = min(others, others_running())
    return max(1, min(wanted, int(cores() - others)))


@functools.cache
def one_blas_thread() -> None:
    """numpy's BLAS on one thread for the rest of this process (once). A context pack on
    LoCoMo with the strong leg: p50 / p95 142 / 160 ms with OpenBLAS's two threads, whose
    helper spun after each product while the strong model's worker embedded the next
    query, against 59 / 76 ms with one; a memory_search at 10,000 sections took 52 CPU-ms
    with two threads and 27 with one, in the same wall time."""
    import numpy  # noqa: F401 - its BLAS must be loaded for the limit to reach it
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
