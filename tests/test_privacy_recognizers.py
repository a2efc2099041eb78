"""Table-driven tests of privault's own recognizers (no model needed)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privault.privacy import cue_words, name_forms, propagation
from privault.privacy import recognizers as rec
from privault.privacy.cue_words import find_context_entities
from privault.privacy.detector import REVISION_SCOPES, words_apart
from privault.privacy.names import NameLists, find_names, load_name_lists, people_in_entity
from privault.privacy.places import Gazetteer, find_places, find_towns_before_countries
from privault.privacy.propagation import has_lower_case_form, propagate
from privault.privacy.street_addresses import postcodes_beside_towns, regions_beside_towns
from privault.privacy.things import may_name_a_named_day
from privault.spans import Span, merge_spans, normalise_kind
from tests.helpers import examples


def _found(spans: list[Span], text: str) -> list[tuple[str, str]]:
    return [(text[s.start : s.end], s.kind) for s in spans]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Jacob lives on 90 Whitchurch Road.", ["90 Whitchurch Road"]),
        ("Ship to Via Roma 131, please", ["Via Roma 131"]),
        ("Friedhofstrasse 33 is old", ["Friedhofstrasse 33"]),
        ("Box: PSC 3294, Box 9168\nAPO AA 61487", ["PSC 3294, Box 9168\nAPO AA 61487"]),
        (
            "6750 Koskikatu 25 Apt. 864\nArtilleros\n, CO\n Uruguay 64677",
            ["6750 Koskikatu 25 Apt. 864\nArtilleros\n, CO\n Uruguay 64677"],
        ),
        (
            "> 77 Mellemstræde 74\n> Apt. 316\n> Vordingborg\n> Denmark 29587",
            ["77 Mellemstræde 74\n> Apt. 316\n> Vordingborg\n> Denmark 29587"],
        ),
        ("Send it to Suite 828.", ["Suite 828"]),
        ("We sold 20 songs in 3 days.", []),
        # The minutes of a time are not a house number.
        ("Check-up on 2026-03-12 at 09:30, Hauptstraße 5, Bonn.", ["Hauptstraße 5, Bonn"]),
        ("Meet at 09:30 Hauptstraße 5 then", ["Hauptstraße 5"]),
        # A house number may be a range or a door of one.
        ("Lieferung an Roskothstr. 1-5, Tuttlingen", ["Roskothstr. 1-5, Tuttlingen"]),
        ("Kastanjelaan 5/9", ["Kastanjelaan 5/9"]),
        # Not a range elsewhere: these have the same shape.
        ("Sent via DHL 3-5 days", []),
        ("Matchday 5 Arsenal 2-1 Chelsea", []),
    ],
)
def test_addresses(text: str, expected: list[str]) -> None:
    assert [value for value, _ in _found(rec.find_addresses(text), text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Call me on +41 (0)96 471 07 95", ["+41 (0)96 471 07 95"]),
        ("desk: (898)666-3621x0135", ["(898)666-3621x0135"]),
        ("They're not answering at 516 466 638", ["516 466 638"]),
        ("Phone: 0378 3549890", ["0378 3549890"]),
        ("Paid on 2021-03-04 for 1,000 items", []),
        ("Order 12345 shipped", []),
        # An identifier's own number word is not a phone word.
        ("Customer number 44-2281-07. Status: paid", []),
        ("Call the customer number 44 2281 0722", ["44 2281 0722"]),
        # Digits in pairs are a Danish, Norwegian or French number, with no phone word too;
        # other short groups need one
        ("Ingrid Dahl; 40 55 37 66; ingrid@example.no", ["40 55 37 66"]),
        ("Babysitter Gyrith, 06 12 34 56 78", ["06 12 34 56 78"]),
        ("Scores 12 10 8 6 this week", []),
        ("Kit 4055 3766 in the shed", []),
        # A country code and an area code in parentheses make a phone number with no
        # phone word, whether or not the number exists in its country's plan.
        ("- Ayla Demir, +90 (589) 6041431", ["+90 (589) 6041431"]),
        ("Cited in (2019) 1234567", []),
        # International form without a phone word: "+" and ten digits or more (E.164, as
        # address books store a number), valid in its plan or not.
        ("Ravi Menon - +914105550173", ["+914105550173"]),
        ("Paid +1500 EUR", []),
        ("ref 0044-2231", []),
        # Phone words of the languages notes are often written in; not English words.
        ("Telefon: 030 1234567", ["030 1234567"]),
        ("Tlf. 0171 2345678", ["0171 2345678"]),
        ("Direct debit of 12345678 on the 1st", []),
        # A signature's direct line and a switchboard are phone words; a direct debit is not.
        ("Operations Lead\nDirect: 2835 0982", ["2835 0982"]),
        ("Switchboard 2835 0982", ["2835 0982"]),
        ("Direct debit 2835 0982", []),
        # A date and an hour are a timestamp, as logs and chat exports write them.
        ("2024-03-02 10:14:07 INFO backup done", []),
        ("[02/03/2024 09:41] anna: hi", []),
        ("Ph.D. funding: 1250000 EUR", []),
    ],
)
def test_phone_numbers(text: str, expected: list[str]) -> None:
    assert [value for value, _ in _found(rec.find_phone_numbers(text), text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("card 4926351740466081", [("4926351740466081", "CREDIT_CARD")]),
        ("my card 2308 6672 7532 2437", [("2308 6672 7532 2437", "CREDIT_CARD")]),
        ("order 1234567890123", []),
    ],
)
def test_cards(text: str, expected: list[tuple[str, str]]) -> None:
    assert _found(rec.find_cards(text), text) == expected


@pytest.mark.parametrize(
    ("text", "known", "expected"),
    [
        ("I met JOHN  smith today", ["John Smith"], [("JOHN  smith", "PERSON")]),
        ("Johnsmith is not John", ["John Smith"], []),
        ("Lives in Springfield", {"Springfield": "LOCATION"}, [("Springfield", "LOCATION")]),
        ("nothing here", [], []),
    ],
)
def test_known_entities(text: str, known: object, expected: list[tuple[str, str]]) -> None:
    spans = rec.find_known_entities(text, rec.as_known(known))  # type: ignore[arg-type]
    assert _found(spans, text) == expected


def test_known_entities_follow_a_changed_set() -> None:
    # The compiled pattern is cached per set of entities: a set that changes in place (a
    # new mark, a kind changed) must be matched as it is now, never as it was.
    known = {"John Smith": "PERSON"}
    text = "John Smith met Acme Corp"
    assert _found(rec.find_known_entities(text, known), text) == [("John Smith", "PERSON")]
    known["Acme Corp"] = "ORGANIZATION"
    assert _found(rec.find_known_entities(text, known), text) == [
        ("John Smith", "PERSON"),
        ("Acme Corp", "ORGANIZATION"),
    ]
    known["John Smith"] = "NRP"
    del known["Acme Corp"]
    assert _found(rec.find_known_entities(text, known), text) == [("John Smith", "NRP")]


def test_custom_pattern_context_raises_score() -> None:
    regex = re.compile(r"E-\d{5}")
    plain = rec.find_pattern("id E-12345", regex, "EMPLOYEE_ID", 0.4, ["employee"])
    boosted = rec.find_pattern("employee E-12345", regex, "EMPLOYEE_ID", 0.4, ["employee"])
    assert plain[0].score == 0.4 and boosted[0].score == pytest.approx(0.75)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my name is borna jerković", [("borna jerković", "PERSON")]),
        ("Name:    Martim A Pereira", [("Martim A Pereira", "PERSON")]),
        ("Mr. Leiva flew to LEPPEN on Tuesday", [("Leiva", "PERSON"), ("LEPPEN", "LOCATION")]),
        ("I went to the shop", []),
        # An honorific after "Dear" is not the name: the word after it is.
        ("Dear Prof. Lamy,", [("Lamy", "PERSON")]),
        ("Hi Dr. Jenkins, thanks", [("Jenkins", "PERSON")]),
    ],
)
def test_context_cues(text: str, expected: list[tuple[str, str]]) -> None:
    assert sorted(_found(find_context_entities(text), text)) == sorted(expected)


def test_propagation_and_lists() -> None:
    text = "Monjeau, Graves and Reed met. Later Graves left."
    seed = [Span(9, 15, "PERSON", 0.85, "ner")]
    found = {text[s.start : s.end] for s in propagate(text, seed)}
    assert {"Monjeau", "Graves", "Reed"} <= found


@pytest.mark.parametrize(
    ("text", "town", "postcode"),
    [
        ("Her address: Calle de Alcalá 42, 3º B, 28014 Madrid", "Madrid", "28014"),
        ("home address 28/098, Ranganathan Nagar, 858842 Satna; follow-up", "Satna", "858842"),
        ("Monteiro,Emanuel,Fátima,Leiria,7799-843", "Leiria", "7799-843"),
        ("Ship to: 2019 Berlin", "Berlin", "2019"),  # a year's shape, at a field's start
        # a year, a count, a flight number: no postcode
        ("the 2024 Paris Olympics", "Paris", None),
        ("Photos from 2019 Berlin trip", "Berlin", None),
        ("London, 2019", "London", None),
        ("we had 200000 visitors in Paris", "Paris", None),
        ("Flight 815 Boston", "Boston", None),
    ],
)
def test_a_postcode_beside_a_found_town(text: str, town: str, postcode: str | None) -> None:
    start = text.index(town)
    found = postcodes_beside_towns(text, [Span(start, start + len(town), "LOCATION", 0.8, "ner")])
    assert [text[s.start : s.end] for s in found] == ([postcode] if postcode else [])


@pytest.mark.parametrize(
    ("text", "town", "found"),
    [
        ("Av. Paulista 1578, São Paulo – SP, (11) 98765-4321", "São Paulo", ["SP"]),
        ("450 rue Saint-Denis, Montréal, QC, (514) 555-0199", "Montréal", ["QC"]),
        ("She moved to Austin, TX last year.", "Austin", ["TX"]),
        ("854 Jasper Ave NW, Ottawa, ON K1P 5J2.", "Ottawa", ["ON", "K1P 5J2"]),
        ("We met in Sydney, NSW 2000.", "Sydney", ["NSW", "2000"]),
        # not a region's code: a question, a word, letters no region has
        ("See you in Boston, OK?", "Boston", []),
        ("Lisbon, Tuesday", "Lisbon", []),
        ("Berlin, XY 123", "Berlin", []),
    ],
)
def test_a_region_code_beside_a_found_town(text: str, town: str, found: list[str]) -> None:
    start = text.index(town)
    spans = regions_beside_towns(text, [Span(start, start + len(town), "LOCATION", 0.8, "ner")])
    assert [text[s.start : s.end] for s in spans] == found


def test_a_found_name_spreads_to_its_capitals() -> None:
    # a reference or a form's field writes the name found elsewhere in capitals; there it
    # is no acronym to trim ("LAMY" has four letters and is no listed given name)
    text = "Your ref: LAMY/2022\nDear Prof. Lamy, thank you. LAMYX and Lamyland stay."
    seed = [Span(text.index("Lamy,"), text.index("Lamy,") + 4, "PERSON", 0.9, "learned")]
    spread = [s for s in propagate(text, seed) if s.source == "capitals"]
    assert [(text[s.start : s.end], s.kind) for s in spread] == [("LAMY", "PERSON")]


def test_a_found_name_spreads_to_its_lower_case_form_where_it_is_no_word() -> None:
    # A tag or a chat line writes the name found beside it small: "lopez" is masked with
    # "Maria Lopez", but "rose" in "the rose garden" is a word, not the Rose met there.
    lists = load_name_lists()
    text = "maria.lopez lopez\n\nMet Maria Lopez and Rose at the rose garden. Lopezia stays."
    seed = [
        Span(text.index("Maria Lopez"), text.index("Maria Lopez") + 11, "PERSON", 0.9, "ner"),
        Span(text.index("Rose"), text.index("Rose") + 4, "PERSON", 0.85, "learned"),
    ]
    spread = [s for s in propagate(text, seed, lists.is_word) if s.source == "lowercase"]
    assert [(s.start, text[s.start : s.end]) for s in spread] == [
        (0, "maria"),
        (6, "lopez"),
        (12, "lopez"),
    ]
    # Without a word list every lower-case form is taken: "rose" too.
    unlisted = [s for s in propagate(text, seed) if s.source == "lowercase"]
    assert [text[s.start : s.end] for s in unlisted] == ["maria", "lopez", "lopez", "rose"]
    assert has_lower_case_form(text, lists.is_word)
    assert not has_lower_case_form("The rose. Rose met Maria Lopez today", lists.is_word)


@pytest.mark.parametrize(
    ("text", "may"),
    [
        ("Black Friday list", True),
        ("BLACK FRIDAY deals", True),
        ("Ash's\tWednesday", True),
        ("Bláck Friday", True),  # the detector looks the words up folded
        ("Ｂｌａｃｋ Friday", True),
        ("see Mark Friday", False),
        ("Black Fridays", False),
        ("Ash on Wednesday", False),
    ],
)
def test_the_texts_revision_42_could_change_are_told(text: str, may: bool) -> None:
    assert may_name_a_named_day(text) is may


@pytest.mark.parametrize(
    "text", ["_Black Friday_ list", "__Black Friday__ list", "Black_Friday_list.md"]
)
def test_revision_42s_scope_reads_words_joined_by_underscores_apart(text: str) -> None:
    # The detector reads such words apart (`words_apart`), and so finds the day in them.
    assert REVISION_SCOPES[42](text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ok so dolores and alex are coming", ["dolores"]),  # "so dolores" took "so" along
        ("alex and dolores are coming", ["dolores"]),  # not "dolores are"
        ("i saw alex and dolores yesterday", ["dolores"]),  # not "saw alex"
        ("me and alex went to the pub", []),  # not "me", not "alex went"
        ("alex, bea and carl", ["bea", "carl"]),
    ],
)
def test_a_lower_case_list_mate_is_the_one_word_beside_the_join(
    text: str, expected: list[str]
) -> None:
    seed = [Span(text.index("alex"), text.index("alex") + 4, "PERSON", 0.85, "ner")]
    mates = [s for s in propagate(text, seed, load_name_lists().is_word) if s.source == "list"]
    assert sorted(text[s.start : s.end] for s in mates) == expected


@pytest.mark.parametrize("text", ["i'm bronagh, my number is 087", "bronagh, the number is 087"])
def test_a_list_mate_does_not_start_with_a_function_word(text: str) -> None:
    # Lower-case text gives no capital to tell a name by: "my number" is no mate of a name.
    seed = [Span(text.index("bronagh"), text.index("bronagh") + 7, "PERSON", 0.85, "learned")]
    assert [s for s in propagate(text, seed) if s.source == "list"] == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a request names a person, whose given name may be an everyday word
        ("Remind Sunny to pay the rent.", ["Sunny"]),
        ("Done. Tell Hope I said hi", ["Hope"]),
        ("- Ask Rose Wood about the keys", ["Rose Wood"]),
        # not a word no name list holds, nor a request mid-sentence
        ("Call Support about the router. Email Accounts too.", []),
        ("I will call Sunny later", []),
        # a family word or a role before a given name
        ("Grandpa Frank turns 90; Nurse Hope Wood visits", ["Frank", "Hope Wood"]),
        ("Father Christmas came; Sister Act is on", []),
        # written small: a listed given name no dictionary holds, anywhere in the line
        ("running late, tell alexa to start", ["alexa"]),
        ("pick up alexa from school, collect the parcel", ["alexa"]),
        ("I need to call rose, and ask them", []),
        # a trade or relation after a given name says who the person is
        ("Hope the plumber called. Rose, our cleaner, comes", ["Hope", "Rose"]),
        ("Frank my neighbour has the key; Sunny Wood the builders", ["Frank", "Sunny Wood"]),
        ("Hope from next door called; Frank from work too", ["Hope", "Frank"]),
        # a verb of giving or telling, the person, then the thing
        ("Sent Hope the link. I lent Rose Wood my drill", ["Hope", "Rose Wood"]),
        ("paid Sunny back. Sent the link to Frank. Gave Support the code", ["Sunny"]),
        # "Will" first, before a verb a person does; not the modal
        ("Will is picking them up. Will said so", ["Will", "Will"]),
        ("Will you call? Will the parcel come", []),
        ("Lunch with Will on Thursday. What Will Happen Next", ["Will"]),
        ("Pick up Sunny from daycare. Grace from HR; Frank from accounting", ["Sunny", "Frank"]),
        # a request before a role, not a name ("Ask" is a given name too)
        ("Ask the driver to stop. Hope the weather holds", []),
        # the writer naming themself; not the weather
        ("Hi, it's Hope from the regional office", ["Hope"]),
        ("This is Rose Wood speaking", ["Rose Wood"]),
        ("hey, frank here, can you reset it", ["frank"]),
        ("It's Sunny today. Nothing here yet", []),
        # a family by its surname, not an adjective a surname list holds too
        ("Wood family reunion; the Royal family", ["Wood"]),
        # written small after a family word or a verb of giving, everyday word or not
        ("uncle frank still owes me; gave rose the spare key", ["frank", "rose"]),
        ("gave the key back; uncle support", []),
        # a capitalised word first, before a verb, that the text also writes small
        ("Hope hopes it works. Rose picked a rose", ["Hope", "Rose"]),
        ("Hope you are well, I hope so. Rose early", []),
    ],
)
def test_the_person_a_request_or_a_role_names(text: str, expected: list[str]) -> None:
    lists = NameLists(
        first=frozenset({"sunny", "hope", "rose", "frank", "alexa", "ask"}),
        last=frozenset({"wood", "royal"}),
        words=frozenset({"sunny", "hope", "rose", "wood", "support", "accounts", "royal"}),
    )
    assert [value for value, _ in _found(cue_words.find_cued_names(text, lists), text)] == expected


def test_merge_and_kinds() -> None:
    merged = merge_spans([Span(0, 4, "PERSON", 0.5, "a"), Span(2, 8, "LOCATION", 0.9, "b")])
    assert merged == [Span(0, 8, "LOCATION", 0.9, "b")]
    assert normalise_kind("gpe") == "LOCATION" and normalise_kind("STREET_ADDRESS") == "ADDRESS"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my iban is gb42nawi04454264788619", ["gb42nawi04454264788619"]),
        ("IBAN: DE89 3704 0044 0532 0130 00 ok", ["DE89 3704 0044 0532 0130 00"]),
        ("code AB12CDEFGHIJKLMNOP", []),  # IBAN-shaped, checksum fails
    ],
)
def test_ibans(text: str, expected: list[str]) -> None:
    assert [value for value, _ in _found(rec.find_ibans(text), text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("416 60 039 office", ["416 60 039"]),
        ("(37) 788-063-Office", ["(37) 788-063"]),
        ("781 1704 fax", ["781 1704"]),
        ("781 1704 apples", []),
    ],
)
def test_phone_label_after(text: str, expected: list[str]) -> None:
    assert [value for value, _ in _found(rec.find_phone_numbers(text), text)] == expected


# A tiny stand-in for the packaged lists, so these tests need no data package.
LISTS = NameLists(
    first=frozenset({"tomomi", "zoe", "miklos", "rose", "patricia", "julieta", "amanda", "meet"}),
    last=frozenset({"bowers", "young", "lang"}),
    words=frozenset({"rose", "young", "garden", "meet", "weekly", "patient"}),
)


@pytest.mark.parametrize(
    ("text", "pos", "expected"),
    [
        ("Tomomi Nishiyama lives at", {}, ["Tomomi Nishiyama"]),
        ("songwriter Zoe Young employs", {}, ["Zoe Young"]),
        ("Maybe it's under Miklós Hajdu", {}, ["Miklós Hajdu"]),
        ("Julieta S Almeida\n\nStaff", {}, ["Julieta S Almeida"]),
        ("I'm Amanda's daughter", {}, ["Amanda"]),
        ("Rose Garden opens", {}, []),  # a word-name needs a surname that is not a word
        ("Rose Nyberg called", {}, ["Rose Nyberg"]),
        ("Meet me at noon", {}, []),
        ("follow up with patricia desrosiers", {15: "PROPN", 24: "NOUN"}, ["patricia desrosiers"]),
        ("follow up with patricia", {15: "NOUN"}, []),  # lower case needs the PROPN tag
        ("Call Patricia. We", {}, ["Patricia"]),  # a sentence end stops the name
    ],
)
def test_listed_names(text: str, pos: dict[int, str], expected: list[str]) -> None:
    assert [value for value, _ in _found(find_names(text, LISTS, pos), text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Usamov and Bowers were engineers", ["Usamov", "Bowers"]),
        ("Sophie Lang", ["Sophie Lang"]),
        ("Rapid Cycle Solutions", []),
        ("Entertainment Weekly", []),
        ("Usamov and Petrov", []),  # no listed name in it: stays an organisation
    ],
)
def test_people_in_org_entities(text: str, expected: list[str]) -> None:
    spans = people_in_entity(text, 0, len(text.split(" were")[0]), LISTS)
    assert [value for value, _ in _found(spans, text)] == expected


PLACES = Gazetteer(
    countries=frozenset({"tunisia", "cyprus", "czech republic"}),
    cities=frozenset({"nicosia", "reading", "santa cruz", "santa cruz de tenerife", "ulm"}),
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("serving Southern Tunisia", ["Tunisia"]),
        ("the University of Nicosia.", ["Nicosia"]),
        ("Reading is fun", []),  # a city that is also a word
        ("We flew to Santa Cruz de Tenerife", ["Santa Cruz de Tenerife"]),
        ("Ostrov, CZECH REPUBLIC", ["CZECH REPUBLIC"]),
    ],
)
def test_places(text: str, expected: list[str]) -> None:
    words = NameLists(frozenset(), frozenset(), frozenset({"reading"}))
    assert [value for value, _ in _found(find_places(text, PLACES, words), text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Inger Lassen\nTel. 90141028\nSøborg, Cyprus", ["Søborg"]),  # a signature's town
        ("We stayed in Videbæk, Tunisia.", ["Videbæk"]),
        ("from Port Annettechester, Cyprus", ["Port Annettechester"]),
        ("Thanks, Cyprus!", []),  # a dictionary word
        ("Sent from Acme Labs, Cyprus", []),  # dictionary words all
        ("Q3, Cyprus", []),
        ("Dr Silva, Cyprus", []),  # a title: a person
        ("Ana Silva, Cyprus", []),  # a given name first: a person
        ("Tunisia, Cyprus", []),  # two countries
        ("Meeting notes, Cyprus office", []),  # no capitalised run before the comma
    ],
)
def test_the_town_written_before_a_country(text: str, expected: list[str]) -> None:
    words = NameLists(
        frozenset({"ana"}), frozenset({"silva"}), frozenset({"thanks", "acme", "labs", "port"})
    )
    spans = find_towns_before_countries(text, PLACES, words)
    assert [text[s.start : s.end] for s in spans] == expected
    assert all(s.kind == "LOCATION" for s in spans)


def test_university_cue_is_a_place() -> None:
    text = "studying at the University of PORVOO."
    assert ("PORVOO", "LOCATION") in _found(find_context_entities(text), text)


@pytest.mark.parametrize(
    "text",
    [
        "Check-up on 3 March 2027 at 10:00.",
        "due 15 January 2027.\nPay to the account",
        "on 4 Sept 2025 we met",
    ],
)
def test_a_date_is_not_an_address(text: str) -> None:
    assert rec.find_addresses(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "see Guilty Pleasures: 5 Musicians Of The 70s You're Supposed To Hate",
        "Top 10 Albums Of The 1990s Ranked",
    ],
)
def test_a_decade_is_not_a_house_number(text: str) -> None:
    assert rec.find_addresses(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ship to 94472 Atamaria 55 today", "94472 Atamaria 55"),
        ("flat at 3369 Gesterbyntie 60 please", "3369 Gesterbyntie 60"),
        ("Via Roma 130, Milano", "Via Roma 130, Milano"),
    ],
)
def test_a_house_number_ending_in_zero_is_still_one(text: str, expected: str) -> None:
    (span,) = rec.find_addresses(text)
    assert text[span.start : span.end] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("City: Málaga\nPostcode: 47801", "47801"),
        ("ZIP: 10001-2345", "10001-2345"),
        ("postcode = SW1A 1AA", "SW1A 1AA"),
        ("Postal code: H3Z 2Y7", "H3Z 2Y7"),
        ("PLZ: 10115", "10115"),
        ("Código postal: 7799-843", "7799-843"),
    ],
)
def test_a_postcode_in_a_labelled_field_is_an_address(text: str, expected: str) -> None:
    # No town follows it, so only the label says what the number is.
    (span,) = rec.find_addresses(text)
    assert text[span.start : span.end] == expected


@pytest.mark.parametrize("text", ["zip 12 files", "PIN: 4821", "Order code: 55120"])
def test_a_number_without_a_postcode_label_is_not_one(text: str) -> None:
    assert rec.find_addresses(text) == []


@pytest.mark.parametrize(
    ("text", "phone"),
    [
        ("can be reached at ana@example.com or on 0054 278271", "0054 278271"),
        ("she is reachable via 0054 278271 after six", "0054 278271"),
        ("our newsletter reached 1 000 000 readers", None),  # a count, not a person
        ("The campaign reached at least 1 200 000 people.", None),
        ("order 0054 278271 shipped", None),
    ],
)
def test_being_reached_is_a_phone_word(text: str, phone: str | None) -> None:
    found = [text[s.start : s.end] for s in rec.find_phone_numbers(text)]
    assert found == ([phone] if phone else [])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my postcode is SW1A 1AA, thanks", "SW1A 1AA"),
        ("Abdullahi,Lilian,Elliotbury,Oxfordshire,CV0 8NF", "CV0 8NF"),
        ("Me: EH12 9DN", "EH12 9DN"),
        ("drop it at M1 1AE.", "M1 1AE"),
        ("mail goes to K1A 0B1 now", "K1A 0B1"),
        ("parcel_SW1A_1AA.pdf", "SW1A 1AA"),  # as the detector reads it: words apart
    ],
)
def test_a_whole_british_or_canadian_postcode_is_an_address_anywhere(
    text: str, expected: str
) -> None:
    # No label, no town: the shape alone names a street or a few houses.
    read = words_apart(text)
    (span,) = rec.find_addresses(read)
    assert read[span.start : span.end] == expected


@pytest.mark.parametrize(
    "text",
    [
        "Selling my PS4 1TB and a PS5 2GB",  # a size after a model
        "M2 1TB drive",
        "AUDI A4 4WD",  # a drive, an ordinal, a console
        "ROOM B2 1ST FLOOR",
        "PART A1 2ND HALF",
        "Buy the N3 3DS bundle",
        "SW1A1AA",  # no space: as often a code of something else
        "sw1a 1aa",
        "Q1 1AA",  # no British postcode starts with Q
        "K1A 0B1X",
        "Flight BA 123 at 9AM",
    ],
)
def test_other_codes_of_a_postcodes_letters_are_not_addresses(text: str) -> None:
    assert rec.find_addresses(text) == []


def test_an_address_stops_at_the_end_of_its_sentence() -> None:
    # The full stop ends the sentence and is left in the text (it once went with the town).
    text = "Her practice: 221 Baker Street, London. Phone her."
    (span,) = rec.find_addresses(text)
    assert text[span.start : span.end] == "221 Baker Street, London"


_WORDY = "aAbéßЖ_1 .,'’-\n"


@settings(max_examples=examples(200), deadline=None)
@given(st.text(alphabet=_WORDY, max_size=40), st.text(alphabet=_WORDY, min_size=1, max_size=5))
def test_whole_word_occurrences_match_the_pattern_they_replace(text: str, value: str) -> None:
    # propagate once compiled this pattern per value; the string search must agree with it
    pattern = re.compile(r"(?<!\w)" + re.escape(value) + r"(?!\w)")
    expected = [match.start() for match in pattern.finditer(text)]
    assert propagation._whole_word_occurrences(text, value) == expected


@settings(max_examples=examples(300), deadline=None)
@given(
    st.text(alphabet=_WORDY, max_size=60),
    st.lists(st.text(alphabet=_WORDY, min_size=1, max_size=6), min_size=1, max_size=4),
)
def test_word_starts_find_what_searching_the_text_finds(text: str, values: list[str]) -> None:
    # propagate looks a found name up among the words of the text instead of searching all
    # of it per name (a long text has thousands): the same starts, in the same order
    words = propagation._WordStarts(text)
    for value in [*values, *(text[i : i + 4] for i in range(0, len(text), 7))]:
        if value:
            expected = propagation._whole_word_occurrences(text, value)
            assert words.occurrences(value) == expected


@settings(max_examples=examples(200), deadline=None)
@given(
    st.text(alphabet=_WORDY + " \t", max_size=30),
    st.lists(st.text(alphabet="aAbéЖ.'", min_size=1, max_size=4), min_size=1, max_size=3),
    st.integers(min_value=0, max_value=5),
)
def test_end_of_matches_the_pattern_it_replaces(text: str, words: list[str], start: int) -> None:
    joined = " ".join(words)
    found = re.compile(r"\s+".join(re.escape(word) for word in words)).match(text, start)
    expected = found.end() if found else start + len(joined)
    assert cue_words._end_of(text, start, joined) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("with @ryan.phillips14 and @mpatterson28 #travel", ["ryan.phillips14", "mpatterson28"]),
        ("@anna please review", ["anna"]),
        # names run together: a given name and a surname, an initial and a surname
        ("ping @annasmith and @jsmith", ["annasmith", "jsmith"]),
        # words run together are not ("home" + "team"), nor letters no list knows
        ("ask @hometeam or @xk77", []),
        # a hashtag of a given name and a surname, each capitalised; not of words
        ("So proud of #AnnaSmith today", ["AnnaSmith"]),
        ("#HereSmith #ThrowbackThursday #anna", []),
        ("@john-smith said", ["john-smith"]),
        # Everyday words name a group or a thing; an email's "@" is not a mention; code
        # is not a person.
        ("thanks @everyone, see @here and @home_team", []),
        ("mail anna@example.com", []),
        ("Add @dataclass here; @anna.lib(x) and @anna/core are code", []),
    ],
)
def test_handles_name_people(text: str, expected: list[str]) -> None:
    lists = NameLists(
        first=frozenset({"anna", "ryan", "john", "here"}),
        last=frozenset({"phillips", "patterson", "smith"}),
        words=frozenset({"everyone", "here", "home", "team", "travel"}),
    )
    assert [value for value, _ in _found(name_forms.find_handles(text, lists), text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A surname that is an everyday word is a name after initials.
        ("Regards,\nJ. Mason", ["Mason"]),
        ("Thanks, R. Toft", ["Toft"]),
        ("prepared by A. J. Cook and Dr. K. Church", ["Cook", "Church"]),
        ("J.R.R. Tolkien wrote it", ["Tolkien"]),
        ("Kind regards, É. Rose-Marsh", ["Rose-Marsh"]),
        # Initials after a capitalised word label something; a word no surname list
        # holds is no name; a lower-case abbreviation is no initial.
        ("Plan B. Mason said no; Section A. Overview", []),
        ("U.S. Bank statement", []),
        ("see p. Mason for details", []),
    ],
)
def test_initials_before_a_listed_surname_name_a_person(text: str, expected: list[str]) -> None:
    lists = NameLists(
        first=frozenset({"anna"}),
        last=frozenset({"mason", "toft", "cook", "church", "tolkien", "rose-marsh"}),
        words=frozenset({"mason", "toft", "cook", "church", "bank", "overview"}),
    )
    found = cue_words.find_initialled(text, lists)
    assert [value for value, _ in _found(found, text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("From: Violet Church <v.church@example.org>", ["Violet Church"]),
        (
            'To: "Church, Violet" <v@example.org>, Pieter van der Berg <p@example.nl>',
            ["Church, Violet", "Pieter van der Berg"],
        ),
        # Not a display name: words in lower case, or an address with no name before it.
        ("write to support <help@example.com> today", []),
        ("mail anna@example.com or <anna@example.com>", []),
        ("a < b and c > d, x<y@z", []),
    ],
)
def test_the_name_before_an_address_in_brackets_is_a_person(text: str, expected: list[str]) -> None:
    found = name_forms.find_display_names(text)
    assert [value for value, _ in _found(found, text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("See you soon.\nThanks!\nFaith", ["Faith"]),
        ("Thanks!\r\nFaith\r\n", ["Faith"]),  # written on Windows
        ("Regards\nBill Hunt\nHead of Sales", ["Bill Hunt"]),
        ("xoxo\nSunny", ["Sunny"]),
        # Not a name under a closing: no listed given name first, a company's words, a
        # sentence.
        ("Best wishes,\nThe Team", []),
        ("Thanks,\nSunny Department", []),
        ("Thanks\nFaith is what keeps us going", []),
    ],
)
def test_the_name_under_a_closing_is_a_person(text: str, expected: list[str]) -> None:
    lists = NameLists(
        first=frozenset({"faith", "bill", "sunny"}),
        last=frozenset({"hunt"}),
        words=frozenset({"faith", "bill", "sunny", "hunt", "team", "department"}),
    )
    found = name_forms.find_signed(text, lists)
    assert [value for value, _ in _found(found, text)] == expected


def test_a_mention_is_not_sought_as_a_bare_word() -> None:
    # "@dataclass" taken for an account must not mask the word "dataclass" elsewhere.
    text = "use @dataclass here; a dataclass has fields"
    seed = [Span(5, 14, "PERSON", 0.7, "handle")]
    found = {s.start for s in propagate(text, seed)}
    assert text.index("a dataclass") + 2 not in found


@given(st.text(alphabet="ab_@:/. \n", max_size=40))
def test_words_apart_keeps_length_and_changes_only_underscores(text: str) -> None:
    read = words_apart(text)
    assert len(read) == len(text)
    for before, after in zip(text, read, strict=True):
        assert before == after or (before, after) == ("_", " ")


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("Brno_conference_2024.pdf", "Brno conference 2024.pdf"),
        ("mail vera_k@example.org or @vera_k", "mail vera_k@example.org or @vera_k"),
        ("see https://example.org/a_b and a_b", "see https://example.org/a_b and a b"),
        ("www.a_b.org x_y", "www.a_b.org x y"),
        ("no underscores", "no underscores"),
    ],
)
def test_words_apart(text: str, read: str) -> None:
    assert words_apart(text) == read
