"""Templates for the synthetic PII evaluation set (see `benchmarks.pii_synth`).

Written from scratch for privault's kind of text (notes, emails, chat lines, invoices,
contact cards, address blocks) and never tuned against the dev set. A `{slot}` is filled by
the generator; slots named in `PII_SLOTS` become gold spans, the others are ordinary text
that must stay readable (organisations, dates, amounts, reference numbers, headings).
"""

from __future__ import annotations

TEMPLATES: tuple[str, ...] = (
    # Notes
    "Called {name} about the boiler service, they will come on {weekday} at {time}.",
    "Met {first} for coffee near the station; she is moving to {city} in {month}.",
    "Landlord: {name}, {phone}. Rent of {amount} due on the {day}th.",
    "Note to self: send the signed lease back to {name} at {email} before {date}.",
    "{name} ({email}) wants the draft by Friday. Ref {ref}.",
    "Dentist appointment moved, the clinic is now at {address_line}.",
    "Plumber recommended by {first}: {name}, call {phone} after 6pm.",
    "Picked up the parcel for {name} from the depot in {city}.",
    "Insurance claim {ref}: the assessor {name} will visit {street} next week.",
    "Ask {first} whether the {org} invoice was paid from the joint account {iban}.",
    "Flight to {city} on {date}; hotel booking under {name}, confirmation {ref}.",
    "General: the boiler pressure dropped again, {first} thinks the valve is stuck.",
    "Reminder - renew the parking permit, registered to {name}, {street}.",
    "The new babysitter is {name}, her number is {phone}.",
    "{first} said the school trip to {country} costs {amount} per child.",
    "Spoke with {title} {last} at {org}; follow up by email.",
    "Moved my savings: old account {iban}, new card ends with the one on file.",
    "Car service at {org}, booked under {name}, phone {phone}.",
    "Package should go to {address_line} - leave it with the neighbour if nobody answers.",
    "Grandma's new address is {address_line}. Her landline is {phone}.",
    "Weekend in {city} with {first} and {first2}, leaving {weekday} morning.",
    "Vet: {title} {last}, {phone}. Next vaccination due in {month}.",
    "Tax adviser {name} asked for my SSN again ({ssn}); send it by post, not email.",
    "Router at home has the fixed address {ip}; the printer is on {ip2}.",
    "The VPN gateway moved to {ipv_six} after the upgrade.",
    "Driver's license {dl} expires in {month}; renewal form is in the drawer.",
    "Paid the deposit with card {card} on {date}.",
    "{name} lives at {address_line} and works for {org}.",
    "Boiler: serviced {date} by {org}. Landlord informed.",
    "Took the train from {city} to {city2}, {first} met me at the platform.",
    # Emails
    "Hi {first},\n\nThanks for the quick reply. Could you send the contract to {email}?\n\n"
    "Best,\n{name}",
    "Dear {title} {last},\n\nPlease find attached the invoice {ref} for {amount}. Payment to "
    "{iban} within 14 days.\n\nKind regards,\n{name}\n{org}",
    "From: {name} <{email}>\nTo: {email2}\nSubject: Keys for the flat\n\nI left the keys with "
    "the concierge at {address_line}.",
    "Hello {first},\nmy new number is {phone} and my work email is {email_internal}.\n"
    "Cheers, {first2}",
    "Good morning,\n\nthe delivery for {name} should be sent to:\n{address}\n\nThank you.",
    "Hi team, {name} is joining on {date} as {job}. Her address for the welcome pack: "
    "{address_line}.",
    "Dear {first}, your order {ref} has been shipped to {street}, {city}.",
    "Re: viewing on {weekday}\n\n{first}, the agent ({name}, {phone}) will meet us outside.",
    "Please update my details: email {email}, phone {phone}, address {address_line}.",
    "Forwarding this from {email_internal}: the audit found {ip} in the logs twice.",
    "{first} - can you ping {email_internal} about the badge? Thanks, {first2}",
    "Invitation: quarterly review with {name} and {name2}, room 4B, {date} at {time}.",
    # Chat lines
    "[{time}] {first}: running late, stuck near {city}",
    "[{time}] {first}: my new email is {email}",
    "{first}: can u call me on {phone}",
    "{first_lc}: just landed in {city}, see you at the hotel",
    "me: who is the electrician again?\n{first}: {name}, {phone}",
    "{first}: lol {first2} forgot the tickets again",
    "{first}: the wifi password is on the fridge, router ip is {ip}",
    "ok talked to {name_lc}, she says the meeting is moved to {weekday}",
    "{first}: send the money to {iban} pls",
    "{first}: address is {address_line}, ring twice",
    "{first}: {name} from {org} says hi",
    # Invoices, forms, contact cards
    "INVOICE {ref}\nBill to: {name}\n{address}\nAmount due: {amount}\nPay to: {iban}",
    "Receipt {ref} - {date}\nCustomer: {name}\nCard: {card}\nTotal: {amount}",
    "Name: {name}\nEmail: {email}\nPhone: {phone}\nAddress: {address_line}",
    "Contact\n{name}\n{job}, {org}\n{phone}\n{email}",
    "Emergency contact: {name} ({relation}), {phone}",
    "Shipping address:\n{name}\n{address}\n{country}",
    "Tenant: {name}\nProperty: {address_line}\nDeposit: {amount}\nStart: {date}",
    "Employee {ref}: {name}, SSN {ssn}, start date {date}.",
    "Beneficiary: {name}, IBAN {iban}, reference {ref}.",
    "Patient: {name}, born {date}. GP: {title} {last}, {org}.",
    "License: {dl} ({state}). Holder: {name}.",
    "| Name | Phone | City |\n|---|---|---|\n| {name} | {phone} | {city} |",
    "- {name}, {phone}\n- {name2}, {phone2}",
    "Signed: {name}, {city}, {date}",
    "Owner: {name} <{email}>",
    # Address blocks and directions
    "{address}",
    "Send it to {name}, {address_line}.",
    "The office is at {street}, {city}, {country}.",
    "We are staying at {street} in {city} until {date}.",
    "Her parents live in {city}, {country}.",
    "Our {relation} moved from {city} to {city2} last year.",
    "Postal address: {address_line}",
    "Meet at {street}, the blue door next to the bakery.",
    # Mixed, longer notes
    "## Landlord\n{name}\n{phone}\n\n## Boiler\nServiced by {org} on {date}.",
    "### Contacts\nPhone: {phone}\nEmail: {email}\n\n### General\nBin day is {weekday}.",
    "Trip plan: fly to {city} on {date}, train to {city2}, stay with {first} at {address_line}.",
    "Meeting notes {date}: {name} presented the budget, {name2} will check with {org}. "
    "Next call {weekday} {time}.",
    "Lost wallet: cards {card} and the one from {org}; driving licence {dl}.",
    "Emergency numbers: {first} {phone}, {first2} {phone2}.",
    "If anything happens contact {name} at {email} or {phone}; {first_of_name} knows where "
    "the documents are.",
)

