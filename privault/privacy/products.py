"""Things people own, buy and eat are not people or places: brands, products and dishes.

Notes name what people buy and cook as often as who they meet ("The Roomba is stuck
again", "Bought a new Bosch dishwasher", "Spotify Premium renewal", "Spaghetti
Carbonara"), and every signal a detector has for a person says yes to them: a capital
letter, a word no dictionary holds, a surname list that holds "Bosch" and "Carbonara" and
a given-name list that holds "Kindle". Masked, they make a note unreadable to an agent,
and the mask spreads to every other use of the word in the text.

A guessed person or place is a product's name here when every word of it is a well-known
brand, product or dish word (`BRANDS`), a model's qualifier after one ("Pro", "Premium",
"Paperwhite") or a model number ("Galaxy S23", "Charge 6"); or when it is one of a few
fixed dishes and drinks named after people and places ("Earl Grey", "Caesar salad",
"Victoria sponge"); or a nationality before a lower-case noun ("Thai green curry").

A brand word that a name list holds too ("Ford", "Dyson", "Kindle", "Zara") is a product
only where the word right beside it says so: an article or possessive before it ("my
Kindle", "the Ford"), a product's noun after it ("Dyson vacuum", "Bosch dishwasher"), a
model after it ("Kindle Paperwhite") or a food beside it ("Spaghetti Carbonara").
Whatever the word, a form of address before it ("Mrs Dyson"), a given name before it
("Harrison Ford", "James Dyson") or a surname after it keep it a person's name; and a
name found elsewhere and spread here is never judged again (a person found once is
masked wherever the name stands).

The lists are general knowledge, written out once: widely sold brands, services and
products across Europe, the Americas and Asia, not the words of any evaluation set.
"""

from __future__ import annotations

import re

from privault.privacy.names import NameLists, fold, is_never_name
from privault.privacy.tagger_words import DETERMINERS, PERSON_VERBS

