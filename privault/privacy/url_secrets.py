"""The secrets a URL carries, kept from agents whatever their policy.

A watched URL may hold credentials: a user name and password before the host (`https://
user:pass@host/`, which the fetcher sends as basic authentication), or a token among its
query values (`?token=…`, `?key=…`, a bare `?AKIA…`), its path parameters (`;jsessionid=…`)
or a fragment of the same form (`#access_token=…`). Neither is personal data a recogniser knows,
so no policy masks them; they are the owner's keys. Agents get such URLs with the user
part and every query value replaced (the parameter names stay: they say what the URL is).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

CREDENTIALS = "<CREDENTIALS>"
VALUE = "<VALUE>"
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s<>\"'`]+", re.IGNORECASE)
_PATH_PARAMETER = re.compile(r"(;[^/;=]+)=[^/;]*")


def without_url_secrets(text: str) -> str:
    """`text` with every URL in it stripped of its credentials and query values."""
    return _URL.sub(_url_in_text, text) if "://" in text else text


def _url_in_text(match: re.Match[str]) -> str:
    """A URL found in text, stripped; the punctuation that ends a sentence after it kept."""
    url = match.group(0).rstrip(".,;:!?)")
    return _stripped(url) + match.group(0)[len(url) :]


def _stripped(url: str) -> str:
    try:
        parts = urlsplit(url)
        host = parts.netloc.rpartition("@")[2]
    except ValueError:  # not a URL urllib can take apart: nothing of it is shown
        return "<URL>"
    netloc = f"{CREDENTIALS}@{host}" if "@" in parts.netloc else parts.netloc
    path = _PATH_PARAMETER.sub(rf"\1={VALUE}", parts.path)  # ;jsessionid=…
    fragment = _values(parts.fragment) if "=" in parts.fragment else parts.fragment
    return urlunsplit((parts.scheme, netloc, path, _values(parts.query), fragment))


def _values(query: str) -> str:
    """A query (or a fragment of the same form, `#access_token=…`) with each value, and
    each part that is a bare value (`?AKIA…`), replaced; the names kept."""
    kept = []
    for part in query.split("&"):
        if part:
            name, equals, _ = part.partition("=")
            kept.append(f"{name}={VALUE}" if equals else VALUE)
    return "&".join(kept)
