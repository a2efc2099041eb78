"""The gate is structural: agent-facing results cannot hold text that skipped it.

Text fields of the facade's result types are typed `Gated`, a `str` only the gate makes;
mypy refuses a result built from a plain `str`. These tests keep the types honest: a new
text field must be `Gated` or be named here as one that never carries stored text.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import typing

import pytest

from privault.privacy.gate import Gate, Gated, assembled, clip, joined, literal
from privault.privacy.policy import PolicySet
from privault.spans import Span
from privault.vault import results, statement_results

# Fields that are plain `str` on purpose: ids, kinds, names of shelves and policies, and the
# caller's own input echoed back (its query, or the title of a note it just wrote).
NOT_STORED_TEXT = {
    "node_id",
    "doc_id",
    "kind",
    "shelf",
    "policy",
    "mode",
    "status",
    "query",
    "children",
    "links@SectionView",  # node ids of linked documents, like children (owner only)
    "author",  # the registered name of the agent that wrote it, like a shelf's (owner only)
    "parent",
    "previous_id",
    "failed",
    "title@Added",  # the caller's own title (an agent's dedup is per author)
    "source@Added",  # the caller's own source (a path the owner added)
}

AGENT_FACING = [
    results.Hit,
    results.SearchResponse,
    results.ContextSection,
    results.ContextPack,
    results.SectionView,
    results.TreeNode,
    results.DocumentTree,
    results.DocumentEntry,
    results.Added,
    statement_results.StatementTexts,
]


def _mentions_str(hint: object) -> bool:
    if hint is str:
        return True
    return any(_mentions_str(arg) for arg in typing.get_args(hint))


@pytest.mark.parametrize("cls", AGENT_FACING, ids=lambda cls: cls.__name__)
def test_every_text_field_of_an_agent_facing_result_is_gated(cls: type) -> None:
    hints = typing.get_type_hints(cls, vars(results) | vars(statement_results))
    for item in dataclasses.fields(cls):
        hint = hints[item.name]
        if not _mentions_str(hint):
            continue
        assert item.name in NOT_STORED_TEXT or f"{item.name}@{cls.__name__}" in NOT_STORED_TEXT, (
            f"{cls.__name__}.{item.name} is typed {hint}: stored text must be Gated"
        )


def test_only_the_gate_makes_gated_text() -> None:
    with pytest.raises(TypeError):
        Gated("Mr Olga Petrova")
    with pytest.raises(TypeError):
        Gated("Mr Olga Petrova", object())


def test_gated_text_survives_copies_and_pickles_as_gated_text() -> None:
    gate = Gate(PolicySet.load(None).resolve("standard"))
    text = gate.apply("Mail ada@example.org now", [Span(5, 20, "EMAIL_ADDRESS", 0.9, "x")]).text
    assert isinstance(text, Gated) and text == "Mail <EMAIL_ADDRESS_1> now"
    for twin in (copy.copy(text), copy.deepcopy(text), pickle.loads(pickle.dumps(text))):
        assert isinstance(twin, Gated) and twin == text
    assert not isinstance(text + "!", Gated)  # anything made from it must pass the gate again


def test_clipping_happens_after_gating_and_never_cuts_a_placeholder() -> None:
    gate = Gate(PolicySet.load(None).resolve("standard"))
    value = "Send the forms to marguerite.oxtoby@velloria-post.com and cc the office"
    start = value.index("marguerite")
    end = value.index(" and cc")
    gated = gate.apply(value, [Span(start, end, "EMAIL_ADDRESS", 0.9, "x")]).text
    for limit in range(10, len(gated) + 2):
        clipped = clip(gated, limit)
        assert isinstance(clipped, Gated) and len(clipped) <= limit
        assert "marguerite" not in clipped
        assert clipped.count("<") == clipped.count(">")


def test_gated_text_says_where_the_gate_put_its_placeholders_and_stubs() -> None:
    # Text that only looks like a placeholder (`<PERSON_1>` in a note) is not one: the
    # owner's page draws and counts the masks the gate reports, wherever the text goes.
    gate = Gate(PolicySet.load(None).resolve("standard"))
    text = gate.apply(
        "<PERSON_1> mailed ada@example.org", [Span(18, 33, "EMAIL_ADDRESS", 0.9, "x")]
    )
    gated = text.text
    assert gated == "<PERSON_1> mailed <EMAIL_ADDRESS_1>"
    assert [(m.start, m.end, m.kind) for m in gated.masks] == [(18, 35, "EMAIL_ADDRESS")]
    for twin in (copy.deepcopy(gated), pickle.loads(pickle.dumps(gated))):
        assert twin.masks == gated.masks
    line = joined(" › ", [gated, gated])
    assert [line[m.start : m.end] for m in line.masks] == ["<EMAIL_ADDRESS_1>"] * 2
    assert [m.start for m in line.masks] == [18, 18 + len(gated) + 3]
    assert clip(line, 40).masks == line.masks[:1]
    packed = assembled("## ", gated, "\n", literal("no mask here: <PERSON_2>"))
    assert [(m.start, m.kind) for m in packed.masks] == [(21, "EMAIL_ADDRESS")]
    strict = Gate(PolicySet.load(None).resolve("strict"))
    stub = strict.apply("Mail ada@example.org", [Span(5, 20, "EMAIL_ADDRESS", 0.9, "x")]).text
    assert stub.startswith("[withheld by policy strict")
    assert [(m.start, m.end, m.kind, m.stub) for m in stub.masks] == [
        (0, len(stub), "EMAIL_ADDRESS", True)
    ]


def test_a_mask_has_the_kind_its_placeholder_says() -> None:
    # A value is numbered once, by the kind it was first found as: found again as another
    # kind, it shows the same placeholder, and its mask says that placeholder's kind.
    gate = Gate(PolicySet.load(None).resolve("standard"))
    gate.apply("met Jordan", [Span(4, 10, "PERSON", 0.9, "x")])
    again = gate.apply("flew to Jordan", [Span(8, 14, "LOCATION", 0.9, "x")]).text
    assert again == "flew to <PERSON_1>"
    assert [(again[m.start : m.end], m.kind) for m in again.masks] == [("<PERSON_1>", "PERSON")]
