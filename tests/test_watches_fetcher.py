"""The safe fetcher against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import codecs
import gzip
import subprocess
import threading
import time
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from test_watches_support import LocalServer, html_page, send, serve

from privault import __version__
from privault.watches.fetcher import (
    JSON_TYPES,
    USER_AGENT,
    Fetcher,
    FetchError,
    FetchLimits,
    FetchResult,
)

BOMB = gzip.compress(b"\0" * 20_000_000, compresslevel=9)  # ~20 KB on the wire, 20 MB inflated


def _raw_deflate(data: bytes) -> bytes:
    """A deflate stream with no zlib header, as some servers send for `deflate`."""
    stream = zlib.compressobj(9, wbits=-15)
    return stream.compress(data) + stream.flush()


def _deflated(body: bytes):  # type: ignore[no-untyped-def]
    return lambda h: send(
        h, body, content_type="text/plain", headers={"Content-Encoding": "deflate"}
    )


def _redirect(target: str, status: int = 302):  # type: ignore[no-untyped-def]
    def route(handler: BaseHTTPRequestHandler) -> None:
        location = target.replace("PORT", str(handler.server.server_address[1]))
        send(handler, "", status=status, headers={"Location": location})

    return route


def _slow(handler: BaseHTTPRequestHandler) -> None:
    time.sleep(3)
    send(handler, html_page("Slow", "finally"))


def _drip(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/plain")
    handler.send_header("Content-Length", "100000")
    handler.end_headers()
    for _ in range(100):
        handler.wfile.write(b"x")
        handler.wfile.flush()
        time.sleep(0.1)


def _drip_headers(handler: BaseHTTPRequestHandler) -> None:
    # One header byte at a time, each well inside a per-read timeout: only a deadline
    # over the whole exchange stops it.
    handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Drip: ")
    for _ in range(40):
        handler.wfile.write(b"x")
        time.sleep(0.1)
    handler.wfile.write(b"\r\nContent-Length: 2\r\n\r\nok")


def _late_then_stalled(handler: BaseHTTPRequestHandler) -> None:
    # Headers just inside the limit, then a body that never comes.
    time.sleep(0.8)
    handler.send_response(200)
    handler.send_header("Content-Type", "text/plain")
    handler.send_header("Content-Length", "100")
    handler.end_headers()
    handler.wfile.write(b"x")
    time.sleep(3)


def _chunked_big(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/plain")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    for _ in range(50):
        chunk = b"y" * 10_000
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
    handler.wfile.write(b"0\r\n\r\n")


ROUTES = {
    "/page": lambda h: send(h, html_page("Hello", "Some words of text.")),
    "/text": lambda h: send(h, "plain words", content_type="text/plain"),
    "/json": lambda h: send(h, '{"results": []}', content_type="application/json"),
    "/binary": lambda h: send(h, b"\x89PNG....", content_type="image/png"),
    "/octet": lambda h: send(h, b"data", content_type="application/octet-stream"),
    "/big": lambda h: send(h, "z" * 300_000, content_type="text/plain"),
    "/chunked-big": _chunked_big,
    "/bomb": lambda h: send(
        h, BOMB, content_type="text/plain", headers={"Content-Encoding": "gzip"}
    ),
    "/small-gzip": lambda h: send(
        h,
        gzip.compress(b"tiny text"),
        content_type="text/plain",
        headers={"Content-Encoding": "gzip"},
    ),
    "/zlib-deflate": _deflated(zlib.compress(b"tiny text")),
    "/raw-deflate": _deflated(_raw_deflate(b"tiny text")),
    "/raw-deflate-bomb": _deflated(_raw_deflate(b"\0" * 20_000_000)),
    "/not-deflate": _deflated(b"\xff" * 64),
    "/brotli": lambda h: send(
        h, b"xx", content_type="text/plain", headers={"Content-Encoding": "br"}
    ),
    "/slow": _slow,
    "/drip": _drip,
    "/drip-headers": _drip_headers,
    "/late-then-stalled": _late_then_stalled,
    "/error": lambda h: send(h, "boom", status=500, content_type="text/plain"),
    "/missing-page": lambda h: send(h, "gone", status=404, content_type="text/plain"),
    "/hop": _redirect("/page"),
    "/loop": _redirect("/loop"),
    "/to-private": _redirect("http://127.0.0.1:PORT/secret"),
    "/to-decimal": _redirect("http://2130706433:PORT/secret"),
    "/to-name": _redirect("http://internal.test:PORT/secret"),
    "/to-file": _redirect("file:///etc/passwd"),
    "/secret": lambda h: send(h, "internal secret", content_type="text/plain"),
}

RESOLVER_TABLE = {
    "trusted.test": ["127.0.0.1"],
    "internal.test": ["127.0.0.1"],
    "rebind.test": ["127.0.0.1"],
}


def resolver(host: str, port: int) -> list[str]:
    """Names used by tests; never reaches a real DNS server."""
    if host not in RESOLVER_TABLE:
        raise OSError(f"test resolver does not know {host}")
    return RESOLVER_TABLE[host]


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with serve(ROUTES) as running:
        yield running


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    limits = FetchLimits(max_bytes=100_000, total_seconds=1.0, max_redirects=3)
    with Fetcher(limits=limits, resolver=resolver) as f:
        yield f


def _trusted(server: LocalServer, host: str = "trusted.test") -> frozenset[tuple[str, int]]:
    return frozenset({(host, server.port)})


def test_fetches_html_with_a_clear_user_agent(server: LocalServer, fetcher: Fetcher) -> None:
    result = fetcher.fetch(server.url("/page"), allow_private=True)
    assert isinstance(result, FetchResult), result
    assert "Some words of text." in result.text
    assert result.content_type == "text/html"
    assert result.peer == "127.0.0.1"
    assert server.user_agents[-1] == USER_AGENT == f"privault/{__version__} (+local memory vault)"


def test_loopback_is_refused_without_allow_private(server: LocalServer, fetcher: Fetcher) -> None:
    before = len(server.hits)
    result = fetcher.fetch(server.url("/page"), allow_private=False)
    assert isinstance(result, FetchError) and result.reason == "blocked"
    assert len(server.hits) == before  # nothing was sent


def test_a_name_resolving_to_loopback_is_refused_at_connect(
    server: LocalServer, fetcher: Fetcher
) -> None:
    before = len(server.hits)
    result = fetcher.fetch(server.url("/secret", host="rebind.test"))
    assert isinstance(result, FetchError) and result.reason == "blocked"
    assert "loopback" in result.detail
    assert len(server.hits) == before


@pytest.mark.parametrize("route", ["/to-private", "/to-decimal", "/to-name"])
def test_every_redirect_hop_is_checked(server: LocalServer, fetcher: Fetcher, route: str) -> None:
    # The first hop is to a host the owner trusts (it may be private); the hop it redirects
    # to is not trusted and points inside, so it must be refused before any byte is sent.
    result = fetcher.fetch(server.url(route, host="trusted.test"), trusted_hosts=_trusted(server))
    assert isinstance(result, FetchError), result
    assert result.reason == "blocked"
    assert "/secret" not in server.hits


def test_trusted_host_first_hop_works(server: LocalServer, fetcher: Fetcher) -> None:
    result = fetcher.fetch(server.url("/page", host="trusted.test"), trusted_hosts=_trusted(server))
    assert isinstance(result, FetchResult), result


@pytest.mark.parametrize("host", ["127.0.0.1", "trusted.test"])
def test_trust_covers_one_port_not_the_whole_host(
    server: LocalServer, fetcher: Fetcher, host: str
) -> None:
    # The owner's backend listens on one port; another service on the same machine
    # is not vouched for, whether asked for directly or reached by a redirect.
    with serve({"/secret": ROUTES["/secret"]}) as other:
        server.routes["/to-other-port"] = _redirect(other.url("/secret", host=host))
        try:
            direct = fetcher.fetch(
                other.url("/secret", host=host), trusted_hosts=_trusted(server, host)
            )
            redirected = fetcher.fetch(
                server.url("/to-other-port", host=host), trusted_hosts=_trusted(server, host)
            )
        finally:
            del server.routes["/to-other-port"]
    assert isinstance(direct, FetchError) and direct.reason == "blocked", direct
    assert isinstance(redirected, FetchError) and redirected.reason == "blocked", redirected
    assert other.hits == []
    assert server.hits[-1] == "/to-other-port"


def test_redirects_are_followed_and_capped(server: LocalServer, fetcher: Fetcher) -> None:
    ok = fetcher.fetch(server.url("/hop"), allow_private=True)
    assert isinstance(ok, FetchResult) and ok.url.endswith("/page")
    assert ok.redirects == (server.url("/hop"),)
    looped = fetcher.fetch(server.url("/loop"), allow_private=True)
    assert isinstance(looped, FetchError) and looped.reason == "redirects"


def test_redirect_to_another_scheme_is_refused(server: LocalServer, fetcher: Fetcher) -> None:
    result = fetcher.fetch(server.url("/to-file"), allow_private=True)
    assert isinstance(result, FetchError) and result.reason == "bad_url"


@pytest.mark.parametrize("route", ["/big", "/chunked-big", "/bomb", "/raw-deflate-bomb"])
def test_body_size_is_capped_after_decompression(
    server: LocalServer, fetcher: Fetcher, route: str
) -> None:
    result = fetcher.fetch(server.url(route), allow_private=True)
    assert isinstance(result, FetchError), route
    assert result.reason == "too_large"


def test_gzip_within_the_cap_is_decoded(server: LocalServer, fetcher: Fetcher) -> None:
    result = fetcher.fetch(server.url("/small-gzip"), allow_private=True)
    assert isinstance(result, FetchResult) and result.text == "tiny text"


@pytest.mark.parametrize("route", ["/zlib-deflate", "/raw-deflate"])
def test_deflate_is_read_with_or_without_its_zlib_header(
    server: LocalServer, fetcher: Fetcher, route: str
) -> None:
    result = fetcher.fetch(server.url(route), allow_private=True)
    assert isinstance(result, FetchResult) and result.text == "tiny text", result


def test_a_body_that_is_no_deflate_at_all_is_a_decode_error(
    server: LocalServer, fetcher: Fetcher
) -> None:
    result = fetcher.fetch(server.url("/not-deflate"), allow_private=True)
    assert isinstance(result, FetchError) and result.reason == "decode", result


def test_unknown_content_encoding_is_refused(server: LocalServer, fetcher: Fetcher) -> None:
    result = fetcher.fetch(server.url("/brotli"), allow_private=True)
    assert isinstance(result, FetchError) and result.reason == "decode"


RUSSIAN = "Привет мир"  # cp1251 bytes are not valid UTF-8
GERMAN = "Grüße aus München, café “quoted”"  # Latin-1 / windows-1252 bytes likewise


@pytest.mark.parametrize(
    ("body", "content_type", "expected"),
    [
        (
            f'<html><head><meta charset="windows-1251"></head><p>{RUSSIAN}</p>'.encode("cp1251"),
            "text/html",
            RUSSIAN,
        ),
        (
            b'<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'
            + GERMAN.encode("cp1252"),
            "text/html",
            GERMAN,
        ),
        (GERMAN.encode("cp1252"), "text/plain", GERMAN),
        (GERMAN.encode("cp1252"), "text/html", GERMAN),
        (codecs.BOM_UTF16_LE + f"<p>{RUSSIAN}</p>".encode("utf-16-le"), "text/html", RUSSIAN),
        (codecs.BOM_UTF8 + RUSSIAN.encode(), "text/plain; charset=iso-8859-1", RUSSIAN),
        (f'<meta charset="cp1251">{RUSSIAN}'.encode(), "text/html; charset=utf-8", RUSSIAN),
        (f'<meta charset="utf-16">{RUSSIAN}'.encode(), "text/html", RUSSIAN),
        (GERMAN.encode("cp1252"), "text/plain; charset=hex", GERMAN),
        (GERMAN.encode("cp1252"), "text/plain; charset=idna", GERMAN),
    ],
    ids=[
        "meta-charset",
        "meta-http-equiv",
        "undeclared-text",
        "undeclared-html",
        "bom",
        "bom-over-header",
        "header-over-meta",
        "meta-utf16-means-utf8",
        "not-a-text-charset",
        "charset-that-cannot-replace",
    ],
)
def test_pages_are_decoded_in_the_charset_a_browser_would_pick(
    server: LocalServer, fetcher: Fetcher, body: bytes, content_type: str, expected: str
) -> None:
    server.routes["/charset"] = lambda h: send(h, body, content_type=content_type)
    try:
        result = fetcher.fetch(server.url("/charset"), allow_private=True)
    finally:
        del server.routes["/charset"]
    assert isinstance(result, FetchResult), result
    assert expected in result.text and "\ufffd" not in result.text


@pytest.mark.parametrize("route", ["/slow", "/drip", "/drip-headers"])
def test_total_time_is_capped(server: LocalServer, fetcher: Fetcher, route: str) -> None:
    started = time.monotonic()
    result = fetcher.fetch(server.url(route), allow_private=True)
    assert isinstance(result, FetchError) and result.reason == "timeout"
    assert result.retryable
    assert time.monotonic() - started < 2.0


def test_a_body_read_ends_at_the_deadline_not_a_full_timeout_later(
    server: LocalServer, fetcher: Fetcher
) -> None:
    # The body is read after the response arrives; its reads answer to the same deadline.
    started = time.monotonic()
    result = fetcher.fetch(server.url("/late-then-stalled"), allow_private=True)
    assert isinstance(result, FetchError) and result.reason == "timeout", result
    assert time.monotonic() - started < 1.5


def test_a_slow_name_lookup_ends_at_the_deadline(server: LocalServer) -> None:
    # getaddrinfo has no timeout of its own: a name server that never answers held the
    # fetch until the system resolver gave up, whatever the fetch's total time.
    released = threading.Event()

    def hanging(host: str, port: int) -> list[str]:
        released.wait(10)
        return ["127.0.0.1"]

    limits = FetchLimits(total_seconds=1.0)
    try:
        with Fetcher(limits=limits, resolver=hanging) as slow:
            started = time.monotonic()
            result = slow.fetch(f"http://hangs.test:{server.port}/text", allow_private=True)
            assert time.monotonic() - started < 1.5
    finally:
        released.set()
    assert isinstance(result, FetchError) and result.reason == "timeout", result
    assert result.retryable


def test_lookups_past_their_deadline_hold_a_few_threads_at_most(server: LocalServer) -> None:
    # Each lookup past its deadline is left to finish on its own thread: a name server
    # that never answers must not gather one thread per fetch.
    released = threading.Event()

    def hanging(host: str, port: int) -> list[str]:
        released.wait(10)
        return ["127.0.0.1"]

    try:
        with Fetcher(limits=FetchLimits(total_seconds=0.2), resolver=hanging) as slow:
            for _ in range(12):
                result = slow.fetch(f"http://hangs.test:{server.port}/text", allow_private=True)
                assert isinstance(result, FetchError) and result.reason == "timeout"
            lookups = [t for t in threading.enumerate() if t.name == "privault-lookup"]
            assert 0 < len(lookups) <= 8
    finally:
        released.set()


def test_a_lookup_that_fails_fast_is_still_a_resolve_error(server: LocalServer) -> None:
    with Fetcher(limits=FetchLimits(total_seconds=1.0), resolver=resolver) as quick:
        result = quick.fetch(f"http://unknown.test:{server.port}/text", allow_private=True)
    assert isinstance(result, FetchError) and "cannot resolve unknown.test" in result.detail


def test_server_errors_are_retryable_client_errors_not(
    server: LocalServer, fetcher: Fetcher
) -> None:
    error = fetcher.fetch(server.url("/error"), allow_private=True)
    assert isinstance(error, FetchError) and error.status == 500 and error.retryable
    missing = fetcher.fetch(server.url("/missing-page"), allow_private=True)
    assert isinstance(missing, FetchError) and missing.status == 404 and not missing.retryable


@pytest.mark.parametrize("route", ["/binary", "/octet", "/json"])
def test_only_html_and_text_are_accepted(server: LocalServer, fetcher: Fetcher, route: str) -> None:
    result = fetcher.fetch(server.url(route), allow_private=True)
    assert isinstance(result, FetchError) and result.reason == "content_type"


def test_json_only_when_asked(server: LocalServer, fetcher: Fetcher) -> None:
    result = fetcher.fetch(server.url("/json"), allow_private=True, accept=JSON_TYPES)
    assert isinstance(result, FetchResult) and result.text.startswith("{")


def test_proxy_settings_in_the_environment_are_ignored(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    with Fetcher(resolver=resolver) as fresh:
        result = fresh.fetch(server.url("/text"), allow_private=True)
    assert isinstance(result, FetchResult) and result.text == "plain words"


def test_connection_refused_is_a_retryable_value(fetcher: Fetcher) -> None:
    result = fetcher.fetch("http://127.0.0.1:9/", allow_private=True)
    assert isinstance(result, FetchError) and result.reason == "connect" and result.retryable


def test_tls_is_always_verified(tmp_path: Path, fetcher: Fetcher) -> None:
    """A self-signed certificate on loopback is refused; there is no switch to accept it."""
    import ssl

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    made = subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        capture_output=True,
    )
    if made.returncode != 0:
        pytest.skip("openssl cannot make a test certificate here")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            send(self, "tls page", content_type="text/plain")

        def log_message(self, *args: object) -> None:
            pass

    class QuietServer(ThreadingHTTPServer):
        def handle_error(self, request: object, client_address: object) -> None:
            pass  # the handshake fails on purpose: the client refuses the certificate

    httpd = QuietServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        result = fetcher.fetch(f"https://127.0.0.1:{httpd.server_address[1]}/", allow_private=True)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert isinstance(result, FetchError) and result.reason == "connect"
    assert "CERTIFICATE_VERIFY_FAILED" in result.detail
