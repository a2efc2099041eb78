"""Generate privault's labels set: short titles, headings and tags, with and without PII.

    python -m benchmarks.pii_labels [--seed 20261205] [--out PATH]

Titles are where an agent looks first, and a title is short: a capitalised word that starts
it ("Plumber invoice", "Garden", "Lasagne on Friday") is not a name for being first, and a
name in it ("Call Ilsabet Marrowgate on +44 ...", "marguerite", `#oriel-fenwhistle`) has
few words around it to show what it is. Sentence sets hide both; this set measures them
apart: `python -m benchmarks.pii --data benchmarks/pii_labels_v1.json` reports leak recall
on the labels that hold PII and, as `clean_over_masking`, the share of labels without PII
that lost any letter or digit to a mask.

People come from `benchmarks.pii_synth2`'s sources (Mimesis and invented names), the
ordinary words from the lists below. The committed file was generated once with the
defaults and frozen before the detector was tuned against anything.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from benchmarks import pii_set_command, pii_synth2

DEFAULT_SEED = 20261205
DEFAULT_OUT = Path(__file__).with_name("pii_labels_v1.json")
CLEAN_COUNT = 300
PII_COUNT = 200

# Everyday nouns that start titles, some of them also given names, places or surnames
# elsewhere ("Rose", "Victoria sponge", "Jersey", "Baker").
NOUNS = """Garden Plumber Biopsy Lasagne Boiler Taxes Recipes Holidays Budget Insurance Mortgage
    Dentist Pharmacy Groceries Laundry Gutters Chimney Roof Kitchen Bathroom Attic Cellar
    Garage Bike Car Piano Violin Football Swimming Yoga Pilates Running Hiking Camping Fishing
    Knitting Pottery Painting Gardening Composting Beekeeping Sourdough Pancakes Risotto Curry
    Goulash Paella Strudel Brownies Scones Jam Chutney Pickles Soup Salad Casserole Roast
    Invoice Receipt Warranty Contract Lease Payslip Pension Savings Shares Bills Electricity
    Broadband Water Heating Council Parking Passport Visa Vaccination Allergy Physio Eyesight
    Hearing Bloodwork Cholesterol Prescription Surgery Recovery Sleep Diet Steps Meditation
    Journal Diary Ideas Projects Reading Books Podcasts Films Music Playlist Concert Theatre
    Museum Wedding Birthday Anniversary Christmas Easter Halloween Party Picnic Barbecue
    Packing Moving Storage Donations Repairs Paint Tiles Flooring Curtains Lighting Furniture
    Wardrobe Shoes Coat Umbrella Luggage Tickets Flights Hotel Train Ferry Rental Roadtrip
    Rose Jasmine Sage Basil Daisy Ivy Heather Laurel Olive Holly Victoria Jersey Baker
    Mason Taylor Hunter Carpenter Cook Turner Fisher Gardener Miller Porter Summer Autumn
    Winter Spring Dawn Sunny Misty Stormy Pebble Brook Meadow Forest Valley Harbour""".split()
LOWER = """notes plan list results invoice quote ideas schedule checklist receipts tips log
    budget options questions reminders progress draft update summary costs forms steps
    measurements photos links contacts timeline estimate review""".split()
ADJECTIVES = """Plain Quick Short Rough Old New Final Weekly Monthly Daily Random Misc Loose
    Useful Important Urgent Small Big Second First Last Spare Late Early""".split()
WEEKDAYS = pii_synth2.tpl.WEEKDAYS
CLEAN_SHAPES = (
    "{Noun}",
    "{Noun} {lower}",
    "{Noun} {lower}",
    "{Adj} note about {noun}",
    "{Noun} on {Weekday}",
    "{Adj} {noun} {lower}",
    "## {Noun}",
    "# {Noun} {lower}",
    "#{noun}",
    "#{noun}-{lower}",
    "{noun}/{lower}",
    "Rate {n} EUR",
    "{Noun} {n} EUR",
    "TODO: {noun} {lower}",
    "{Noun} and {noun}",
    "{Noun} - {lower} ({Weekday})",
    "Week {n}: {noun}",
    "{Noun}, {noun}, {noun}",
    "Re: {noun} {lower}",
    "{Noun} {Year}",
)
PII_SHAPES = (
    ("Call {name} on {phone}", "name phone"),
    ("{name}", "name"),
    ("{first}'s birthday", "first"),
    ("Lunch with {first}", "first"),
    ("Dinner with {name} on {Weekday}", "name"),
    ("{name} - contract", "name"),
    ("Invoice from {name}", "name"),
    ("Notes: {name_lc}", "name_lc"),
    ("{first_lc}", "first_lc"),
    ("gift for {first_lc}", "first_lc"),
    ("{name_lc}", "name_lc"),
    ("#{tag_name}", "tag_name"),
    ("{tag_name}", "tag_name"),
    ("Trip to {city}", "city"),
    ("Visit {first} in {city}", "first city"),
    ("Dr {last}", "last"),
    ("{street}", "street"),
    ("Move to {city}", "city"),
    ("Babysitter {first}, {phone}", "first phone"),
    ("{NAME_UC}", "NAME_UC"),
    ("Meeting with {name} re {noun}", "name"),
    ("{first} and {first2}", "first first2"),
    ("{Noun} for {first}", "first"),
    ("Email {email}", "email"),
)


# Slot -> gold label for the slots of `PII_SHAPES`.
_LABELS = {**pii_synth2.tpl.PII_SLOTS, "last": "PERSON"}


class _Words(pii_synth2._Values):
    """The set's slots: the people and places of `pii_synth2`, the ordinary words here."""

    def _Noun(self) -> str:  # noqa: N802 - the slot's name says its casing
        return self.rng.choice(NOUNS)

    def _noun(self) -> str:
        return self._Noun().lower()

    def _lower(self) -> str:
        return self.rng.choice(LOWER)

    def _Adj(self) -> str:  # noqa: N802
        return self.rng.choice(ADJECTIVES)

    def _Weekday(self) -> str:  # noqa: N802
        return self.rng.choice(WEEKDAYS)

    def _n(self) -> str:
        return str(self.rng.randint(2, 60))

    def _Year(self) -> str:  # noqa: N802
        return str(self.rng.randint(2019, 2027))


def _fill(template: str, gold: set[str], values: _Words) -> dict[str, Any]:
    """One label from `template`; the slots in `gold` become gold spans."""
    return pii_synth2.fill(template, values, {slot: _LABELS[slot] for slot in gold})


def generate(seed: int = DEFAULT_SEED) -> list[dict[str, Any]]:
    """`CLEAN_COUNT` labels without PII and `PII_COUNT` with, interleaved, deterministic."""
    rng = random.Random(seed)
    made = pii_synth2.providers(seed)
    clean = [
        _fill(rng.choice(CLEAN_SHAPES), set(), _Words(made, rng.choice(pii_synth2.LOCALES), rng))
        for _ in range(CLEAN_COUNT)
    ]
    private = []
    for _ in range(PII_COUNT):
        template, gold = rng.choice(PII_SHAPES)
        values = _Words(made, rng.choice(pii_synth2.LOCALES), rng)
        private.append(_fill(template, set(gold.split()), values))
    items = clean + private
    rng.shuffle(items)
    return items


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: write the set as JSON."""
    return pii_set_command.main(
        argv,
        "benchmarks.pii_labels",
        __doc__,
        generate,
        seed=DEFAULT_SEED,
        out=DEFAULT_OUT,
        what="labels",
    )


if __name__ == "__main__":
    raise SystemExit(main())
