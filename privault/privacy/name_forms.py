"""Names in the forms text gives them: handles and tags, mailboxes, signatures.

A mention or a hashtag that holds a listed name no dictionary holds ("@anna",
"#ChinyereOkoro"), the display name of a mailbox in angle brackets ("From: Violet Church
<v.church@example.org>"), and the name alone on the line under a closing ("Cheers" /
"Hazel") are a person's: the form says so, whatever the words are.
"""

from __future__ import annotations

import re

from privault.privacy.cue_words import UPPER
from privault.privacy.names import NameLists, fold, is_organisation_word
from privault.spans import Span

# An @-mention: the account a chat, a forum or a social app names a person by ("@anna.berg",
# "@ryan.phillips14"); not an email's "@" (a word character or a dot stands before it).
_HANDLE = re.compile(r"(?<![\w.@/+-])@([^\W\d][\w.-]*\w)")
_HANDLE_PARTS = re.compile(r"[^\W\d_]+")
# Code writes "@" too: a call, a package path or a block follows it ("@app.route(",
# "@babel/core", "@keyframes spin {").
_CODE_AFTER = re.compile(r"[ \t]*[(/{=]")


# A hashtag that is a name run together, each part capitalised: "#ChinyereOkoro",
# "#PedroFlores" (congratulations, memorials); "#ThrowbackThursday" is words.
_NAME_TAG = re.compile(
    r"(?<![\w#&/])#((" + UPPER + r"[^\W\d_A-Z]+)(" + UPPER + r"[^\W\d_A-Z]+))(?!\w)"
)


def find_handles(text: str, lists: NameLists) -> list[Span]:
    """PERSON spans of @-mentions that hold a listed name no dictionary holds ("@anna",
    "@ryan.phillips14"), the "@" left readable. A mention of everyday words or of words no
    name list holds ("@everyone", "@home_team", "@dataclass", "@pytest.fixture") names a
    group, a thing or code, and so does one a call or a path follows; they stay readable,
    and so does an account named by letters no list knows ("@xk77"). Names run together
    the way account names write them are names too: an initial and a surname
    ("@mpatterson28"), a given name and a surname ("@annaberg"), and so is a hashtag of
    a given name no dictionary holds and a surname, each capitalised ("#ChinyereOkoro";
    not "#NewYork", "#BlackFriday")."""
    spans = []
    for match in _HANDLE.finditer(text):
        if _CODE_AFTER.match(text, match.end()):
            continue
        parts = [fold(part) for part in _HANDLE_PARTS.findall(match.group(1))]
        if any(_account_name(part, lists) for part in parts):
            spans.append(Span(match.start(1), match.end(1), "PERSON", 0.7, "handle"))
    for match in _NAME_TAG.finditer(text):
        given, surname = match.group(2), match.group(3)
        if lists.is_first(given) and not lists.is_word(given) and lists.is_last(surname):
            spans.append(Span(match.start(1), match.end(1), "PERSON", 0.7, "handle"))
    return spans


# Longer runs of letters in a handle are not split into names (each split is a look-up).
_ACCOUNT_LETTERS = 30


def _account_name(part: str, lists: NameLists) -> bool:
    """True when `part` (folded letters of a handle) is a listed name no dictionary holds,
    or one run together with an initial or another name ("mpatterson", "annaberg")."""

    def name(word: str) -> bool:
        return word in lists.first or word in lists.last

    if name(part):
        return part not in lists.words
    if part in lists.words or len(part) > _ACCOUNT_LETTERS:
        return False
    if len(part) >= 5 and part[1:] in lists.last and part[1:] not in lists.words:
        return True
    return any(
        part[:i] in lists.first
        and part[i:] in lists.last
        and not (part[:i] in lists.words and part[i:] in lists.words)
        for i in range(3, len(part) - 2)
    )


# A mailbox as mail headers and address books write it: a display name, then the address
# in angle brackets ("Violet Church <v.church@example.org>", "\"Church, Violet\" <…>").
_PARTICLES = r"(?:van|von|der|den|de|del|della|di|da|dos|du|la|le|bin|al|ter|ten|y)"
_DISPLAY_WORD = r"(?:" + UPPER + r"[\w'’.-]*|" + _PARTICLES + r")"
_MAILBOX = re.compile(
    r"(?:\"([^\"\n<>@]{1,80})\"|(?<![^\s:,;(])("
    + UPPER
    + r"[\w'’.-]*(?:[ \t]+"
    + _DISPLAY_WORD
    + r"){0,4}))[ \t]*<[^<>\s@]+@[^<>\s@]+>"
)


def find_display_names(text: str) -> list[Span]:
    """PERSON spans of the names written before an address in angle brackets: a mail's
    sender and recipients, whatever NER makes of them ("Violet Church" is an
    organisation to it). An unquoted one is one to five capitalised words (name particles
    between them); a quoted one is taken whole."""
    spans = []
    for match in _MAILBOX.finditer(text):
        group = 1 if match.group(1) is not None else 2
        value = match.group(group)
        start = match.start(group) + len(value) - len(value.lstrip())
        end = match.start(group) + len(value.rstrip())
        if end > start:
            spans.append(Span(start, end, "PERSON", 0.7, "mailbox"))
    return spans


# A closing on its own line, then the writer's name on the next ("Thanks!\nFaith").
_SIGNED = re.compile(
    r"(?im)^[ \t]*(?:(?:many |warm |kind |best |with )?(?:thanks|thank you|regards|wishes)"
    r"(?: again)?|cheers|best|all the best|love|lots of love|xoxo|xo|ta|thx|sincerely|"
    r"yours(?: truly| sincerely)?|take care|talk soon|speak soon)[ \t]*[!,.]*[ \t\r]*\n"
    r"[ \t]*(?-i:(" + UPPER + r"[^\W\d_]*(?:[ \t]+" + UPPER + r"[^\W\d_'’-]*){0,2}))"
    r"[ \t\r]*$"
)


def find_signed(text: str, lists: NameLists) -> list[Span]:
    """PERSON spans of the name under a closing ("Thanks!\nFaith", "Regards\nBill
    Hunt"): one to three capitalised words alone on the line after it, the first a listed
    given name, everyday word or not. A line of other words under a closing ("The Team",
    "Mom", "Sales Department") stays as it is."""
    spans = []
    for match in _SIGNED.finditer(text):
        words = match.group(1).split()
        if lists.is_first(words[0]) and not any(is_organisation_word(w) for w in words):
            spans.append(Span(match.start(1), match.end(1), "PERSON", 0.7, "signed"))
    return spans


# A capitalised word or two: a given name, and a surname perhaps.
