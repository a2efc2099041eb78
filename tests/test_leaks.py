"""The answer leak scanner masks every context value, in every form a model could use."""

from __future__ import annotations

import base64
import codecs

import pytest

from privault.privacy.leaks import MASK, find_leaks, scan_answer, shown, skeleton

NAME = "Maria Keller"
EMAIL = "maria.keller@example.org"
PHONE = "+49 151 2345 6789"
IBAN = "DE89 3704 0044 0532 0130 00"
CARD = "4111 1111 1111 1111"
VALUES = [NAME, EMAIL, PHONE, IBAN, CARD, "Anna"]


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


LEAKED = [
    ("verbatim", f"Her name is {NAME}.", "verbatim"),
    ("upper case", "Her name is MARIA KELLER.", "normalised"),
    ("extra spacing", "maria   keller", "normalised"),
    ("spelled with dashes", "M-A-R-I-A K-E-L-L-E-R", "normalised"),
    ("spelled with spaces", "m a r i a k e l l e r", "normalised"),
    ("zero-width", "Ma\u200bria Kel\u200dler", "normalised"),
    ("cyrillic homoglyphs", "Mаriа Kеller", "normalised"),
    ("fullwidth", "Ｍａｒｉａ Ｋｅｌｌｅｒ", "normalised"),
    ("accents", "Mariá Kéller", "normalised"),
    ("reversed", NAME[::-1], "reversed"),
    ("reversed spelled", "r-e-l-l-e-K a-i-r-a-M", "reversed"),
    ("leetspeak", "M4r14 K3ll3r", "leet"),
    ("rot13", codecs.encode(NAME, "rot13"), "rot13"),
    ("base64", f"encoded: {b64(NAME)}", "base64"),
    ("base64 no padding", b64(EMAIL).rstrip("="), "base64"),
    ("base64 of reversed", b64(NAME[::-1]), "base64"),
    ("double base64", b64(b64(NAME)), "base64"),
    ("hex", NAME.encode().hex(), "hex"),
    ("hex with 0x", " ".join(f"0x{b:02x}" for b in NAME.encode()), "hex"),
    ("url-encoded", "".join(f"%{b:02X}" for b in EMAIL.encode()), "hex"),
    ("binary", " ".join(f"{b:08b}" for b in NAME.encode()), "binary"),
    ("decimal codes", ", ".join(str(b) for b in NAME.encode()), "decimal"),
    ("email verbatim", f"write to {EMAIL}", "verbatim"),
    ("email spoken", "maria dot keller at example dot org", "normalised"),
    ("phone dashed", "+49-151-2345-6789", "normalised"),
    ("phone national", "call 0151 23456789", "normalised"),
    (
        "phone digit words",
        "four nine one five one two three four five six seven eight nine",
        "normalised",
    ),
    ("iban compact lower", "de89370400440532013000", "normalised"),
    ("iban dotted", "DE89.3704.0044.0532.0130.00", "normalised"),
    ("card dashed", "4111-1111-1111-1111", "normalised"),
    ("card glued to a letter", "x4111111111111111", "normalised"),
    ("short name on its own", "Anna called.", "verbatim"),
]


@pytest.mark.parametrize(("label", "answer", "form"), LEAKED, ids=[row[0] for row in LEAKED])
def test_every_form_of_a_leak_is_masked(label: str, answer: str, form: str) -> None:
    scan = scan_answer(answer, VALUES)
    assert scan.masks >= 1, label
    assert form in scan.forms, scan.forms
    assert MASK in scan.text
    # Nothing of the value survives in any readable form.
    assert "keller" not in skeleton(scan.text)[0]
    assert "4111111111111111" not in skeleton(scan.text)[0]


CLEAN = [
    "The invoice total is 1,240.50 EUR, due 2026-04-15.",
    "Savannah and Annabel went home.",  # 'Anna' inside other words is not Anna
    "Contact <PERSON_1> at <EMAIL_ADDRESS_1>.",  # placeholders pass through
    "The meeting is at 09:30 in room 4111.",
    "The notes do not say.",
    "SGVsbG8gd29ybGQ=",  # base64 of 'Hello world': decodes, but to nothing private
]


@pytest.mark.parametrize("answer", CLEAN)
def test_answers_without_context_values_are_left_alone(answer: str) -> None:
    scan = scan_answer(answer, VALUES)
    assert scan.text == answer
    assert scan.masks == 0


def test_only_the_leaked_stretch_is_masked() -> None:
    scan = scan_answer(f"Total 42 EUR. Payer: {NAME}, IBAN {IBAN}. Thanks.", VALUES)
    assert scan.text == f"Total 42 EUR. Payer: {MASK}, IBAN {MASK}. Thanks."
    assert scan.masks == 2


def test_digit_words_are_masked_whole() -> None:
    answer = "It is four one one one one one one one one one one one one one one one."
    assert scan_answer(answer, VALUES).text == f"It is {MASK}."


def test_overlapping_matches_are_reported_once() -> None:
    leaks = find_leaks("call 0151 23456789 now", [PHONE])
    assert len(leaks) == 1


def test_no_values_means_nothing_to_mask() -> None:
    assert scan_answer(f"{NAME} {EMAIL}", []).text == f"{NAME} {EMAIL}"
    assert scan_answer("x", ["", "  ", "a"]).masks == 0


PARTIAL = [
    ("iban without country prefix", "3704 0044 0532 0130 00"),
    ("iban tail reversed", "00 0310 2350 4400 4073"),
    ("card middle digits", "1111 1111 1111"),
    ("first name alone", "Maria paid."),
    ("surname reversed", "rellek"),
]


@pytest.mark.parametrize(("label", "answer"), PARTIAL, ids=[row[0] for row in PARTIAL])
def test_identifying_pieces_of_a_value_are_masked(label: str, answer: str) -> None:
    scan = scan_answer(answer, VALUES)
    assert scan.masks >= 1 and "partial" in scan.forms, label


def test_pieces_of_places_are_not_treated_as_names() -> None:
    answer = "Street parking is free near the Commerz branch on Main."
    assert scan_answer(answer, ["Main Street", "Commerz Bank"]).text == answer


@pytest.mark.parametrize(
    ("text", "held"),
    [
        (f"Payer {NAME}, card {CARD}.", [NAME, CARD]),
        (f"Payer MARIA  KELLER; {b64(EMAIL)}", [NAME, EMAIL]),
        (f"Call {PHONE[::-1]}", [PHONE]),
        ("Payer <PERSON_1>, card <CREDIT_CARD_1>.", []),
        ("Ms Keller paid; Maria was pleased.", []),  # pieces are not the whole value
        ("Savannah wrote it.", []),  # a short value on word boundaries only
    ],
)
def test_shown_picks_the_values_a_text_holds_whole(text: str, held: list[str]) -> None:
    assert shown(VALUES, text) == held
