"""The real detector on what it must find and what it must leave alone.

Emails on domains that are not public suffixes are addresses all the same; common nouns,
headings and field labels are not people and are never stored as PII spans.
"""

from __future__ import annotations

import pytest

from privault.privacy import Detector, DetectorConfig, PolicySet
from privault.privacy.names import NEWER_WORDS, ORGANISATION_WORDS, load_name_lists
from privault.privacy.ordinary import GREETINGS_ABROAD, SHORT_FORMS, trim_person
from privault.spans import Span

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


@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        # addresses of several countries: house number + postcode + town, USPS suffixes,
        # the street line above a unit line, a postcode after the country
        ("Send it to Michnova 9, 281 63 Bohušovice nad Ohří.", "Michnova 9, 281 63", "ADDRESS"),
        ("Address: Larsentunet 589, 9632 Sæther", "Larsentunet 589, 9632 Sæther", "ADDRESS"),
        ("It is at 5858 Andrea Mountains, Arnoldchester.", "5858 Andrea Mountains", "ADDRESS"),
        ("770 26 rue des Lilas\nApt. 735\nDole", "770 26 rue des Lilas\nApt. 735", "ADDRESS"),
        ("Apt. 12\n Črni Vrh nad Idrijo\n Slovenia 15755", "Slovenia 15755", "ADDRESS"),
        ("lives at 28919 136 Filadelfeos Str., Klirou", "28919 136 Filadelfeos Str.", "ADDRESS"),
        ("Flat 2, 14 Mill Lane, Leeds LS1 4AB", "Leeds LS1 4AB", "ADDRESS"),
        # phones: ungrouped, slash-grouped, a validated +CC number, an extension
        ("Emergency contact: Karl (father), 40337563", "40337563", "PHONE_NUMBER"),
        ("- Anita, 44/843-4442", "44/843-4442", "PHONE_NUMBER"),
        ("booked under her name, +442079460958.", "+442079460958", "PHONE_NUMBER"),
        ("call 001-852-927-3560x8820 after six", "001-852-927-3560x8820", "PHONE_NUMBER"),
        # places after a preposition, chat speakers
        ("We moved here from Tjæreborg last spring.", "Tjæreborg", "LOCATION"),
        ("Train to Ramosfurt, then the bus.", "Ramosfurt", "LOCATION"),
        ("[16:15] Zülgarni: running late", "Zülgarni", "PERSON"),
        # a name spaCy calls a nationality; names coordinated with a name found already,
        # a surname that is also a word among them
        ("Collected the parcel for Arild Nguyen from the depot.", "Arild Nguyen", "PERSON"),
        ("Usamov and Bowers were precision engineers.", "Bowers", "PERSON"),
        ("Dinner with Okonkwo and Baker went well.", "Okonkwo", "PERSON"),
        ("Moved in with Ilse, Jarvis and Fields last year.", "Fields", "PERSON"),
        ("License: WDL8SDD0ZM5Y (WA).", "WDL8SDD0ZM5Y", "US_DRIVER_LICENSE"),
    ],
)
def test_found_values(detector: Detector, text: str, value: str, kind: str) -> None:
    spans = [s for s in detector.detect(text) if STANDARD.counts(s)]
    start = text.index(value)
    covering = [s for s in spans if s.start <= start and s.end >= start + len(value)]
    assert covering, (value, _counted(spans, text))
    assert any(s.kind == kind for s in covering) or kind == "ADDRESS", covering


@pytest.mark.parametrize(
    "text",
    [
        "Chapter 9, 2024 Edition is out.",
        "I have 3 ripe apples and 2 Key points to make.",
        "Meeting in room 4B at 10:30, ref REF-2023-00042.",
        "See you in March, the plan is in the drawer.",
        "I counted 2921, ring me later.",
        "Todo: pay the boiler invoice",
    ],
)
def test_ordinary_text_is_left_alone(detector: Detector, text: str) -> None:
    assert _counted(detector.detect(text), text) == set()


