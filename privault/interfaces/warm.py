"""The warm searcher: `privault search` answered by a process that has the vault open.

A search run as a whole process spends most of its second importing numpy, pydantic and
onnxruntime and loading the embedder; the search itself takes a tenth of that. So after a
search run in-process, the CLI starts this module detached — `python -m
privault.interfaces.warm` — which opens the vault with the real engines, listens on a Unix
socket in a folder only this user can enter (the socket itself mode 0600; a peer of another
user is refused where the OS tells), and answers searches until it has been idle for
IDLE_SECONDS. The next `privault search` sends its options there and prints the reply: it
never imports the vault, the models or the policies.

It answers only while it would answer exactly as a fresh process. Every request names what
the client's process would open (the vault file, the models and home folders, a hash of the
key, privault's version and folder), and before each answer the searcher checks that the
files it loaded at start are unchanged (the vault file's inode, the config file, the policy
files, the models, privault's source). On any difference it answers "stale" and exits; the
client then searches in-process and starts a fresh one. Anything else that goes wrong — no
socket, a slow or refused connection, an error while searching — is also answered
in-process, so the searcher can make a search faster but never different. Whoever can use
the socket can already read the vault file: it adds no reader.

`PRIVAULT_WARM=off` starts none and uses none.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import os
import signal
import socket
import struct
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privault.filters import Filters
from privault.interfaces import config
from privault.interfaces.indexer import ProcessLock, spawn_detached
from privault.version import __version__

if TYPE_CHECKING:
    from privault.vault import Vault

log = logging.getLogger("privault.warm")

WARM_ENV = "PRIVAULT_WARM"  # `off`: no warm searcher is started or used
IDLE_SECONDS = 600.0  # a searcher with no request for this long exits
CONNECT_SECONDS = 0.5  # a searcher slower than this to accept is not waited for
REPLY_SECONDS = 30.0  # nor one slower than this to answer
POLL_SECONDS = 1.0  # how often an idle searcher checks that its vault file is still there
MAX_REQUEST_BYTES = 64 * 1024
MAX_REPLY_BYTES = 256 * 1024 * 1024
SEARCH_OPTIONS = {
    "query": (str,),
    "limit": (int,),
    "shelf": (str, type(None)),
    "kind": (str, type(None)),
    "tag": (str, type(None)),
    "since": (int, type(None)),
    "until": (int, type(None)),
    "include_superseded": (bool,),
    "as_agent": (str, type(None)),
}


@dataclass(frozen=True)
class Answer:
    """A warm searcher's reply: the results, and whether the vault has indexing queued."""

    data: dict[str, Any]
    has_work: bool


def enabled() -> bool:
    """Whether warm searchers may be used and started (`PRIVAULT_WARM` is not `off`)."""
    return os.environ.get(WARM_ENV) != "off" and hasattr(socket, "AF_UNIX")


def _folder() -> Path | None:
    """This user's private folder for searcher sockets, made if missing; None when it
    cannot be trusted (someone else owns it, or others may enter it)."""
    base = Path(os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir())
    folder = base / f"privault-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        info = folder.lstat()
    except OSError:
        return None
    if not folder.is_dir() or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return None
    return folder


def _name(vault: Path) -> str:
    # Short: a socket's path has room for about 100 bytes.
    return hashlib.sha256(str(vault).encode()).hexdigest()[:24]


def socket_path(vault: Path) -> Path | None:
    """Where the searcher of `vault` (a resolved path) listens, if there is a safe place."""
    folder = _folder()
    return None if folder is None else folder / f"{_name(vault)}.sock"


def _identity(vault: Path) -> dict[str, Any]:
    """What this process would open: compared by the searcher with what it opened."""
    key = config.vault_key(vault)
    return {
        "vault": str(vault),
        "home": str(config.home().resolve()),
        "models": str(config.models_dir().resolve()),
        "key": None if key is None else hashlib.sha256(key.encode()).hexdigest(),
        "version": __version__,
        "package": str(Path(__file__).resolve().parents[1]),
    }


