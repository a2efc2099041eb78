"""Street addresses of many countries for the name tagger's training corpus.

A street is not always "12 Hayward Walk": German, Dutch, Nordic and Finnish streets join
the street word to the name ("Lindenstraße", "Kastanjelaan", "Sjövägen", "Koivutie"),
Hungarian and Turkish ones put it after ("Petőfi utca", "Atatürk Caddesi"), Romance and
Slavic ones before ("rue des Lilas", "ul. Polna"), German ones sometimes have none at all
("Am Lindenhof 4"), and Czech, Nordic and Hungarian ones are often a name and a number, or
a name alone in a sentence ("lives on Szilvádihegy"). The shapes below are drawn from how
these countries write addresses, not from any evaluation set; the names in them come from
the tagger's own lists and inventions (`privault.privacy.tagger_words.Draw`).
"""

from __future__ import annotations

from privault.privacy.tagger_words import Draw

# Street words written after the name, as a separate word.
AFTER = """Street St Road Rd Lane Ln Avenue Ave Way Close Drive Dr Court Ct Place Crescent
    Grove Terrace Row Walk Hill Gardens Square Parade Mews Boulevard Blvd Highway Hwy Pike
    utca út tér köz sor körút fasor Sokak Sokağı Caddesi Cad. Sk. Bulvarı ulitsa prospekt
    Marg Nagar Salai Gali""".split()
# Street words joined to the end of the name.
JOINED = """straße strasse str. weg gasse allee platz ring damm ufer steig pfad hof laan straat
    gracht kade plein singel dijk dreef vägen gatan gränd stigen gade vej allé stræde veien
    gata tie katu kuja polku hegy utca""".split()
# Street words written before the name (with an article some of the time).
BEFORE = """rue avenue boulevard chemin impasse allée place quai route Rue Avenue Boulevard
    Chemin Impasse Allée Place Quai via viale piazza corso vicolo largo strada Via Viale
    Piazza Corso Vicolo Largo calle avenida plaza paseo camino carrer passeig Calle Avenida
    Plaza Paseo Camino Carrer Passeig C/ Av. rua travessa praça Rua Travessa Praça ul.
    ulica al. aleja plac Ulica Aleja Plac Jalan Jl. Soi""".split()
ARTICLES = ("", "", "", "de ", "des ", "du ", "de la ", "del ", "della ", "di ", "do ", "da ",
            "dos ", "San ", "Santa ")  # fmt: skip
# German streets named without a street word ("Am Lindenhof", "An der Mühle").
PREPOSITIONS = ("Am", "Im", "An der", "Auf der", "Zum", "Zur", "Hinter der", "In den", "Op de")


def _number(draw: Draw) -> str:
    rng = draw.rng
    number = str(rng.randint(1, 250) if rng.random() < 0.9 else rng.randint(251, 9999))
    pick = rng.random()
    if pick < 0.1:
        return number + rng.choice("abcdAB")
    if pick < 0.15:
        return f"{number}/{rng.randint(1, 40)}"
    if pick < 0.2:
        return f"{number}-{int(number) + rng.randint(1, 6)}"
    if pick < 0.24:
        return rng.choice(("No. ", "nr ", "Nr. ", "n. ", "nº ")) + number
    return number


def _name(draw: Draw) -> str:
    """A street's name: a surname, a given name, a place, a word or an invented name."""
    rng = draw.rng
    pick = rng.random()
    if pick < 0.25:
        name = draw.surname()
    elif pick < 0.35:
        name = draw.given()
    elif pick < 0.45:
        name = f"{draw.given().capitalize()} {draw.surname().capitalize()}"
    elif pick < 0.55:
        name = draw.place()
    elif pick < 0.75:
        name = draw.word()
    else:
        name = draw.invent()
    return " ".join(part[:1].upper() + part[1:] for part in name.split(" "))


def street(draw: Draw) -> str:
    """One street, with or without a number, in one of many countries' shapes."""
    rng = draw.rng
    name = _name(draw)
    number = _number(draw)
    shape = rng.random()
    if shape < 0.22:
        value = f"{number} {name} {rng.choice(AFTER)}"
    elif shape < 0.3:
        value = f"{name} {rng.choice(AFTER)} {number}"
    elif shape < 0.45:
        value = f"{name.replace(' ', '-')}{rng.choice(JOINED)} {number}"
    elif shape < 0.52:
        value = f"{name.replace(' ', '-')}{rng.choice(JOINED)}"
    elif shape < 0.64:
        value = f"{rng.choice(BEFORE)} {rng.choice(ARTICLES)}{name} {number}"
    elif shape < 0.7:
        value = f"{number} {rng.choice(BEFORE)} {rng.choice(ARTICLES)}{name}"
    elif shape < 0.74:
        value = f"{rng.choice(BEFORE)} {rng.choice(ARTICLES)}{name}"
    elif shape < 0.82:
        value = f"{rng.choice(PREPOSITIONS)} {name} {number}"
    elif shape < 0.93:
        value = f"{name} {number}"  # no street word: Czech, Nordic, Hungarian rows
    else:
        value = name  # a street named alone ("lives on Szilvádihegy")
    style = rng.random()
    return value.lower() if style < 0.12 else value.upper() if style < 0.15 else value


def postcode(draw: Draw) -> str:
    """A postal code in one of several countries' shapes."""
    rng = draw.rng
    letters = "ABCDEFGHJKLMNPRSTUVWXY"
    pick = rng.random()
    if pick < 0.4:
        return str(rng.randint(10000, 99999))
    if pick < 0.6:
        return str(rng.randint(1000, 9999))
    if pick < 0.7:
        return f"{rng.randint(10, 99)}-{rng.randint(100, 999)}"
    if pick < 0.8:
        return f"{rng.randint(100, 999)} {rng.randint(10, 99)}"
    if pick < 0.9:
        return f"{rng.choice(letters)}{rng.choice(letters)}{rng.randint(1, 20)} {rng.randint(1, 9)}{rng.choice(letters)}{rng.choice(letters)}"  # noqa: E501
    return f"{rng.randint(1000, 9999)} {rng.choice(letters)}{rng.choice(letters)}"