@pytest.mark.parametrize(
    ("text", "kept", "dropped"),
    [
        ("We met Dr Prado in December.", "Prado", ("Dr", "December")),
        ("The visit is moved to Tuesday, Mrs Hansen said.", "Hansen", ("Mrs", "Tuesday")),
        ("Alexander: I'm Thomas's friend.", "Thomas", ("I'm",)),
    ],
)
def test_honorifics_days_and_i_are_not_masked(
    detector: Detector, text: str, kept: str, dropped: tuple[str, ...]
) -> None:
    masked = {text[s.start : s.end] for s in detector.detect(text) if STANDARD.counts(s)}
    assert kept in masked
    for word in dropped:
        assert not any(word in value.split() for value in masked), (word, masked)


@pytest.mark.parametrize(
    ("text", "readable", "masked"),
    [
        # a company word is not a name, nor one word before it that is no given name; a
        # legal form makes a "place" a company...
        ("Invoice BE-7731 from Bauer Elektro for the wiring.", ["Elektro"], []),
        ("Invoice 7731 from Okafor Dental for the crown.", ["Okafor", "Dental"], []),
        ("Invoice from ACME Hosting GmbH, due in May.", ["ACME", "Hosting", "GmbH"], []),
        ("Electricity bill from Stadtwerke Köln for May.", ["Stadtwerke"], ["Köln"]),
        # ...but a person's name in a company's name is still masked
        ("Quote from Maria Keller Sanitär for the boiler.", ["Sanitär"], ["Maria Keller"]),
        # the minutes of a time are no house number, a customer number is no phone
        ("Check-up on 2026-03-12 at 09:30, Hauptstraße 5, Bonn.", ["09:30"], ["Hauptstraße 5"]),
        ("Customer number 44-2281-07. Status: paid.", ["44-2281-07"], []),
        # a currency after an amount is money, in a short answer too; a name after a
        # number is still a name, and a given name is never taken for a currency
        ("12 Eur", ["Eur"], []),
        ("1,240.50 Eur", ["Eur"], []),
        ("Paid 40 Francs to Anna Weber.", ["Francs"], ["Anna Weber"]),
        ("Room 4 Mark Weber", [], ["Mark Weber"]),
        # a month by a day number is a date; two capitals are a code; a label written like
        # a sentence names no speaker, a speaker's name is still masked in any case
        (
            "Receipt ORD-2021-17241 - February 20\nCustomer: Alexis Gingras",
            ["February"],
            ["Alexis Gingras"],
        ),
        ("License: 06687485 (WA). Holder: Nathaniel Spencer.", ["WA"], ["Nathaniel Spencer"]),
        ("Trip plan: fly to Dej on 21 September 2025, stay with Laura.", ["Trip"], ["Laura"]),
        ("Anna Weber: are we still on?", [], ["Anna Weber"]),
        ("anna weber: are we still on for friday?", [], ["anna weber"]),
        # words newer than the dictionary are words too
        ("Website: example.org\nInfo: closed on Sundays", ["Website", "Info"], []),
        ("Babysitter: Anna Weber, 12 Eur an hour", ["Babysitter", "Eur"], ["Anna Weber"]),
        ("### Podcast\nRecorded the second episode today.", ["Podcast"], []),
        # greetings and closings in other languages are words; the name under one is not
        ("Cordialement,\nAmélie Roux", ["Cordialement"], ["Amélie Roux"]),
        ("Saludos,\nMarta Ruiz", ["Saludos"], ["Marta Ruiz"]),
        (
            "Mit freundlichen Grüßen\nKlaus Brenner",
            ["Mit", "freundlichen", "Grüßen"],
            ["Klaus Brenner"],
        ),
        ("Met vriendelijke groet,\nSanne Visser", ["Met", "vriendelijke"], ["Sanne Visser"]),
        ("Merci, Pierre Dupont Cordialement", ["Cordialement"], ["Pierre Dupont"]),
        ("Danke Jonas, bis morgen", ["Danke"], ["Jonas"]),
        ("Gracias Lucía por todo", ["Gracias"], ["Lucía"]),
        # a business's name is not a person's, whatever found it; a person's name in one is
        ("Invoice from Harbour Motors for the clutch.", ["Harbour", "Motors"], []),
        ("Boiler serviced by Oakridge Lettings. Landlord informed.", ["Oakridge"], []),
        ("Brunch at Blue Door Cafe with Ilse Brandt", ["Blue", "Door"], ["Ilse Brandt"]),
        ("Lunch with Ana Duarte at Willow Bakery on Friday.", ["Willow"], ["Ana Duarte"]),
        ("Quote from Maria Keller Plumbers for the boiler.", ["Plumbers"], ["Maria Keller"]),
        ("Priya Dental", ["Dental"], ["Priya"]),
        ("Tell Priya Pharmacy closes at 6", ["Pharmacy"], ["Priya"]),
        # short forms of days, months and chats are words; the names beside them are not
        ("Gym rota: Mon Priya, Thurs Kofi, Fri off.", ["Mon", "Thurs", "Fri"], ["Priya", "Kofi"]),
        ("Dentist on Tues 12 Sept at 3pm with Dr Okafor", ["Tues", "Sept"], ["Okafor"]),
        ("Rate 12 EUR an hour, Tue and Thu evenings", ["Tue", "Thu", "EUR"], []),
        ("Jan Novak called, back on Sat 3pm", ["Sat"], ["Jan Novak"]),
        ("Gym Thu-Fri, then Sun 10:30 with Ana Li", ["Thu-Fri", "Sun"], ["Ana Li"]),
        ("Moved to 5 Jan, ask Thu Nguyen", ["5 Jan"], ["Thu Nguyen"]),
        ("Jan and Sun went home early", [], ["Jan", "Sun"]),
        ("Cedar Physio - knee appointment Wed 10am", ["Cedar", "Wed"], []),
        ("Misc note about pickles", ["Misc"], []),
        ("msg from Ravi Menon: landed, pls call", ["msg", "pls"], ["Ravi Menon"]),
        # a card's expiry date is no address; an acronym after "the" is no name
        ("card ending 4242, exp 09/29, name on card ANA PEREIRA", ["exp", "09/29"], ["PEREIRA"]),
        ("The NAS is at 10.0.0.5, Ravi's laptop next to it.", ["NAS"], ["Ravi"]),
        # words newer than the dictionary; another language's words beside its own words
        ("Brainstorm: retro ideas for the sprint", ["Brainstorm", "retro"], []),
        ("Sunscreen and snacks for the beach", ["Sunscreen"], []),
        ("Rendez-vous jeudi avec Camille Ferrand à 10h", ["Rendez-vous", "jeudi"], ["Camille"]),
        (
            "Sehr geehrte Frau Gunnarsson, hiermit kündige ich den Mietvertrag.",
            ["Frau", "hiermit kündige"],
            ["Gunnarsson"],
        ),
        ("Ho ricevuto le chiavi da Giulia Marchetti ieri.", ["ricevuto", "chiavi"], ["Giulia"]),
        # a year after everyday words is no house number; a food before a dish is a dish
        ("Books To Read 2024", ["Read", "2024"], []),
        ("Recipe: Lemon Drizzle Cake", ["Lemon"], []),
        ("Lemon said the cake was fine", [], ["Lemon"]),
        # ... and names where nothing says that language is written ("trieben", "deste")
        ("Parked outside Hauptstraße 5, Trieben, on Sunday.", [], ["Trieben"]),
        ("[09:14] deste: running late, tell Ahmed to start", [], ["deste", "Ahmed"]),
    ],
)
def test_everyday_words_and_values_stay_readable(
    detector: Detector, text: str, readable: list[str], masked: list[str]
) -> None:
    spans = [s for s in detector.detect(text) if STANDARD.counts(s)]
    for word in readable:
        start = text.index(word)
        hit = [s for s in spans if s.start < start + len(word) and start < s.end]
        assert not hit, (word, _counted(spans, text))
    for value in masked:
        start = text.index(value)
        assert any(s.start <= start and start + len(value) <= s.end for s in spans), value


