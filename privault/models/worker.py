"""The model worker: one child process that loads one model and answers its calls.

Run as `python -m privault.models.worker FD PARENT_PID` by `supervisor.ModelProcess`, never
by hand. FD is one end of an anonymous socket pair the parent created and handed down (`pass_fds`):
private text reaches this process only through it — no TCP port, no socket path another
process could open. The first message on it says which engine to load (`Spec`); every later
one is a call, answered in order, one at a time.

What the child does to itself before it reads any private text:

* no core dumps (`RLIMIT_CORE` 0) and not dumpable (`PR_SET_DUMPABLE` 0, which also keeps
  other processes of the same user from reading its memory), so a crash writes nothing of
  what it held to disk;
* ends itself within a second of its parent's death, even in the middle of a call (a
  watchdog thread; `PR_SET_PDEATHSIG` would fire when the parent's *thread* that started it
  ends, and the supervisor restarts workers from short-lived threads), and ignores the
  terminal's Ctrl-C, which is the parent's to handle;
* runs at a lower CPU priority than the server, so the calls it answers meanwhile come first;
* never logs: llama.cpp runs quiet and a Python error goes back to the parent as its type
  and one line (`error` below), never as a prompt.

Messages are JSON; an embedding reply is followed by one binary message holding the float32
matrix. A chat spec with `prefixes` (the briefing, …) is followed by one binary message
each: the KV cache state of that prefix a previous worker gave the parent, or nothing; the
worker restores or reads each before any call, and `prefix_states` hands them back (so
they hold the prefixes alone, never a call's text).
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

from privault.models.chat import Message
from privault.models.engines import Engine, Spec, load_engine

_PR_SET_DUMPABLE = 4
# A model's work yields the CPU to the calls the server answers meanwhile (a search during
# an answer); on an otherwise idle machine it changes nothing (benchmarks.mcp, phase ask).
# A niceness, not Linux's idle class: the idle class bought searches during an answer a
# little (p95 1.14–1.20× against 1.20–1.22× with no answer running), but under calls that
# never stop it starves the answer (benchmarks.faults, four searchers: 0 of 5 answers
# within 20 s) where a niceness still leaves it a share of the CPU.
NICENESS = 5


def harden(parent: int) -> None:
    """No core file, not dumpable, gone with the parent, deaf to the terminal's Ctrl-C.

    `parent` is the pid the parent gave: if it died before this process could look, the
    watchdog sees another parent at once and ends this one."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.nice(NICENESS)
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)  # orphaned: nobody will read the answer

    threading.Thread(target=watch, daemon=True).start()


def error(exc: BaseException) -> dict[str, Any]:
    """An exception as the parent sees it: its type and its first line."""
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return {"ok": False, "type": type(exc).__name__, "error": message[:500]}


class Pulse:
    """Tells the parent that an answer is being written: at most one message a second, so a
    slow answer on a busy machine is never mistaken for a hung worker."""

    def __init__(self, pipe: Connection) -> None:
        self._pipe = pipe
        self._last = time.monotonic()

    def __call__(self) -> None:
        now = time.monotonic()
        if now - self._last >= 1.0:
            self._pipe.send_bytes(b'{"progress": true}')
            self._last = now


def answer(engine: Engine, call: dict[str, Any], pipe: Connection) -> None:
    """Run one call and send its reply (and, for embeddings, the matrix after it)."""
    op = call.get("op")
    if op == "chat":
        messages = [Message(role, content) for role, content in call["messages"]]
        result = engine.chat(
            messages, max_tokens=int(call.get("max_tokens", 256)), progress=Pulse(pipe)
        )
        pipe.send_bytes(
            json.dumps(
                {
                    "ok": True,
                    "text": result.text,
                    "prompt_tokens": result.prompt_tokens,
                    "cached_tokens": result.cached_tokens,
                    "completion_tokens": result.completion_tokens,
                    "seconds": result.seconds,
                }
            ).encode()
        )
    elif op == "tokens":
        tokens = engine.tokens(str(call["prompt"]))
        pipe.send_bytes(json.dumps({"ok": True, "tokens": tokens}).encode())
    elif op == "prefix_states":
        states = engine.prefix_states()
        pipe.send_bytes(json.dumps({"ok": True, "count": len(states)}).encode())
        for state in states:
            pipe.send_bytes(state)
    elif op == "embed":
        texts = [str(text) for text in call["texts"]]
        if call.get("query"):
            matrix = engine.embed_query(texts[0]).reshape(1, -1)
        else:
            matrix = engine.embed_documents(texts)
        matrix = matrix.astype("float32", copy=False)
        pipe.send_bytes(json.dumps({"ok": True, "shape": list(matrix.shape)}).encode())
        pipe.send_bytes(matrix.tobytes())
    else:
        pipe.send_bytes(json.dumps({"ok": False, "type": "InputError", "error": "bad op"}).encode())


def serve(pipe: Connection) -> int:
    """Load the engine the first message names, then answer calls until the pipe closes."""
    try:
        spec = Spec.from_json(json.loads(pipe.recv_bytes()))
        states = [pipe.recv_bytes() for _ in spec.prefixes]  # before loading: see `_start`
        started = time.perf_counter()
        engine = load_engine(spec)
        ready: dict[str, Any] = {"ok": True, "ready": True}
        if spec.prefixes:
            ready["prefix_restored"] = engine.prepare(spec.prefixes, states)
        ready["load_seconds"] = time.perf_counter() - started
        ready.update(engine.facts())
        pipe.send_bytes(json.dumps(ready).encode())
    except EOFError:
        return 0
    except Exception as exc:  # the parent turns this into a ModelError for the caller
        pipe.send_bytes(json.dumps(error(exc)).encode())
        return 1
    while True:
        try:
            call = json.loads(pipe.recv_bytes())
        except EOFError:  # the parent closed the pipe or died: nothing more to do
            return 0
        try:
            answer(engine, call, pipe)
        except Exception as exc:  # a bad call, not a dead model: the worker stays up
            pipe.send_bytes(json.dumps(error(exc)).encode())


def main(argv: list[str]) -> int:
    """Entry point: `python -m privault.models.worker FD PARENT_PID`."""
    harden(int(argv[2]))
    pipe = Connection(int(argv[1]))
    try:
        return serve(pipe)
    finally:
        pipe.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