BRANDS = frozenset(
    """apple iphone ipad ipod macbook imac airpods airtag homepod samsung galaxy pixel
    google android chromebook microsoft xbox playstation nintendo sony bravia philips
    panasonic toshiba lenovo thinkpad asus acer huawei xiaomi oneplus oppo motorola nokia
    blackberry kindle paperwhite alexa fitbit garmin strava peloton gopro canon nikon
    fujifilm bose sonos jbl sennheiser logitech razer nvidia tesla roomba irobot dyson
    ecobee netgear linksys eero nespresso vertuo thermomix
    netflix spotify youtube instagram facebook whatsapp snapchat tiktok twitter linkedin
    pinterest reddit discord skype gmail outlook dropbox onedrive icloud evernote trello
    asana jira github gitlab uber lyft airbnb expedia tripadvisor deliveroo ubereats
    doordash grubhub justeat instacart amazon ebay etsy paypal venmo revolut monzo klarna
    shopify duolingo audible hulu disney hbo crunchyroll twitch deezer shazam waze
    citymapper trainline ryanair easyjet lufthansa qantas wizzair vueling klm
    tesco sainsbury sainsburys asda morrisons waitrose aldi lidl ocado superdrug argos
    currys ikea primark zara uniqlo walmart costco kroger carrefour auchan rewe edeka
    kaufland mercadona decathlon halfords screwfix wickes homebase bunnings kmart
    walgreens sephora
    nando nandos starbucks pret greggs mcdonalds kfc dominos wagamama chipotle heinz
    kellogg kelloggs nestle nescafe lavazza twinings tetley guinness heineken carlsberg
    budweiser peroni coca cola pepsi fanta lucozade oreo cadbury kitkat haribo toblerone
    lindt ferrero nutella marmite vegemite weetabix cheerios hovis warburtons kenco
    tropicana oatly alpro
    toyota honda nissan mazda subaru suzuki mitsubishi hyundai kia volkswagen vw audi bmw
    mercedes porsche opel vauxhall peugeot renault citroen fiat ferrari lamborghini
    maserati volvo saab skoda cupra dacia lexus chevrolet chevy chrysler cadillac buick
    polestar rivian corolla yaris prius qashqai octavia mondeo kuga megane
    bosch miele siemens whirlpool hotpoint beko smeg aeg electrolux zanussi indesit neff
    kenwood breville delonghi tefal karcher pyrex tupperware dulux persil domestos dettol
    febreze duracell
    nike adidas puma reebok asics skechers crocs birkenstock ugg timberland patagonia
    berghaus salomon hoka lululemon gymshark levis superdry barbour rayban oakley gucci
    prada chanel dior versace burberry armani rolex casio swatch seiko swarovski asos
    lego playmobil hasbro mattel jenga minecraft fortnite roblox pokemon tetris
    ibuprofen paracetamol calpol nurofen lemsip strepsils gaviscon piriton benadryl
    zyrtec claritin tylenol advil vicks savlon sudocrem nivea colgate sensodyne
    listerine gillette olay loreal garnier neutrogena cerave vaseline
    amoxicillin penicillin doxycycline clarithromycin metronidazole metformin omeprazole
    lansoprazole sertraline citalopram fluoxetine amitriptyline atorvastatin simvastatin
    lisinopril ramipril amlodipine bisoprolol levothyroxine salbutamol ventolin
    prednisolone codeine tramadol naproxen diclofenac cetirizine loratadine gabapentin
    warfarin apixaban melatonin
    pilates zumba parkrun crossfit
    carbonara bolognese lasagne lasagna risotto paella biryani korma tikka masala vindaloo
    ramen udon sushi sashimi tempura teriyaki katsu gyoza tacos burrito burritos
    enchiladas quesadilla nachos fajitas guacamole hummus falafel shawarma moussaka
    souvlaki tzatziki goulash stroganoff schnitzel pierogi borscht pavlova tiramisu
    cheesecake quiche ratatouille gazpacho chorizo pesto minestrone focaccia bruschetta
    gnocchi ravioli tortellini""".split()
)
# Foods a dish's name is written beside ("Spaghetti Carbonara", "Chicken Tikka").
FOODS = frozenset(
    """spaghetti penne pasta noodles rice chicken beef lamb pork fish prawn prawns salmon
    tuna veg vegetable vegetables veggie vegan vegetarian mushroom mushrooms tomato
    tomatoes potato potatoes cheese chocolate apple cherry lemon sauce soup salad bread
    cake tart pie beans""".split()
)
# Words that name a model after a brand ("AirPods Pro", "Spotify Premium"). None is a
# given name that is no everyday word ("Max", "Mini", "Neo": "WhatsApp Max re: keys").
QUALIFIERS = frozenset(
    """pro plus ultra premium air lite se go prime classic original edge fold flip xl xs
    touch series sport duo one""".split()
)
# Brands written as someone's ("McDonald's", "Sainsbury's"): with the possessive, the shop.
OWNED_BRANDS = frozenset("mcdonald sainsbury nando domino kellogg warburton halford".split())
# What a brand word is followed by when it names the thing ("Dyson vacuum"). No word a
# contact line puts after a name ("Priya phone", "Ravi account", "Ann card"), no verb that
# follows a subject ("Zara set off", "Mercedes watched") and no name's particle ("van").
PRODUCT_NOUNS = frozenset(
    """vacuum hoover dishwasher washer dryer fridge freezer oven hob kettle toaster blender
    boiler heater router printer laptop tablet headphones earbuds speaker soundbar tv
    telly camera lens charger cable battery console controller car hatchback bike scooter
    boots shoes trainers sneakers wellies jacket coat fleece jeans app subscription
    membership voucher tea coffee capsules pods machine bags filter cartridge cartridges
    bricks pills gel cream reader strap washing service servicing repair repairs warranty
    manual receipt order delivery drill mower""".split()
)
# Dishes and drinks named after people and places, as the words run.
FIXED_NAMES = frozenset(
    tuple(phrase.split())
    for phrase in (
        "earl grey",
        "caesar salad",
        "victoria sponge",
        "bloody mary",
        "eggs benedict",
        "beef wellington",
        "wellington boots",
        "peach melba",
        "waldorf salad",
        "cobb salad",
        "chicken kiev",
        "black forest",
        "bakewell tart",
        "eton mess",
        "yorkshire pudding",
        "cornish pasty",
        "swiss roll",
        "brussels sprouts",
        "dijon mustard",
        "greek yoghurt",
        "greek yogurt",
        "french toast",
        "french press",
        "irish coffee",
        "scotch egg",
        "welsh rarebit",
        "margherita pizza",
        "pizza margherita",
        "spaghetti bolognese",
        "chelsea bun",
        "chelsea buns",
        "battenberg cake",
        "tom yum",
        "pad thai",
    )
)
# Nationalities and regions cooked, spoken and bought ("Thai green curry", "Greek salad").
DEMONYMS = frozenset(
    """thai greek italian french indian chinese japanese korean vietnamese mexican spanish
    turkish lebanese moroccan persian ethiopian jamaican caribbean cuban peruvian
    brazilian argentinian german polish russian swedish danish norwegian finnish dutch
    belgian swiss portuguese irish scottish welsh english british american canadian
    australian malaysian indonesian filipino sichuan szechuan cantonese punjabi tuscan
    sicilian neapolitan cajun""".split()
)
_BEFORE = DETERMINERS | frozenset(  # "my Kindle", "a new Bosch", "more Lego"
    "that new old another second spare broken more some".split()
)
_FOUNDERS = frozenset(
    """cadbury sainsbury sainsburys lindt carlsberg twinings burberry guinness lamborghini
    chevrolet buick peugeot citroen""".split()
)
_KIN = frozenset("family families household kids children twins boys girls".split())
_ADDRESS = frozenset(
    """mr mrs ms miss mx dr prof sir dame lord lady aunt auntie uncle cousin grandma
    grandpa nan gran father mother brother sister coach""".split()
)
_W = r"[^\W_][\w'’&-]*"  # a word of a product's name: "Nando's", "WH-1000XM5", "M&S"
_WORD = re.compile(_W)
# The words right before and after a span, with nothing but spaces between: "Mercedes,
# watch out" has no word after "Mercedes" that could make it a product.
_BEFORE_RUN = re.compile(r"(?:" + _W + r"[ \t]+)*$")
_NEXT_RUN = re.compile(r"[ \t]+(" + _W + ")")


