"""The socket layer under `Fetcher`: connect only to checked addresses, decode with a bound.

httpx has no public hook for choosing the addresses a connection goes to, so the transport
keeps httpx's request/response handling and swaps in an httpcore pool whose network backend
resolves the host itself, checks every address (`network_addresses.py`) and opens the socket to a
checked IP. Nothing resolves the name again after the check, which closes DNS rebinding;
TLS still verifies the certificate against the host name (httpcore passes it as SNI).

The same backend enforces a request's deadline (`DEADLINE`) at the socket. httpx's timeouts
bound each read on its own, so a server sending one header byte at a time could hold a
fetch for as long as it liked; here every connect, handshake, read and write gets at most
the time left before the deadline, and none starts once it has passed; so does the name
lookup, which `getaddrinfo` cannot bound itself (it runs on a helper thread that is left to
finish on its own when the deadline passes first). httpcore hands a
stream only a timeout, never the request, so the deadline reaches the stream through a
context variable set while the request is sent and while its body is read.
"""

from __future__ import annotations

import ssl
import threading
import time
import zlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import httpcore
import httpx

from privault.watches.network_addresses import Resolver, resolve_checked

ALLOW_PRIVATE = "privault.allow_private"  # request extension that selects the pool
DEADLINE = "privault.deadline"  # request extension: a `time.monotonic()` no I/O may pass

_deadline: ContextVar[float | None] = ContextVar("privault_deadline", default=None)


def _within(timeout: float | None, expired: type[httpcore.TimeoutException]) -> float | None:
    """`timeout` cut to the time left before the current deadline; raises once none is left."""
    deadline = _deadline.get()
    if deadline is None:
        # Every request from `Fetcher` carries a deadline; one without keeps httpx's timeout.
        return timeout
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise expired("total time limit reached")
    return remaining if timeout is None else min(timeout, remaining)


# Lookups running at once, those past their deadline included (left to finish on their
# own): a name server that never answers holds at most this many threads.
_LOOKUPS = threading.BoundedSemaphore(8)


def _lookup_within(resolver: Resolver, timeout: float | None) -> Resolver:
    """`resolver` answering by the current deadline; a slow name server is a connect timeout."""
    limit = _within(timeout, httpcore.ConnectTimeout)
    if limit is None:
        return resolver

    def lookup(host: str, port: int) -> list[str]:
        answer: list[list[str]] = []
        failure: list[Exception] = []
        started = time.monotonic()
        if not _LOOKUPS.acquire(timeout=limit):  # as many stuck as may be: this one waits
            raise httpcore.ConnectTimeout(f"looking up {host} passed the time limit")

        def run() -> None:
            try:
                answer.append(resolver(host, port))
            except Exception as exc:  # noqa: BLE001 - raised again in the caller's thread
                failure.append(exc)
            finally:
                _LOOKUPS.release()

        worker = threading.Thread(target=run, name="privault-lookup", daemon=True)
        try:
            worker.start()
        except BaseException:
            _LOOKUPS.release()  # it never ran: its permit is not held
            raise
        worker.join(max(0.0, limit - (time.monotonic() - started)))
        if failure:
            raise failure[0]
        if not answer:
            raise httpcore.ConnectTimeout(f"looking up {host} passed the time limit")
        return answer[0]

    return lookup


class _DeadlineStream(httpcore.NetworkStream):
    """A socket stream whose every operation ends by the current deadline."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _within(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _within(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        limit = _within(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, limit))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBody(httpx.SyncByteStream):
    """A response body read under its request's deadline (it is read after `send` returns)."""

    def __init__(self, inner: httpx.SyncByteStream, deadline: float) -> None:
        self._inner = inner
        self._deadline = deadline

    def __iter__(self) -> Iterator[bytes]:
        chunks = iter(self._inner)
        while True:
            token = _deadline.set(self._deadline)
            try:
                chunk = next(chunks, None)
            finally:
                _deadline.reset(token)
            if chunk is None:
                return
            yield chunk

    def close(self) -> None:
        self._inner.close()


