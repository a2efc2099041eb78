"""Owner overrides: values the owner marked as PII, or as not PII, in one document.

Overrides are stored by document id and value (not offsets), so they survive re-ingest.
They are applied at read time on top of stored spans: `mark` adds a span at every
occurrence of the value, `unmark` drops the spans of the kinds it names that lie within an
occurrence of the value (the value itself, and the parts of it a detector also reported:
"not a person" for "Jonas Becker" covers "Jonas" there too, not "Jonas" elsewhere). Spans of
other kinds stay. A `mark` beats an `unmark` of the same value: when in doubt, mask.
"""

from __future__ import annotations

from collections.abc import Iterable

from privault.privacy.recognizers import find_known_entities
from privault.spans import Override, Span, normalise_value


def apply_overrides(
    text: str,
    spans: Iterable[Span],
    overrides: Iterable[Override],
    *,
    doc_id: str,
    node_id: str | None = None,
) -> list[Span]:
    """Stored spans of one text with the owner's overrides for (doc_id, node_id) applied."""
    relevant = [o for o in overrides if o.applies_to(doc_id, node_id)]
    marked = {normalise_value(o.value): o.kind for o in relevant if o.action == "mark"}
    kept = list(spans)
    for override in relevant:
        if override.action != "unmark" or normalise_value(override.value) in marked:
            continue
        places = find_known_entities(text, {override.value: "PERSON"})
        kept = [
            span
            for span in kept
            if not (
                override.unmarks(span.kind)
                and any(p.start <= span.start and span.end <= p.end for p in places)
            )
        ]
    kept += find_known_entities(
        text, {o.value: o.kind for o in relevant if o.action == "mark"}, source="owner", score=1.0
    )
    return sorted(kept)
