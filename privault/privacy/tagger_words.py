"""Word lists, phrase parts and value drawing of the name tagger's training corpus
(`privault.privacy.tagger_corpus`): the names, places and everyday English it is made of."""

from __future__ import annotations

import random

from privault.privacy.names import NameLists
from privault.privacy.places import Gazetteer

CALL_VERBS = """Call call Ring ring Text text Email email Ask ask Tell tell Meet meet Met met
    Thank thank Remind remind Invite invite Pay pay Visit visit Phone phone Message message
    Ping ping See see Saw saw Help help Contact contact Write write Book book""".split()
PREPOSITIONS = """with from for to by and via cc per about of like""".split()
PERSON_VERBS = """said says called wants will is was sent asked thinks has came left emailed
    texted rang agreed paid owes booked cancelled confirmed mentioned brought fixed needs
    arrives arrived recommended signed lives lived moved works stays grew""".split()
# People by their trade or role, subjects of the same verbs as names ("Plumber booked").
TRADES = """plumber landlord landlady builder electrician cleaner gardener mechanic babysitter
    nanny courier postman accountant lawyer solicitor doctor dentist vet nurse teacher tutor
    painter roofer locksmith carpenter agent broker surveyor caretaker neighbour boss
    manager supplier seller buyer tenant driver coach""".split()
# Shares of the subject frame given to a given name that is a word, and to a trade or thing.
SUBJECT_WORD_NAMES = 0.15
SUBJECT_NOUNS = 0.12
GREETINGS = ("Dear", "Hi", "Hello", "Hey", "hi", "hey", "Morning", "Thanks", "Thank you")
CLOSINGS = ("Best,", "Regards,", "Kind regards,", "Cheers,", "Thanks,", "Love,", "--", "Best",
            "Cheers", "Thanks", "Best wishes", "Ta", "x", "Love", "Regards", "Thx")  # fmt: skip
# What a phone or mail program writes under a message, after the sender's name.
FOOTERS = ("\n\nSent from my phone", "\n\nSent from my iPhone", "\nSent from my mobile",
           "\n\nGet Outlook for Android", "\n\n--\nsent from mobile", "\n", "")  # fmt: skip
TITLES = ("Dr", "Dr.", "Mr", "Mrs", "Ms", "Prof.", "Mx", "Herr", "Frau", "Mme", "Sr.")
FIELDS = ("Name", "Contact", "Owner", "From", "To", "Tenant", "Guest", "Patient", "Client")
RELATIONS = "sister brother aunt uncle cousin mum dad friend neighbour colleague boss".split()
# Words that open a noun phrase ("the invoices", "my Kindle"): no name is followed by one.
DETERMINERS = frozenset("the a an my our your his her their this these those".split())
WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
MONTHS = "January February March April May June July August September October".split()
ADDRESS_LEADS = ("lives at ", "Address: ", "", "at ", "still lives on ", "sent to ", "lives on ",
                 "moved to ", "new flat on ", "deliver to ", "ship to: ", "meet me at ",
                 "the house on ", "we're now at ", "addr: ", "Adresse: ", "office is on ",
                 "parcel to ", "staying at ", "from ", "the shop on ")  # fmt: skip
ATTRIBUTED = """novel case report family house account wedding file version album book
    recording estate trial method interview paper building collection show""".split()
ROLES = "Manager Director Officer Assistant Engineer Lead Coordinator Consultant Advisor".split()
ORG_WORDS = "Ltd GmbH Inc Bakery Motors Dental Pharmacy Electrics Lettings Library Cafe".split()
# A small grammar of everyday English, so that function words, pronouns and common verbs
# are seen as often as in notes (a corpus of random dictionary words has almost none).
NOUNS = """car house kitchen garden door key phone bill invoice meeting appointment doctor
    dentist school class lesson book letter parcel package order account card bank rent
    flat room bathroom roof window boiler heating fridge oven dinner lunch breakfast party
    trip flight train bus ticket hotel holiday weekend week month year morning evening
    job work office project report email message call list note plan idea problem question
    answer price cost budget payment receipt form contract lease insurance policy claim
    battery charger laptop printer screen file folder photo video song movie game team
    match club gym class course exam test result results subscription balance order""".split()
VERBS = """call send book pay fix check buy sell bring take leave find need want get make
    cancel change move clean cook read write print sign return order pick drop meet ask
    tell remind visit help finish start open close forget remember update share""".split()
ADJECTIVES = """new old big small good bad late early quick long short last next first cheap
    expensive broken spare blue red green free busy quiet nice great weird usual""".split()
