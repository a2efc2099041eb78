"""A synthetic life's archive for the at-size benchmark: mails, chat turns and notes.

Ten years of an ordinary person's written record, generated deterministically: every
document is a function of its number alone, so a vault built to 100,000 sections and later
grown to 300,000 holds exactly what one built to 300,000 at once would. Texts are made from
topic templates with slots (people, places, amounts, days), so they read like mail and
chat, share vocabulary the way real ones do, and give the vector leg real neighbours: a
query about one topic has many near matches and a few close ones.

Document shapes (by section count, about 45% mail, 40% chat, 15% notes):
* a mail: one section, a subject line as its title, a short header (from, sometimes an
  address, a phone number) and two to four sentences;
* a chat: a conversation of eight to twelve turns, one section per turn under a heading
  naming who spoke and when;
* a note: one section of one to three sentences.

Dates fall anywhere in the ten years from 2016-01-01 (a function of the number too), so a
vault of any size spans the whole decade.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

START_MS = 1_451_606_400_000  # 2016-01-01T00:00:00Z
TEN_YEARS_MS = 3652 * 86_400_000

PEOPLE = (
    "Anna Ben Clara David Elena Farid Grace Hugo Isla Jonas Kemi Liam Maya Noor Oscar Priya "
    "Quinn Rosa Sami Tara Umar Vera Will Xena Yusuf Zoe Alice Bruno Chen Dara Emil Fatima "
    "George Hana Ivan Julia Kofi Lena Marco Nina Olga Pablo Rhea Stefan Tom Ursula Victor"
).split()
SURNAMES = (
    "Adams Baker Costa Dubois Evans Fischer Garcia Hughes Ivanova Jensen Khan Lopez Moreau "
    "Novak Okafor Patel Quinn Rossi Schmidt Tanaka Ueda Varga Walsh Young Zielinski"
).split()
PLACES = (
    "Lisbon Leeds Berlin Porto Bristol Lyon Krakow Dublin Seville Glasgow Utrecht Bologna "
    "Ghent Nantes Bergen Malaga Cork Graz Turin Aarhus Brighton York Oxford Cardiff Bath"
).split()
DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
MONTHS = (
    "January February March April May June July August September October November December"
).split()

# Each topic: a subject, and sentence templates over the slots {p} person, {q} another,
# {city}, {day}, {month}, {n} a number, {t} a time.
TOPICS: dict[str, tuple[str, tuple[str, ...]]] = {
    "dentist": (
        "Dentist appointment",
        (
            "The dentist moved my check-up to {day} at {t}.",
            "Dr {s} says the crown needs another fitting in {month}.",
            "Remember to floss; the hygienist found a small cavity on the left.",
            "The dental bill came to {n} pounds after the insurance.",
        ),
    ),
    "boiler": (
        "Heating engineer visit",
        (
            "The boiler engineer comes on {day} between {t} and noon.",
            "Radiators upstairs are cold again; the pressure gauge reads below one bar.",
            "The heat pump service costs {n} a year with the warranty.",
            "Bleed the radiators before the engineer arrives.",
        ),
    ),
    "flight": (
        "Flight booking",
        (
            "Our flight to {city} leaves at {t} on {day}.",
            "Check-in opens a day before; seats {n}A and {n}B are booked.",
            "The airline changed the return flight from {city} to the evening.",
            "Pack the passports and the boarding passes for {city}.",
        ),
    ),
    "rent": (
        "Rent and the flat",
        (
            "The landlord wants to raise the rent by {n} from {month}.",
            "The washing machine in the flat leaks again; the landlord will send someone {day}.",
            "The deposit of {n} pounds is held by the tenancy scheme.",
            "Viewing of the new flat in {city} on {day} at {t}.",
        ),
    ),
    "birthday": (
        "Birthday plans",
        (
            "{p}'s birthday dinner is on {day} at the Italian place, table for {n}.",
            "We should get {p} the book about {city} for the birthday.",
            "The cake for {p} is ordered from the bakery for {t}.",
            "Birthday party at {q}'s house, bring something to drink.",
        ),
    ),
    "school": (
        "School",
        (
            "Parents' evening at the school on {day} at {t}.",
            "{p}'s school report says the maths is much better this term.",
            "The school trip to {city} costs {n} and the form is due {day}.",
            "Swimming lessons move to {day} afternoons at the leisure centre.",
        ),
    ),
    "work": (
        "Project update",
        (
            "The project review with {p} is on {day}; the slides need the {month} numbers.",
            "Budget for the next quarter is {n} thousand; {q} wants a breakdown.",
            "The client in {city} signed the contract this morning.",
            "Team offsite in {city} in {month}, {p} books the hotel.",
        ),
    ),
    "doctor": (
        "Doctor",
        (
            "The GP said to take the antibiotics twice a day for {n} days.",
            "Blood test results are normal except the iron, which is a bit low.",
            "Physiotherapy for the knee every {day} at {t}.",
            "The doctor referred me to the hospital in {city} for a scan.",
        ),
    ),
    "car": (
        "The car",
        (
            "The car's MOT is due in {month} at the garage on the high street.",
            "New tyres cost {n} pounds fitted.",
            "The car insurance renewal went up to {n} this year.",
            "The garage found a problem with the brakes; collect the car {day}.",
        ),
    ),
    "money": (
        "Bank and bills",
        (
            "The electricity bill was {n} pounds for the quarter.",
            "Transfer {n} to the savings account before {day}.",
            "The tax return is due on 31 January; the accountant needs the P60.",
            "Mortgage rate fixed for five years at {n} point two percent.",
        ),
    ),
    "garden": (
        "Garden",
        (
            "Planted tomatoes and beans along the south fence on {day}.",
            "The apple tree needs pruning before {month}.",
            "{p} lent us the lawnmower until {day}.",
            "The shed roof leaks; new felt costs about {n}.",
        ),
    ),
    "holiday": (
        "Holiday",
        (
            "The holiday cottage near {city} is booked for the first week of {month}.",
            "Hired a car in {city} for {n} days.",
            "The beach in {city} was lovely, the water still cold in {month}.",
            "{p} recommends the walking route along the coast from {city}.",
        ),
    ),
    "pets": (
        "The cat",
        (
            "The vet booked the cat's vaccinations for {day} at {t}.",
            "Cat food subscription now {n} a month.",
            "{p} feeds the cat while we are in {city}.",
            "The vet says the dog needs to lose a little weight.",
        ),
    ),
    "music": (
        "Music",
        (
            "Piano lesson moved to {day} at {t}; practise the scales.",
            "Concert tickets for {month} in {city}, {n} each.",
            "{p} plays the violin in the orchestra on {day}.",
            "The choir rehearsal is cancelled this week.",
        ),
    ),
    "food": (
        "Recipes and food",
        (
            "{p}'s lentil soup: onions, carrots, red lentils, cumin, simmer {n} minutes.",
            "Supermarket order arrives {day} between {t} and later.",
            "Dinner with {p} and {q} at the new Thai restaurant in {city}.",
            "Bake the bread at two hundred degrees for {n} minutes.",
        ),
    ),
    "sport": (
        "Running and the gym",
        (
            "Ran {n} kilometres along the river in the rain.",
            "Gym membership renews in {month} at {n} a month.",
            "Half marathon in {city} on {day}, start at {t}.",
            "{p} wants to play tennis on {day} evening.",
        ),
    ),
}
FILLER = (
    "Let me know if that works.",
    "Thanks again for sorting it out.",
    "Speak soon.",
    "No rush on this.",
    "I will call you later about it.",
    "Hope the week is going well.",
    "Sorry for the late reply.",
    "See you then.",
)
CHAT_REPLIES = (
    "ok sounds good",
    "yes, {day} works for me",
    "can we make it {t} instead?",
    "did you hear back from {p}?",
    "haha yes",
    "I'll check and tell you tonight",
    "great, thanks!",
    "not sure, maybe ask {q}",
)
# Questions a person asks of such an archive, each in other words than the texts use.
QUERIES = (
    "when is the dental check-up",
    "heating repair visit",
    "what time is the plane",
    "how much did the landlord raise the rent",
    "birthday meal reservation",
    "parents evening at school",
    "client contract signed",
    "what did the doctor prescribe",
    "cost of new tyres",
    "electricity bill amount",
    "pruning the fruit tree",
    "cottage booked for the holiday",
    "cat vaccinations at the vet",
    "piano lesson time",
    "recipe for lentil soup",
    "half marathon start time",
    "tax return deadline accountant",
    "leaking shed roof",
    "orchestra violin concert",
    "budget breakdown for next quarter",
    "blood test results",
    "car insurance renewal price",
    "savings transfer",
    "tennis on the weekend",
    "swimming lessons schedule",
    "walking route along the coast",
    "washing machine leak in the flat",
    "team offsite hotel",
    "knee physiotherapy",
    "choir rehearsal cancelled",
)


@dataclass(frozen=True)
class Shape:
    """How many sections document number `n` has, and what kind it is."""

    kind: str  # mail | chat | note
    sections: int


def shape(number: int) -> Shape:
    """The kind and size of document `number` (deterministic)."""
    pick = random.Random(number * 7919).random()
    if pick < 0.12:
        return Shape("chat", 8 + number % 5)  # ~40% of sections: chats are long
    if pick < 0.70:
        return Shape("mail", 1)
    return Shape("note", 1)


def _slots(rng: random.Random) -> dict[str, str]:
    return {
        "p": rng.choice(PEOPLE),
        "q": rng.choice(PEOPLE),
        "s": rng.choice(SURNAMES),
        "city": rng.choice(PLACES),
        "day": rng.choice(DAYS),
        "month": rng.choice(MONTHS),
        "n": str(rng.randint(2, 950)),
        "t": f"{rng.randint(7, 20)}:{rng.choice(('00', '15', '30', '45'))}",
    }


def _sentence(rng: random.Random, topic: str) -> str:
    return rng.choice(TOPICS[topic][1]).format(**_slots(rng))


def created_at(number: int) -> int:
    """Document `number`'s date, somewhere in the ten years."""
    return START_MS + int(TEN_YEARS_MS * random.Random(number * 104_729).random())