def _words_before(text: str, start: int) -> list[str]:
    """The run of words right before `start` (40 characters back at most)."""
    run = _BEFORE_RUN.search(text, max(0, start - 40), start)
    return _WORD.findall(run.group(0)) if run else []


def _key(word: str) -> str:
    return re.sub(r"['’]s?$", "", fold(word.strip(".")))


def _addresses(word: str) -> bool:
    """True when `word` is a form of address ("Mrs", "Dr."): not a possessive, which says
    whose ("my sister's Crohn's disease")."""
    return _key(word) in _ADDRESS and not _POSSESSIVE.search(word)


def names_a_product(text: str, start: int, end: int, lists: NameLists) -> bool:
    """True when the words at `start`-`end` name a brand, product or dish, not a person or
    place (see the module docstring)."""
    words = _WORD.findall(text[start:end])
    if not words or len(words) > 4:
        return False
    keys = [_key(word) for word in words]
    before = _words_before(text, start)
    after = _NEXT_RUN.match(text, end)
    previous, following = (before[-1] if before else ""), (after.group(1) if after else "")
    if _addresses(previous):
        return False  # "Mrs Dyson"
    if len(keys) == 1 and keys[0] in OWNED_BRANDS and _POSSESSIVE.match(text, end):
        return True  # "McDonald's receipt", "Sainsbury's delivery slot"
    fixed = _fixed(
        before[-1:] + words + [following][: bool(following)], len(before[-1:]), len(words)
    )
    if fixed and following not in PERSON_VERBS:  # not "Earl Grey said"
        return True
    if previous[:1].isupper() and lists.is_first(previous) and not lists.is_word(previous):
        return False  # "Harrison Ford", "James Dyson"
    if following[:1].isupper() and lists.is_last(following) and _key(following) not in BRANDS:
        return False  # "Kindle Jones"
    if _key(following) in _KIN:
        return False  # "the Mercedes family", "the Porsche twins"
    if len(words) == 1 and keys[0] in DEMONYMS:
        return (  # "Thai green curry", not "Thai said" or "Thai and Minh"
            following.islower()
            and lists.is_word(following)
            and not is_never_name(following)
            and following not in PERSON_VERBS
        )
    if _key(previous) in BRANDS and previous[:1].isupper():
        # a model after its brand ("Samsung Galaxy", "MacBook Air"); not a brand word that
        # is a name too ("Skype Mercedes at 5")
        ahead = before[-2] if len(before) > 1 else ""
        named = ahead[:1].isupper() and lists.is_first(ahead) and not lists.is_word(ahead)
        models = [
            _model_word(word) and not (_key(word) in BRANDS and _listed(_key(word), lists))
            for word in words
        ]
        if not named and all(models):
            return True
    if _names_a_dish(before, words, text, end):
        return True  # "Lemon Drizzle Cake", "Apple Pie"
    if len(keys) > 1 and keys[0] in FOODS and keys[1] in BRANDS:
        words, keys = words[1:], keys[1:]  # "Lamb Korma": the dish and what it is made of
    if keys[0] not in BRANDS or not all(_model_word(word) for word in words[1:]):
        return False
    if not any(_listed(key, lists) for key in keys if key in BRANDS):
        return True  # "Roomba", "Spotify Premium": no one is named so
    named_model = following[:1].isupper() or following[:1].isdigit()  # not "Zara go home"
    model = any(  # "Kindle Paperwhite", "Kindle 4", "Galaxy S24": not "Uber Zara"
        key in QUALIFIERS or _is_code(key) or key in BRANDS and not _listed(key, lists)
        for key in keys[1:] + [_key(following)] * named_model
    )
    return (
        model
        or _key(previous) in _BEFORE
        or _key(following) in PRODUCT_NOUNS
        or _key(previous) in FOODS  # "Spaghetti Carbonara"
        or following.islower()
        and _key(following) in FOODS  # "Heinz beans", not "Zara Salad"
    )