def test_no_short_form_is_a_listed_name() -> None:
    lists = load_name_lists()
    assert [w for w in SHORT_FORMS if lists.is_first(w) or lists.is_last(w)] == []


def test_no_company_word_is_a_listed_name() -> None:
    lists = load_name_lists()
    assert [w for w in ORGANISATION_WORDS if lists.is_first(w) or lists.is_last(w)] == []


def test_no_greeting_abroad_is_a_listed_name() -> None:
    lists = load_name_lists()
    assert [w for w in GREETINGS_ABROAD if lists.is_first(w) or lists.is_last(w)] == []


def test_no_newer_word_is_a_listed_given_name() -> None:
    lists = load_name_lists()
    assert [w for w in NEWER_WORDS if lists.is_first(w)] == []


@pytest.mark.parametrize(
    ("text", "word", "readable"),
    [
        ("Moved to April 5.", "April", True),
        ("Moved to the 5th of April.", "April", True),
        ("Paid on 20 February.", "February", True),
        ("Paid in February.", "February", True),
        ("Thank April for the cake.", "April", False),  # a given name, no day beside it
        ("Seen by Mark on Monday.", "Mark", False),
    ],
)
def test_a_month_beside_a_day_number_is_a_date(text: str, word: str, readable: bool) -> None:
    # The rule alone, on a guessed PERSON span over the word (NER often labels these
    # dates itself, so the detector's output would not show the rule's effect).
    start = text.index(word)
    guess = Span(start, start + len(word), "PERSON", 0.45, "propn")
    assert (trim_person(text, guess, load_name_lists()) == []) is readable