class _GuardedBackend(httpcore.SyncBackend):
    """Resolves, checks and connects to the checked IP itself, so nothing re-resolves."""

    def __init__(self, *, allow_private: bool, resolver: Resolver) -> None:
        self._allow_private = allow_private
        self._resolver = resolver

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        addresses = resolve_checked(
            host,
            port,
            allow_private=self._allow_private,
            resolver=_lookup_within(self._resolver, timeout),
        )
        failure: Exception | None = None
        for address in addresses:
            limit = _within(timeout, httpcore.ConnectTimeout)
            try:
                stream = super().connect_tcp(
                    str(address), port, limit, local_address, socket_options or []
                )
                return _DeadlineStream(stream)
            except httpcore.ConnectError as exc:
                failure = exc
        assert failure is not None
        raise failure


def _transport(*, allow_private: bool, resolver: Resolver) -> httpx.HTTPTransport:
    transport = httpx.HTTPTransport(verify=True, trust_env=False)
    # httpx offers no public hook for the network backend; swapping the pool keeps all of
    # httpx's request/response mapping while the socket comes from our checked backend.
    transport._pool.close()
    transport._pool = httpcore.ConnectionPool(
        ssl_context=httpx.create_ssl_context(verify=True, trust_env=False),
        network_backend=_GuardedBackend(allow_private=allow_private, resolver=resolver),
    )
    return transport


class GuardedTransport(httpx.BaseTransport):
    """Two pools, strict and permissive, so a connection opened for an `allow_private`
    watch (or a trusted host) is never reused by a request that is not."""

    def __init__(self, resolver: Resolver) -> None:
        self._strict = _transport(allow_private=False, resolver=resolver)
        self._permissive = _transport(allow_private=True, resolver=resolver)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        permissive = request.extensions.get(ALLOW_PRIVATE) is True
        transport = self._permissive if permissive else self._strict
        deadline = request.extensions.get(DEADLINE)
        if deadline is None:
            return transport.handle_request(request)
        token = _deadline.set(float(deadline))
        try:
            response = transport.handle_request(request)
        finally:
            _deadline.reset(token)
        assert isinstance(response.stream, httpx.SyncByteStream)
        response.stream = _DeadlineBody(response.stream, float(deadline))
        return response

    def close(self) -> None:
        self._strict.close()
        self._permissive.close()


class BoundedDecoder:
    """Content-Encoding decoding that never produces more than the caller has room for.

    "deflate" is zlib-wrapped per RFC 9110, but some servers send the raw deflate stream;
    browsers accept both, so a header the zlib reader refuses starts the body over as raw.
    """

    def __init__(self, encoding: str) -> None:
        # wbits 47 reads both gzip and zlib headers.
        self._zlib = None if encoding == "identity" else zlib.decompressobj(wbits=47)
        self._head: bytes | None = b"" if encoding == "deflate" else None  # until header read

    def feed(self, data: bytes, room: int) -> bytes:
        """Decode `data`, returning at most `room + 1` bytes (one more means: over the cap)."""
        if self._zlib is None:
            return data[: room + 1]
        if self._head is None:
            return _inflate(self._zlib, data, room)
        self._head += data
        try:
            out = _inflate(self._zlib, data, room)
        except zlib.error:
            self._zlib = zlib.decompressobj(wbits=-15)
            data, self._head = self._head, None
            return _inflate(self._zlib, data, room)
        if len(self._head) >= 2:  # zlib checks its two header bytes as soon as it has them
            self._head = None
        return out


def _inflate(stream: Any, data: bytes, room: int) -> bytes:
    """At most `room + 1` bytes out of `data`; the rest waits in the stream's input."""
    out: bytes = stream.decompress(data, room + 1)
    while stream.unconsumed_tail and len(out) <= room:
        out += stream.decompress(stream.unconsumed_tail, room + 1 - len(out))
    return out