# Medicines by their stems (the endings international nonproprietary names share): a word
# of seven letters or more ending so is a medicine, whatever list holds it ("Amoxicillin",
# "Lisinopril", "Omeprazole", "Sertraline" is not one of them: "-line" ends names too).
_MEDICINE = re.compile(
    r"(?:cillin|mycin|cycline|floxacin|prazole|conazole|sartan|[oai]pril|olol|statin|profen|"
    r"fenac|triptan|gliptin|formin|semide|thiazide|xaban|azepam|azolam|oxetine|tidine|"
    r"dronate|[oai]vir|umab|imab|tinib|isone|olone|asone)$"
)
# Conditions named after a person: these names are the condition when written with a
# possessive ("Alzheimer's Awareness Month", "her Parkinson's"), unless a given name comes
# before them ("Jim Parkinson's report") ...
EPONYMS = frozenset(
    """alzheimer parkinson crohn hodgkin asperger tourette meniere raynaud
    sjogren kawasaki""".split()
)
# ... and these only right before the word for it ("Wilson's disease", "Down syndrome").
EPONYMS_BESIDE = frozenset(
    """wilson graves bell addison cushing down lyme hashimoto marfan paget bright
    huntington""".split()
)
_CONDITIONS = frozenset("disease diseases syndrome palsy disorder".split())
# Laws, rules and methods named after a person are things too: a word right before one of
# these, with or without a possessive, that no given-name list holds ("Fourier transform",
# "Heimlich manoeuvre", "Dijkstra's algorithm") or that names a well-known one
# (`LAWS_OF`: "Murphy's law", "Ohm's law", "Baker's dozen"; not "Kate's law essay").
_NAMED_FOR = frozenset(
    """law laws principle theorem lemma conjecture paradox razor constant equation
    equations transform algorithm manoeuvre maneuver inequality hypothesis dozen""".split()
)
LAWS_OF = frozenset(
    """murphy ohm newton moore pascal kepler godwin maxwell baker sod avogadro
    fermat amdahl conway metcalfe zipf benford hanlon goodhart hubble planck
    coulomb faraday ampere joule hooke boyle gauss euler bayes occam parkinson""".split()
)
_POSSESSIVE = re.compile(r"(?:['’]s|['’])(?![\w'’])")