def ask(vault: Path, options: dict[str, Any]) -> Answer | None:
    """The warm searcher's answer to a search with `options`, or None when no searcher
    answers (none runs, it is stale, slow, or failed): then search in-process."""
    path = socket_path(vault) if enabled() else None
    if path is None or not path.exists():
        return None
    request = {"identity": _identity(vault), "op": "search", "options": options}
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(CONNECT_SECONDS)
            conn.connect(str(path))
            conn.settimeout(REPLY_SECONDS)
            conn.sendall(json.dumps(request).encode() + b"\n")
            reply = json.loads(_read_line(conn, MAX_REPLY_BYTES))
    except (OSError, ValueError):
        return None
    if not isinstance(reply, dict) or not isinstance(reply.get("data"), dict):
        return None
    return Answer(data=reply["data"], has_work=bool(reply.get("has_work")))


def _read_line(conn: socket.socket, limit: int) -> bytes:
    """One newline-ended message; ValueError when it is longer than `limit` or cut short."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            raise ValueError("connection closed before the end of the message")
        chunks.append(chunk)
        size += len(chunk)
        if chunk.endswith(b"\n"):
            return b"".join(chunks)
        if size > limit:
            raise ValueError("message too long")


def start(vault: Path) -> bool:
    """Start a detached searcher for `vault` unless one runs; return whether one started."""
    path = socket_path(vault) if enabled() else None
    if path is None or ProcessLock(path.with_suffix(".lock")).held_elsewhere():
        return False
    spawn_detached("privault.interfaces.warm", vault, path.with_suffix(".log"))
    return True


def run_search(vault: Vault, options: dict[str, Any]) -> dict[str, Any]:
    """`Vault.search` with the CLI's options (`as_agent`: preview as that agent), as JSON."""
    from privault.interfaces.cli.common import caller_for

    rest = dict(options)
    agent, query = rest.pop("as_agent"), rest.pop("query")
    chosen = Filters(**{item.name: rest.pop(item.name) for item in dataclasses.fields(Filters)})
    return vault.search(query, caller=caller_for(agent, vault), filters=chosen, **rest).to_dict()


def checked_options(options: Any) -> dict[str, Any]:
    """The search options of a request; ValueError unless exactly the known ones, typed."""
    if not isinstance(options, dict) or set(options) != set(SEARCH_OPTIONS):
        raise ValueError("unknown or missing search options")
    for name, kinds in SEARCH_OPTIONS.items():
        value = options[name]
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise ValueError(f"{name}: wrong type")
    return options


def _surroundings(vault: Path, policies_dir: Path | None) -> tuple[Any, ...]:
    """What the searcher loaded at start and would load differently were it changed."""

    def stat(path: Path) -> tuple[int, int, int] | None:
        try:
            info = path.stat()
        except OSError:
            return None
        return (info.st_ino, info.st_mtime_ns, info.st_size)

    def listing(folder: Path | None, pattern: str) -> tuple[Any, ...]:
        if folder is None or not folder.is_dir():
            return ()
        return tuple(sorted((str(p), stat(p)) for p in folder.glob(pattern)))

    package = Path(__file__).resolve().parents[1]
    return (
        stat(vault),
        stat(config.home() / "config.yaml"),
        listing(policies_dir, "*.y*ml"),
        stat(config.models_dir()),
        listing(config.models_dir(), "*"),
        listing(package, "**/*.py"),
    )


