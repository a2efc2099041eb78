"""Brands, products, dishes, medicines and conditions are not people or places; people
named like them still are."""

from __future__ import annotations

import pytest

from privault.privacy import Detector, DetectorConfig, PolicySet
from privault.privacy.names import load_name_lists
from privault.privacy.products import (
    BRANDS,
    DEMONYMS,
    EPONYMS,
    LAWS_OF,
    OWNED_BRANDS,
    QUALIFIERS,
    is_medicine,
    names_a_condition,
    names_a_product,
)

STANDARD = PolicySet.load().resolve("standard")


def _judged(text: str, words: str) -> bool:
    start = text.index(words)
    return names_a_product(text, start, start + len(words), load_name_lists())


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("The Roomba is stuck under the sofa again", "Roomba"),
        ("Spotify Premium renewal on the 3rd", "Spotify Premium"),
        ("Bought a new Bosch dishwasher", "Bosch"),  # a listed surname, after "a new"
        ("my Kindle died on the train", "Kindle"),  # a listed given name, after "my"
        ("Dyson V15 filter needs washing", "Dyson"),  # a model number after it
        ("Customs form: contents Kindle Paperwhite", "Kindle Paperwhite"),  # a model's name
        ("AirPods Pro left earbud not charging", "Pro"),  # the model after its brand
        ("Samsung Galaxy S24 or a Pixel", "Galaxy"),
        ("Marmite on toast and an Earl Grey", "Earl Grey"),
        ("Caesar salad with extra croutons", "Caesar"),
        ("Beef Wellington for Sunday", "Wellington"),
        ("Recipe: Thai green curry", "Thai"),
        ("Greek salad with feta", "Greek"),
        ("Pad thai with tofu", "Pad"),
        ("Spaghetti Carbonara", "Carbonara"),  # a listed surname, beside a food
        ("Lamb Korma for Friday", "Lamb Korma"),
        ("Heinz beans on toast", "Heinz"),
        ("Pick up prescription (Amoxicillin 500mg)", "Amoxicillin"),
        ("Order more Lego storage boxes", "Lego"),  # a listed surname, after "more"
        ("Tried the Nando's peri-peri chicken", "Nando's"),  # a given name, after "the"
        ("McDonald's receipt", "McDonald"),  # a shop written as someone's
        ("Sainsbury's delivery slot", "Sainsbury"),
        ("Tesla service appointment", "Tesla"),  # a listed given name, before "service"
    ],
)
def test_products_and_dishes(text: str, words: str) -> None:
    assert _judged(text, words)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Ask Mrs Dyson about the fence", "Dyson"),  # a form of address
        ("Harrison Ford was great in it", "Ford"),  # a given name before it
        ("James Dyson opened the factory", "Dyson"),
        ("Mercedes said she can't come", "Mercedes"),  # listed, and nothing says product
        ("Call Zara about the dog", "Zara"),
        ("Uber Zara home after the party", "Uber Zara"),  # two brand words, no model
        ("WhatsApp Isaurinda re: gutter", "WhatsApp Isaurinda"),  # a brand used as a verb
        ("WhatsApp Max re: the keys", "Max"),  # "Max" is no model word
        ("Thai said hi", "Thai"),  # a nationality before a verb is someone's name
        ("Thai and Minh are late", "Thai"),
        ("Sam English called", "English"),
        ("Kindle Jones joined the team", "Kindle"),  # a surname after it
        ("Zara Phillips is coming", "Zara Phillips"),
        ("Mercedes, watch out for the step", "Mercedes"),  # only a word right after counts
        ("the Mercedes family came", "Mercedes"),
        ("Let Zara go first", "Zara"),  # a model is written with a capital
        ("Mercedes van Dijk called", "Mercedes"),
        ("Guinness, Dior and Prada met at the cafe", "Guinness"),  # a founder's name
        ("Skype Mercedes at 5", "Mercedes"),  # a listed brand word after a brand
        ("Earl Grey said he would call", "Earl Grey"),  # a fixed name before a person's verb
        ("Jack Daniel called about the fence", "Jack Daniel"),
        ("Maria Carbonara called", "Carbonara"),
        ("Carbonara said hi", "Carbonara"),
        ("Priya Okafor", "Priya Okafor"),
        ("Mr McDonald's farm", "McDonald"),  # a form of address before the shop's name
        ("Shopping for Philip's party", "Philip"),  # "Philips" is a brand; no one's shop
    ],
)
def test_people_named_like_products(text: str, words: str) -> None:
    assert not _judged(text, words)