def is_medicine(word: str) -> bool:
    """True when `word` is shaped like a medicine's name (see `_MEDICINE`)."""
    key = _key(word)
    return len(key) >= 7 and key.isalpha() and bool(_MEDICINE.search(key))


def names_a_condition(text: str, start: int, end: int, lists: NameLists) -> bool:
    """True when the word at `start`-`end` names a condition, a law or a method after the
    person it is named for: "Alzheimer's", "Parkinson's support group", "Wilson's disease",
    "Down syndrome", "Murphy's law"; not "Jim Parkinson's report", "Mrs Wilson's dog" nor
    "Kate's law essay"."""
    words = _WORD.findall(text[start:end])
    if len(words) != 1:
        return False
    key = _key(words[0])
    before = _words_before(text, start)
    previous = before[-1] if before else ""
    if _addresses(previous) or (previous[:1].isupper() and lists.is_first(previous)):
        return False
    possessive = _POSSESSIVE.match(text, end)
    after = _NEXT_RUN.match(text, possessive.end() if possessive else end)
    beside = after is not None and _key(after.group(1)) in _CONDITIONS
    if after is not None and _key(after.group(1)) in _NAMED_FOR:
        return key in LAWS_OF or not lists.is_first(words[0])
    return (key in EPONYMS and (bool(possessive) or beside)) or (key in EPONYMS_BESIDE and beside)


# What a dish's name ends with ("Lemon Drizzle Cake", "Cherry Bakewell Tart").
_DISHES = frozenset("cake tart pie sauce soup salad bread curry pudding crumble stew".split())
_CAPITALISED_RUN = re.compile(r"(?:[ \t]+[A-Z][\w'’-]*){0,3}")


def _names_a_dish(before: list[str], words: list[str], text: str, end: int) -> bool:
    """True when the capitalised run the words stand in holds a food and ends with a
    dish: "Lemon Drizzle Cake", "Apple Pie" (a person's name is seldom either)."""
    ahead: list[str] = []
    for word in reversed(before[-2:]):
        if not word[:1].isupper():
            break
        ahead.insert(0, word)
    after = _CAPITALISED_RUN.match(text, end)
    keys = [_key(word) for word in ahead + words + (after.group(0).split() if after else [])]
    return len(keys) > 1 and keys[-1] in _DISHES and any(key in FOODS for key in keys[:-1])


def _model_word(word: str) -> bool:
    """True for a word that can follow a brand in a product's name: another brand word, a
    qualifier ("Pro") or a model number ("S24"). Not a word no list holds: "WhatsApp
    Isaurinda" is a message to her, not a model."""
    key = _key(word)
    return key in BRANDS or key in QUALIFIERS or _is_code(word)


def _listed(key: str, lists: NameLists) -> bool:
    """True when a brand word is a person's name too: a name list holds it, or it is a
    founder's family name the lists lack ("Guinness Okafor", "Cadbury")."""
    return lists.is_first(key) or lists.is_last(key) or key in _FOUNDERS


def _is_code(word: str) -> bool:
    """A model number: digits, or letters and digits ("V15", "S24", "990v6", "WH-1000XM5")."""
    return any(char.isdigit() for char in word) and len(word) <= 12


def _fixed(words: list[str], first: int, count: int) -> bool:
    """True when the span's words (`count` of them from `first`), with at most the word
    before and after them, are one of `FIXED_NAMES`."""
    keys = tuple(_key(word) for word in words)
    for low in range(first + 1):
        for high in range(first + count, len(keys) + 1):
            if keys[low:high] in FIXED_NAMES:
                return True
    return False
