"""The two watches that read the web: `url` (a page that may change) and `search`.

Both go through the one safe `Fetcher`. Page text is extracted with trafilatura (main
content, no navigation or comments); when trafilatura finds no main content — very short
pages — its plain HTML-to-text conversion is used so a tiny page is not silently empty.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from privault.watches.actions import ActionContext, ActionResult
from privault.watches.fetcher import JSON_TYPES, FetchError, FetchResult
from privault.watches.model import Watch

MAX_DIFF_CHARS = 64_000
MAX_SEEN_URLS = 5_000  # search results remembered per watch to avoid refetching them


def extract_text(page: FetchResult) -> tuple[str, str]:
    """(title, main text) of a fetched page."""
    if page.content_type == "text/plain":
        return page.url, page.text.strip()
    import trafilatura  # slow to import: only when a page is actually read

    document = trafilatura.bare_extraction(page.text, url=page.url, with_metadata=True)
    text = getattr(document, "text", None) or trafilatura.html2txt(page.text) or ""
    title = getattr(document, "title", None) or page.url
    return str(title), str(text).strip()


def unified_diff(before: str, after: str) -> str:
    """A line diff of two page versions, truncated to a size worth storing."""
    lines = difflib.unified_diff(
        before.splitlines(), after.splitlines(), "before", "after", lineterm=""
    )
    diff = "\n".join(lines)
    if len(diff) > MAX_DIFF_CHARS:
        diff = diff[:MAX_DIFF_CHARS] + "\n... (diff truncated)"
    return diff


def url_action(
    watch: Watch, state: dict[str, Any], planned_at: int, context: ActionContext
) -> ActionResult:
    """Fetch the page; file a new version only when its text changed, with the diff."""
    page = context.fetcher.fetch(watch.target, allow_private=watch.allow_private)
    if isinstance(page, FetchError):
        return ActionResult.failed(str(page), retryable=page.retryable)
    title, text = extract_text(page)
    if not text:
        return ActionResult.failed("no text found on the page", retryable=False)
    filed = context.filer.file_page(
        url=watch.target, title=title, text=text, shelf=watch.shelf, watch_id=watch.id
    )
    new_state = {"text": text, "doc_id": filed.doc_id, "title": title}
    if not filed.changed:
        return ActionResult("unchanged", "no change", (filed.doc_id,), state=new_state)
    previous = state.get("text")
    if previous is None:
        return ActionResult("changed", f"first version: {title}", (filed.doc_id,), state=new_state)
    diff = unified_diff(str(previous), text)
    changed_lines = sum(
        1 for line in diff.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---"))
    )
    return ActionResult(
        "changed",
        f"changed: {changed_lines} lines differ",
        (filed.doc_id,),
        diff=diff,
        state=new_state,
    )


def _results(body: str) -> list[dict[str, str]] | None:
    """Parse a SearXNG JSON answer into (url, title, snippet) dicts; None if malformed."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        return None
    parsed = []
    for item in data["results"]:
        if not isinstance(item, dict):
            continue
        url = item.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            continue
        parsed.append(
            {
                "url": url,
                "title": str(item.get("title") or url),
                "snippet": str(item.get("content") or ""),
            }
        )
    return parsed


def search_action(
    watch: Watch, state: dict[str, Any], planned_at: int, context: ActionContext
) -> ActionResult:
    """Run the query on the configured backend and file results not filed before.

    With the watch option `fetch_pages`, each new result's page is fetched (under the
    watch's own `allow_private`, never the backend's) and its text filed too.
    """
    backend = context.search
    if backend is None:
        return ActionResult.failed("no search backend is configured", retryable=False)
    answer = context.fetcher.fetch(
        backend.url,
        allow_private=backend.allow_private,
        accept=JSON_TYPES,
        params={"q": watch.target, "format": "json"},
    )
    if isinstance(answer, FetchError):
        return ActionResult.failed(f"search backend: {answer}", retryable=answer.retryable)
    results = _results(answer.text)
    if results is None:
        return ActionResult.failed("search backend sent malformed JSON", retryable=True)
    seen: list[str] = list(state.get("seen", []))
    seen_set = set(seen)
    filed: list[str] = []
    for item in results[: backend.max_results]:
        if item["url"] in seen_set:
            continue
        text = None
        if watch.options.get("fetch_pages"):
            page = context.fetcher.fetch(item["url"], allow_private=watch.allow_private)
            if isinstance(page, FetchResult):
                text = extract_text(page)[1] or None
        doc_id = context.filer.file_search_result(
            url=item["url"],
            title=item["title"],
            snippet=item["snippet"],
            text=text,
            shelf=watch.shelf,
            watch_id=watch.id,
        )
        if doc_id is not None:
            filed.append(doc_id)
        seen.append(item["url"])
        seen_set.add(item["url"])
    new_state = {"seen": seen[-MAX_SEEN_URLS:]}
    status = "filed" if filed else "unchanged"
    summary = f"{len(filed)} new of {len(results)} results"
    return ActionResult(status, summary, tuple(filed), state=new_state)
