"""URLs shown to agents keep their shape, never their credentials or query values."""

from __future__ import annotations

import pytest

from privault.privacy.url_secrets import without_url_secrets


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("http://u:pw@10.0.0.1:81/p?token=t", "http://<CREDENTIALS>@10.0.0.1:81/p?token=<VALUE>"),
        ("see https://e.com/a?q=1&flag#top now", "see https://e.com/a?q=<VALUE>&<VALUE>#top now"),
        ("https://e.com/plain/path", "https://e.com/plain/path"),
        ("no links here: a@b.c", "no links here: a@b.c"),
        ("broken http://[::1/ link", "broken <URL> link"),
        ("https://x.com/feed?AKIAIOSFODNN7EXAMPLE", "https://x.com/feed?<VALUE>"),
        (
            "https://x.com/cb#access_token=abc&s=1",
            "https://x.com/cb#access_token=<VALUE>&s=<VALUE>",
        ),
        ("https://x.com/a;jsessionid=S3/b", "https://x.com/a;jsessionid=<VALUE>/b"),
        ("https://x.com/doc#part-2", "https://x.com/doc#part-2"),
        ("read https://x.com/?q=a,b.", "read https://x.com/?q=<VALUE>."),
    ],
)
def test_secrets_in_urls_are_replaced(text: str, shown: str) -> None:
    assert without_url_secrets(text) == shown


@pytest.mark.parametrize("content_type", ["text/plain", "text/html"])
def test_a_page_titled_by_its_url_is_titled_without_its_secrets(content_type: str) -> None:
    from privault.watches.fetcher import FetchResult
    from privault.watches.web import extract_text

    url = "https://owner:hunter2@shop.example.com/stock?token=abc123"
    body = "In stock." if content_type == "text/plain" else "<p>In stock again today.</p>"
    title, _ = extract_text(FetchResult(url, 200, content_type, body, "127.0.0.1"))
    assert title == "https://<CREDENTIALS>@shop.example.com/stock?token=<VALUE>"
