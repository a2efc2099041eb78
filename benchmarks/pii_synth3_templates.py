"""Templates of the third own evaluation set (see `benchmarks.pii_synth3`).

Written apart from the first two sets' templates and in shapes they hold few of:
customer-service chats, clinic intake and appointment notes, travel bookings, tenancy and
legal letters, school and club messages, delivery notes, bank and insurance letters, social
posts, meeting minutes, voice memos as a phone transcribes them (lower case, no
punctuation), mail headers and signatures, CSV rows and key: value forms, and postal
addresses over several lines in twelve national formats. About one template in seven
holds no PII at all: capitalised ordinary words, products, festivals, days, months and book
titles, so that over-redaction has something to be measured on.

A slot is `{base}`, `{base2}` (another person or place of the same sentence) or either with
`_lc` / `_uc` (the value written in lower / upper case). The same slot names the same value
throughout one sentence, and a person's slots (`name`, `first`, `last`, `handle`…) with one
number belong to one person. Bases in `PII_KINDS` become gold spans; the others are
ordinary text that must stay readable.
"""

from __future__ import annotations

TEMPLATES: tuple[str, ...] = (
    # Customer-service chats
    "Chat with support, ref {ref}\n{first2} (agent): Can you confirm the email on the "
    "account?\nMe: {email}\n{first2} (agent): Thanks, and the billing postcode?\nMe: {postcode}",
    "[{time}] Support: Hi, you're chatting with {first2} from {company}. How can I help?\n"
    "[{time}] You: my parcel never arrived, order {order_no}",
    "Live chat transcript\nCustomer: {name}\nAgent: {first2}\nIssue: router keeps dropping, "
    "WAN address {ip}\nOutcome: line test booked for {weekday}",
    "{first2} from {company} said the refund of {amount} goes back to the card ending {card_end} "
    "within five working days.",
    "Support: For security, what's the first line of your address?\nMe: {street}\n"
    "Support: Perfect, thank you {first}.",
    "You: hi, I need to change the delivery address to {address}\nBot: I can help with that! "
    "Please confirm your phone number.\nYou: {phone}",
    "Agent {first2} (ID 4471): I've updated the contact number to {phone} and the email to "
    "{email}.",
    "Transcript saved {month} {day}: spoke to {name2} in billing at {company}, who waived the "
    "late fee; account holder shown as {name_uc}.",
    "Me: the card is {card}, expiry {expiry}\nAgent: thanks {first}, that's gone through",
    "Support ticket #{ticket}: customer {name} says the app shows someone else's address "
    "({street2}, {city2}).",
    "{first2} at the {company} helpdesk asked me to allow {ip} through the firewall and "
    "restart the modem.",
    "Bot: What name is the booking under?\nMe: {last}\nBot: Found it - {name}, 2 guests, "
    "{weekday}.",
    "agent: can i get your mobile pls\nme: {phone}\nagent: thx, and the move date?\n"
    "me: {day} {month_lc}",
    "Complaint logged with {company}: the engineer ({first2}) never turned up at {street}, "
    "{city}. Reference {ref}.",
    "Chat ended. A copy of this conversation has been sent to {email}.",
    "Hi {first}, this is {first2} from the {company} returns team. We've received the "
    "{product} you sent back from {city}.",
    "Refund request\nName: {name}\nIBAN: {iban}\nReason: charged twice ({amount})",
    "Support asked for the device address: {ip}. Gateway is {ip2}.",
    "{company} callback booked: {name}, {phone}, between {time} and {time2}",
    "Me: can you send the invoice to {email2} instead? it's my partner {name2}'s address\n"
    "Agent: done!",
    "Agent: I can see two accounts, one for {name} in {city} and one in {city2}. Which is yours?",
    "Agent: I need the long card number to find the order.\nMe: {card}\nAgent: Thanks {first}, "
    "I can see it now.",
    # Clinic intake, appointments, care
    "Patient: {name_uc}\nGP: Dr {last2}\nReason for visit: recurring migraines\n"
    "Next of kin: {name3} ({relation}), {phone}",
    "Appointment confirmed: {weekday} {day} {month} at {time} with {title} {last2}, {clinic}, "
    "{street}, {city}.",
    "Intake form\nSurname: {last}\nGiven names: {first}\nAddress: {address}\nMobile: {phone}\n"
    "Email: {email}\nAllergies: penicillin",
    "Dr. {last2} says the {test} results are fine; repeat in {month}. Pharmacy: {clinic}, "
    "tel. {phone}.",
    "Physio with {first2} on {weekday}, bring trainers. The clinic moved to {street}.",
    "Reminder for {name}: dental check-up {weekday} at {time}. Reply C to cancel or call {phone}.",
    "Referral from Dr {initial_last2} to the cardiology clinic in {city}, posted {weekday}.",
    "{name}'s vaccination record was emailed to {email} by the practice nurse.",
    "Prescription for {first} collected from {clinic}; repeat due in {month}.",
    "Mum's care plan: carer {name2} visits daily 8-9am, emergency number {phone}, GP Dr {last3}.",
    "BP 128/82, pulse 64, recorded by {title} {last2} at the {city} surgery.",
    "Clinic letter cc: {name} ({address}) and Dr {initial_last2}",
    "Discharge summary for {name_uc}: home address {street}, {postcode} {city}; follow-up "
    "with Prof. {last2} in six weeks.",
    "Vet: {pet} booked in with {first2} on {weekday}, owner {name}, {phone}",
    "New patient registration: {last_first}, {street}, {postcode}, tel {phone}",
    "Dr {last2} (on call) left a voicemail - call back on {phone}.",
    "Glasses ready for {name} at {clinic}, {city}; bring the old frames.",
    "Therapy notes, {month}: talked about {first2} and the move to {country}.",
    "Pre-authorisation for {name}: policy {policy}, {clinic}, {city}, {region}.",
    "The lab courier collects from {street} every {weekday} morning; contact {first2} on {phone}.",
    "Seen by {title} {name2} (locum). Advice: rest, fluids, come back if no better by {weekday}.",
    "Hebamme {name2} kommt morgen um {time}, Tel. {phone}.",
    "Rendez-vous chez le Dr {last2}, {street}, {postcode} {city}, jeudi à {time}.",
    # Travel bookings and itineraries
    "Booking confirmation {ref}\nLead passenger: {name_uc}\nFlight {flight} on {weekday} "
    "{day} {month} to {city}\nSeat {seat}",
    "Hotel: {hotel}, {address}. Check-in from 15:00. Booked under {last}.",
    "Itinerary\n{weekday}: train to {city}, 09:12\n{weekday2}: ferry to {city2}\nStaying with "
    "{first2}'s family",
    "Host {first2} ({phone}) will leave the key in the lockbox at {street}.",
    "PASSENGER 1: {last_uc}/{first_uc}\nPASSENGER 2: {last2_uc}/{first2_uc}\nBOOKING REF: {ref}",
    "Car hire pickup at the {city} airport desk; driver {name}, card {card}.",
    "Travel insurance emergency line {phone}; policyholder {name}, {country}.",
    "Invitation letter for {name}, {address}, to visit {country} in {month}.",
    "Taxi booked for {time} from {street} to the station, name of {last}.",
    "Train tickets sent to {email}: {city} to {city2}, coach 7, seat {seat}.",
    "Our guide in {city} is {name2}; WhatsApp {phone}.",
    "Packing list for {country}: adapters, {product}, sunscreen, copy of {first}'s passport.",
    "Cabin 8142: guests {name} and {name2}; second dinner sitting.",
    "Day 3: drive from {city} to {city2} ({region}), lunch at {first2}'s aunt's.",
    "Flight {flight} delayed. Airline contact {email}; rebooked by phone on {phone}.",
    "Hostel check-in: {name_uc}, nationality {country}, passport copy on file.",
    "Campsite near {city}, {region}; pitch 14, booked under {email}.",
    "Ski week in {month}: chalet at {street}, {city}, {home_country}. {first2} drives.",
    "Meet {first2} at arrivals: {flight}, landing at {time}.",
    "Tour deposit {amount} to {iban} (beneficiary {name2}) by {weekday}.",
    "From the hotel: remote desktop to the office at {ip}, then the NAS at {ip2}.",
    "Lost luggage claim {ref}, deliver to:\n{block}",
    "Hotel guarantee: {card}, cardholder {name}, arriving after 22:00.",
    "Reserva a nombre de {name}, viernes {day}, habitación doble, tel. {phone}.",
    "Check-in online per {name}: volo {flight}, posto {seat}, email {email}.",
    # Tenancy and legal letters
    "{name}\n{block}\n\nDear {title} {last2},\n\nRe: Notice to end the tenancy\n\nI am writing "
    "to give one month's notice.",
    "This agreement is made between {name} (the Landlord) and {name2} (the Tenant) for the "
    "property at {address}.",
    "The deposit of {amount} will be returned to the tenant's account, {iban}, within ten days.",
    "Our client, {name}, of {street}, {city}, instructs us that the fence was moved without "
    "consent.",
    "The landlord, {title} {last2}, can be reached at {email} or on {phone} for repairs.",
    "Witness: {name3}\nAddress: {address3}\nOccupation: retired teacher",
    "Signed by {name_uc} in the presence of {name2}, solicitor, at {city} on {day} {month}.",
    "Inventory at flat 3, {street}, checked by {first} and the letting agent ({first2}).",
    "Notice served on {name} by recorded delivery to {address}.",
    "Letter from {company}: from {month} the rent for {street} rises to {amount} a month.",
    "Re: {address} - boiler repair. Please contact the tenant, {first}, on {phone}.",
    "Executor: {name2}. Beneficiaries: {name}, {name3} and the village hall fund.",
    "Lasting power of attorney for {name} granted to {name2} ({relation}), {email2}.",
    "Small claims hearing {weekday}: claimant {name}, defendant {company}, at the {city} court.",
    "Our ref: {ref}\nYour ref: {last_uc}/{year}\nDear {title} {last},",
    "Sehr geehrte Frau {last2},\nhiermit kündige ich den Mietvertrag für die Wohnung "
    "{street}, {postcode} {city} fristgerecht.",
    "Objet : résiliation du bail - {name}, {address}",
    "Il sottoscritto {name}, residente in {street}, {city}, dichiara di aver ricevuto le chiavi.",
    "Neighbour dispute: {name2} at no. 14 says the hedge on {street_name} is ours to cut.",
    # School and club messages
    "Dear parents, {first}'s class trip to {city} is on {weekday}. Please reply to {email} by "
    "{month} {day}.",
    "Reminder from Coach {last2}: training moves to {weekday}, meet in the car park on "
    "{street_name}.",
    "Football subs: {amount} for {first} - pay to {iban}, reference {last_uc}.",
    "PTA minutes: {name} (chair), {name2} (treasurer), apologies from {name3}.",
    "Choir: the soprano section leader is {name2}; ring {phone} if you can't make {weekday}.",
    "School office: {name_uc} in Year 5 has been absent since {weekday}; please call {phone}.",
    "Lift share for swimming: {first}'s mum ({phone}) drives Mondays, {first2}'s dad Thursdays.",
    "Book club reads {book} for {month}; hosted by {name2} at {street}.",
    "Running club: well done {name} on the {city} half marathon, 1:42:10!",
    "Chess club, round 4: {initial_last} 1-0 {initial_last2}; {initial_last3} drew.",
    "Camp consent\nChild: {name}\nParent/guardian: {name2}\nEmergency phone: {phone}\n"
    "GP: {title} {last3}",
    "{first}'s teacher, {title} {last2}, says the reading has come on a lot.",
    "Tennis ladder: 1. {name} 2. {name2} 3. {name3}",
    "Allotment society: plot 12 is now let to {name} of {street}; key from {first2}.",
    "Class chat: has anyone found {first}'s blue water bottle? - {first2}",
    "Elternabend: {name} übernimmt die Kasse, Rückfragen an {email}.",
    # Delivery notes
    "Deliver to: {name}\n{block}\nTel: {phone}\nIf out, leave with the neighbour at no. 7.",
    "Driver note ({first2}): parcel left in the porch at {street}.",
    "Your {company} order {order_no} is on its way to {address}. Questions: {phone}.",
    "Signed for by {last_uc} at {time}.",
    "Sender: {name2}, {city2}, {home_country}\nRecipient: {name}, {address}",
    "Return label - From: {name}, {street}, {postcode}. To: Returns, {company}.",
    "The courier couldn't find {street}; call {first} on {phone}.",
    "Customs form: contents {product}, value {amount}, sender {name}, {country}.",
    "Safe place: behind the green bin. Contact: {email}",
    "parcel for {name_lc} left at reception, flat {room}",
    "Groceries {weekday}: substitutions ok. Deliver to {address}, ring {phone}.",
    "Sofa delivery {weekday} {time}-{time2}, {street}, third floor, no lift; ask for {first}.",
    "Cash on delivery refused; charge {card} instead (holder {name_uc}).",
    "Paket für {name} bei Nachbarin {last2} abgegeben, {street}.",
    # Bank and insurance
    "Dear {title} {last},\nYour new card ending {card_end} has been sent to {address}.",
    "Standing order: {amount} monthly to {name2}, IBAN {iban}, reference rent.",
    "Move {amount} from the joint account to {iban} ({name2}) before {weekday}.",
    "Claim {ref}: policyholder {name}; the car was damaged outside {street}, {city}, on {weekday}.",
    "Card {card} reported stolen at {time}; the new one goes to {street}.",
    "Home insurance renewal for {street}, {postcode}: {amount} a year, questions to {email}.",
    "The fraud team called from {phone} about a payment to {name2} in {country}.",
    "New payee added: {name2_uc} - {iban}",
    "Account holder: {last_first}\nIBAN: {iban}\nBIC: {bic}",
    "Mortgage adviser {name2} ({email2}) needs {first}'s payslips by {weekday}.",
    "Pet insurance: {pet} (owner {name}), vet {clinic}, {city}.",
    "SEPA mandate - debtor {name}, {address}, IBAN {iban}, creditor {company}.",
    "Card on file at the gym: {card}, exp {expiry}, holder {name_uc}.",
    "Contents claim: water leak at {address}; loss adjuster {name2}, {phone}.",
    "Loan statement sent to {email}; next payment {amount} on the {day}th.",
    "The cash machine on {street_name} kept my card; bank helpline {phone}.",
    "Sign-in from {ip} near {city} - not you? Call us on {phone}.",
    "Chargeback on {card}: {amount} at {company}, disputed by {name}.",
    "Dear {name},\nWe have received your payment of {amount} by card {card}. Thank you.",
    "Überweisung an {name2}, IBAN {iban}, Verwendungszweck: Nebenkosten {year}.",
    "Virement de {amount} vers {iban} au nom de {name2_uc}.",
    # Social posts
    "Happy birthday to my amazing friend @{handle2}!! :)",
    "So proud of #{hashtag} for finishing the {city} marathon today!",
    "Throwback to {city} with @{handle} and @{handle2} #travel #{month_lc}",
    "RIP {name}, the kindest neighbour {street_name} ever had.",
    "Shoutout to {name2} at {company} for fixing my {product} in ten minutes",
    "LOST DOG near {street_name}, {city}! Answers to {pet}. Call {phone}",
    "Follow my friend @{handle2}, the best {dish} in {city} is theirs",
    "Tagged: {name}, {name2}, {name3} - at {company}, {city}",
    "comment from {handle}: omg is that {first2_lc}??",
    "Selling my {product}, collection from {postcode} only, DM or text {phone}",
    "Congrats Dr {name2} on the PhD!! #{hashtag2}",
    "{name_uc} FOR CLUB CAPTAIN! Vote on {weekday}!",
    "Checked in at {hotel}, {city}, {home_country} - with {name2}",
    "Our {festival} party at {first}'s place was the best one yet",
    "RT @{handle}: moving to {country} in {month}, who do I know in {city}?",
    "Gratulacje dla {name2}! #{hashtag2}",
    # Meeting minutes
    "Minutes, {weekday} {day} {month}\nPresent: {name}, {name2}, {initial_last3}\n"
    "Apologies: {name4}",
    "Action: {first} to email {email} about the venue deposit.",
    "AP ({initial_last}) - send the revised budget by {weekday}.",
    "The chair ({name}) opened the meeting at {time}. Minutes taken by {name2}.",
    "Residents' association: {name} raised parking on {street_name}; {name2} will write to "
    "the council in {city}.",
    "Decision: contract with {company} approved; invoices to {email}, account {iban}.",
    "Next meeting at {name2}'s house, {address}.",
    "1:1 with {first2}: wants to move to the {city} office in {month}.",
    "IT: new VPN endpoint {ip}; the old server {ip2} retires on {weekday}.",
    "Firewall: block {ip}, allow {ip2} for {first}'s laptop.",
    "Board call dial-in {phone}, host {name}.",
    "Attendees (remote): {name_lc}, {name2_lc}",
    "Vote: five for, one against ({last3}), no abstentions.",
    "{first} to follow up with {name2} ({company}) on {phone2}.",
    "AOB: {first2} leaves in {month}; farewell drinks at the Anchor.",
    "Notulen: {name} (voorzitter), {name2} (secretaris). Volgende vergadering in {city}.",
    # Voice memos as transcribed: lower case, no punctuation
    "remind me to call {name_lc} about the boiler on {weekday_lc}",
    "note to self {first_lc} said the spare key is with {first2_lc} at number twelve",
    "pick up {first_lc} from {street_lc} at half five",
    "her number is {phone_digits} ask for {first_lc}",
    "email {email_spoken} about the invoice before {weekday_lc}",
    "meeting moved to {weekday_lc} at {name2_lc}s place in {city_lc}",
    "ok so the flat is {street_lc} in {city_lc} and the door code is four four one two",
    "buy flowers for {first_lc} and a card for {relation} {first2_lc}",
    "tell {first_lc} the dentist is dr {last2_lc} on {street_name_lc}",
    "the new router is at {ip} and the password is on the fridge",
    "call the bank about the payment to {name2_lc} it went to the wrong account",
    "drive to {city_lc} on {weekday_lc} then on to {city2_lc} to see {first2_lc}",
    "i think {first_lc} lives in {region_lc} now somewhere near {city_lc}",
    "remember {last_lc} from the gym and the partner is called {first2_lc}",
    "memo {month_lc} {day} talked to {name_lc} from {country_lc} about the job",
    "send {first_lc} the photos and ask {name2_lc} for {phone_digits2}",
    # Mail headers and signatures
    "From: {name} <{email}>\nTo: {name2} <{email2}>\nDate: {weekday}, {day} {month} {year} "
    "{time}\nSubject: Re: {festival} plans",
    "Best wishes,\n{name}\n{job}\n{company}\n{street}, {city}\nT: {phone} | M: {phone2}\n{email}",
    "--\n{initial_last}\n{job} | {company}\nDirect: {phone}",
    "Reply-To: {email}\nX-Originating-IP: [{ip}]",
    "Received: from laptop ([{ip}]) by smtp.example.net; {weekday}, {day} {month} {year}",
    "{name_uc}\n{job}\n{block}\nTel {phone}",
    "Un saludo,\n{name}\nTel. {phone}\n{city}, {home_country}",
    "Mit freundlichen Grüßen\n\n{name}\n{addr_de}\nTelefon: {phone}",
    "Cordialement,\n{name}\n{addr_fr}",
    "Cordiali saluti,\n{name}\n{addr_it}\nCell. {phone}",
    "Met vriendelijke groet,\n{name}\n{addr_nl}",
    "Z poważaniem,\n{name}\n{addr_pl}",
    "On {weekday}, {day} {month} {year} at {time}, {name} <{email}> wrote:",
    "---------- Forwarded message ---------\nFrom: {company} Bookings <{email}>\nTo: {email2}",
    "Warm regards,\n{first}\n\n{name_uc} | {job}\n{email} | {phone}",
    # CSV rows and key: value forms
    "id,first_name,last_name,email,phone\n{ticket},{first},{last},{email},{phone}",
    "{last},{first},{city},{region},{postcode}",
    '"{last_first}","{email}","{phone}"',
    "name: {name}\nemail: {email}\nip: {ip}\nlast_login: {weekday}",
    '{"name": "{name}", "email": "{email}", "city": "{city}"}',
    "contact;{name};{phone};{email};{city}",
    "Customer | {name} | {street} | {postcode} | {city}",
    "NAME={name_uc}\nADDR={street_uc}\nTEL={phone}",
    "| {name} | {phone} | {email} |",
    "guests.csv: {name}, {name2}, {name3}",
    "Payee: {name2}\nIBAN: {iban}\nAmount: {amount}\nReference: invoice {ref}",
    "Card number: {card}\nName on card: {name_uc}\nExpiry: {expiry}",
    "host: {ip}\nuser: {handle}\nport: 22",
    "Full name: {name}\nCountry of residence: {country}\nRegion: {region}\nCity: {city}\n"
    "Postcode: {postcode}",
    "{email},{ip},{weekday}",
    "Tel.: {phone} | Fax: {phone2}",
    "src_ip,user,action\n{ip},{handle},login_failed",
    "Emergency contacts\n{relation}: {name2} - {phone2}\n{relation2}: {name3} - {phone3}",
    "order_id\tcustomer\tship_to\n{order_no}\t{name}\t{address}",
    # Postal addresses over several lines, national formats
    "{name}\n{addr_gb}",
    "{name_uc}\n{addr_us}\n{home_country_uc}",
    "An\n{name}\n{addr_de}",
    "À l'attention de {name}\n{addr_fr}\n{home_country_uc}",
    "Alla c.a. di {name}\n{addr_it}",
    "A la atención de {name}\n{addr_es}",
    "T.a.v. {name}\n{addr_nl}",
    "Sz. P. {name}\n{addr_pl}",
    "To,\n{name}\n{addr_in}\nMob: {phone}",
    "{name_uc}\n{addr_au}",
    "{name}\n{addr_ca}\n{home_country}",
    "{name}\n{addr_jp}\n{home_country_uc}",
    "Ship to:\n{name}\n{block}",
    "Billing address\n{block}\n{home_country}",
    "Return to sender: {name2}, {address2}",
    "c/o {name2}\n{block}",
    "Christmas card list: {name} & family, {addr_gb}",
    "New address for {first} from {month}:\n{block}",
    "Mr & Mrs {last}\n{addr_us}",
    # Names in possessives, lists, brackets, quotes, after titles, in capitals or lower case
    "Borrowed {first}'s drill; it goes back to {name2}'s garage.",
    "Invited: {first}, {first2}, {first3} and {name4}.",
    "Lend the tent (ask {name} first) for the {festival} weekend.",
    '"{name}" is how the parcel was addressed, but it is for {first2}.',
    "Prof. {last} and Mrs {last2} both speak at the {festival} lunch.",
    "Dr {name} joined the practice in {month}.",
    "THANK YOU {name_uc} FOR THE LIFT!!!",
    "ask {first_lc} if {last2_lc} still has the ladder",
    "The {last}s are away until {month}; {first2} feeds the cat.",
    "Godparents: {name} & {name2}",
    "Mrs. {initial_last} (née {last2}) sent a card.",
    "'{first}' is written on the box of glasses in the loft.",
    "Per {name}'s email, the {festival} market opens at ten.",
    "Table 4: {name}; {name2}; {name3}; {name4}",
    "{last_uc}, {first} - seat {seat}",
    "Signed: {name} (witness: {name2})",
    "Sra. {last} y el Sr. {last2} llegan el sábado.",
    "{first} ({relation}) and {first2} ({relation2}) are both allergic to nuts.",
    # Ordinary text without PII
    "Pick up the Christmas cake from the bakery on Friday before noon.",
    "{festival} lights go up on {weekday}; buy more tea lights and marigolds.",
    "Reading list for {month}: {book}, then {book2}.",
    "Switch the Thermostat to Eco Mode before leaving on {weekday}.",
    "Order a new cover for the {product}; the old one cracked.",
    "Bin collection moves to {weekday} during the {festival} week.",
    "Eid al-Fitr falls on a {weekday} this year, so the office closes early.",
    "Meal plan: Monday lasagne, Tuesday Thai green curry, Wednesday leftovers.",
    "Update the Router Firmware and the Smart TV apps.",
    "Budget for {month}: Rent, Council Tax, Netflix, Spotify Premium, Gym.",
    "Return the {product} before the 30-day window closes.",
    "Watch the Champions League final with the neighbours on Saturday.",
    "Book the MOT and the service for the car before {month}.",
    "Hanukkah candles, Brussels sprouts, Greek yoghurt, French mustard.",
    "Chapter 3 of {book} is much better than the film.",
    "New Year's Day: brunch, a long walk, no screens.",
    "The Monday Stand-Up moved to 9:15; the Sprint Review stays on Thursday.",
    "Spring Bank Holiday weekend: paint the fence Forest Green.",
    "Mother's Day brunch booked for 11; Father's Day is in June.",
    "Black Friday list: Instant Pot, AirPods Pro, a Lego Technic set.",
    "Oktoberfest pretzels and Weisswurst for the Saturday party.",
    "Pay the TV Licence and renew Amazon Prime.",
    "Lent starts on Ash Wednesday; giving up chocolate again.",
    "Yoga on Tuesday, Pilates on Thursday, Parkrun on Saturday.",
    "Lunar New Year dumplings: pork and cabbage, then sesame balls.",
    "Pantry: Basmati Rice 2kg, Olive Oil, Dijon Mustard, Earl Grey.",
    "Midsummer picnic if the weather holds; bring the Bluetooth speaker.",
    "The warranty on the {product} runs out in {month}.",
    "Sunday Roast: Yorkshire puddings, roast potatoes, Brussels sprouts.",
    "Q3 Review: Revenue Up, Churn Down, Hiring Paused.",
    "Thanksgiving: Turkey 6kg, Cranberry Sauce, Pumpkin Pie.",
    "Easter Monday egg hunt in the Community Garden at 11.",
    "Watched Planet Earth II and the first episode of The Crown.",
    "Water the Monstera, repot the Peace Lily, feed the Sourdough Starter.",
    "Password Manager, Two-Factor Authentication, Backup Drive: sort these out this weekend.",
    "remember to buy milk eggs and bread and book the car service for {weekday_lc}",
    "note to self the meeting is at ten not eleven and bring the charger",
    "Status: Delivered\nCarrier: Standard Post\nItems: 2\nWeight: 1.4 kg",
    "date,category,amount\n{month} {day},Groceries,{amount}",
    "Day 1: Arrival, Welcome Dinner\nDay 2: Museum Pass, Old Town Walk\nDay 3: Departure",
    "Item 4: Budget approved. Item 5: the Summer Fair moves to Saturday.",
    "Take Ibuprofen 400mg with food, twice daily for five days.",
    "#MondayMotivation #FridayFeeling new week, new goals",
    "Your statement for {month} is now available in the app.",
    "Flight {flight} boards at Gate {gate}; Priority Boarding first.",
    "Sent from my {product}",
)