SUBJECTS = ("I", "you", "we", "they", "he", "she", "it", "my {n}", "the {n}", "this {n}", "our {n}")
AUXILIARIES = ("", "", "can", "will", "should", "must", "don't", "didn't", "can't",
               "have to", "need to", "want to", "'ll", "am going to", "forgot to")  # fmt: skip
OBJECTS = ("the {n}", "a {a} {n}", "my {n}s", "it", "them", "the {a} {n}", "some {n}s", "{n}")
PLACE_PREPS = ("in", "at", "near", "from", "to")
COMMON_PLACES = ["town", "home", "work", "school", "bed", "church", "hospital", "court", "time"]
QUESTIONS = (
    "Can you {v} the {n}?", "What are my {n}s?", "How do I {v} my {n}?", "Where is the {n}?",
    "Did you {v} the {n}?", "Why is the {n} so {a}?", "Is the {n} {a}?", "Who has the {n}?",
    "When does the {n} start?", "Could we {v} it on {d}?",
)  # fmt: skip
FIELD_LABELS = """Phone Fax Email E-mail Mobile Tel Cell Address IBAN SSN ATM DOB PIN Ref Notes
    Subject Date Website Account Card Licence License Passport Order Invoice Total Due Status
    Company Department Location Room Floor Office Home Work Emergency""".split()
LANGUAGES = """English French German Spanish Italian Dutch Polish Latin Greek Arabic Chinese
    Japanese Swedish Danish Norwegian Finnish Portuguese Russian Turkish Hindi""".split()
LEADS = ("I watched", "we listened to", "she works at", "he studied", "they love", "I bought",
         "studying", "a song by", "the film", "tickets for", "we joined", "I read", "a review of",
         "an email from", "sponsored by", "He plays for", "I saw")  # fmt: skip


def fill_natural_lead(rng: random.Random) -> str:
    lead = rng.choice(LEADS)
    return lead[:1].upper() + lead[1:] if rng.random() < 0.5 else lead


UNITS = ("EUR", "GBP", "USD", "CHF", "eur", "kg", "km", "min", "pm", "am", "%")


class Draw:
    """Random values from the lists, and invented names made from them."""

    def __init__(
        self, lists: NameLists, places: Gazetteer, common: list[str], rng: random.Random
    ) -> None:
        self.rng = rng
        self.common = common
        self.first = sorted(lists.first - lists.words)
        self.first_words = sorted(lists.first & lists.words)  # "rose", "summer", "jack"
        self.last = sorted(lists.last - lists.words)
        self.surname_words = sorted(lists.last & lists.words)  # "fisher", "baker", "bush"
        self.trade_words = sorted((lists.last & lists.words) - lists.first)  # not "dexter"
        self.place_words = sorted(c for c in places.cities if c in lists.words)  # "reading"
        self.words = sorted(w for w in lists.words if w.isalpha() and 3 <= len(w) <= 11)
        self.cities = sorted(c for c in places.cities if c.replace(" ", "").isalpha())
        self.countries = sorted(places.countries)
        self._chain = _train_chain(self.first + self.last)
        self._word_chain = _train_chain(self.common)

    def word(self) -> str:
        return self.rng.choice(self.common if self.rng.random() < 0.8 else self.words)

    def given(self) -> str:
        pick = self.rng.random()
        if pick < 0.2:
            return self.invent()
        return self.rng.choice(self.first_words if pick < 0.3 else self.first)

    def surname(self) -> str:
        return self.invent() if self.rng.random() < 0.25 else self.rng.choice(self.last)

    def invent(self, chain: dict[str, str] | None = None) -> str:
        """A name-like word no list holds, from a character model of the lists (or a
        word-like one, from a model of everyday words, with `chain=self.word_chain`)."""
        rng = self.rng
        out = "^^"
        while len(out) < 14:
            options = (chain or self._chain).get(out[-2:], "$")
            char = rng.choice(options)
            if char == "$":
                break
            out += char
        return out[2:] if len(out) > 4 else self.invent(chain)

    def unknown_word(self) -> str:
        """A word-like word no dictionary holds (a dish, a brand, a new word)."""
        return self.invent(self._word_chain)

    def place(self) -> str:
        if self.rng.random() < 0.2:
            return self.rng.choice(self.countries)
        return self.rng.choice(self.cities)


def _train_chain(names: list[str]) -> dict[str, str]:
    chain: dict[str, list[str]] = {}
    for name in names:
        padded = "^^" + name + "$"
        for i in range(2, len(padded)):
            chain.setdefault(padded[i - 2 : i], []).append(padded[i])
    return {key: "".join(values) for key, values in chain.items()}
