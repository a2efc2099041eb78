"""The generated training corpus of the name tagger (`privault.privacy.tagger`).

Texts are drawn from frames (a call, a meeting, a signature, a chat line, a title, a tag,
an address block, a list, a plain sentence about things) filled with values from the lists
detection ships with: given names and surnames (`names`), cities and countries
(`places`), ordinary English words (the dictionary), plus names invented from those lists
by a character model, so that the tagger learns what surrounds a name rather than which
names exist. Every value is written in every casing (Title, lower, UPPER, as a tag
`first-last`), at the start, middle and end of lines. Ordinary capitalised words ("Garden",
"Rose", "Summer", "Invoice") fill the same positions as words, so a capital letter at the
start of a title is not evidence of a name.

Deterministic: the same seed and the same lists give the same corpus.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from privault.privacy import tagger_streets as streets
from privault.privacy import tagger_words as lexis
from privault.privacy.names import NameLists
from privault.privacy.places import Gazetteer
from privault.privacy.tagger_frames import Example, Frames, case


class _Frames(Frames):
    """The frames with people, places and addresses."""

    # Frames with people --------------------------------------------------------
    def call(self) -> Example:
        verb = self.rng.choice(lexis.CALL_VERBS) + " "
        if self.rng.random() < 0.25:  # "call me back", "ask the landlord"
            other = self.rng.choice(
                ("me", "him", "her", "them", "us", "you", "it", "the {n}", "my {n}")
            )
            return [(verb + other.format(n=self.rng.choice(lexis.NOUNS)), "O"), *self.tail()]
        return [(verb, "O"), (self.person(), "PER"), *self.tail()]

    def preposition(self) -> Example:
        lead = self.ordinary(self.rng.randint(1, 3), capital=self.rng.random() < 0.6)
        prep = self.rng.choice(lexis.PREPOSITIONS)
        if self.rng.random() < 0.25:
            other = self.rng.choice(("me", "him", "her", "them", "us", "you", "it", "the {n}"))
            return [
                (f"{lead} {prep} " + other.format(n=self.rng.choice(lexis.NOUNS)), "O"),
                *self.tail(),
            ]
        return [(f"{lead} {prep} ", "O"), (self.person(), "PER"), *self.tail()]

    def subject(self) -> Example:
        """A sentence's subject before a verb people do: a name, often a given name that
        is also a word ("Dexter lives ...", "Grace paid ..."), or a trade or a thing
        ("Plumber booked", "the landlord called"). Titles start with the same words as words
        ("Grace notes", "Plumber invoice"): only the words after one tell which it is."""
        rng, d = self.rng, self.d
        verb, pick = rng.choice(lexis.PERSON_VERBS), rng.random()
        if lexis.SUBJECT_WORD_NAMES <= pick < lexis.SUBJECT_WORD_NAMES + lexis.SUBJECT_NOUNS:
            noun = rng.choice(lexis.TRADES + lexis.NOUNS if rng.random() < 0.7 else d.trade_words)
            lead = rng.choice(("", "", "", "the ", "The ", "my ", "our ", "My "))
            noun = noun.capitalize() if not lead or rng.random() < 0.2 else noun
            return [(f"{lead}{noun} {verb} {self.ordinary(2)}", "O"), *self.tail()]
        word_name = pick < lexis.SUBJECT_WORD_NAMES
        name = case(rng.choice(d.first_words), "title") if word_name else self.person()
        return [(name, "PER"), (f" {verb} {self.ordinary(2)}", "O"), *self.tail()]

    def attributive(self) -> Example:
        """A name used before a noun: "the Ronner novel", "the Okafor case"."""
        rng, d = self.rng, self.d
        name = d.surname() if rng.random() < 0.6 else f"{d.given()} {d.surname()}"
        lead = lexis.fill_natural_lead(rng) if rng.random() < 0.5 else rng.choice(lexis.VERBS)
        return [
            (f"{lead} the ", "O"),
            (case(name, "title"), "PER"),
            (f" {rng.choice(lexis.ATTRIBUTED)}", "O"),
            *self.tail(),
        ]

    def possessive(self) -> Example:
        return [(self.person(), "PER"), (f"'s {self.ordinary()}", "O"), *self.tail()]

    def letter(self) -> Example:
        """A message: a closing over the sender's name, often alone on its line above the
        phone's footer ("Cheers", "Anna", "Sent from my phone"), after a greeting and a line."""
        rng = self.rng
        out: Example = [(rng.choice(lexis.CLOSINGS) + "\n", "O"), (self.person(), "PER")]
        if rng.random() < 0.6:
            body = (f",\n\n{self.ordinary(5, capital=True)}.\n\n", "O")
            out = [(rng.choice(lexis.GREETINGS) + " ", "O"), (self.person(), "PER"), body, *out]
        return out + [(rng.choice(lexis.FOOTERS) if rng.random() < 0.5 else "", "O")]

    def chat(self) -> Example:
        rng = self.rng
        stamp = (
            f"[{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}] " if rng.random() < 0.5 else ""
        )
        return [(stamp, "O"), (self.person(), "PER"), (": " + self.ordinary(4), "O")]

    def honorific(self) -> Example:
        return [(self.rng.choice(lexis.TITLES) + " ", "O"), (self.person(), "PER"), *self.tail()]

    def field(self) -> Example:
        return [(self.rng.choice(lexis.FIELDS) + ": ", "O"), (self.person(), "PER")]

    def relation(self) -> Example:
        rel = self.rng.choice(lexis.RELATIONS)
        if self.rng.random() < 0.5:
            return [(f"my {rel} ", "O"), (self.person(), "PER"), *self.tail()]
        return [(self.person(), "PER"), (f" ({rel})", "O"), *self.tail()]

    def signature(self) -> Example:
        """A mail or message signature: a name over a role, a company, a number."""
        rng = self.rng
        out: Example = [(rng.choice(("--\n", "-- \n", "", "Sent by ", "~")), "O")]
        out += [(self.person(rng.choice(("title", "title", "upper", "lower"))), "PER")]
        role = f"{self.ordinary(1, capital=True)} {rng.choice(lexis.ROLES)}"
        company = self.ordinary(rng.randint(1, 2), capital=True).title()
        org = f"{company} {rng.choice(lexis.ORG_WORDS)}"
        out += [(rng.choice((f"\n{role}, {org}", f"\n{role}", f" | {org}", "")), "O")]
        if rng.random() < 0.5:
            out += [(f"\nm: {self.phone()}", "O")]
        return out

    def people_list(self) -> Example:
        out: Example = []
        joiner = self.rng.choice((", ", "\n- ", "; ", " and "))
        for i in range(self.rng.randint(2, 4)):
            out += [(joiner if i else "", "O"), (self.person(), "PER")]
        return out

    def title_person(self) -> Example:
        rng = self.rng
        pick = rng.random()
        if pick < 0.35:
            return [(self.person(), "PER")]
        if pick < 0.6:
            return [(self.person(), "PER"), (f" - {self.ordinary()}", "O")]
        return [(self.ordinary(1, capital=True) + " for ", "O"), (self.person(), "PER")]

    def tag(self) -> Example:
        rng, d = self.rng, self.d
        lead = rng.choice(("#", "@", "Tags: #", "see ", "", "[[", "under ", "~/notes/"))
        sep = rng.choice(("-", "_", ".", "") if lead == "@" else ("-", "_", "."))
        value = f"{d.given()}{sep}{d.surname()}".lower()
        after = ("", " #" + d.word(), "]]", f"/{d.word()}-{d.word()}", f"/{d.word()}")
        return [(lead, "O"), (value, "PER"), (rng.choice(after), "O")]

    # Places and addresses ------------------------------------------------------
    def travel(self) -> Example:
        rng = self.rng
        lead = rng.choice(
            ("in", "to", "from", "near", "Trip to", "flight to", "moved to", "back in")
        )
        if rng.random() < 0.3:
            lead = self.ordinary(rng.randint(1, 2), capital=True) + " " + lead
        return [(lead + " ", "O"), (self.place(), "LOC"), *self.tail()]

    def place_pair(self) -> Example:
        return [
            (self.place(), "LOC"),
            (", ", "O"),
            (case(self.d.rng.choice(self.d.countries), "title"), "LOC"),
        ]

    def address(self) -> Example:
        rng = self.rng
        lead = rng.choice(lexis.ADDRESS_LEADS)
        out: Example = [(lead.capitalize() if rng.random() < 0.3 else lead, "O")]
        if lead and rng.random() < 0.35:  # "Dexter lives on ...", "Ana's new flat on ..."
            out = [(self.person(), "PER"), (rng.choice((" ", " ", "'s ", " - ")) + lead, "O")]
        out.append((self.street(), "ADDR"))
        pick = rng.random()
        if pick < 0.45:
            out += [(rng.choice((", ", "\n", " ")), "O"), (streets.postcode(self.d), "ADDR")]
            out += [(" ", "O"), (self.place(), "LOC")]
        elif pick < 0.65:
            out += [(rng.choice((", ", "\n", " in ")), "O"), (self.place(), "LOC")]
        elif pick < 0.8:
            out += self.tail()
        return out


