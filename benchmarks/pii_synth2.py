"""Generate privault's second own PII evaluation set, from another generator.

    python -m benchmarks.pii_synth2 [--seed 20261204] [--count 1200] [--out PATH]

The first own set (`benchmarks.pii_synth`) takes its values from Faker and its sentences
from `benchmarks.pii_templates`. This one shares neither: its values come from Mimesis
(other name, street and city lists, in other locales) and from names invented here out of
syllables, which no list anywhere holds ("Ilsabet Marrowgate"); its sentences from
`benchmarks.pii_synth2_templates` (chat logs, headers, signatures, lists, tags, lower-case
texting). The committed file (`benchmarks/pii_synth2_v1.json`) was generated once with the
defaults and frozen before the detector was tuned against anything, so it measures how
detection holds on text of a family it was never fitted to.

Regenerating with the same seed and the same Mimesis version gives the same file.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from benchmarks import pii_set_command
from benchmarks import pii_synth2_templates as tpl

DEFAULT_SEED = 20261204
DEFAULT_COUNT = 1200
DEFAULT_OUT = Path(__file__).with_name("pii_synth2_v1.json")
MIMESIS_VERSION = "22.2.0"  # the version the committed file was generated with

# Mimesis locales with Latin-script names.
LOCALES = (
    "en", "en", "en-gb", "en-gb", "en-au", "en-ca", "de", "de-at", "de-ch", "fr", "it", "es",
    "es-mx", "pt", "pt-br", "nl", "nl-be", "pl", "cs", "sk", "da", "no", "sv", "fi", "is",
    "et", "hu", "hr", "tr",
)  # fmt: skip
# Street forms: number before the street name (English, French) or after it.
_NUMBER_FIRST = ("en", "en-gb", "en-au", "en-ca", "fr")
_SLOT = re.compile(r"\{(\w+)\}")
# Syllables for invented names: onsets, vowels, codas; and surname endings.
_ONSETS = "b br c ch d dr f g gr h j k l m n p r s sh st t th v w z".split()
_VOWELS = "a e i o u ai ei ou ia y".split()
_CODAS = ["", "", "", "l", "n", "r", "s", "th", "m", "lt", "nd", "rk", "sk"]
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_SURNAME_ENDS = "gate wick more ford ley son stone whistle holt vasz berg ski rova ani".split()


def _ascii(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(char for char in decomposed if char.isascii() and char.isalnum()).lower()


class _Values:
    """Fills the slots of one sentence: people of one locale (or invented), places too."""

    def __init__(self, providers: dict[str, Any], locale: str, rng: random.Random) -> None:
        self.person, self.address = providers[locale]
        self.locale = locale
        self.rng = rng
        self.invented = rng.random() < 0.3  # this sentence's people are made up

    def value(self, slot: str) -> str:
        """The text for `slot`."""
        base = slot.rstrip("0123456789")
        if base == "first2_lc":
            base = "first_lc"
        return str(getattr(self, "_" + base)())

    def _invented_word(self, syllables: int) -> str:
        rng = self.rng
        parts = [rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(syllables)]
        return ("".join(parts) + rng.choice(_CODAS)).capitalize()

    def _first(self) -> str:
        if self.invented:
            return self._invented_word(self.rng.choice((2, 2, 3)))
        return str(self.person.first_name())

    def _last(self) -> str:
        if self.invented:
            return self._invented_word(self.rng.choice((1, 2))) + self.rng.choice(_SURNAME_ENDS)
        return str(self.person.last_name())

    def _name(self) -> str:
        first, last = self._first(), self._last()
        if self.rng.random() < 0.1:
            return f"{first} {self.rng.choice('ABCDEFGHJKLMNPRSTW')}. {last}"
        return f"{first} {last}"

    def _name_lc(self) -> str:
        return self._name().lower()

    def _NAME_UC(self) -> str:  # noqa: N802 - the slot's name says its casing
        return self._name().upper()

    def _first_lc(self) -> str:
        return self._first().lower()

    def _handle(self) -> str:
        return _ascii(self._first()) + self.rng.choice(("", "_", ".")) + _ascii(self._last())

    def _tag_name(self) -> str:
        return f"{_ascii(self._first())}-{_ascii(self._last())}"

    def _tag_name_us(self) -> str:
        return f"{_ascii(self._first())}_{_ascii(self._last())}"

    def _street_only(self) -> str:
        return str(self.address.street_name())

    def _street(self) -> str:
        number = str(self.rng.randint(1, 240))
        name = self._street_only()
        if self.locale in _NUMBER_FIRST:
            suffix = self.address.street_suffix() if self.locale != "fr" else ""
            return " ".join(part for part in (number, name, suffix) if part)
        return f"{name} {number}"

    def _street_lc(self) -> str:
        return self._street().lower()

    def _address(self) -> str:
        postcode = str(self.address.postal_code())
        return f"{self._street()}\n{postcode} {self._city()}"

    def _address_line(self) -> str:
        return self._address().replace("\n", ", ")

    def _city(self) -> str:
        return str(self.address.city())

    def _city_lc(self) -> str:
        return self._city().lower()

    def _country(self) -> str:
        return str(self.address.country())

    def _phone(self) -> str:
        return str(self.person.telephone())

    def _email(self) -> str:
        if self.rng.random() < 0.5:
            user = f"{_ascii(self._first())}.{_ascii(self._last())}"
            return f"{user}@{self.rng.choice(('gmx.net', 'posteo.de', 'proton.me', 'web.de'))}"
        return str(self.person.email())

    def _iban(self) -> str:
        country = self.rng.choice(("DE", "FR", "NL", "ES", "IT", "BE", "AT"))
        length = {"DE": 18, "FR": 23, "NL": 14, "ES": 20, "IT": 23, "BE": 12, "AT": 16}[country]
        body = "".join(self.rng.choice("0123456789") for _ in range(length))
        if country == "NL":
            body = "".join(self.rng.choice(_LETTERS) for _ in range(4)) + body[4:]
        if country == "IT":
            body = self.rng.choice(_LETTERS) + body[1:]
        numeric = "".join(str(int(c, 36)) for c in body + country + "00")
        iban = f"{country}{98 - int(numeric) % 97:02d}{body}"
        return " ".join(iban[i : i + 4] for i in range(0, len(iban), 4))

    def _card(self) -> str:
        digits = [4] + [self.rng.randint(0, 9) for _ in range(14)]
        total = 0
        for index, digit in enumerate(reversed(digits)):  # Luhn check digit
            doubled = digit * 2 if index % 2 == 0 else digit
            total += doubled - 9 if doubled > 9 else doubled
        digits.append((10 - total % 10) % 10)
        text = "".join(map(str, digits))
        return " ".join(text[i : i + 4] for i in range(0, 16, 4))

    def _ip(self) -> str:
        return ".".join(str(self.rng.randint(1, 254)) for _ in range(4))

    # Ordinary text.
    def _item(self) -> str:
        return self.rng.choice(tpl.ITEMS)

    def _item_tag(self) -> str:
        return self._item().replace(" ", "-")

    def _org(self) -> str:
        return self.rng.choice(tpl.ORGANISATIONS)

    def _job(self) -> str:
        return self.rng.choice(tpl.JOBS)

    def _relation(self) -> str:
        return self.rng.choice(tpl.RELATIONS)

    def _title(self) -> str:
        return self.rng.choice(tpl.TITLES)

    def _weekday(self) -> str:
        return self.rng.choice(tpl.WEEKDAYS)

    def _month(self) -> str:
        return self.rng.choice(tpl.MONTHS)

    def _month_lc(self) -> str:
        return self._month().lower()

    def _day(self) -> str:
        return str(self.rng.randint(4, 28))

    def _amount(self) -> str:
        return f"{self.rng.randint(20, 900)} {self.rng.choice(('EUR', 'GBP', 'USD', 'CHF'))}"


def fill(
    template: str, values: _Values, pii_slots: Mapping[str, str] = tpl.PII_SLOTS
) -> dict[str, Any]:
    """One sentence from `template`, with a gold span for every slot in `pii_slots`."""
    text, spans, position = "", [], 0
    for match in _SLOT.finditer(template):
        text += template[position : match.start()]
        slot = match.group(1)
        value = values.value(slot)
        label = pii_slots.get(slot)
        if label is not None:
            spans.append(
                {
                    "entity_type": label,
                    "entity_value": value,
                    "start_position": len(text),
                    "end_position": len(text) + len(value),
                }
            )
        text += value
        position = match.end()
    text += template[position:]
    return {"full_text": text, "spans": spans}


def providers(seed: int) -> dict[str, Any]:
    """Mimesis person and address providers for every locale, seeded."""
    from mimesis import Address, Person
    from mimesis.locales import Locale

    return {
        locale: (Person(Locale(locale), seed=seed + i), Address(Locale(locale), seed=seed + i))
        for i, locale in enumerate(sorted(set(LOCALES)))
    }


def generate(seed: int = DEFAULT_SEED, count: int = DEFAULT_COUNT) -> list[dict[str, Any]]:
    """`count` sentences, deterministic for a given seed and Mimesis version."""
    rng = random.Random(seed)
    made = providers(seed)
    items = []
    for number in range(count):
        index = number if number < len(tpl.TEMPLATES) else rng.randrange(len(tpl.TEMPLATES))
        locale = rng.choice(LOCALES)
        item = fill(tpl.TEMPLATES[index], _Values(made, locale, rng))
        item.update(template=index, locale=locale)
        items.append(item)
    return items


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: write the set as JSON."""
    return pii_set_command.main(
        argv,
        "benchmarks.pii_synth2",
        __doc__,
        generate,
        seed=DEFAULT_SEED,
        count=DEFAULT_COUNT,
        out=DEFAULT_OUT,
    )


if __name__ == "__main__":
    raise SystemExit(main())