@pytest.mark.parametrize(
    ("text", "found", "source", "masked"),
    [
        # a possessive ending is not part of the name or the place it follows
        ("Bryan Maclean's killers were sentenced", "Bryan Maclean's", "ner", "Bryan Maclean"),
        ("olga krylova’s flat", "olga krylova’s", "learned", "olga krylova"),
        ("Lisbon's trams are old", "Lisbon's", "places", "Lisbon"),
        # a value the owner gave is masked as given; a name ending in "s" keeps it
        ("Bob's Diner", "Bob's", "known", "Bob's"),
        ("Call Agnes tomorrow", "Agnes", "ner", "Agnes"),
    ],
)
def test_a_possessive_ending_is_left_readable(
    text: str, found: str, source: str, masked: str
) -> None:
    start = text.index(found)
    kind = "LOCATION" if source == "places" else "PERSON"
    span = Span(start, start + len(found), kind, 0.85, source)
    kept = trim_person(text, span, load_name_lists())
    assert [text[s.start : s.end] for s in kept] == [masked]


def test_a_possessive_is_not_masked_with_the_name(detector: Detector) -> None:
    text = "Bryan Maclean's killers were sentenced to life."
    spans = [s for s in detector.detect(text) if s.kind == "PERSON"]
    assert spans and all(not text[s.start : s.end].endswith("'s") for s in spans)
    assert any(text[s.start : s.end] == "Bryan Maclean" for s in spans)


@pytest.mark.parametrize(
    ("text", "found", "masked"),
    [
        # "Will" is a given name where a sentence does not start, or before a name
        ("Attendees: Grace, Will, Mark", "Will", ["Will"]),
        ("Will Hughes called about the boiler.", "Will Hughes", ["Will Hughes"]),
        # and the verb where a sentence starts with it
        ("Will you call the plumber?", "Will", []),
        ("Will it rain, Maria?", "Will it", []),
    ],
)
def test_will_is_a_name_where_a_sentence_does_not_start(
    text: str, found: str, masked: list[str]
) -> None:
    start = text.index(found)
    span = Span(start, start + len(found), "PERSON", 0.85, "ner")
    kept = trim_person(text, span, load_name_lists())
    assert [text[s.start : s.end] for s in kept] == masked


@pytest.mark.parametrize(
    ("text", "word", "readable"),
    [
        # first in a sentence and before a determiner, a given name that is a word commands
        ("Mark the invoices as paid", "Mark", True),
        ("Done. Rob the piggy bank for the bus fare", "Rob", True),
        ("- Chase the refund with the bank", "Chase", True),
        # not before a trade or a relation, nor where no sentence starts
        ("Dawn the accountant called", "Dawn", False),
        ("Grace, Will, Mark the plumber and Ann", "Mark", False),
        ("Mark Hughes called", "Mark", False),
    ],
)
def test_a_name_that_is_a_verb_first_in_a_command(
    detector: Detector, text: str, word: str, readable: bool
) -> None:
    masked = {value for value, _ in _counted(detector.detect(text), text)}
    assert (not any(word in value for value in masked)) is readable