def corpus(
    lists: NameLists, places: Gazetteer, common: list[str], count: int, seed: int
) -> list[Example]:
    """`count` labelled examples, drawn deterministically from `seed`.

    `common` are everyday words (most ordinary words are drawn from them, the rest from
    the whole dictionary, most of which no note ever uses).
    """
    rng = random.Random(seed)
    frames = _Frames(lexis.Draw(lists, places, sorted(common), rng))
    weighted: list[tuple[Callable[[], Example], float]] = [
        (frames.call, 3), (frames.preposition, 3), (frames.subject, 3), (frames.possessive, 1),
        (frames.attributive, 1),
        (frames.letter, 1), (frames.chat, 2), (frames.honorific, 1), (frames.field, 1),
        (frames.relation, 1), (frames.people_list, 1), (frames.signature, 1),
        (frames.title_person, 2),
        (frames.tag, 1), (frames.travel, 2), (frames.place_pair, 1), (frames.address, 3),
        (frames.title_plain, 6), (frames.sentence_plain, 2), (frames.natural, 12),
        (frames.heading, 3), (frames.label, 2),
        (frames.proper_things, 3),
    ]  # fmt: skip
    makers = [maker for maker, _ in weighted]
    weights = [weight for _, weight in weighted]
    out = []
    for _ in range(count):
        example = rng.choices(makers, weights)[0]()
        if rng.random() < 0.25:  # two frames on one line or two lines
            example = (
                example + [(rng.choice((" ", "\n", ". ")), "O")] + rng.choices(makers, weights)[0]()
            )
        out.append([(piece, label) for piece, label in example if piece])
    return out