# Slots that are gold PII spans, and the dataset label each gets.
PII_SLOTS: dict[str, str] = {
    "name": "PERSON",
    "name2": "PERSON",
    "name_lc": "PERSON",
    "first": "PERSON",
    "first2": "PERSON",
    "first_lc": "PERSON",
    "first_of_name": "PERSON",
    "last": "PERSON",
    "street": "STREET_ADDRESS",
    "address": "STREET_ADDRESS",
    "address_line": "STREET_ADDRESS",
    "city": "GPE",
    "city2": "GPE",
    "country": "GPE",
    "phone": "PHONE_NUMBER",
    "phone2": "PHONE_NUMBER",
    "email": "EMAIL_ADDRESS",
    "email2": "EMAIL_ADDRESS",
    "email_internal": "EMAIL_ADDRESS",
    "iban": "IBAN_CODE",
    "card": "CREDIT_CARD",
    "ssn": "US_SSN",
    "ip": "IP_ADDRESS",
    "ip2": "IP_ADDRESS",
    "ipv_six": "IP_ADDRESS",
    "dl": "US_DRIVER_LICENSE",
}

# Non-identifying fillers.
ORGANISATIONS = (
    "Northwind Energy", "Bluebell Dental Practice", "the City Council", "Harbour Credit Union",
    "Greenleaf Insurance", "Acme Plumbing", "Riverside Surgery", "Oakridge Lettings",
    "Summit Telecom", "Brightwater Utilities", "Copperfield Bank", "Lakeside Motors",
    "the Tax Office", "Pinecrest School", "Meridian Logistics", "Sunrise Vets",
)  # fmt: skip
JOBS = (
    "data analyst", "nurse", "project manager", "accountant", "teacher", "electrician",
    "designer", "support engineer",
)  # fmt: skip
RELATIONS = ("sister", "brother", "mother", "father", "neighbour", "partner", "cousin", "aunt")
TITLES = ("Mr", "Mrs", "Ms", "Dr", "Dr.", "Mr.", "Prof.")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "March", "May", "July", "September", "October", "December")
INTERNAL_DOMAINS = (
    "corp.internal", "intranet.local", "office.lan", "fernhollow.example", "hq.corp",
    "mail.home.arpa", "build.test", "staff.localdomain",
)  # fmt: skip
US_STATES = ("CA", "NY", "TX", "FL", "WA", "IL")
