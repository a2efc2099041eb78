"""A text's masked shape (`spans.masked_text`) and offsets between it and the stored text:
windows of a section are cut on the shape, so they must map back exactly."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from privault.spans import Span, from_masked, masked_text, merge_spans, to_masked

TEXT = "Write to ann@x.org or Bob Stone at 12 High St.\nThen rest."
MASKS = [
    Span(TEXT.index("ann"), TEXT.index(" or"), "EMAIL_ADDRESS", 1.0, "t"),
    Span(TEXT.index("Bob"), TEXT.index(" at"), "PERSON", 1.0, "t"),
]


def test_a_mask_becomes_its_kind_and_offsets_map_both_ways() -> None:
    shown = masked_text(TEXT, MASKS)
    assert shown == "Write to <EMAIL_ADDRESS> or <PERSON> at 12 High St.\nThen rest."
    newline = TEXT.index("\n")
    assert to_masked(MASKS, newline) == shown.index("\n")
    assert from_masked(MASKS, shown.index("\n")) == newline
    assert to_masked(MASKS, 12) == 9  # inside the address: where its mark starts
    assert from_masked(MASKS, 12) == 9  # inside the mark: where the address starts
    assert from_masked(MASKS, len(shown)) == len(TEXT)


@st.composite
def texts_with_masks(draw: st.DrawFn) -> tuple[str, list[Span]]:
    text = draw(st.text("ab \n", min_size=1, max_size=60))
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=8)))
    spans = [
        Span(a, b, draw(st.sampled_from(["PERSON", "URL"])), 1.0, "t")
        for a, b in zip(cuts[::2], cuts[1::2], strict=False)
        if b > a
    ]
    return text, merge_spans(spans)


@given(texts_with_masks())
def test_every_offset_outside_a_mask_maps_there_and_back(case: tuple[str, list[Span]]) -> None:
    text, masks = case
    shown = masked_text(text, masks)
    inside = {at for span in masks for at in range(span.start + 1, span.end)}
    for at in range(len(text) + 1):
        if at in inside:
            continue
        seen = to_masked(masks, at)
        assert from_masked(masks, seen) == at
        assert shown[seen:] == masked_text(
            text[at:],
            [Span(s.start - at, s.end - at, s.kind, 1.0, "t") for s in masks if s.start >= at],
        )