def test_the_lists_are_lower_case_and_apart() -> None:
    for words in (BRANDS, QUALIFIERS, DEMONYMS):
        assert all(word == word.lower() and word.isascii() for word in words)
    assert not BRANDS & QUALIFIERS
    lists = load_name_lists()
    # a qualifier that is a given name and no everyday word would unmask "WhatsApp Max"
    assert not [q for q in QUALIFIERS if lists.is_first(q) and not lists.is_word(q)]


@pytest.fixture(scope="module")
def detector() -> Detector:
    built = Detector(DetectorConfig.build([STANDARD]))
    built.load()
    return built


def _masked(detector: Detector, text: str) -> set[str]:
    return {text[s.start : s.end] for s in detector.detect(text) if STANDARD.counts(s)}


@pytest.mark.real
@pytest.mark.parametrize(
    ("text", "readable"),
    [
        ("The Roomba keeps getting stuck", "Roomba"),
        ("Netflix subscription went up again", "Netflix"),
        ("Bought a new Bosch dishwasher", "Bosch"),
        ("Kindle Paperwhite battery died", "Paperwhite"),
        ("Recipe: Thai green curry", "Thai"),
        ("Deliveroo order from Wagamama", "Wagamama"),
    ],
)
def test_the_detector_leaves_products_readable(
    detector: Detector, text: str, readable: str
) -> None:
    assert not any(readable in value for value in _masked(detector, text))


@pytest.mark.real
@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Ask Mrs Dyson about the fence", "Dyson"),
        ("Harrison Ford was great in it", "Ford"),
        ("Mercedes said she can't come", "Mercedes"),
        ("WhatsApp Isaurinda re: gutter", "Isaurinda"),
        ("Lent Ravi my Kindle", "Ravi"),
    ],
)
def test_the_detector_masks_people_named_like_products(
    detector: Detector, text: str, name: str
) -> None:
    assert any(name in value for value in _masked(detector, text))


@pytest.mark.parametrize(
    ("word", "medicine"),
    [
        ("Amoxicillin", True), ("Lisinopril", True), ("Omeprazole", True),
        ("Atorvastatin", True), ("Ibuprofen", True), ("Prednisolone", True),
        ("April", False), ("Christine", False), ("Marisol", False), ("Cooper", False),
    ],
)  # fmt: skip
def test_a_medicine_by_the_ending_its_kind_shares(word: str, medicine: bool) -> None:
    assert is_medicine(word) is medicine


@pytest.mark.parametrize(
    ("text", "word", "condition"),
    [
        ("Alzheimer's Awareness Month starts in September.", "Alzheimer", True),
        ("The Parkinson's support group meets on Tuesday.", "Parkinson", True),
        ("Booked the Wilson's disease clinic", "Wilson", True),
        ("Down syndrome awareness walk", "Down", True),
        # a person: a given name or a form of address before, or no word for a condition
        ("Jim Parkinson's report is late", "Parkinson", False),
        ("Mrs Wilson's dog barked all night", "Wilson", False),
        ("Wilson's car is in the drive", "Wilson", False),
        # laws and methods named after someone: a name no given-name list holds, or a
        # well-known law's; a given name's possessive stays someone's
        ("Murphy's law, again", "Murphy", True),
        ("Ohm's law worksheet", "Ohm", True),
        ("Heimlich manoeuvre training", "Heimlich", True),
        ("Dijkstra's algorithm", "Dijkstra", True),
        ("Baker's dozen order form", "Baker", True),
        ("Kate's law essay", "Kate", False),
        ("Mrs Murphy's law firm", "Murphy", False),
    ],
)
def test_a_condition_named_after_someone(text: str, word: str, condition: bool) -> None:
    start = text.index(word)
    assert names_a_condition(text, start, start + len(word), load_name_lists()) is condition


def test_no_condition_name_is_a_listed_given_name() -> None:
    lists = load_name_lists()
    assert not [word for word in EPONYMS if lists.is_first(word)]


def test_the_laws_and_owned_brands_are_lower_case() -> None:
    for words in (LAWS_OF, OWNED_BRANDS):
        assert all(word == word.lower() and word.isalpha() for word in words)


@pytest.mark.real
@pytest.mark.parametrize(
    ("text", "readable", "masked"),
    [
        ("Take Amoxicillin three times daily", "Amoxicillin", ""),
        ("Her Alzheimer's is getting worse", "Alzheimer", ""),
        ("The Cardiology ward has moved to the East Wing", "East Wing", ""),
        ("Mr Parkinson's office is on the left", "", "Parkinson"),
        ("Lunch at the Harrow Inn with the Okafor family", "", "Okafor"),
    ],
)
def test_the_detector_on_medicines_conditions_and_kinds_of_place(
    detector: Detector, text: str, readable: str, masked: str
) -> None:
    values = _masked(detector, text)
    assert not readable or not any(readable in value for value in values), values
    assert not masked or any(masked in value for value in values), values