def document(number: int) -> dict[str, Any]:
    """Document `number` of the archive, as a `note_many` item."""
    rng = random.Random(number)
    form = shape(number)
    topic = rng.choice(sorted(TOPICS))
    when = created_at(number)
    if form.kind == "mail":
        sender = f"{rng.choice(PEOPLE)} {rng.choice(SURNAMES)}"
        header = f"From: {sender}"
        if rng.random() < 0.2:
            header += f" <{sender.split()[0].lower()}.{rng.randint(1, 99)}@example.org>"
        if rng.random() < 0.1:
            header += f"\nPhone: 07700 9{rng.randint(10000, 99999)}"
        body = " ".join(_sentence(rng, topic) for _ in range(rng.randint(2, 4)))
        text = f"{header}\n\n{body} {rng.choice(FILLER)}"
        title = f"{TOPICS[topic][0]} ({rng.choice(PLACES)})"
        return {
            "text": text,
            "title": title,
            "kind": "note",
            "created_at": when,
            "shelf": "mail",
            "tags": ["mail"],
        }
    if form.kind == "chat":
        people = (rng.choice(PEOPLE), "me")
        turns = []
        minute = rng.randint(0, 600)
        for turn in range(form.sections):
            speaker = people[turn % 2]
            said = (
                _sentence(rng, topic)
                if rng.random() < 0.6
                else rng.choice(CHAT_REPLIES).format(**_slots(rng))
            )
            minute += rng.randint(1, 30)
            turns.append(f"## {speaker} {minute // 60:02d}:{minute % 60:02d}\n{said}")
        text = "\n\n".join(turns)
        return {
            "text": text,
            "title": f"Chat with {people[0]}",
            "kind": "note",
            "created_at": when,
            "shelf": "chats",
            "tags": ["chat"],
        }
    body = " ".join(_sentence(rng, topic) for _ in range(rng.randint(1, 3)))
    return {
        "text": body,
        "title": TOPICS[topic][0],
        "kind": "note",
        "created_at": when,
        "shelf": "default",
    }


def documents_from(first: int) -> Iterator[dict[str, Any]]:
    """Documents `first`, `first + 1`, ... of the archive."""
    number = first
    while True:
        yield document(number)
        number += 1
