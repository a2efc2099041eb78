"""Values and frames of ordinary text for the name tagger's training corpus
(`privault.privacy.tagger_corpus`): titles, headings, sentences and labels with no name in
them, or a name in an everyday sentence. The frames with people and places subclass
`Frames`."""

from __future__ import annotations

from privault.privacy import tagger_streets as streets
from privault.privacy import tagger_words as lexis

# A text: (piece, label) pairs, label "O" for ordinary text.
Example = list[tuple[str, str]]


def case(value: str, style: str) -> str:
    if style == "lower":
        return value.lower()
    if style == "upper":
        return value.upper()
    return " ".join(part[:1].upper() + part[1:] for part in value.split(" "))


class Frames:
    """Each method returns one example; `corpus` picks among them."""

    def __init__(self, draw: lexis.Draw) -> None:
        self.d = draw
        self.rng = draw.rng

    # Values -------------------------------------------------------------------
    def person(self, style: str | None = None) -> str:
        rng, d = self.rng, self.d
        style = style or rng.choices(("title", "lower", "upper"), (0.78, 0.18, 0.04))[0]
        shape = rng.random()
        if shape < 0.3:
            value = d.given()
        elif shape < 0.4:
            value = f"{d.given()} {rng.choice('ABCDEFGHJKLMNPRSTW')}. {d.surname()}"
        elif shape < 0.47:
            value = f"{d.given()} {d.given()} {d.surname()}"
        else:
            value = f"{d.given()} {d.surname()}"
        return case(value, style)

    def place(self) -> str:
        return case(self.d.place(), "lower" if self.rng.random() < 0.15 else "title")

    def street(self) -> str:
        return streets.street(self.d)

    def ordinary(self, count: int = 1, capital: bool = False) -> str:
        words = [self.d.word() for _ in range(count)]
        if capital:
            words[0] = words[0].capitalize()
        return " ".join(words)

    def phone(self) -> str:
        rng = self.rng
        return f"+{rng.randint(1, 49)} {rng.randint(100, 999)} {rng.randint(1000, 9999)}"

    def tail(self) -> Example:
        rng = self.rng
        pick = rng.random()
        if pick < 0.3:
            return [(f" about the {self.ordinary()}", "O")]
        if pick < 0.45:
            return [(f" on {rng.choice(lexis.WEEKDAYS)}", "O")]
        if pick < 0.6:
            return [(f" on {self.phone()}", "O")]
        if pick < 0.75:
            return [(f" {self.ordinary(rng.randint(1, 4))}", "O")]
        return [(rng.choice((".", "!", "", "?", " tomorrow", " later")), "O")]

    # Ordinary text -------------------------------------------------------------
    def title_plain(self) -> Example:
        rng = self.rng
        pick = rng.random()
        pick_word = rng.random()
        if pick_word < 0.2:
            word = self.d.rng.choice(self.d.first_words).capitalize()
        elif pick_word < 0.3:  # a surname or a place that is also a word: "Fisher", "Reading"
            word = self.d.rng.choice(
                self.d.surname_words if rng.random() < 0.7 else self.d.place_words
            ).capitalize()
        elif pick_word < 0.42:
            word = self.d.unknown_word().capitalize()
        else:
            word = self.ordinary(1, capital=True)
        if pick < 0.2:
            return [(word, "O")]
        if pick < 0.4:
            return [(f"{word} {self.ordinary()}", "O")]
        if pick < 0.5:  # "Kettle - descaling", "Boiler, service, parts", "Roof (leak)"
            sep = rng.choice((" - ", ", ", " (", " / "))  # not ": ", a chat line's
            rest = ", ".join(self.ordinary(rng.randint(1, 2)) for _ in range(rng.randint(1, 3)))
            return [(f"{word}{sep}{rest}{')' if sep == ' (' else ''}", "O")]
        if pick < 0.6:
            return [(f"{word} on {rng.choice(lexis.WEEKDAYS)}", "O")]
        if pick < 0.7:
            return [(f"{word} {rng.randint(2, 900)} {rng.choice(lexis.UNITS)}", "O")]
        if pick < 0.8:
            return [(f"{rng.choice(('#', '##', '-', '*'))} {word} {self.ordinary()}", "O")]
        if pick < 0.9:
            return [(f"#{self.d.word()}-{self.d.word()}", "O")]
        return [(f"{word} {rng.choice(lexis.ORG_WORDS)}", "O")]

    def natural(self) -> Example:
        """A sentence of everyday English, sometimes with a person or place in it."""
        rng = self.rng

        def fill(pattern: str) -> str:
            return pattern.format(
                n=rng.choice(lexis.NOUNS),
                v=rng.choice(lexis.VERBS),
                a=rng.choice(lexis.ADJECTIVES),
                d=rng.choice(lexis.WEEKDAYS),
            )

        def inflect(verb: str) -> str:
            ending = rng.choice(("", "", "s", "ed", "ing"))
            return (verb[:-1] if verb.endswith("e") and ending in ("ed", "ing") else verb) + ending

        if rng.random() < 0.25:
            out: Example = [(fill(rng.choice(lexis.QUESTIONS)), "O")]
        else:
            out = []
            if rng.random() < 0.25:
                out.append((self.person(), "PER"))
            else:
                out.append((fill(rng.choice(lexis.SUBJECTS)), "O"))
            aux = rng.choice(lexis.AUXILIARIES)
            verb = inflect(rng.choice(lexis.VERBS)) if not aux else rng.choice(lexis.VERBS)
            out.append(
                ((" " + aux if aux and not aux.startswith("'") else aux) + " " + verb + " ", "O")
            )
            if rng.random() < 0.2:
                out.append((self.person(), "PER"))
            else:
                out.append((fill(rng.choice(lexis.OBJECTS)), "O"))
            pick = rng.random()
            if pick < 0.2:
                out += [(f" {rng.choice(lexis.PLACE_PREPS)} ", "O"), (self.place(), "LOC")]
            elif pick < 0.32:  # "in an hour", "to town", "at the door"
                det = rng.choice(("the ", "a ", "an ", "my ", "this ", "", "our "))
                out.append(
                    (
                        f" {rng.choice(lexis.PLACE_PREPS)} {det}"
                        + rng.choice(lexis.NOUNS + lexis.COMMON_PLACES),
                        "O",
                    )
                )
            elif pick < 0.4:
                out.append(
                    (f" {rng.choice(lexis.PREPOSITIONS)} the {rng.choice(lexis.NOUNS)}", "O")
                )
            elif pick < 0.5:
                out.append((f" on {rng.choice(lexis.WEEKDAYS)}", "O"))
            out.append((rng.choice((".", "", "!", " lol", " tomorrow.")), "O"))
        style = rng.random()
        if style < 0.15:
            out = [(piece.lower(), label) for piece, label in out]
        elif style < 0.18:
            out = [(piece.upper(), label) for piece, label in out]
        elif out[0][1] == "O":
            out[0] = (out[0][0][:1].upper() + out[0][0][1:], "O")
        return out

    def heading(self) -> Example:
        """A heading in title case or capitals: every word capitalised, none a name."""
        rng = self.rng
        words = [self.d.rng.choice(self.d.common) for _ in range(rng.randint(2, 6))]
        small = {"of", "the", "and", "a", "to", "in", "for", "on", "with", "you're"}
        words = [
            w if (i and w in small and rng.random() < 0.5) else w.capitalize()
            for i, w in enumerate(words)
        ]
        if rng.random() < 0.3:
            words.insert(
                rng.randrange(len(words)), rng.choice(("Of", "The", "And", "For", "Your", "My"))
            )
        if rng.random() < 0.15:
            words.insert(
                0, "".join(rng.choice("ABCDEFGHIJKLMNOPRSTUVW") for _ in range(rng.randint(2, 4)))
            )
        text = " ".join(words)
        return [(text.upper() if rng.random() < 0.1 else text, "O")]

    def proper_things(self) -> Example:
        """A sentence naming things with capitals (a band, a film, a language, a company,
        a title): capitalised words in mid-sentence that are not people or places."""
        rng, d = self.rng, self.d
        things = [
            w.capitalize() for w in (d.rng.choice(d.common) for _ in range(rng.randint(1, 3)))
        ]
        pick = rng.random()
        if pick < 0.3:
            thing = (
                " ".join(things)
                + " "
                + rng.choice(
                    lexis.ORG_WORDS
                    + ["Orchestra", "University", "Union", "Club", "TV", "Band", "Records"]
                )
            )
        elif pick < 0.5:
            thing = "the " + " ".join(things)
        elif pick < 0.65:
            thing = rng.choice(lexis.LANGUAGES)
        else:
            thing = " ".join(things)
        lead = lexis.fill_natural_lead(rng)
        day = " on " + rng.choice(lexis.WEEKDAYS)
        return [
            (
                f"{lead} {thing}{rng.choice(('.', '', ' again', ' last year', day))}",
                "O",
            )
        ]

    def label(self) -> Example:
        """A field label and its value, or a label alone: labels are not names."""
        rng = self.rng
        label = rng.choice(lexis.FIELD_LABELS)
        label = label.upper() if rng.random() < 0.15 else label
        pick = rng.random()
        if pick < 0.3:
            value = f"+{rng.randint(1, 49)} {rng.randint(10, 999)} {rng.randint(100000, 9999999)}"
        elif pick < 0.5:
            value = f"{self.d.word()}@{self.d.word()}.com"
        elif pick < 0.7:
            return [(f"{label}: ", "O"), (self.person(), "PER")]
        else:
            value = f"{rng.choice(('see', 'ask', 'none', 'n/a', 'TBC', 'pending'))}"
        return [(f"{label}{rng.choice((': ', ' - ', ' '))}{value}", "O")]

    def sentence_plain(self) -> Example:
        rng = self.rng
        text = self.ordinary(rng.randint(3, 9), capital=rng.random() < 0.8)
        if rng.random() < 0.3:
            text += (
                f" on {rng.choice(lexis.WEEKDAYS)} {rng.randint(1, 28)} {rng.choice(lexis.MONTHS)}"
            )
        return [(text + rng.choice((".", "", "!")), "O")]
