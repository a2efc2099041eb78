"""The real detector on what it must find and what it must leave alone.

Emails on domains that are not public suffixes are addresses all the same; common nouns,
headings and field labels are not people and are never stored as PII spans.
"""

from __future__ import annotations

import pytest

from privault.privacy import Detector, DetectorConfig, PolicySet
from privault.privacy.spans import Span

pytestmark = pytest.mark.real
STANDARD = PolicySet.load().resolve("standard")


@pytest.fixture(scope="module")
def detector() -> Detector:
    built = Detector(DetectorConfig.build([STANDARD]))
    built.load()
    return built


def _counted(spans: list[Span], text: str) -> set[tuple[str, str]]:
    return {(text[s.start : s.end], s.kind) for s in spans if STANDARD.counts(s)}


@pytest.mark.parametrize(
    "address",
    [
        "bob@corp.internal",
        "alice@intranet.local",
        "m.okonkwo.bell@fernhollow.example",
        "jo@fernhollow.com",
        "build-bot+ci@office.lan",
        "Ops.Team@HQ.CORP",
    ],
)
def test_email_on_any_domain_is_found(detector: Detector, address: str) -> None:
    text = f"Write to {address} about the badge."
    assert (address, "EMAIL_ADDRESS") in _counted(detector.detect(text), text)


@pytest.mark.parametrize(
    "text",
    [
        "not an address: @handle or a@b or me@home",
        "version 2.3.1@beta and a decorator @property",
    ],
)
def test_email_shapes_that_are_not_addresses(detector: Detector, text: str) -> None:
    assert not {kind for _, kind in _counted(detector.detect(text), text)} & {"EMAIL_ADDRESS"}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("landlord", ["landlord"]),
        ("Landlord", ["Landlord"]),
        ("Boiler", ["Boiler"]),
        ("General", ["General"]),
        ("Email", ["Email"]),
        ("Phone", ["Phone"]),
        ("## Landlord\nRent is due on the first.", ["Landlord"]),
        ("# General\nBin day is Thursday.", ["General"]),
        ("Boiler: serviced in May, pressure fine.", ["Boiler"]),
        ("Email: see below\nPhone: see below", ["Email", "Phone"]),
        ("Landlord informed. Plumber booked. Boiler fixed.", ["Landlord", "Plumber", "Boiler"]),
        ("Mobile\nWork\nHome\nFax", ["Mobile", "Work", "Home", "Fax"]),
    ],
)
def test_common_nouns_and_headings_are_not_pii(
    detector: Detector, text: str, words: list[str]
) -> None:
    spans = detector.detect(text)  # every stored span, not only those a policy counts
    stored = {text[s.start : s.end] for s in spans}
    for word in words:
        assert not any(word in value.split() for value in stored), (word, stored)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Email: anna.schmidt@example.com", "anna.schmidt@example.com"),
        ("Phone: +44 20 7946 0958", "+44 20 7946 0958"),
        ("Landlord: Anna Schmidt", "Anna Schmidt"),
    ],
)
def test_labels_are_not_part_of_the_value(detector: Detector, text: str, value: str) -> None:
    spans = [s for s in detector.detect(text) if STANDARD.counts(s)]
    label = text.split(":")[0]
    assert value in {text[s.start : s.end] for s in spans}
    assert not any(label in text[s.start : s.end] for s in spans)
