"""The secrets a URL carries, kept from agents whatever their policy.

A watched URL may hold credentials: a user name and password before the host (`https://
user:pass@host/`, which the fetcher sends as basic authentication) or a token among its
query values (`?token=…`, `?key=…`, `?sig=…`). Neither is personal data a recogniser knows,
so no policy masks them; they are the owner's keys. Agents get such URLs with the user
part and every query value replaced (the parameter names stay: they say what the URL is).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit, urlunsplit

CREDENTIALS = "<CREDENTIALS>"
VALUE = "<VALUE>"
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s<>\"'`]+", re.IGNORECASE)


def without_url_secrets(text: str) -> str:
    """`text` with every URL in it stripped of its credentials and query values."""
    return _URL.sub(lambda match: _stripped(match.group(0)), text) if "://" in text else text


def _stripped(url: str) -> str:
    try:
        parts = urlsplit(url)
        host = parts.netloc.rpartition("@")[2]
    except ValueError:  # not a URL urllib can take apart: nothing of it is shown
        return "<URL>"
    netloc = f"{CREDENTIALS}@{host}" if "@" in parts.netloc else parts.netloc
    query = "&".join(
        f"{name}={VALUE}" if value else name
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
