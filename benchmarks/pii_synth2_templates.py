"""Templates of the second own evaluation set (see `benchmarks.pii_synth2`).

Written apart from `benchmarks.pii_templates` and in other shapes: chat logs, message
headers and signatures, to-do and shopping lists, calendar lines, contact rows, journal
entries, casual lower-case texting, names written as tags and handles. Slots named in
`PII_SLOTS` become gold spans; the others are ordinary text that must stay readable.
"""

from __future__ import annotations

TEMPLATES: tuple[str, ...] = (
    # Chat logs and texting
    "[09:14] {first_lc}: running late, tell {first2_lc} to start without me",
    "[21:02] {name}: the spare key is under the blue pot\n[21:03] me: thanks!",
    "{first_lc}: can u send me {first2_lc}s number\nme: {phone}",
    "ok so {name_lc} is coming at 7 and bringing the salad",
    "lol {first_lc} forgot the tickets again, we're stuck in {city}",
    'msg from {first}: "landed in {city}, call me on {phone}"',
    "> {name} wrote:\n> can we move the call to {weekday}?",
    "@{handle} thanks for the photos from {city}!",
    "just saw {name_lc} at the market, she says hi",
    "WhatsApp {first} re: {item} - {phone}",
    # Calls, visits, people in the middle of a line
    "Call {name} on {phone} about the {item}.",
    "Call {first} back tomorrow morning.",
    "Lunch with {name} at {org} on {weekday}.",
    "Went for a walk with {first} along the river in {city}.",
    "Ring {title} {last} ({phone}) - results of the {item} are in.",
    "{name} and {name2} are hosting this year; their place is {street}, {city}.",
    "Dinner at {first}'s: {street}, ring twice.",
    "Handed the {item} over to {name}, who signed for it.",
    "Need to thank {first} and {first2} for helping with the move to {city}.",
    "Quote from {name} ({org}): {amount} for the {item}, valid until {month}.",
    "Kids' pickup rota: Mon {first}, Wed {first2}, Fri me.",
    "Interview with {name} went well; reference from {name2}, {email}.",
    "Borrowed {amount} from {first}, pay back by the {day}th.",
    "Sent flowers to {name}, {address_line}.",
    "{name} is the new contact for the {item} at {org}.",
    "According to {name}, the {item} was fixed on {weekday}.",
    "Notes from the parents' evening: {title} {last} says {first} reads well.",
    # Message headers, forwards, signatures
    "From: {email}\nSent: {weekday}\nTo: {name}\nSubject: {item} quote",
    "-----Original Message-----\nFrom: {name} [mailto:{email}]\nSubject: RE: {item}",
    "Thanks again,\n\n{name}\n{job}, {org}\nMobile {phone}",
    "Cheers\n{first}\n\nSent from my phone",
    "--\n{NAME_UC}\n{street}\n{city}\nTel. {phone}",
    "Kind regards / Mit freundlichen Grüßen\n{name}\n{email}",
    "On {weekday}, {name} <{email}> wrote:\n> see you at {street}",
    # Lists
    "- [ ] pay {first} back\n- [ ] renew {item}\n- [x] email {email}",
    "TODO\n* book vet\n* ask {name} about the {item}\n* {item2} for {first}",
    "Shopping for {first}'s party: candles, {item}, balloons",
    "1. Collect the {item} from {name}\n2. Drop it at {street}",
    "Guests: {name}, {name2}, {first} (+1)",
    # Calendar lines and contact rows
    "{weekday} 10:00 - {item} with {name} @ {street}, {city}",
    "Mon 3pm: {title} {last}, {org}, room 2",
    "{name}; {phone}; {email}",
    "{name_lc}, {street_lc}, {city_lc}",
    "Name: {name}\nPhone: {phone}\nAddress: {address}",
    "Emergency contact - {name} ({relation}), {phone}",
    "card on file {card}, exp 09/29, name on card {NAME_UC}",
    "Refund goes to {iban} (account holder {name}).",
    "The NAS is at {ip}, {first}'s laptop at {ip2}.",
    # Journal entries and narrative
    "Today {first} finally told me about the job in {city}. I'm happy for her.",
    "Saw {name} again after years - still lives on {street_only} in {city}.",
    "Drove {first} to the airport; her flight to {city} was delayed two hours.",
    "{first} thinks we should rent the cottage near {city} again in {month}.",
    "Long chat with {relation} {first} about moving back to {country}.",
    "The letter from {name} arrived today, postmarked {city}.",
    "Met the new neighbours, {name} and her son {first}; they came from {country}.",
    "My {relation} {name} turns 70 in {month}; party at {street}.",
    # Names as tags, handles and file names
    "Tags: #{tag_name} #{item_tag} #{month_lc}",
    "Filed under {tag_name}/{item_tag}",
    "photos_{tag_name_us}_{city_lc}.zip",
    "see note [[{name}]] and [[{item}]]",
)

# Slot -> gold label, in the dev set's labels.
PII_SLOTS = {
    "name": "PERSON",
    "name2": "PERSON",
    "name_lc": "PERSON",
    "NAME_UC": "PERSON",
    "first": "PERSON",
    "first2": "PERSON",
    "first_lc": "PERSON",
    "first2_lc": "PERSON",
    "last": "PERSON",
    "handle": "PERSON",
    "tag_name": "PERSON",
    "tag_name_us": "PERSON",
    "street": "STREET_ADDRESS",
    "street_lc": "STREET_ADDRESS",
    "street_only": "STREET_ADDRESS",
    "address": "STREET_ADDRESS",
    "address_line": "STREET_ADDRESS",
    "city": "GPE",
    "city_lc": "GPE",
    "country": "GPE",
    "phone": "PHONE_NUMBER",
    "email": "EMAIL_ADDRESS",
    "iban": "IBAN_CODE",
    "card": "CREDIT_CARD",
    "ip": "IP_ADDRESS",
    "ip2": "IP_ADDRESS",
}

ITEMS = (
    "boiler", "fence", "roof tiles", "insurance form", "passport renewal", "bike", "piano",
    "sofa", "tax return", "school forms", "car seat", "wedding cake", "garden shed",
    "dishwasher", "scan results", "birthday present", "lease", "tickets", "keys", "laptop",
    "printer", "gutter", "quote", "lawnmower", "paint samples", "blood test", "contract",
    "chimney", "curtains", "lamp",
)  # fmt: skip
ORGANISATIONS = (
    "the Crown and Anchor", "Riverside Dental", "Greenleaf Bakery", "Harbour Motors",
    "the Old Mill", "Northgate Pharmacy", "BrightSpark Electrics", "Maple Lettings",
    "the town library", "Cedar Physio", "Blue Door Cafe", "Summit Accountants",
)  # fmt: skip
JOBS = (
    "Project Manager", "Office Administrator", "Senior Engineer", "Head of Sales",
    "Practice Nurse", "Site Supervisor", "Bookkeeper", "Data Analyst",
)  # fmt: skip
RELATIONS = ("sister", "brother", "aunt", "uncle", "cousin", "mum", "dad", "godmother")
TITLES = ("Dr", "Dr.", "Mr", "Mrs", "Ms", "Prof.")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August",
    "September", "October", "November", "December",
)  # fmt: skip
