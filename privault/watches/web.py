"""The two watches that read the web: `url` (a page that may change) and `search`.

Both go through the one safe `Fetcher`. Page text is extracted with trafilatura (main
content, no navigation or comments); when trafilatura finds no main content — very short
pages — its plain HTML-to-text conversion is used so a tiny page is not silently empty.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from privault.privacy.url_secrets import without_url_secrets
from privault.watches.actions import ActionContext, ActionResult
from privault.watches.fetcher import JSON_TYPES, FetchError, FetchResult, origin
from privault.watches.model import Watch

MAX_DIFF_CHARS = 64_000
MAX_PAGE_WORDS = 200_000  # a page's words kept to check the next diff against
MAX_SEEN_URLS = 5_000  # search results remembered per watch to avoid refetching them
# Characters of a page's main text filed. Its PII scan costs about 0.3 ms a word, and a
# page of one-letter lines is a word every two characters: the 5 MB a fetch allows took
# half an hour of a core, holding every watch due after it (an agent may add URL watches).
# Long articles and documentation pages fit; a worst case costs about a minute.
MAX_PAGE_TEXT = 200_000


def page_words(page: FetchResult) -> str:
    """All of a page's text on one line, by a plain conversion with no judgement about what
    is main content: the yardstick a diff checks its lines against (see `unified_diff`)."""
    if page.content_type == "text/plain":
        return " ".join(page.text.split())
    import trafilatura

    return " ".join((trafilatura.html2txt(page.text) or "").split())


def extract_text(page: FetchResult) -> tuple[str, str]:
    """(title, main text) of a fetched page, the text at most `MAX_PAGE_TEXT` long."""
    if page.content_type == "text/plain":
        return _url_title(page.url), _capped(page.text.strip())
    import trafilatura  # slow to import: only when a page is actually read

    document = trafilatura.bare_extraction(page.text, url=page.url, with_metadata=True)
    text = getattr(document, "text", None) or trafilatura.html2txt(page.text) or ""
    title = getattr(document, "title", None) or _url_title(page.url)
    return str(title), _capped(str(text).strip())


def _url_title(url: str) -> str:
    """A page's URL as the title of a page that has none: a title is what agents read first,
    and a URL's credentials and query values are the owner's keys (`url_secrets`)."""
    return without_url_secrets(url)


def _capped(text: str) -> str:
    """`text` up to `MAX_PAGE_TEXT` characters, cut at a line's end, saying what was left."""
    if len(text) <= MAX_PAGE_TEXT:
        return text
    end = text.rfind("\n", MAX_PAGE_TEXT // 2, MAX_PAGE_TEXT)
    end = end if end > 0 else MAX_PAGE_TEXT
    left = len(text) - end
    return f"{text[:end].rstrip()}\n\n[{left:,} more characters of the page are not kept]"


def unified_diff(
    before: str, after: str, before_page: str | None = None, after_page: str | None = None
) -> str:
    """A line diff of two page versions, truncated to a size worth storing.

    Main-content extraction is a judgement made afresh for each version: the same heading
    or menu can be kept one day and dropped the next. Given each whole page's words
    (`page_words`), a line shown as removed that the new page still has, or shown as added
    that the old page already had, is a difference of extraction, not of the page, and is
    kept as context: the diff compares like with like.
    """
    lines = list(
        difflib.unified_diff(
            before.splitlines(), after.splitlines(), "before", "after", lineterm=""
        )
    )
    if before_page is not None and after_page is not None:
        lines = [_as_page_saw(line, before_page, after_page) for line in lines]
        if not any(_changed(line) for line in lines):
            return ""
    diff = "\n".join(lines)
    if len(diff) > MAX_DIFF_CHARS:
        diff = diff[:MAX_DIFF_CHARS] + "\n... (diff truncated)"
    return diff


def _changed(line: str) -> bool:
    return line[:1] in "+-" and not line.startswith(("+++", "---"))


def _as_page_saw(line: str, before_page: str, after_page: str) -> str:
    words = " ".join(line[1:].split())
    if not _changed(line) or not words:
        return line
    still_there = line[0] == "-" and words in after_page
    was_there = line[0] == "+" and words in before_page
    return " " + line[1:] if still_there or was_there else line


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
    words = page_words(page)[:MAX_PAGE_WORDS]
    new_state = {"text": text, "doc_id": filed.doc_id, "title": title, "page": words}
    if not filed.changed:
        return ActionResult("unchanged", "no change", (filed.doc_id,), state=new_state)
    previous = state.get("text")
    if previous is None:
        return ActionResult("changed", f"first version: {title}", (filed.doc_id,), state=new_state)
    before_page = state.get("page")
    diff = unified_diff(
        str(previous), text, str(before_page) if before_page is not None else None, words
    )
    changed_lines = sum(1 for line in diff.splitlines() if _changed(line))
    if not changed_lines:
        return ActionResult(
            "changed",
            "changed: only in what was read as the main text",
            (filed.doc_id,),
            state=new_state,
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
    except (ValueError, RecursionError):  # json raises the latter for very deep nesting
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
    home = origin(backend.url) if backend.allow_private else None
    answer = context.fetcher.fetch(
        backend.url,
        trusted_hosts=frozenset({home}) if home is not None else frozenset(),
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