# Slot base -> gold label, in the labels the other own sets use.
PII_KINDS = {
    "name": "PERSON",
    "first": "PERSON",
    "last": "PERSON",
    "initial_last": "PERSON",
    "last_first": "PERSON",
    "handle": "PERSON",
    "hashtag": "PERSON",
    "street": "STREET_ADDRESS",
    "street_name": "STREET_ADDRESS",
    "address": "STREET_ADDRESS",
    "block": "STREET_ADDRESS",
    "addr_gb": "STREET_ADDRESS",
    "addr_us": "STREET_ADDRESS",
    "addr_de": "STREET_ADDRESS",
    "addr_fr": "STREET_ADDRESS",
    "addr_it": "STREET_ADDRESS",
    "addr_es": "STREET_ADDRESS",
    "addr_nl": "STREET_ADDRESS",
    "addr_pl": "STREET_ADDRESS",
    "addr_in": "STREET_ADDRESS",
    "addr_au": "STREET_ADDRESS",
    "addr_ca": "STREET_ADDRESS",
    "addr_jp": "STREET_ADDRESS",
    "postcode": "STREET_ADDRESS",
    "city": "GPE",
    "region": "GPE",
    "country": "GPE",
    "home_country": "GPE",
    "phone": "PHONE_NUMBER",
    "phone_digits": "PHONE_NUMBER",
    "email": "EMAIL_ADDRESS",
    "email_spoken": "EMAIL_ADDRESS",
    "card": "CREDIT_CARD",
    "iban": "IBAN_CODE",
    "ip": "IP_ADDRESS",
}

