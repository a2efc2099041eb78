"""Which network addresses a watch may reach: the SSRF rules, as pure functions.

A URL's host can name an internal machine in many spellings: `127.0.0.1`, `2130706433`,
`0x7f.1`, `0177.0.0.1`, `[::ffff:127.0.0.1]`, or a DNS name that resolves to any of them.
Everything here works on parsed `ipaddress` values so that spelling cannot matter: a host
is parsed the way `inet_aton` (and so the operating system) would read it, and names are
resolved and every address they resolve to is checked. The connection itself is checked
again in `fetcher.py`, because DNS may answer differently a moment later (rebinding).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], list[str]]
"""Turns (host name, port) into IP address strings. Injectable so tests can map names."""

_NAME = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)(\.(?!-)[a-z0-9_-]{1,63}(?<!-))*\Z")
_NUMBER = re.compile(r"^(0x[0-9a-f]*|[0-9]+)\Z")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class BlockedAddress(Exception):
    """Raised inside the fetcher when a host or address may not be reached."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def system_resolver(host: str, port: int) -> list[str]:
    """Resolve a name with the operating system, returning every address it gives."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _parse_legacy_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """Read a host the way `inet_aton` does (1-4 parts, decimal/octal/hex), or None.

    Raises `BlockedAddress` when the host looks numeric but is not a valid address, since
    browsers and resolvers disagree on such hosts and none of them is a real name.
    """
    parts = host.split(".")
    if not all(_NUMBER.match(part) for part in parts):
        return None
    if len(parts) > 4:
        raise BlockedAddress(f"host {host!r} is not a valid address")
    values = []
    for part in parts:
        if part.startswith("0x"):
            values.append(int(part[2:] or "0", 16))
        elif len(part) > 1 and part.startswith("0"):
            if not set(part) <= set("01234567"):
                raise BlockedAddress(f"host {host!r} is not a valid address")
            values.append(int(part, 8))
        else:
            values.append(int(part))
    *leading, last = values
    if any(value > 255 for value in leading) or last >= 256 ** (5 - len(values)):
        raise BlockedAddress(f"host {host!r} is not a valid address")
    number = last
    for index, value in enumerate(leading):
        number += value << (8 * (3 - index))
    return ipaddress.IPv4Address(number)


def parse_host(host: str) -> IPAddress | str:
    """Normalise a URL host: an IP address (any spelling) or a lower-case DNS name.

    Raises `BlockedAddress` for hosts that are neither (percent-escapes, zone ids, junk).
    """
    value = host.strip().lower()
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1]
    if not value:
        raise BlockedAddress("the URL has no host")
    if ":" in value:
        if "%" in value:
            raise BlockedAddress(f"host {host!r}: IPv6 zone ids are not allowed")
        try:
            return ipaddress.IPv6Address(value)
        except ValueError:
            raise BlockedAddress(f"host {host!r} is not a valid IPv6 address") from None
    value = value.removesuffix(".")
    legacy = _parse_legacy_ipv4(value)
    if legacy is not None:
        return legacy
    if not _NAME.match(value):
        raise BlockedAddress(f"host {host!r} is not a valid host name")
    return value


def why_blocked(address: IPAddress) -> str | None:
    """The reason an address is not public, or None when a watch may reach it."""
    embedded: ipaddress.IPv4Address | None = None
    if isinstance(address, ipaddress.IPv6Address):
        # An IPv6 address can carry an IPv4 one that the kernel or a gateway will reach.
        if address.ipv4_mapped is not None:
            embedded = address.ipv4_mapped
        elif address.sixtofour is not None:
            embedded = address.sixtofour
        elif address in _NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        elif address.teredo is not None:
            embedded = address.teredo[1]
        if embedded is not None:
            inner = why_blocked(embedded)
            return f"{inner} (inside {address})" if inner else None
    for label, flag in (
        ("unspecified", address.is_unspecified),
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("private", address.is_private),
        ("reserved", address.is_reserved),
    ):
        if flag:
            return f"{address} is a {label} address"
    if not address.is_global:  # shared (CGNAT), documentation, benchmarking ranges
        return f"{address} is not a public address"
    return None


def check_address(text: str, *, allow_private: bool) -> IPAddress:
    """Parse one resolved address and refuse it unless it is public (or private is allowed)."""
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        raise BlockedAddress(f"resolver returned a non-address {text!r}") from None
    if not allow_private:
        reason = why_blocked(address)
        if reason:
            raise BlockedAddress(reason)
    return address


def resolve_checked(
    host: str, port: int, *, allow_private: bool, resolver: Resolver
) -> list[IPAddress]:
    """Every address `host` stands for, all checked; refuses if any one of them is private.

    Refusing the whole name when one address is private closes the trick of a name that
    resolves to both a public and an internal address.
    """
    parsed = parse_host(host)
    if not isinstance(parsed, str):
        return [check_address(str(parsed), allow_private=allow_private)]
    try:
        found = resolver(parsed, port)
    except OSError as exc:
        raise BlockedAddress(f"cannot resolve {parsed}: {exc}") from None
    if not found:
        raise BlockedAddress(f"cannot resolve {parsed}: no addresses")
    return [check_address(text, allow_private=allow_private) for text in found]