class _Searcher:
    """The server side: one vault, opened once; one request per connection, in turn."""

    def __init__(self, vault: Vault, path: Path, policies_dir: Path | None) -> None:
        self._vault = vault
        self._path = path
        self._policies_dir = policies_dir
        self._identity = _identity(path)
        self._loaded = _surroundings(path, policies_dir)

    def current(self) -> bool:
        """Whether the files it loaded at start are still as they were."""
        return _surroundings(self._path, self._policies_dir) == self._loaded

    def handle(self, conn: socket.socket) -> bool:
        """Answer one connection; False when the searcher should exit (it is stale)."""
        if not _same_user(conn):
            return True
        conn.settimeout(5.0)
        try:
            request = json.loads(_read_line(conn, MAX_REQUEST_BYTES))
            if not isinstance(request, dict) or request.get("op") != "search":
                raise ValueError("not a search request")
            options = checked_options(request.get("options"))
        except (OSError, ValueError):
            return True  # closed without a reply: the client searches in-process
        if request.get("identity") != self._identity or not self.current():
            _send(conn, {"stale": True})
            return False
        try:
            data = run_search(self._vault, options)
            has_work = self._vault.indexing.has_work()
        except Exception as exc:  # the client searches in-process and reports it properly
            log.info("search failed here (%s): answered in-process", type(exc).__name__)
            _send(conn, {"error": True})
            return True
        _send(conn, {"data": data, "has_work": has_work})
        return True


def _same_user(conn: socket.socket) -> bool:
    """Whether the peer runs as this user (True where the OS cannot tell: the socket's
    mode and its private folder already keep others out)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    try:
        _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, option, 12))
    except OSError:
        return False
    return uid == os.getuid()


def _send(conn: socket.socket, reply: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        conn.sendall(json.dumps(reply, ensure_ascii=False).encode() + b"\n")


def _listen(path: Path) -> socket.socket:
    """A socket bound at `path` (any old file there removed), mode 0600 from the start."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # left by a searcher that died: the lock says none runs
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    umask = os.umask(0o177)
    try:
        server.bind(str(path))
    finally:
        os.umask(umask)
    server.listen(16)
    server.settimeout(POLL_SECONDS)
    return server


def serve(vault_file: Path, idle_seconds: float = IDLE_SECONDS) -> int:
    """Answer searches of `vault_file` until idle for `idle_seconds`, stale, or the file is
    gone; 0 also when another searcher runs for it already."""
    from privault.caller import Caller
    from privault.interfaces.cli.common import open_vault

    vault_file = vault_file.resolve()
    os.environ["PRIVAULT_VAULT"] = str(vault_file)  # what open_vault opens
    path = socket_path(vault_file)
    if path is None:
        log.warning("no private folder for the socket: not started")
        return 1
    lock = ProcessLock(path.with_suffix(".lock"))
    if not lock.acquire():
        return 0
    try:
        policies_dir = config.load_config().policies_dir
        with contextlib.closing(open_vault()) as vault:
            searcher = _Searcher(vault, vault_file, policies_dir)
            vault.search("warm", caller=Caller.owner(), limit=1)  # load the models now
            try:
                server = _listen(path)
            except OSError as exc:  # a path too long for a socket, a full disk
                log.warning("cannot listen at %s: %s", path, exc)
                return 1
            with contextlib.closing(server):
                log.info("answering searches of %s", vault_file)
                _loop(server, searcher, vault_file, idle_seconds)
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
        lock.release()
    log.info("stopped")
    return 0


def _loop(server: socket.socket, searcher: _Searcher, vault: Path, idle: float) -> None:
    last = time.monotonic()
    while time.monotonic() - last < idle:
        try:
            conn, _ = server.accept()
        except TimeoutError:
            if not vault.exists():
                return
            continue
        last = time.monotonic()
        with conn:
            if not searcher.handle(conn):
                return


def main(argv: list[str] | None = None) -> int:
    """The detached searcher: `python -m privault.interfaces.warm VAULT [IDLE_SECONDS]`."""
    args = sys.argv[1:] if argv is None else argv
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s warm[%(process)d] %(levelname)s %(message)s"
    )
    # SIGTERM ends it like an idle timeout: the socket file is removed on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    vault = Path(args[0]) if args else config.vault_path()
    return serve(vault, float(args[1]) if len(args) > 1 else IDLE_SECONDS)


if __name__ == "__main__":
    sys.exit(main())
