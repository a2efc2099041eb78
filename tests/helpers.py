"""Test helpers: a vault on a real file with the fast fake embedder and detector."""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

from hypothesis import settings
from typer.testing import CliRunner

from privault.caller import Caller
from privault.interfaces.cli.common import EngineChoice, using_engines
from privault.privacy.detector import FakeDetector
from privault.retrieval.embedder import FakeEmbedder
from privault.vault import Vault
from privault.vault.detection import DetectorFactory

FAKE_ENGINES = EngineChoice(embedder=FakeEmbedder(), detector_factory=FakeDetector)


CLI_BOOT = "import sys; from privault.interfaces.cli import main; sys.argv[0] = 'privault'; main()"


def run_cli(
    *args: str, env: Mapping[str, str] | None = None, timeout: float = 120, **options: Any
) -> subprocess.CompletedProcess[str]:
    """The `privault` command as a process of its own, as a user runs it (text out, its
    exit code), with `env` laid over this process's environment."""
    return subprocess.run(
        [sys.executable, "-c", CLI_BOOT, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
        **options,
    )


def examples(full: int) -> int:
    """How many examples a property test tries: `full` under the default profile (100
    examples, `make test`), scaled down with the profile's count under a lighter one (the
    `check` profile of `make check`), never below 2."""
    scale = settings.default.max_examples / 100
    return full if scale >= 1 else max(2, round(full * scale))


def fake_vault(
    path: Path,
    privacy: dict[str, Any] | None = None,
    embedder: FakeEmbedder | None = None,
    detector_factory: DetectorFactory = FakeDetector,
    **settings: Any,
) -> Vault:
    """A real vault file whose heavy engines are the deterministic fakes (or the fake
    detector `detector_factory` stands for)."""
    return Vault.open(
        path,
        models_dir=path.parent / "models",
        embedder=embedder or FakeEmbedder(),
        detector_factory=detector_factory,
        privacy=privacy or {},
        **settings,
    )


class FakeEngineRunner(CliRunner):
    """typer's runner, with the CLI's vault built on the fake embedder and detector."""

    def invoke(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        with using_engines(FAKE_ENGINES):
            return super().invoke(*args, **kwargs)


class Recorder(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint on 127.0.0.1 that records every request it receives."""

    received: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        Recorder.received.append({"path": self.path, "body": json.loads(body or b"{}")})
        reply = {"choices": [{"message": {"content": "remote says 42"}}], "usage": {}}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def recording_server() -> Iterator[str]:
    """Run a fresh `Recorder` on a free loopback port; yield its base URL."""
    Recorder.received = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def mcp_session(vault: Vault, agent: str, fn: Callable[[Any], Awaitable[Any]]) -> Any:
    """Run `fn(client)` in one in-memory MCP client session as registered agent `agent`."""
    import anyio
    from mcp import Client

    from privault.interfaces.mcp.server import for_agent

    async def main() -> Any:
        async with Client(for_agent(vault, agent)) as client:
            return await fn(client)

    return anyio.run(main)


def mcp_call(vault: Vault, agent: str, tool: str, **arguments: Any) -> Any:
    """Call one tool as `agent`; the raw CallToolResult."""
    return mcp_session(vault, agent, lambda client: client.call_tool(tool, arguments))


def mcp_ok(vault: Vault, agent: str, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call one tool that must succeed; its structured result."""
    result = mcp_call(vault, agent, tool, **arguments)
    assert not result.is_error, result.content
    return dict(result.structured_content)


def mcp_error(vault: Vault, agent: str, tool: str, **arguments: Any) -> str:
    """Call one tool that must fail; its error text."""
    result = mcp_call(vault, agent, tool, **arguments)
    assert result.is_error
    return str(result.content[0].text)


def untrained_tagger() -> Any:
    """A name tagger that finds nothing and vetoes nothing: detection by the recognisers
    alone, for tests of what they do without it. It reads every token as ordinary 0.4 and
    each kind of entity 0.2: too unsure that a token is an entity to find one (0.6), too
    unsure that it is ordinary to veto a guess."""
    import numpy as np

    from privault.privacy import tagger, tagger_features

    class Unsure(tagger.Tagger):
        def probabilities(self, text: str) -> tuple[list[tagger_features.Token], Any]:  # type: ignore[override]
            tokens = tagger_features.tokenize(text)
            row = np.asarray([0.4, 0.2, 0.2, 0.2], dtype=np.float32)
            return tokens, np.tile(row, (len(tokens), 1))

    shape = (tagger_features.BUCKETS, len(tagger.LABELS))
    return Unsure(np.zeros(shape, dtype=np.float32))


def least_peak(action: Callable[[], object], *, before: Callable[[], object] = lambda: None) -> int:
    """The peak of Python allocations while `action()` runs: the least of two readings
    (`before()` runs ahead of each, untraced), since tracemalloc also counts what other
    threads of the test process allocate meanwhile."""
    import tracemalloc

    peaks = []
    for _ in range(2):
        before()
        tracemalloc.start()
        try:
            action()
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    return min(peaks)


NOTE_WORDS = "invoice plumber garden boiler meeting ticket receipt holiday school dentist".split()


def note_text(rng: random.Random, words: int) -> str:
    """`words` numbered note words: text that compresses little and matches little."""
    return " ".join(rng.choice(NOTE_WORDS) + str(rng.randrange(10_000)) for _ in range(words))


def filled_vault(path: Path, documents: int, words: int) -> Vault:
    """A fake vault of `documents` two-part notes of `words` words a part, left to the
    background indexer (seeded by the count: the same call writes the same text)."""
    vault = fake_vault(path)
    rng = random.Random(documents)
    notes = [
        {"text": f"# Note {n}\n{note_text(rng, words)}\n\n## Part two\n{note_text(rng, words)}"}
        for n in range(documents)
    ]
    vault.note_many(notes, caller=Caller.owner(), background=True)
    return vault


def logged_in(vault: Vault, folder: Path) -> Any:
    """A test client of the owner's web page on `vault`, logged in through a login link."""
    from starlette.testclient import TestClient

    from privault.interfaces.web.app import build_web_app
    from privault.interfaces.web.auth import LoginLinks

    links = LoginLinks(folder / "logins")
    client = TestClient(build_web_app(vault, links=links, hosts=["testserver"]))
    assert client.get(f"/login?token={links.issue()}").status_code == 200
    return client


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on at `host` now."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


@contextmanager
def uvicorn_running(
    app: Any, port: int, host: str = "127.0.0.1", wait: float = 30
) -> Iterator[str]:
    """`app` served by uvicorn at host:port on a thread, as `privault serve` runs it (its
    lifespan on); yields its base URL once it is up, and stops it on leaving."""
    import uvicorn

    server = uvicorn.Server(
        uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + wait
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=wait)
