"""Generate privault's own synthetic PII evaluation set, with gold spans.

    python -m benchmarks.pii_synth [--seed 20260611] [--count 1200] [--out PATH]

The committed set (`benchmarks/pii_synth_v1.json`) was generated once with the defaults
and frozen before any detector tuning; it is the check that tuning on the dev set did not
just fit the dev set's phrasing. Values come from Faker in many locales (names, streets,
postcodes, phone formats and IBANs of each country), the sentences from
`benchmarks.pii_templates`. The output has the dev set's format: a JSON list of
{full_text, spans: [{entity_type, entity_value, start_position, end_position}]}, plus the
template index and locale of each sentence.

Regenerating with the same seed and the same Faker version gives the same file on any day
(dates are drawn around `FROZEN_ON`), but for the 3 sentences that draw from Faker's Italian
city list, which Faker builds from a set: their towns follow `PYTHONHASHSEED`.
"""

from __future__ import annotations

import random
import re
import unicodedata
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from benchmarks import pii_set_command
from benchmarks import pii_templates as tpl

DEFAULT_SEED = 20260611
DEFAULT_COUNT = 1200
DEFAULT_OUT = Path(__file__).with_name("pii_synth_v1.json")
FAKER_VERSION = "40.54.0"  # the version the committed file was generated with
# Dates are drawn around the day the committed file was generated, not around today, so
# that the file can be made again on any day.
FROZEN_ON = date(2026, 12, 1)

# Latin-script locales, weighted towards the ones notes are most often written about.
LOCALES = (
    "en_US", "en_US", "en_GB", "en_GB", "en_IE", "en_AU", "en_CA", "en_IN", "de_DE", "de_AT",
    "de_CH", "fr_FR", "fr_CA", "it_IT", "es_ES", "es_MX", "pt_PT", "pt_BR", "nl_NL", "nl_BE",
    "pl_PL", "cs_CZ", "sv_SE", "da_DK", "no_NO", "fi_FI", "hu_HU", "ro_RO", "hr_HR", "tr_TR",
)  # fmt: skip
_SLOT = re.compile(r"\{(\w+)\}")


