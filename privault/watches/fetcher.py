"""The one HTTP client through which privault reaches the network.

Every watch (pages, search backends, result pages) fetches through `Fetcher`, so the
safety rules live in one place:

* **Where**: hosts are parsed in every spelling and refused when private, loopback,
  link-local, reserved, multicast or unspecified (`network_addresses.py`) unless the watch was
  created with `allow_private`. The check runs three times: on the URL before anything is
  sent, on every address DNS returns *inside the connect call* (the socket is opened to
  the checked IP, never to a name re-resolved later, which closes DNS rebinding), and on
  the peer address of the socket that answered.
* **Redirects** are followed by hand, each hop checked like the first, at most N. A
  host the caller trusts (the owner's search backend, often a SearXNG on localhost) may be
  private, but trust names a host *and* port: a hop anywhere else is checked as usual.
* **How much**: the body is read raw and decompressed here with a bounded output, so a
  small gzip body that inflates past the cap is stopped after `max_bytes + 1` bytes,
  not after it has filled memory. Total time is one deadline over all hops, enforced at
  the socket (`transport.py`): a server that drips its headers a byte at a time is cut off
  when the deadline passes, not when each read's own timeout would be.
* **What**: only HTML, XHTML and plain text (plus JSON where a caller asks, for the
  search backend), decoded in the charset a browser would pick (`privault.encodings`).
  TLS is always verified; proxies and certificate paths from the environment are
  ignored (`trust_env=False`).

Outcomes are values: `FetchResult` or `FetchError` (with a reason and whether a retry
could help). Only programming errors raise.
"""

from __future__ import annotations

import time
import zlib
from dataclasses import dataclass

import httpx

from privault.encodings import decode_body
from privault.version import __version__
from privault.watches.network_addresses import (
    BlockedAddress,
    Resolver,
    check_address,
    parse_host,
    system_resolver,
)
from privault.watches.transport import (
    ALLOW_PRIVATE,
    DEADLINE,
    BoundedDecoder,
    GuardedTransport,
)

USER_AGENT = f"privault/{__version__} (+local memory vault)"
PAGE_TYPES = frozenset({"text/html", "application/xhtml+xml", "text/plain"})
JSON_TYPES = frozenset({"application/json"})
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True)
class FetchLimits:
    """Caps applied to every fetch."""

    max_bytes: int = 5_000_000  # decompressed body
    total_seconds: float = 30.0  # all hops together, headers and body
    max_redirects: int = 5


@dataclass(frozen=True)
class FetchResult:
    """A body that passed every rule."""

    url: str  # the final URL, after redirects
    status: int
    content_type: str
    text: str
    peer: str  # the IP address the answering socket was connected to
    redirects: tuple[str, ...] = ()
    elapsed_ms: int = 0


@dataclass(frozen=True)
class FetchError:
    """A fetch that was refused or failed, with a reason a user can read.

    `reason` is one of: `bad_url`, `blocked`, `redirects`, `timeout`, `connect`,
    `http_status`, `content_type`, `too_large`, `decode`.
    """

    url: str
    reason: str
    detail: str
    retryable: bool
    status: int | None = None

    def __str__(self) -> str:
        return f"{self.reason}: {self.detail}"


def check_url(url: str | httpx.URL, *, allow_private: bool) -> FetchError | None:
    """Check a URL's scheme and host without sending anything (names are checked at connect).

    Refuses IP literals in any spelling that point inside (`http://2130706433/`,
    `http://0x7f.1/`, `http://[::ffff:127.0.0.1]/`) unless `allow_private`.
    """
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        # httpx itself rejects some numeric spellings (`0177.0.0.1`); still a refusal.
        return FetchError(str(url), "bad_url", f"not a valid URL: {exc}", retryable=False)
    if parsed.scheme not in ("http", "https"):
        return FetchError(str(url), "bad_url", "only http and https URLs", retryable=False)
    try:
        host = parse_host(parsed.host)
        if not isinstance(host, str):
            check_address(str(host), allow_private=allow_private)
    except BlockedAddress as exc:
        return FetchError(str(url), "blocked", exc.reason, retryable=False)
    return None


Origin = tuple[str, int]
"""A normalised (host, port): what a trust decision covers."""


def origin(url: str | httpx.URL) -> Origin | None:
    """The (host, port) a URL connects to, host in one spelling; None if it has none."""
    try:
        parsed = httpx.URL(url)
        host = parse_host(parsed.host)
    except (httpx.InvalidURL, TypeError, ValueError, BlockedAddress):
        return None
    port = parsed.port or {"http": 80, "https": 443}.get(parsed.scheme)
    return (str(host), port) if port is not None else None


