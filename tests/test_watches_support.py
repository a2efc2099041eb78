"""Shared test helpers for the watches tests: a fake Filer and a loopback HTTP server.

No tests live here; other `test_watches_*` modules import from it (pytest puts `tests/`
on the path), and so does the subprocess in the kill-a-worker test.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from privault.watches.actions import Filed


@dataclass
class FakeFiler:
    """An in-memory Filer that records every call, versioning pages by content hash."""

    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    pages: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # url -> [(id, hash)]
    notes: list[dict[str, Any]] = field(default_factory=list)
    results: dict[str, str] = field(default_factory=dict)  # url -> doc id
    files: dict[str, tuple[str, str]] = field(default_factory=dict)  # path -> (id, hash)
    removed: list[str] = field(default_factory=list)
    fail_paths: set[str] = field(default_factory=set)
    _counter: int = 0

    def _new_id(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}{self._counter}"

    def file_page(self, *, url: str, title: str, text: str, shelf: str, watch_id: str) -> Filed:
        self.calls.append(("file_page", {"url": url, "title": title, "text": text}))
        digest = hashlib.sha256(text.encode()).hexdigest()
        versions = self.pages.setdefault(url, [])
        if versions and versions[-1][1] == digest:
            return Filed(versions[-1][0], changed=False)
        doc_id = self._new_id("page")
        versions.append((doc_id, digest))
        return Filed(doc_id, changed=True)

    def file_note(
        self,
        *,
        title: str,
        text: str,
        tags: list[str],
        shelf: str,
        kind: str,
        source: str | None = None,
        author: str = "",
    ) -> str:
        doc_id = self._new_id("note")
        note = {"id": doc_id, "title": title, "text": text, "tags": tags, "shelf": shelf}
        note["kind"] = kind
        note["source"] = source
        self.notes.append(note)
        self.calls.append(("file_note", note))
        return doc_id

    def file_search_result(
        self, *, url: str, title: str, snippet: str, text: str | None, shelf: str, watch_id: str
    ) -> str | None:
        self.calls.append(
            ("file_search_result", {"url": url, "title": title, "snippet": snippet, "text": text})
        )
        if url in self.results:
            return None
        self.results[url] = self._new_id("result")
        return self.results[url]

    def index_file(self, path: Path, *, shelf: str) -> Filed:
        from privault.errors import InputError

        self.calls.append(("index_file", {"path": str(path)}))
        if path.name in self.fail_paths:
            raise InputError(f"cannot read {path.name}")
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        known = self.files.get(str(path))
        if known and known[1] == digest:
            return Filed(known[0], changed=False)
        doc_id = self._new_id("file")
        self.files[str(path)] = (doc_id, digest)
        return Filed(doc_id, changed=True)

    def mark_removed(self, path: Path, *, shelf: str) -> bool:
        self.calls.append(("mark_removed", {"path": str(path)}))
        self.removed.append(str(path))
        return self.files.pop(str(path), None) is not None

    def names(self) -> list[str]:
        """The method names called, in order."""
        return [name for name, _ in self.calls]


class SleepyFiler(FakeFiler):
    """A Filer whose note filing hangs, so a worker can be killed mid-job."""

    def file_note(
        self,
        *,
        title: str,
        text: str,
        tags: list[str],
        shelf: str,
        kind: str,
        source: str | None = None,
        author: str = "",
    ) -> str:
        time.sleep(60)
        return super().file_note(
            title=title, text=text, tags=tags, shelf=shelf, kind=kind, source=source
        )


Route = Callable[[BaseHTTPRequestHandler], None]


@dataclass
class LocalServer:
    """A threaded HTTP server on 127.0.0.1 whose routes tests set and change."""

    routes: dict[str, Route]
    port: int = 0
    hits: list[str] = field(default_factory=list)
    user_agents: list[str] = field(default_factory=list)

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"


def send(
    handler: BaseHTTPRequestHandler,
    body: bytes | str,
    *,
    status: int = 200,
    content_type: str = "text/html; charset=utf-8",
    headers: dict[str, str] | None = None,
) -> None:
    """Write a whole response."""
    data = body.encode() if isinstance(body, str) else body
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(data)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)


def html_page(title: str, *paragraphs: str) -> str:
    """A small article page trafilatura can extract."""
    body = "".join(f"<p>{text}</p>" for text in paragraphs)
    return (
        f"<html><head><title>{title}</title></head><body><nav>Home | About</nav>"
        f"<article><h1>{title}</h1>{body}</article></body></html>"
    )


@contextmanager
def serve(routes: dict[str, Route]) -> Iterator[LocalServer]:
    """Run a server on 127.0.0.1 (an ephemeral port) for the duration of the block."""
    state = LocalServer(routes)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            path = self.path.split("?", 1)[0]
            state.hits.append(self.path)
            state.user_agents.append(self.headers.get("User-Agent", ""))
            route = state.routes.get(path)
            if route is None:
                send(self, "not found", status=404, content_type="text/plain")
                return
            # The client may hang up early, as its size and time limits tell it to.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                route(self)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    class QuietServer(ThreadingHTTPServer):
        def handle_error(self, request: Any, client_address: Any) -> None:
            pass  # clients cut connections on purpose (size and time limits)

    server = QuietServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
