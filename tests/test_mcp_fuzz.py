"""A small run of `benchmarks.fuzz`: generated MCP tool calls, valid and malformed, over
HTTP from concurrent clients against the serve app on 127.0.0.1 (fake engines, so it is
quick): no unhandled exception, no HTTP 5xx, no partial write."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from benchmarks import fuzz, fuzz_calls
from privault.interfaces.mcp.http import build_app
from tests.helpers import fake_vault, free_port, mcp_ok, uvicorn_running

CALLS = 400


class Collect(logging.Handler):
    """Every error the server logs."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, dict[str, str], dict[str, Any], Path]]:
    path = tmp_path / "vault.db"
    tokens, ids = fuzz.build_vault(path, tmp_path / "models", fake=True)
    vault = fake_vault(path)
    port = free_port()
    app = build_app(vault, host="127.0.0.1", port=port, readers=3)
    try:
        with uvicorn_running(app, port) as url:
            yield f"{url}/mcp", tokens, ids, path
    finally:
        vault.close()


def test_generated_calls_cause_no_crash_no_5xx_and_no_partial_write(
    served: tuple[str, dict[str, str], dict[str, Any], Path],
) -> None:
    url, tokens, ids, path = served
    errors = Collect()
    for name in ("uvicorn.error", "mcp", "privault", ""):
        logging.getLogger(name).addHandler(errors)
    try:
        tools = anyio.run(fuzz.published_tools, url, tokens["fuzz-a"])
        calls = fuzz_calls.generate(tools, ids, CALLS, seed=7)
        results = anyio.run(fuzz.drive, url, tokens, calls, 4)
    finally:
        for name in ("uvicorn.error", "mcp", "privault", ""):
            logging.getLogger(name).removeHandler(errors)
    summary = fuzz.summarise(results)
    assert summary["calls"] == CALLS
    # The mix is what the fuzz promises: malformed calls of every kind, and valid ones
    # that got through, writes among them.
    assert {"valid", "missing", "wrong_type", "unicode", "not_json", "unknown_tool"} <= set(
        summary["by_kind"]
    )
    assert summary["outcomes"].get("ok", 0) > CALLS // 10
    assert summary["writes_acknowledged"] > 5
    assert summary["http_5xx"] == 0 and summary["transport_errors"] == 0
    assert [record.getMessage() for record in errors.records] == []
    checked = fuzz.check_vault(path, results, fuzz.AGENTS)
    assert checked["problems"] == [] and checked["integrity_check"] == "ok"
    assert checked["unhandled_exceptions"] == 0


def test_the_same_seed_generates_the_same_calls(
    served: tuple[str, dict[str, str], dict[str, Any], Path],
) -> None:
    url, tokens, ids, _ = served
    tools = anyio.run(fuzz.published_tools, url, tokens["fuzz-a"])
    first = fuzz_calls.generate(tools, ids, 50, seed=3)
    again = fuzz_calls.generate(tools, ids, 50, seed=3)
    assert [call.body(1) for call in first] == [call.body(1) for call in again]


class Reply:
    """Just what `fuzz.answer_of` reads of an HTTP response."""

    def __init__(self, text: str, kind: str = "text/event-stream") -> None:
        self.text = text
        self.headers = {"content-type": kind}


def test_an_event_stream_answer_is_read_whole_whatever_its_text_holds() -> None:
    # U+0085 and U+2028 end lines for str.splitlines, not for an event stream.
    message = {"jsonrpc": "2.0", "id": 3, "result": {"text": "a\x85b\u2028c"}}
    stream = "event: message\r\ndata: " + json.dumps(message, ensure_ascii=False) + "\r\n\r\n"
    assert fuzz.answer_of(Reply(stream)) == message
    assert fuzz.answer_of(Reply(": ping\n\ndata: \n\n" + stream.replace("\r\n", "\n"))) == message
    assert fuzz.answer_of(Reply(json.dumps(message), "application/json")) == message
    assert fuzz.answer_of(Reply("", "application/json")) is None


# ---- what the fuzz found ----------------------------------------------------------------


def test_a_blank_statement_source_is_no_source(tmp_path: Path) -> None:
    """`source: ""` passed the write and then failed the gate (an unhandled exception)."""
    vault = fake_vault(tmp_path / "v.db")
    vault.agents.issue("claude")
    try:
        first = mcp_ok(vault, "claude", "write_statement", content="Ana leads", source="")
        new_id = first["statement"]["id"]
        later = mcp_ok(
            vault, "claude", "supersede_statement", statement_id=new_id, content="Bo", source=""
        )
        again = mcp_ok(
            vault,
            "claude",
            "revise_statement",
            statement_id=later["statement"]["id"],
            content="Bo leads",
            source="",
        )
        mcp_ok(
            vault, "claude", "confirm_statement", statement_id=again["statement"]["id"], source=""
        )
        assert [first["statement"]["source"], again["statement"]["source"]] == [None, None]
    finally:
        vault.close()