# Ordinary words for the other slots.
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August",
    "September", "October", "November", "December",
)  # fmt: skip
PRODUCTS = (
    "iPhone 15", "Kindle Paperwhite", "Thermomix", "PlayStation 5", "Nespresso Vertuo",
    "Dyson V11", "Galaxy S23", "MacBook Air", "Fitbit Charge 6", "Instant Pot",
    "Garmin Forerunner", "AirPods Pro", "Nintendo Switch", "Roomba", "GoPro Hero 12",
    "Sonos One", "Surface Pro", "Apple Watch",
)  # fmt: skip
FESTIVALS = (
    "Christmas", "Easter", "Diwali", "Eid", "Hanukkah", "Lunar New Year", "Oktoberfest",
    "Carnival", "Midsummer", "Thanksgiving", "Holi", "Bonfire Night", "Boxing Day",
    "New Year's Eve", "Halloween", "Harvest Festival", "Nowruz", "Ramadan",
)  # fmt: skip
BOOKS = (
    "Pride and Prejudice", "The Old Man and the Sea", "Brave New World", "Little Women",
    "Great Expectations", "Wuthering Heights", "The Secret Garden", "Middlemarch",
    "Life of Pi", "The Hobbit", "Normal People", "The Salt Path", "The Night Circus",
    "Atomic Habits", "The Midnight Library", "Lessons in Chemistry", "Station Eleven",
    "The Goldfinch", "Cloud Atlas", "Never Let Me Go", "The Remains of the Day",
)  # fmt: skip
DISHES = (
    "lasagne", "banana bread", "biryani", "paella", "apple strudel", "pho", "tiramisu",
    "jollof rice", "pierogi", "sourdough", "ramen", "empanadas",
)  # fmt: skip
COMPANIES = (
    "Northwind Couriers", "Brightwell Insurance", "Harbourside Lettings", "Kestrel Bank",
    "Bluefin Broadband", "Clearwater Energy", "Silverline Rail", "Pinecrest Property",
    "Swiftway Parcels", "Redkite Travel", "Greenfield Mobile", "Copperleaf Furniture",
    "Summit Home Services", "Lighthouse Savings",
)  # fmt: skip
CLINICS = (
    "Lakeside Medical Centre", "Oakridge Dental", "Meadowbrook Pharmacy", "Parkview Surgery",
    "Hillcrest Physio", "the Bridge Street Clinic", "Westgate Opticians", "Elm Tree Vets",
)  # fmt: skip
HOTELS = (
    "Hotel Miramar", "The Granary Inn", "Hotel Bellevue", "Riverside Lodge", "Hostal Sol",
    "Pension Alpenblick", "Hotel Continental", "The Harbour Rooms",
)  # fmt: skip
TESTS = ("blood test", "MRI", "X-ray", "ECG", "allergy test", "thyroid", "cholesterol")
PETS = ("Biscuit", "Pepper", "Luna", "Shadow", "Mochi", "Bramble", "Noodle", "Pickle")
JOBS = (
    "Office Manager", "Senior Consultant", "Head of Finance", "Practice Manager",
    "Operations Lead", "Account Director", "Team Assistant", "Solicitor",
)  # fmt: skip
RELATIONS = (
    "partner", "cousin", "neighbour", "friend", "colleague", "flatmate", "sibling", "parent",
)  # fmt: skip
TITLES = ("Dr", "Dr.", "Mr", "Mrs", "Ms", "Prof.", "Mx")
