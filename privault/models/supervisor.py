"""The parent's side of a model worker: start it, talk to it, and survive its death.

A native fault in llama.cpp (a kernel that does not run on this CPU, an out-of-memory kill)
ends the process it happens in. So a model never runs in a process that serves callers: a
`ModelProcess` starts `worker.py` as a child, hands it one end of an anonymous socket pair
(the only way private text travels: no port, no socket path), and sends it one call at a
time. What can go wrong, and what the caller sees:

* the child dies (a signal, an exit) or stops answering within the call's deadline (it is
  then killed): the call raises `ModelUnavailable` ("the local model stopped (signal 11);
  it is restarting — retry"), and a new child is started at once in the background, after
  a backoff that grows with the failures in a row;
* a chat call still being written when the owner's `ask_timeout` runs out: the child is
  stopped and replaced the same way, but that is slowness, not a fault — it is not counted
  towards the failures below (a busy machine must not get its model marked failed);
* `MAX_FAILURES` failures in a row: the model is marked failed with the reason; calls are
  refused at once with `ModelUnavailable(failed=True)` (ask then answers that the local
  model is unavailable, context ranks without it) until `RETRY_FAILED_AFTER` has passed,
  when one call may try again;
* the model file is bad (a hash mismatch, a missing runtime): a `ModelError` the child
  reports while loading; the model is failed until its files change (installed again).

The model is loaded once per child, so its cost is paid at start and after a crash, not per
call, and llama.cpp's KV cache (the briefing's shared prefix) lives as long as the child.
With `unload_after`, a child that has had no call for that many seconds is stopped to give
its memory back (the answerer holds about 1.3 GB); the next call starts a new one, paying
the load again: not a failure, not a restart. A chat spec's `prefixes` (the briefing; the
briefing and a worked example) are read once: the parent keeps the KV cache states the first
child made of them (about 28 KB a token for the 1.5B answerer) and hands them to every later
child. `health()` says what state each model is in, for `status` and the owner's page.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from multiprocessing import Pipe
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Literal

from privault.errors import InputError, ModelError, ModelUnavailable
from privault.jsonform import JsonForm
from privault.models import catalog
from privault.models.engines import Spec

MAX_FAILURES = 3  # failures in a row before a model is marked failed
RETRY_FAILED_AFTER = 300.0  # seconds a failed model is left alone before one more try
BACKOFF = (0.0, 1.0, 4.0)  # seconds before the restart after the 1st, 2nd, 3rd… failure
LOAD_SECONDS = 180.0  # a model that has not loaded by then is taken as hung

State = Literal["idle", "starting", "ready", "restarting", "failed"]


@dataclass(frozen=True)
class Deadline:
    """How long a worker may stay silent before it is taken as hung.

    A worker is hung when it stops making progress, not when it is slow: while it writes an
    answer it sends a sign of life every second, so the first wait covers the model reading
    the prompt (a fixed part plus the time the slowest machine privault supports needs for
    the prompt's size) and each wait after that covers one new token. Both stretch with how
    busy the machine is (a model on a machine with twice as much work as cores gets about
    half of what it would: killing it then would turn slowness into failures). `cap`, the
    owner's `ask_timeout`, bounds a whole chat call however it progresses."""

    base: float = 15.0  # seconds
    per_prompt_char: float = 0.0125  # ~20 prompt tokens/s at ~4 characters a token
    silence: float = 10.0  # between two signs of life while an answer is written
    per_text: float = 1.0  # an embedded text (a ~120-token line on one thread)
    load_scaled: bool = True
    cap: float | None = None  # the owner's limit on a whole chat call (`ask_timeout`)

    def first(self, prompt_chars: int) -> float:
        """Seconds allowed before a chat call's first sign of life."""
        return self._scaled(self.base + prompt_chars * self.per_prompt_char)

    def between(self) -> float:
        """Seconds allowed between two signs of life."""
        return self._scaled(self.silence)

    def embed(self, texts: int) -> float:
        """Seconds allowed for embedding `texts` texts."""
        return self._scaled(self.base + texts * self.per_text)

    def _scaled(self, seconds: float) -> float:
        if not self.load_scaled:
            return seconds
        busy = os.getloadavg()[0] / (os.cpu_count() or 1)
        return seconds * max(1.0, busy)


@dataclass(frozen=True)
class Health(JsonForm):
    """A model's worker as `status` shows it."""

    name: str
    role: str
    state: State
    failures: int = 0  # in a row, since the last call that succeeded
    restarts: int = 0  # workers started after the first
    reason: str | None = None  # why the last worker stopped (or could not load)
    pid: int | None = None
    load_seconds: float | None = None  # the last load


class _Stopped(Exception):
    """The worker died or hung, or (`over_cap`) was still answering at the owner's cap;
    `reason` says how."""

    def __init__(self, reason: str, *, over_cap: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.over_cap = over_cap


def describe_exit(returncode: int | None) -> str:
    """`signal 11 (SIGSEGV)` or `exit status 1`: how a worker ended, in words."""
    if returncode is None:
        return "it stopped answering"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
        return f"signal {-returncode} ({name})"
    return f"exit status {returncode}"


_LIVE: weakref.WeakSet[ModelProcess] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:  # a worker never outlives its parent, even on a clean exit
    for process in list(_LIVE):
        process.close()


class ModelProcess:
    """One supervised worker for one model (see the module docstring)."""

    def __init__(
        self,
        spec: Spec,
        *,
        load_seconds: float = LOAD_SECONDS,
        max_failures: int = MAX_FAILURES,
        retry_failed_after: float = RETRY_FAILED_AFTER,
        backoff: Sequence[float] = BACKOFF,
        on_change: Callable[[Health], None] | None = None,
        unload_after: float | None = None,
    ) -> None:
        self.spec = spec
        self._unload_after = unload_after
        self._load_seconds = load_seconds
        self._max_failures = max_failures
        self._retry_failed_after = retry_failed_after
        self._backoff = tuple(backoff)
        self._on_change = on_change
        self._lock = threading.RLock()  # one call at a time; start and stop under it too
        self._proc: subprocess.Popen[bytes] | None = None
        self._pipe: Connection | None = None
        self._health = Health(spec.name, spec.role, "idle")
        self._failed_at = 0.0
        self._permanent = False  # the model cannot load: no retry would help
        self._failed_files: list[list[int]] | None = None  # until its files change
        self._started_once = False
        self._closed = False
        self._unload_timer: threading.Timer | None = None
        # The KV cache states of `spec.prefixes` as a worker made them before any call (the
        # briefing, never a call's text): the next worker restores them instead of reading.
        self._prefix_states: list[bytes] = []
        self.facts: dict[str, Any] = {}
        _LIVE.add(self)

    @property
    def pid(self) -> int | None:
        """The live worker's process id (None when none runs)."""
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    def health(self) -> Health:
        """The worker's state now."""
        return replace(self._health, pid=self.pid)

    def call(
        self,
        request: dict[str, Any],
        *,
        seconds: float,
        binary: bool = False,
        silence: float | None = None,
        cap: float | None = None,
    ) -> tuple[dict[str, Any], bytes | None]:
        """Send one call and wait for its reply (and its binary part): up to `seconds` for
        the first message, up to `silence` after each sign of life, `cap` in all."""
        with self._lock:
            self._refuse_if_failed()
            if self._proc is not None and self._proc.poll() is not None:
                self._stop(None)  # it died between calls (killed while idle): start anew
            if self._pipe is None:
                self._start()
            assert self._pipe is not None
            ends = None if cap is None else time.monotonic() + cap
            try:
                self._pipe.send_bytes(json.dumps(request).encode())
                reply = json.loads(self._receive(seconds, ends))
                while reply.get("progress"):
                    reply = json.loads(self._receive(silence or seconds, ends))
                payload = self._receive(seconds, ends) if binary and reply.get("ok") else None
            except _Stopped as exc:
                if exc.over_cap:
                    raise self._over_cap(self._stop(exc.reason), cap) from None
                raise self._failure(self._stop(exc.reason)) from None
            except (EOFError, OSError):
                raise self._failure(self._stop(None)) from None
            except BaseException:
                # Whatever broke off the exchange (a bug, an interrupt), the worker may still
                # answer this request: reused, its next caller would read this answer.
                self._disarm_unload()
                self._set(
                    state="idle", reason=f"stopped: a call was broken off ({self._stop(None)})"
                )
                raise
            if self._health.failures or self._health.state != "ready":
                self._set(state="ready", failures=0)
            self._arm_unload()
        if not reply.get("ok"):
            raise _error(reply)
        return reply, payload

    def start(self) -> None:
        """Start the worker now and wait until its model has loaded (a no-op if it runs)."""
        with self._lock:
            self._refuse_if_failed()
            if self._pipe is None:
                self._start()

    def close(self) -> None:
        """Stop the worker (its pipe closes; it is killed if it does not exit at once)."""
        with self._lock:
            self._closed = True
            self._disarm_unload()
            self._stop(None)

    def _unload_if_unused(self) -> None:
        """Stop the worker if no call came since the timer was armed (see `unload_after`).
        A call running now holds the lock and arms a new timer when it ends."""
        if not self._lock.acquire(blocking=False):
            return
        try:
            if self._closed or self._pipe is None or self._unload_timer is None:
                return
            if threading.current_thread() is not self._unload_timer:
                return  # a later call armed another timer
            self._unload_timer = None
            self._stop(None)
            self._started_once = False  # the next start is a first load, not a restart
            self._set(state="idle", reason=f"unloaded after {self._unload_after:g} s unused")
        finally:
            self._lock.release()

    # -- inside the lock ---------------------------------------------------------------

    def _arm_unload(self) -> None:
        """(Re)start the countdown to unloading an unused worker."""
        if self._unload_after is None or self._pipe is None:
            return
        self._disarm_unload()
        timer = threading.Timer(self._unload_after, self._unload_if_unused)
        timer.daemon = True
        self._unload_timer = timer
        timer.start()

    def _disarm_unload(self) -> None:
        if self._unload_timer is not None:
            self._unload_timer.cancel()
            self._unload_timer = None

    def _refuse_if_failed(self) -> None:
        if self._closed:
            raise ModelUnavailable(f"the local model {self.spec.name} was shut down", failed=True)
        if self._health.state != "failed":
            return
        waited = time.monotonic() - self._failed_at
        if self._permanent and self._files() != self._failed_files:
            self._permanent = False  # its files changed since (installed again): try them
            waited = self._retry_failed_after
        if self._permanent or waited < self._retry_failed_after:
            raise ModelUnavailable(
                f"the local model {self.spec.name} is unavailable: {self._summary()}",
                failed=True,
            )
        self._set(state="restarting")  # one more try after the pause

    def _files(self) -> list[list[int]] | None:
        return catalog.files_stamp(Path(self.spec.models_dir), self.spec.name)

    def _start(self) -> None:
        self._set(state="starting" if not self._started_once else "restarting")
        parent, child = Pipe(duplex=True)
        started = time.perf_counter()
        try:
            self._proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "privault.models.worker",
                    str(child.fileno()),
                    str(os.getpid()),
                ],
                pass_fds=(child.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,  # the worker logs nothing; its errors come by pipe
            )
        finally:
            child.close()
        self._pipe = parent
        restarted = self._started_once
        self._started_once = True
        try:
            parent.send_bytes(json.dumps(self.spec.to_json()).encode())
            held = [*self._prefix_states, *[b""] * len(self.spec.prefixes)]
            for state in held[: len(self.spec.prefixes)]:  # read before the worker loads
                parent.send_bytes(state)
            ready = json.loads(self._receive(self._load_seconds))
            if ready.get("ok") and self.spec.prefixes and not ready.get("prefix_restored"):
                parent.send_bytes(json.dumps({"op": "prefix_states"}).encode())
                reply = json.loads(self._receive(self._load_seconds))
                count = int(reply.get("count", 0)) if reply.get("ok") else 0
                self._prefix_states = [self._receive(self._load_seconds) for _ in range(count)]
        except (_Stopped, EOFError, OSError) as exc:
            reason = exc.reason if isinstance(exc, _Stopped) else None
            raise self._failure(self._stop(reason), loading=True) from None
        if not ready.get("ok"):
            self._stop(None)
            error = _error(ready)
            self._permanent = True
            self._failed_files = self._files()
            self._failed_at = time.monotonic()
            self._set(state="failed", reason=str(error))
            # Failed for good, as a call that finds it failed is told: ask refuses and
            # context ranks without it, on this first call as on the next.
            raise ModelUnavailable(str(error), cannot_load=True) from None
        self.facts = {k: v for k, v in ready.items() if k not in ("ok", "ready")}
        self._set(
            state="ready",
            restarts=self._health.restarts + (1 if restarted else 0),
            load_seconds=round(time.perf_counter() - started, 3),
        )
        self._arm_unload()

    def _receive(self, seconds: float, ends: float | None = None) -> bytes:
        assert self._pipe is not None
        if ends is not None and ends - time.monotonic() < seconds:
            if not self._pipe.poll(max(0.0, ends - time.monotonic())):
                raise _Stopped("no answer within the ask_timeout", over_cap=True)
            return self._pipe.recv_bytes()
        if not self._pipe.poll(seconds):
            raise _Stopped(f"no sign of life for {seconds:.0f} s")
        return self._pipe.recv_bytes()

    def _stop(self, reason: str | None) -> str:
        """End the worker (killed if it still runs) and say how it ended."""
        proc, pipe = self._proc, self._pipe
        self._proc = self._pipe = None
        if pipe is not None:
            pipe.close()
        if proc is None:
            return reason or "it was not running"
        try:
            returncode = proc.wait(timeout=0.5 if reason is None else 0.05)
        except subprocess.TimeoutExpired:
            proc.kill()  # hung, or slow to leave: it holds nothing that must be saved
            proc.wait()
            return reason or "it stopped answering"
        return reason or describe_exit(returncode)

    def _failure(self, reason: str, *, loading: bool = False) -> ModelUnavailable:
        """Count a failure, schedule the restart (or mark the model failed); the error for
        the call that saw it."""
        failures = self._health.failures + 1
        name = self.spec.name
        what = "while loading" if loading else ""
        if failures >= self._max_failures:
            self._failed_at = time.monotonic()
            self._set(state="failed", failures=failures, reason=f"{reason}{what and ', ' + what}")
            return ModelUnavailable(
                f"the local model {name} is unavailable: {self._summary()}; "
                "run `privault doctor` to see why",
                failed=True,
            )
        self._set(state="restarting", failures=failures, reason=reason)
        delay = self._backoff[min(failures - 1, len(self._backoff) - 1)]
        threading.Thread(target=self._restart, args=(delay,), daemon=True).start()
        return ModelUnavailable(
            f"the local model {name} stopped ({reason}{what and ', ' + what}); "
            "it is restarting — retry"
        )

    def _over_cap(self, reason: str, cap: float | None) -> ModelUnavailable:
        """The call outlived the owner's cap: a fresh worker is started at once, and the
        failures in a row stay as they were."""
        self._set(state="restarting", reason=reason)
        threading.Thread(target=self._restart, args=(0.0,), daemon=True).start()
        return ModelUnavailable(
            f"the local model {self.spec.name} did not finish within the ask_timeout "
            f"({cap or 0:.0f} s); it is restarting — retry, or raise ask_timeout"
        )

    def _summary(self) -> str:
        health = self._health
        if self._permanent or health.failures <= 1:
            return str(health.reason)
        return f"it stopped {health.failures} times in a row (last: {health.reason})"

    def _restart(self, delay: float) -> None:
        time.sleep(delay)
        with self._lock:
            if self._closed or self._pipe is not None or self._health.state == "failed":
                return
            with contextlib.suppress(ModelError):  # counted (and maybe rescheduled) by `_failure`
                self._start()

    def _set(self, **changes: Any) -> None:
        self._health = replace(self._health, **changes)
        if self._on_change is not None:
            self._on_change(self.health())


def _error(reply: dict[str, Any]) -> Exception:
    """The exception a worker's error reply stands for (a bad call, or a bad model)."""
    message = str(reply.get("error", "the model worker failed"))
    if reply.get("type") == "InputError":
        return InputError(message)
    return ModelError(message)
