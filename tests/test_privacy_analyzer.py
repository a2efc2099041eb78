"""presidio's recognizers skip texts they cannot match in, and find the same everywhere else."""

from __future__ import annotations

from typing import Any

import phonenumbers
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phonenumbers import PhoneMetadata

from privault.privacy import analyzer
from tests.helpers import examples

PRECHECKS = analyzer.prechecks()


def _plain(recognizer_class: type[Any]) -> Any:
    if recognizer_class.__name__ == "PhoneRecognizer":
        return recognizer_class(supported_regions=analyzer.PHONE_REGIONS)
    return recognizer_class()


def _found(recognizer: Any, text: str) -> list[tuple[int, int, str, float]]:
    results = recognizer.analyze(text, recognizer.supported_entities, None)
    return sorted((r.start, r.end, r.entity_type, r.score) for r in results)


def test_no_region_has_a_valid_number_shorter_than_the_phone_precheck() -> None:
    shortest = min(
        length
        for region in phonenumbers.SUPPORTED_REGIONS
        if (metadata := PhoneMetadata.metadata_for_region(region)) is not None
        for desc in (
            metadata.general_desc,
            metadata.fixed_line,
            metadata.mobile,
            metadata.toll_free,
            metadata.premium_rate,
            metadata.shared_cost,
            metadata.personal_number,
            metadata.voip,
            metadata.pager,
            metadata.uan,
            metadata.voicemail,
        )
        if desc is not None
        for length in desc.possible_length
        if length > 0
    )
    assert shortest >= analyzer.PHONE_MIN_DIGITS


# Texts made of everything but what a precheck asks for: letters of several scripts,
# capitals, punctuation, the separators numbers use, and (where allowed) digits.
_LETTERS = "abcxyzABCXYZéßкЖ"
_PUNCT = " .,;:-/+()#@'\"\n"


@settings(max_examples=examples(60), deadline=None)
@given(st.text(alphabet=_LETTERS + _PUNCT, max_size=60))
def test_digit_prechecked_recognizers_find_nothing_without_a_digit(text: str) -> None:
    for recognizer_class, check in PRECHECKS.items():
        if check is analyzer.has_digit:
            assert not check(text)
            assert _found(_plain(recognizer_class), text) == [], recognizer_class.__name__


@settings(max_examples=examples(60), deadline=None)
@given(st.text(alphabet=_LETTERS + _PUNCT.replace(":", "").replace(".", ""), max_size=60))
def test_ip_and_url_recognizers_find_nothing_without_their_marks(text: str) -> None:
    from presidio_analyzer.predefined_recognizers import IpRecognizer, UrlRecognizer

    for recognizer_class in (IpRecognizer, UrlRecognizer):
        assert not PRECHECKS[recognizer_class](text)
        assert _found(_plain(recognizer_class), text) == []


@settings(max_examples=examples(60), deadline=None)
@given(st.text(alphabet=_LETTERS + _PUNCT + "0123456789", max_size=40))
def test_the_phone_recognizer_finds_nothing_with_too_few_digits(text: str) -> None:
    from presidio_analyzer.predefined_recognizers import PhoneRecognizer

    if not analyzer.has_phone_digits(text):
        assert _found(_plain(PhoneRecognizer), text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Card 4111 1111 1111 1111, IBAN GB33BUKB20201555555555, SSN 460-89-9847.",
        "Server 192.168.0.12 and ::1 and plain :: here; see www.example.org/page.",
        "Call +44 20 7946 0958 or (212) 555-0199 before 12/31/2024.",
        "Passport A12345678, licence D1234567, bitcoin 1BoatSLRHtKNngkdXEeobR76b53LETtpyT.",
        "Nothing to see: just words, a colon, and an end.",
    ],
)
def test_prechecked_recognizers_find_what_presidio_finds(text: str) -> None:
    for recognizer_class, check in PRECHECKS.items():
        prechecked = analyzer._prechecked(recognizer_class, check)
        assert prechecked.__name__ == recognizer_class.__name__  # results keep presidio's name
        phone = check is analyzer.has_phone_digits
        kwargs: dict[str, Any] = {"supported_regions": analyzer.PHONE_REGIONS} if phone else {}
        assert _found(prechecked(**kwargs), text) == _found(_plain(recognizer_class), text)


@settings(max_examples=examples(200), deadline=None)
@given(st.text(max_size=80))
def test_the_digit_prechecks_count_decimal_digits_of_every_script(text: str) -> None:
    # What presidio's `\d` patterns and the phone parser can match: Unicode decimal digits,
    # Arabic-Indic and full-width ones included (not superscripts, which no pattern reads).
    digits = sum(char.isdecimal() for char in text)
    assert analyzer.has_digit(text) == (digits > 0)
    assert analyzer.has_phone_digits(text) == (digits >= analyzer.PHONE_MIN_DIGITS)


def test_the_digit_prechecks_see_digits_of_other_scripts() -> None:
    assert analyzer.has_digit("room ٣")
    assert analyzer.has_phone_digits("call ０２０ ７９４６ ０９５８")
    assert not analyzer.has_digit("x² and ½")