def _ascii(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(char for char in decomposed if char.isascii() and char.isalnum()).lower()


class _Values:
    """Fills the slots of one sentence from one locale (and a few from en_US)."""

    def __init__(self, fakers: dict[str, Any], locale: str, rng: random.Random) -> None:
        self.fake = fakers[locale]
        self.us = fakers["en_US"]
        self.rng = rng
        self.last_name = ""

    def value(self, slot: str) -> str:
        """The text for `slot` (numbered slots such as `name2` draw a fresh value)."""
        base = slot.rstrip("0123456789")
        return getattr(self, "_" + base)()

    def _person(self) -> str:
        fake, rng = self.fake, self.rng
        first, last = fake.first_name(), fake.last_name()
        shape = rng.random()
        if shape < 0.12:
            return f"{first} {rng.choice('ABCDEFGHJKLMNPRSTW')}. {last}"
        if shape < 0.2:
            return f"{first} {fake.first_name()} {last}"
        return f"{first} {last}"

    def _name(self) -> str:
        self.last_name = self._person()
        return self.last_name

    def _name_lc(self) -> str:
        return self._name().lower()

    def _first(self) -> str:
        return str(self.fake.first_name())

    def _first_lc(self) -> str:
        return self._first().lower()

    def _first_of_name(self) -> str:
        return self.last_name.split()[0] if self.last_name else self._first()

    def _last(self) -> str:
        return str(self.fake.last_name())

    def _street(self) -> str:
        return " ".join(str(self.fake.street_address()).split())

    def _address(self) -> str:
        lines = [" ".join(line.split()) for line in str(self.fake.address()).splitlines()]
        return "\n".join(line for line in lines if line)

    def _address_line(self) -> str:
        return self._address().replace("\n", ", ")

    def _city(self) -> str:
        return str(self.fake.city())

    def _country(self) -> str:
        return str(self.us.country())

    def _phone(self) -> str:
        return str(self.fake.phone_number())

    def _email(self) -> str:
        pick = self.rng.random()
        if pick < 0.4:
            return str(self.fake.free_email())
        if pick < 0.7:
            return str(self.fake.company_email())
        return str(self.fake.email())

    def _email_internal(self) -> str:
        user = self.fake.user_name() if self.rng.random() < 0.5 else self._dotted_name()
        return f"{user}@{self.rng.choice(tpl.INTERNAL_DOMAINS)}"

    def _dotted_name(self) -> str:
        parts = self._person().replace(".", "").split()
        return ".".join(_ascii(part) for part in parts)

    def _iban(self) -> str:
        value = str(self.fake.iban())
        if self.rng.random() < 0.5:  # printed in groups of four, as on a statement
            value = " ".join(value[i : i + 4] for i in range(0, len(value), 4))
        return value

    def _card(self) -> str:
        return str(self.us.credit_card_number())

    def _ssn(self) -> str:
        return str(self.us.ssn())

    def _ip(self) -> str:
        return str(self.us.ipv4_private() if self.rng.random() < 0.5 else self.us.ipv4())

    def _ipv_six(self) -> str:
        return str(self.us.ipv6())

    def _dl(self) -> str:
        rng = self.rng
        digits = "".join(rng.choice("0123456789") for _ in range(12))
        return rng.choice(
            (
                rng.choice("ABCDEFGHJKLMNPRSTWY") + digits[:7],  # CA, e.g. D1234567
                f"{digits[:3]} {digits[3:6]} {digits[6:9]}",  # NY
                digits[:8],  # TX
                rng.choice("ABCDEFGHJKLMNPRSTWY") + digits[:12],  # FL, IL
                "WDL" + "".join(rng.choice("ABCDEFGHJKLMNPRSTWXYZ0123456789") for _ in range(9)),
            )
        )

    # Ordinary text.
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

    def _day(self) -> str:
        return str(self.rng.randint(4, 28))

    def _date(self) -> str:
        day = self.us.date_between(FROZEN_ON - timedelta(days=731), FROZEN_ON + timedelta(days=365))
        return str(day.strftime(self.rng.choice(("%d %B %Y", "%Y-%m-%d", "%B %d", "%d/%m/%Y"))))

    def _time(self) -> str:
        return f"{self.rng.randint(7, 20):02d}:{self.rng.choice(('00', '15', '30', '45'))}"

    def _amount(self) -> str:
        return f"{self.rng.choice('£$€')}{self.rng.randint(20, 4000)}.{self.rng.randint(0, 99):02d}"

    def _ref(self) -> str:
        prefix = self.rng.choice(("INV", "ORD", "REF", "CL", "BK"))
        return f"{prefix}-{self.rng.randint(2019, 2027)}-{self.rng.randint(100, 99999):05d}"

    def _state(self) -> str:
        return self.rng.choice(tpl.US_STATES)


def fill(template: str, values: _Values) -> dict[str, Any]:
    """One sentence from `template`, with a gold span for every PII slot."""
    text, spans, position = "", [], 0
    for match in _SLOT.finditer(template):
        text += template[position : match.start()]
        slot = match.group(1)
        value = values.value(slot)
        label = tpl.PII_SLOTS.get(slot)
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


def generate(seed: int = DEFAULT_SEED, count: int = DEFAULT_COUNT) -> list[dict[str, Any]]:
    """`count` sentences, deterministic for a given seed and Faker version."""
    from faker import Faker

    rng = random.Random(seed)
    fakers: dict[str, Any] = {}
    for index, locale in enumerate(sorted(set(LOCALES))):
        fakers[locale] = Faker(locale)
        fakers[locale].seed_instance(seed + index)
    items = []
    for number in range(count):
        index = number % len(tpl.TEMPLATES) if number < len(tpl.TEMPLATES) else None
        if index is None:
            index = rng.randrange(len(tpl.TEMPLATES))
        locale = rng.choice(LOCALES)
        item = fill(tpl.TEMPLATES[index], _Values(fakers, locale, rng))
        item.update(template=index, locale=locale)
        items.append(item)
    return items


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: write the set as JSON."""
    return pii_set_command.main(
        argv,
        "benchmarks.pii_synth",
        __doc__,
        generate,
        seed=DEFAULT_SEED,
        count=DEFAULT_COUNT,
        out=DEFAULT_OUT,
    )


if __name__ == "__main__":
    raise SystemExit(main())
