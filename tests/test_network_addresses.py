"""SSRF address rules, table-driven: no traffic needed, the check happens before connecting."""

from __future__ import annotations

import ipaddress

import pytest

from privault.watches.fetcher import check_url
from privault.watches.network_addresses import (
    BlockedAddress,
    parse_host,
    resolve_checked,
    why_blocked,
)

REFUSED = [
    "http://127.0.0.1/",
    "http://127.1/",
    "http://2130706433/",  # decimal integer
    "http://0x7f000001/",  # hex integer
    "http://0x7f.1/",  # hex, short form
    "http://0177.0.0.1/",  # octal (httpx rejects the spelling; still refused)
    "http://0177.1/",
    "http://017700000001/",  # octal integer
    "http://127.0.0.1./",  # trailing dot
    "http://10.0.0.5/",
    "http://172.16.3.4/",
    "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/",  # cloud metadata, link-local
    "http://100.64.0.1/",  # shared address space (CGNAT)
    "http://0.0.0.0/",
    "http://0/",
    "http://224.0.0.1/",  # multicast
    "http://240.0.0.1/",  # reserved
    "http://255.255.255.255/",
    "http://[::1]/",
    "http://[::]/",
    "http://[fe80::1]/",
    "http://[fc00::1]/",  # unique local
    "http://[ff02::1]/",  # multicast
    "http://[::ffff:127.0.0.1]/",  # IPv4-mapped
    "http://[::ffff:7f00:1]/",
    "http://[::ffff:10.1.2.3]/",
    "http://[64:ff9b::7f00:1]/",  # NAT64 of 127.0.0.1
    "http://[2002:7f00:1::]/",  # 6to4 of 127.0.0.1
    "http://[fe80::1%25eth0]/",  # zone id
    "http://256.1.1.1/",  # numeric but not an address
    "http://1.2.3.4.5/",
    "http://%31%32%37.0.0.1/",  # percent-escaped host
    "file:///etc/passwd",
    "gopher://127.0.0.1/",
    "ftp://example.com/",
    "http:///nohost",
]

ALLOWED = [
    "http://example.com/",
    "https://example.com:8443/path?q=1",
    "http://93.184.215.14/",
    "http://1.1.1.1/",
    "http://[2606:4700:4700::1111]/",
    "http://[::ffff:8.8.8.8]/",
    "http://0x08080808/",  # 8.8.8.8 spelled in hex is still public
]


@pytest.mark.parametrize("url", REFUSED)
def test_private_and_odd_hosts_are_refused(url: str) -> None:
    refused = check_url(url, allow_private=False)
    assert refused is not None, url
    assert refused.reason in ("blocked", "bad_url")
    assert not refused.retryable


@pytest.mark.parametrize("url", ALLOWED)
def test_public_hosts_pass(url: str) -> None:
    assert check_url(url, allow_private=False) is None


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1/", "http://2130706433/", "http://[::1]/", "http://10.0.0.5/"]
)
def test_allow_private_lets_private_literals_through(url: str) -> None:
    assert check_url(url, allow_private=True) is None


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("2130706433", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("10.1", "10.0.0.1"),
        ("192.168.257", "192.168.1.1"),
        ("[::FFFF:127.0.0.1]", "::ffff:7f00:1"),
        ("Example.COM.", "example.com"),
    ],
)
def test_host_spellings_normalise(host: str, expected: str) -> None:
    assert str(parse_host(host)) == expected


@pytest.mark.parametrize(
    "address", ["8.8.8.8", "2606:4700:4700::1111", "::ffff:1.1.1.1", "64:ff9b::808:808"]
)
def test_public_addresses_have_no_reason(address: str) -> None:
    assert why_blocked(ipaddress.ip_address(address)) is None


def _resolver(table: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    return lambda host, port: table[host]


@pytest.mark.parametrize(
    ("name", "answers"),
    [
        ("localhost", ["127.0.0.1"]),
        ("rebind.test", ["93.184.215.14", "127.0.0.1"]),  # one bad answer spoils the name
        ("v6.test", ["::1"]),
        ("mapped.test", ["::ffff:192.168.0.1"]),
        ("meta.test", ["169.254.169.254"]),
    ],
)
def test_names_resolving_to_private_addresses_are_refused(name: str, answers: list[str]) -> None:
    with pytest.raises(BlockedAddress):
        resolve_checked(name, 80, allow_private=False, resolver=_resolver({name: answers}))
    assert resolve_checked(name, 80, allow_private=True, resolver=_resolver({name: answers}))


def test_names_resolving_to_public_addresses_pass() -> None:
    found = resolve_checked(
        "ok.test", 443, allow_private=False, resolver=_resolver({"ok.test": ["1.1.1.1"]})
    )
    assert [str(address) for address in found] == ["1.1.1.1"]


def test_unresolvable_name_is_refused() -> None:
    def failing(host: str, port: int) -> list[str]:
        raise OSError("no such host")

    with pytest.raises(BlockedAddress, match="cannot resolve"):
        resolve_checked("nowhere.test", 80, allow_private=False, resolver=failing)
