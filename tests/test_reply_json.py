"""One spelling per reply: a reply dataclass's fields are its JSON form and its MCP schema.

`tests/fixtures/reply_json_before.json` holds the JSON each sample reply had when every reply
type had a hand-written `to_dict` and the MCP tools a pydantic mirror of each: the owner's
`--json` form and what an agent received. The derived forms must equal them, except for the
announced changes (CHANGELOG.md): agents now get `statements` in search and context
replies, a statement always has `score`, an agent's record has `policy` and `paused`,
`doctor`'s build check has `hint` and `dispatched`, and a reminder listing counts the
reminders past its limit (`more`) and gives the cursor to them (`next`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import TypeAdapter

from privault.caller import Caller
from privault.interfaces.mcp.shapes import reply, shape
from privault.jsonform import JsonForm, to_json
from privault.vault import Vault
from privault.vault.results import age
from tests.helpers import mcp_call, mcp_session
from tests.reply_samples import T0, samples

OWNER = Caller.owner()
BEFORE = json.loads((Path(__file__).parent / "fixtures" / "reply_json_before.json").read_text())
AGENT_SAMPLES = sorted(set(BEFORE["agent"]) - {"docs", "shelf"})
REST_OF_REMINDERS = {"more": 2, "next": f"{T0}.r1"}  # as `reply_samples` lists them


def _now_ages(data: Any) -> Any:
    """`data` with every `age` recomputed for today (it is relative to now)."""
    if isinstance(data, dict):
        return {k: (age(T0) if k == "age" else _now_ages(v)) for k, v in data.items()}
    if isinstance(data, list):
        return [_now_ages(item) for item in data]
    return data


def _with_score(statement: dict[str, Any]) -> dict[str, Any]:
    return {"score": None, **statement}


def _announced(name: str, data: dict[str, Any]) -> dict[str, Any]:
    """The old owner form with the announced changes: a statement always has `score`, an
    agent's record its policy and pause, the status its gated keyword rows, the strong
    model's coverage why its files cannot be used, documents, hits and sections who wrote
    them."""
    data = _now_ages(data)
    if isinstance(data.get("statements"), list):
        data["statements"] = [_with_score(item) for item in data["statements"]]
    if isinstance(data.get("statement"), dict):
        data["statement"] = _with_score(data["statement"])
    if isinstance(data.get("index"), dict):  # announced: status counts gated keyword rows
        data["index"] = {**data["index"], "gated_rows": 0}
    if name == "agent":  # announced: what the owner changed about an agent since
        data.update(policy=None, paused_at=None, paused=False)
    if name == "build_check":  # announced: speed a build leaves unused, and its kind
        data.update(hint=None, dispatched=False)
    if name == "import_report":  # announced: why deletions at the source are not known
        data.update(deletions_unknown=None)
    if name == "sync_import":  # announced: the rows refused alone, the rest merged, and
        data.update(refused_rows=[], ahead=0)  # those waiting for their clock's time
    if name == "sync_report":
        data["imported"] = [{**item, "refused_rows": [], "ahead": 0} for item in data["imported"]]
        if data.get("written"):  # and how far the writing device's clock is ahead
            data["written"] = {**data["written"], "clock_ahead_ms": 0}
    if name == "export":
        data.update(clock_ahead_ms=0)
    if name == "strong":  # announced: why the strong model's files cannot be used
        data.update(problem=None)
    if name == "status":
        data["strong"] = {**data["strong"], "problem": None}
    # announced: who wrote a document, a hit, a section (the owner's own: null)
    if name == "docs":
        data["documents"] = [{**item, "author": None} for item in data["documents"]]
    if name == "search":
        data["results"] = [{**item, "author": None} for item in data["results"]]
    if name == "section":
        data.update(author=None)
    if name == "reminders":  # announced: the rest of a listing cut at its limit, and how
        data.update(REST_OF_REMINDERS)  # to list them
    return data


@pytest.mark.parametrize("name", sorted(BEFORE["owner"]))
def test_the_owner_json_of_each_reply_is_what_it_was(name: str) -> None:
    assert samples()[name].to_dict() == _announced(name, BEFORE["owner"][name])


@pytest.mark.parametrize("name", AGENT_SAMPLES)
def test_an_agent_gets_what_it_got_before_plus_the_statements(name: str) -> None:
    value = samples()[name]
    got = value.to_dict(for_agent=True)
    before = _now_ages(BEFORE["agent"][name])
    if name in ("search", "context"):
        # Announced: these replies dropped the statements the facade found.
        assert "statements" not in before
        statements = got.pop("statements")
        assert statements == [s.to_dict(for_agent=True) for s in value.statements]
        assert [s["id"] for s in statements] == ["s1"]
    if name == "reminders":  # announced: an agent is told the rest as the owner is
        before.update(REST_OF_REMINDERS)
    assert got == before


def test_an_agent_is_not_told_paths_policies_or_who_shares_a_shelf() -> None:
    found = samples()
    listed = [doc.to_dict(for_agent=True) for doc in found["docs"].documents]
    assert listed == BEFORE["agent"]["docs"]
    assert "source" not in listed[0] and "/home/ana/x.md" in json.dumps(found["docs"].to_dict())
    assert found["shelf"].to_dict(for_agent=True) == BEFORE["agent"]["shelf"]
    assert found["shelf"].to_dict() == BEFORE["owner"]["shelf"]


@pytest.mark.parametrize("name", AGENT_SAMPLES)
def test_the_published_schema_validates_the_reply(name: str) -> None:
    value = samples()[name]
    schema = TypeAdapter(shape(type(value))).json_schema()
    sent = reply(value).structured_content
    jsonschema.validate(sent, schema)
    # Every key the reply sends is declared, and every declared key is sent.
    assert set(schema["properties"]) == set(sent) == set(schema["required"])


def test_the_schema_refuses_a_reply_of_another_shape() -> None:
    schema = TypeAdapter(shape(type(samples()["search"]))).json_schema()
    broken = samples()["search"].to_dict(for_agent=True)
    broken["results"][0]["score"] = "high"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_field_docs_become_schema_descriptions() -> None:
    schema = TypeAdapter(shape(type(samples()["search"]))).json_schema()
    hit = schema["$defs"]["Hit"]["properties"]
    assert hit["node_id"]["description"] == "Pass to memory_read for the whole section."
    assert hit["age"]["description"] == "How old the text is, e.g. 3d."
    assert hit["created_at"]["anyOf"] == [{"type": "string"}, {"type": "null"}]


def test_json_has_plain_text_not_gated_text() -> None:
    data = to_json(samples()["search"])
    assert type(data["results"][0]["title"]) is str
    assert type(data["results"][0]["breadcrumb"][0]) is str


def test_each_tools_published_schema_validates_its_real_reply(vault: Vault) -> None:
    vault.agents.issue("claude")
    vault.note("# Boiler\n\nThe boiler was serviced in May.", caller=OWNER, tags=("home",))
    vault.statements.add("The boiler is serviced yearly", caller=OWNER, entities=["other:boiler"])

    listed = mcp_session(vault, "claude", lambda client: client.list_tools())
    schemas = {tool.name: tool.output_schema for tool in listed.tools}
    for tool, arguments in (
        ("memory_search", {"query": "boiler"}),
        ("memory_context", {"query": "boiler"}),
        ("memory_tree", {}),
        ("list_shelves", {}),
        ("query_statements", {"query": "boiler"}),
        ("list_watches", {}),
    ):
        result = mcp_call(vault, "claude", tool, **arguments)
        assert not result.is_error, result.content
        jsonschema.validate(result.structured_content, schemas[tool])
        assert json.loads(result.content[0].text) == result.structured_content
    found = mcp_call(vault, "claude", "memory_search", query="boiler").structured_content
    assert [s["content"] for s in found["statements"]] == ["The boiler is serviced yearly"]


UNGATED = """
from privault.caller import Caller
from privault.interfaces.mcp.shapes import reply
from privault.vault.results import Hit, Privacy, SearchResponse


def leak(title: str, privacy: Privacy) -> object:
    hit = Hit("n", "d", title, (), title, 1.0, "note", "default", 0, False, False)
    return reply(SearchResponse("q", (hit,), privacy))


def raw(data: dict[str, str]) -> object:
    return reply(data)
"""


def test_mypy_refuses_ungated_text_on_its_way_to_the_serializer(tmp_path: Path) -> None:
    from mypy import api

    probe = tmp_path / "ungated_reply.py"
    probe.write_text(UNGATED)
    out, _err, status = api.run([str(probe), "--no-error-summary"])
    assert status == 1
    assert 'Argument 3 to "Hit" has incompatible type "str"; expected "Gated"' in out
    assert 'Argument 1 to "reply" has incompatible type "dict[str, str]"' in out
    assert isinstance(samples()["search"], JsonForm)
