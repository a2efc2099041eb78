"""URLs shown to agents keep their shape, never their credentials or query values."""

from __future__ import annotations

import pytest

from privault.privacy.url_secrets import without_url_secrets


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("http://u:pw@10.0.0.1:81/p?token=t", "http://<CREDENTIALS>@10.0.0.1:81/p?token=<VALUE>"),
        ("see https://e.com/a?q=1&flag#top now", "see https://e.com/a?q=<VALUE>&flag#top now"),
        ("https://e.com/plain/path", "https://e.com/plain/path"),
        ("no links here: a@b.c", "no links here: a@b.c"),
        ("broken http://[::1/ link", "broken <URL> link"),
    ],
)
def test_secrets_in_urls_are_replaced(text: str, shown: str) -> None:
    assert without_url_secrets(text) == shown