class Fetcher:
    """The safe HTTP client. One per process; thread-compatible like `httpx.Client`.

    `resolver` maps a host name to addresses (the system's by default); tests inject one to
    make a public-looking name point at 127.0.0.1 and prove the connect-time check.
    """

    def __init__(
        self, *, limits: FetchLimits | None = None, resolver: Resolver = system_resolver
    ) -> None:
        self.limits = limits or FetchLimits()
        self._client = httpx.Client(
            transport=GuardedTransport(resolver),
            follow_redirects=False,
            trust_env=False,
            headers={"User-Agent": USER_AGENT, "Accept-Encoding": "gzip, deflate"},
        )

    def close(self) -> None:
        """Close pooled connections."""
        self._client.close()

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def fetch(
        self,
        url: str,
        *,
        allow_private: bool = False,
        trusted_hosts: frozenset[Origin] = frozenset(),
        accept: frozenset[str] = PAGE_TYPES,
        params: dict[str, str] | None = None,
    ) -> FetchResult | FetchError:
        """GET `url` under every rule in the module docstring; never raises for network faults.

        `trusted_hosts` (see `origin`) may be private without `allow_private`. The trust is
        per call, not per `Fetcher`: one client serves every watch, and the owner's trust in
        the search backend must not open it to a page watch an agent added.
        """
        started = time.monotonic()
        deadline = started + self.limits.total_seconds
        try:
            current = httpx.URL(url, params=params) if params else httpx.URL(url)
        except (httpx.InvalidURL, TypeError, ValueError) as exc:
            return FetchError(url, "bad_url", f"not a valid URL: {exc}", retryable=False)
        hops: list[str] = []
        while True:
            hop_private = allow_private or origin(current) in trusted_hosts
            refused = check_url(current, allow_private=hop_private)
            if refused is not None:
                return refused
            outcome = self._one_hop(current, hop_private, accept, deadline)
            if isinstance(outcome, httpx.URL):
                hops.append(str(current))
                if len(hops) > self.limits.max_redirects:
                    return FetchError(
                        url,
                        "redirects",
                        f"more than {self.limits.max_redirects} redirects",
                        retryable=False,
                    )
                current = outcome
                continue
            if isinstance(outcome, FetchResult):
                elapsed = int((time.monotonic() - started) * 1000)
                return FetchResult(
                    outcome.url,
                    outcome.status,
                    outcome.content_type,
                    outcome.text,
                    outcome.peer,
                    tuple(hops),
                    elapsed,
                )
            return outcome

    def _one_hop(
        self, url: httpx.URL, allow_private: bool, accept: frozenset[str], deadline: float
    ) -> FetchResult | FetchError | httpx.URL:
        """One request: a result, an error, or the next URL to follow."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return FetchError(str(url), "timeout", "total time limit reached", retryable=True)
        request = self._client.build_request(
            "GET",
            url,
            timeout=httpx.Timeout(remaining),
            extensions={ALLOW_PRIVATE: allow_private, DEADLINE: deadline},
        )
        try:
            response = self._client.send(request, stream=True)
        except BlockedAddress as exc:
            return FetchError(str(url), "blocked", exc.reason, retryable=False)
        except httpx.TimeoutException:
            return FetchError(str(url), "timeout", "no answer in time", retryable=True)
        except httpx.HTTPError as exc:
            return FetchError(str(url), "connect", str(exc) or type(exc).__name__, True)
        try:
            return self._read(response, allow_private, accept, deadline)
        except httpx.TimeoutException:
            return FetchError(str(url), "timeout", "body not received in time", retryable=True)
        except httpx.HTTPError as exc:
            return FetchError(str(url), "connect", str(exc) or type(exc).__name__, True)
        finally:
            response.close()

    def _read(
        self,
        response: httpx.Response,
        allow_private: bool,
        accept: frozenset[str],
        deadline: float,
    ) -> FetchResult | FetchError | httpx.URL:
        url = str(response.url)
        stream = response.extensions.get("network_stream")
        peer_info = stream.get_extra_info("server_addr") if stream is not None else None
        if not peer_info:
            return FetchError(url, "blocked", "cannot tell which address answered", False)
        peer = str(peer_info[0])
        try:
            check_address(peer, allow_private=allow_private)
        except BlockedAddress as exc:
            return FetchError(url, "blocked", f"connected to {exc.reason}", retryable=False)
        if response.status_code in _REDIRECTS:
            location = response.headers.get("location")
            if not location:
                return FetchError(url, "redirects", "redirect without Location", False)
            try:
                return response.url.join(location)
            except (httpx.InvalidURL, ValueError) as exc:
                return FetchError(url, "bad_url", f"bad redirect target: {exc}", False)
        if response.status_code >= 400 or response.status_code < 200:
            retry = response.status_code >= 500 or response.status_code in (408, 429)
            return FetchError(
                url, "http_status", f"HTTP {response.status_code}", retry, response.status_code
            )
        media = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if media not in accept:
            return FetchError(
                url,
                "content_type",
                f"content type {media or 'missing'!r} is not one of {sorted(accept)}",
                retryable=False,
            )
        body = self._read_body(response, deadline)
        if isinstance(body, FetchError):
            return body
        text = decode_body(body, response.charset_encoding, media)
        return FetchResult(url, response.status_code, media, text, peer)

    def _read_body(self, response: httpx.Response, deadline: float) -> bytes | FetchError:
        url, cap = str(response.url), self.limits.max_bytes
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding in ("", "x-gzip"):
            encoding = "identity" if not encoding else "gzip"
        if encoding not in ("identity", "gzip", "deflate"):
            return FetchError(url, "decode", f"unsupported encoding {encoding!r}", False)
        declared = response.headers.get("content-length", "")
        if encoding == "identity" and declared.isdigit() and int(declared) > cap:
            return FetchError(url, "too_large", f"body of {declared} bytes > {cap}", False)
        decoder = BoundedDecoder(encoding)
        body = bytearray()
        try:
            for chunk in response.iter_raw():
                body += decoder.feed(chunk, cap - len(body))
                if len(body) > cap:
                    return FetchError(url, "too_large", f"body larger than {cap} bytes", False)
                if time.monotonic() > deadline:
                    return FetchError(url, "timeout", "total time limit reached", True)
        except zlib.error as exc:
            return FetchError(url, "decode", f"corrupt {encoding} body: {exc}", False)
        return bytes(body)
