"""Malformed tool arguments (wrong types, huge strings, bad ids, bad times) give structured
errors: never a crash, never a half-written document or index."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from privault.caller import Caller
from privault.interfaces.mcp.server import for_agent
from privault.store import agents
from privault.vault import Vault
from tests.helpers import examples, fake_vault

TOOLS = {
    "memory_search": ["query", "limit", "shelf", "kind", "tag", "since", "until"],
    "memory_read": ["node_id"],
    "memory_tree": ["doc_id", "shelf", "kind", "limit"],
    "memory_context": ["query", "budget", "shelf", "since", "until"],
    "remember": ["text", "title", "tags", "shelf"],
    "memory_forget": ["doc_id"],
    "list_shelves": [],
}
BAD_TIMES = ["yesterday", "2026-13-45", "2026-01-01T10:00", "9999-99-99T99:99:99Z", "", " "]
values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.sampled_from(BAD_TIMES),
    st.sampled_from(["d000000000000", "d000000000000.0", "../../etc", "' OR 1=1 --", "\x00"]),
    st.builds(lambda n: "x" * n, st.integers(min_value=1_000, max_value=1_200_000)),
    st.lists(st.one_of(st.text(max_size=10), st.integers()), max_size=4),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


@st.composite
def tool_calls(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    tool = draw(st.sampled_from(sorted(TOOLS)))
    keys = draw(st.lists(st.sampled_from([*TOOLS[tool], "policy", "zzz"]), max_size=4))
    return tool, {key: draw(values) for key in keys}


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Vault]:
    found = fake_vault(tmp_path_factory.mktemp("props") / "vault.db")
    agents.issue(found.conn, "fuzz")
    found.note("# Notes\n\nThe boiler is serviced in March.", caller=Caller.owner())
    yield found
    found.close()


def consistent(vault: Vault) -> None:
    """Every index row belongs to stored text and every document has its sections."""
    conn = vault.conn
    orphans = conn.execute(
        "SELECT count(*) FROM sections s LEFT JOIN documents d ON d.id = s.doc_id "
        "WHERE d.id IS NULL"
    ).fetchone()[0]
    empty_docs = conn.execute(
        "SELECT count(*) FROM documents d WHERE NOT EXISTS "
        "(SELECT 1 FROM sections s WHERE s.doc_id = d.id)"
    ).fetchone()[0]
    chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    fts = conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
    vectors = conn.execute("SELECT count(*) FROM chunks_vec").fetchone()[0]
    assert (orphans, empty_docs) == (0, 0)
    assert chunks == fts == vectors
    assert not conn.in_transaction


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(calls=st.lists(tool_calls(), min_size=1, max_size=4))
def test_malformed_arguments_give_structured_errors(
    vault: Vault, calls: list[tuple[str, dict[str, Any]]]
) -> None:
    async def main() -> list[Any]:
        async with Client(for_agent(vault, "fuzz")) as client:
            return [await client.call_tool(tool, arguments) for tool, arguments in calls]

    for (tool, _arguments), result in zip(calls, anyio.run(main), strict=True):
        if result.is_error:
            text = result.content[0].text
            # The SDK's bare "Error executing tool X" means an unexpected crash in the body.
            assert text != f"Error executing tool {tool}", text
            assert text
        else:
            assert result.structured_content is not None
    consistent(vault)
