"""Names and places found from the words around them, where NER misses them.

The small spaCy pipeline misses many names that are not English, names in lower case and
places written in capitals. Generic signals catch most of them:

* **cues** — words that announce a name ("my name is", "Name:", "Dr.", "Dear", "Remind",
  "Grandpa") or a place ("flew to", "based in", "Where:");
* **the shape of the writing** — initials before a surname (a mention or a hashtag, a
  mailbox's display name and the line under a closing: `name_forms`);
* **guesses** — a capitalised word after a preposition of place ("train to Ramosfurt") and
  a chat speaker before a colon ("[16:15] Zülgarni: ..."), kept only when their words are
  not everyday words (`ordinary.trim_person`). Product names after "in" that the
  dictionary does not know ("in Markdown") are masked as places: the price of catching
  small towns no gazetteer lists.

What is found once is spread to its other occurrences and list mates by `propagation`.
"""

from __future__ import annotations

import re

from privault.privacy.names import CALENDAR, NameLists, fold
from privault.privacy.tagger_words import PERSON_VERBS, RELATIONS, TRADES
from privault.spans import Span

UPPER = r"[^\W\d_a-zß-ÿа-яα-ω]"  # an upper-case letter, any script
_NAME_WORD = UPPER + r"[\w'’-]*"
# An initial is a lone capital (with or without its dot), not the first letter of a word.
_FULL_NAME = _NAME_WORD + r"(?:\s+" + UPPER + r"(?:\.|(?!\w)))?(?:[ \t]+" + _NAME_WORD + r"){0,2}"

_HONORIFICS = frozenset("Mr Mrs Ms Miss Mx Dr Prof Sir Madam".split())
_HONORIFIC = r"(?:" + "|".join(sorted(_HONORIFICS, key=lambda word: (-len(word), word))) + r")\.?"
# A cue, then the name: after "Dear" or "Hi" an honorific may stand first ("Dear Prof.
# Lamy"), and the name is what follows it.
_PERSON_CUES = re.compile(
    r"(?:\b(?:[Mm]y name is|[Nn]ame is|[Nn]ame:|[Nn]ame on the account\W+(?:User:)?|"
    r"I'm|I am|[Cc]all me|[Nn]amed|[Dd]ear|[Hh]i|[Hh]ello|[Ss]aid|[Ss]ays|[Bb]y|"
    + _HONORIFIC
    + r"|[Mm]aiden name is|[Ll]ast name\W+|[Ff]irst name\W+|[Cc]ontact)[ \t]+"
    + r"(?:"
    + _HONORIFIC
    + r"[ \t]+)?)("
    + _FULL_NAME
    + r")"
)
_LOWER_NAME_CUE = re.compile(
    r"(?i)\b(?:my name is|name:)[ \t]+(?-i:(?=[a-zß-ÿ]))([^\W\d_]+(?:[ \t]+[^\W\d_]+)?)"
)
_PLACE_CUES = re.compile(
    r"\b(?:[Ff]lew to|[Tt]ravell?ing to|[Gg]rew up in|[Bb]ased in|[Mm]oved to|[Ll]ives? in|"
    r"I am in|I'm in|[Aa]rrived at|[Rr]eturned to|[Hh]ome city|[Cc]ity of|[Tt]own of|"
    r"[Ww]here:|[Vv]isiting|[Uu]niversity of|[Ff]rom|[Ii]n|[Tt]o)[ \t]+("
    + _NAME_WORD
    + r"(?:[ \t]+"
    + _NAME_WORD
    + r")?)"
)
_ALL_CAPS = re.compile(r"^[^\W\d_a-zß-ÿа-яα-ω]{3,}(?:[ \t]+[^\W\d_a-zß-ÿа-яα-ω]{2,})?$")
_STRONG_PLACE_CUE = re.compile(r"(?i)^(?!from|in|to)")
# Capitalised words that follow such cues without being names (`propagation` reads it too).
NOT_NAMES = frozenset(word.capitalize() for word in CALENDAR) | frozenset(
    """The A An This That These Those My Your Our Their His Her It I We You They He She
    Mr Mrs Ms Miss Mx Dr Prof Sir Madam
    Yes No Not Thanks Thank Please Hello Hi Sorry Here There What When Where Who Why How
    Bot User Customer Agent Today Tomorrow Yesterday Also And But Or So If All Any Some
    English French German Spanish Italian Internet Email Phone Address Name Account Card
    Bank Street Avenue Road God""".split()
)


def _clean(words: str) -> tuple[int, str] | None:
    """Drop leading non-names; return (offset into `words`, the name) or None."""
    parts = words.split()
    offset = 0
    while parts and parts[0].rstrip(".,") in NOT_NAMES:
        offset = words.index(parts[1], offset + len(parts[0])) if len(parts) > 1 else len(words)
        parts = parts[1:]
    while parts and parts[-1].rstrip(".,") in NOT_NAMES:
        parts = parts[:-1]
    if not parts:
        return None
    return offset, " ".join(parts)


def find_context_entities(text: str) -> list[Span]:
    """PERSON and LOCATION spans announced by cue words."""
    spans: list[Span] = []
    for match in _PERSON_CUES.finditer(text):
        cleaned = _clean(match.group(1))
        if cleaned:
            start = match.start(1) + cleaned[0]
            end = _end_of(text, start, cleaned[1])
            spans.append(Span(start, end, "PERSON", 0.55, "context"))
    for match in _LOWER_NAME_CUE.finditer(text):
        spans.append(Span(match.start(1), match.end(1), "PERSON", 0.5, "context"))
    for match in _PLACE_CUES.finditer(text):
        cleaned = _clean(match.group(1))
        if not cleaned:
            continue
        weak_cue = match.group(0).split()[0].lower() in {"from", "in", "to"}
        if weak_cue and not _ALL_CAPS.match(cleaned[1]):
            continue  # "in Paris" is NER's job; "to ESPOO" is missed by it
        start = match.start(1) + cleaned[0]
        spans.append(Span(start, _end_of(text, start, cleaned[1]), "LOCATION", 0.5, "context"))
    return spans


# A place after a preposition of place or motion ("moved from Tjæreborg", "train to Dej"):
# only a guess, kept by `ordinary.trim_person` when its words are not everyday words.
_PLACE_AFTER = re.compile(
    r"\b(?:[Ff]rom|[Ii]n|[Tt]o|[Nn]ear|[Aa]round|[Vv]ia|[Oo]utside|[Tt]owards?)[ \t]+("
    + _NAME_WORD
    + r"(?:(?:[ \t]+|-)"
    + _NAME_WORD
    + r"){0,2})"
)
# Chat logs and dialogue: a speaker's name at the start of a line, before a colon (see
# `_names_speaker` for two words).
_SPEAKER = re.compile(
    r"(?m)^[ \t>]*(?:\[[^\]\n]{1,20}\][ \t]*)?([^\W\d_][\w'’-]+(?:[ \t][^\W\d_][\w'’-]+)?)"
    r":[ \t]"
)


_CUED_NAME = (
    r"(" + UPPER + r"[^\W\d_]+(?:['’-][^\W\d_]+)?)(?:[ \t]+("
    + UPPER + r"[^\W\d_]+(?:['’-][^\W\d_]+)?))?(?![\w'’-])"
)  # fmt: skip
# Words that put a person's name after them: a request to contact someone, first in a
# sentence or line ("Remind Sunny to pay", "Tell Hope I said hi"; not "Pay" or "Visit": a
# bill, a town follow them as often), or a family word or a role ("Grandpa Frank",
# "Nurse Hope Wood").
_REQUESTS = (
    "Call Ring Text Email E-mail Ask Tell Remind Invite Thank Message Phone Meet Ping".split()
    + ["Call back", "Text back", "Pick up", "Drop off", "Collect"]
)
# Family words and roles written before a given name ("Grandpa Frank", "Nurse Hope Wood").
_KIN = "uncle aunt auntie aunty grandma grandpa granny grandad granddad nana nan cousin".split()
_ROLES_BEFORE_NAMES = """nurse midwife coach pastor reverend rev\\.? rabbi imam father sister
    officer sergeant sgt\\.? captain chef""".split()
# Verbs of giving or telling, before the person and the thing given ("Sent Ivy the link");
# those also read written small ("gave jess the spare key"), and the rest.
_GIVING = "sent gave lent showed handed passed owe owes owed paid texted emailed told".split()
_GIVING_ALL = (*_GIVING, *"bought promised offered messaged wished thanked".split())
_OBJECT = r"the|a|an|my|our|your|his|her|their|this|that|some|back"
_CUES_BEFORE_NAMES = (
    re.compile(
        r"(?m)(?:^|(?<=[.!?])[ \t]+)[ \t>*•-]*(?:" + "|".join(_REQUESTS) + r")[ \t]+" + _CUED_NAME
    ),
    re.compile(
        r"\b(?:"
        + "|".join(word.capitalize() for word in (*_KIN, *_ROLES_BEFORE_NAMES))
        + r")[ \t]+"
        + _CUED_NAME
    ),
    # a verb of giving or telling, the person, then the thing: "Sent Ivy the link", "I
    # lent Hope my drill", "paid Rose back" (a thing has no such object after it)
    re.compile(
        r"\b(?:"
        + "|".join(f"[{verb[0].upper()}{verb[0]}]{verb[1:]}" for verb in _GIVING_ALL)
        + r")[ \t]+"
        + _CUED_NAME
        + r"(?=[ \t]+(?:"
        + _OBJECT
        + r"|I)\b)"
    ),
)

# "Will" first in a sentence and before a verb a person does ("Will is picking the kids
# up", "Will said he'd call"): no modal verb comes before one of these, so it is the name;
# and capitalised after a word in lower case, where no sentence or heading starts.
# The name lists leave "will" out as a function word, so nothing else finds it there.
_WILL_FIRST = re.compile(
    r"(?m)(?:^|(?<=[.!?])[ \t]+)[ \t>*•-]*(Will)[ \t]+(?:"
    + "|".join(verb for verb in PERSON_VERBS if verb != "will")
    + r"|had|rang|texted|messaged|sent|wrote|told|asked)(?![\w'’-])"
    # or capitalised after a word in lower case: "Lunch with Will", "told Will", "and Will"
    + r"|(?<=[a-z][ \t])(Will)(?![\w'’-])"
)  # fmt: skip

# Verbs a request starts with, some of them given names too ("Ask", "Bill"): before a
# role they ask something of it ("Ask the driver to stop"), they do not name anyone.
_ASKING = frozenset(fold(request.split()[0]) for request in _REQUESTS) | frozenset(
    "pay visit let have get make see help send book hire warn".split()
)
# A name followed by who the person is or where from: "Dawn the accountant called",
# "Grace, our cleaner, comes Friday", "Rob my neighbour has the key", "Bill from next
# door". Everyday words as given names ("Dawn", "Grace", "Rob") give nothing else away:
# no model reads them as names there.
_NAME_BEFORE_ROLE = re.compile(
    r"(?<![\w'’-])" + _CUED_NAME + r"(?:,?[ \t]+(?:the|my|our|your|his|her|their)[ \t]+(?:"
    + "|".join(sorted(set(TRADES) | set(RELATIONS))) + r")s?\b"
    # or where the person is from: "Bill from next door needs his bin back"
    + r"|[ \t]+from[ \t]+(?:next[ \t]door|work|upstairs|downstairs|across[ \t]the[ \t]road|"
    r"down[ \t]the[ \t]road|church|school|uni|college|choir|book[ \t]club|the[ \t]gym|"
    r"the[ \t]office|accounts|accounting|finance|payroll|HR|IT|sales|marketing|legal|"
    r"reception)\b)"
)  # fmt: skip

# Written small: a family word or a verb of giving before a listed given name ("uncle
# frank still hasn't paid", "gave jess the spare key"), everyday word or not.
_FAMILY_SMALL = re.compile(
    r"\b(?:"
    + "|".join(word for word in _KIN if word != "nan")  # "nan": a missing value
    + r")[ \t]+([a-z][a-z'’-]+)(?![\w'’-])"
)
_GIVING_SMALL = re.compile(
    r"\b(?:" + "|".join(_GIVING) + r")[ \t]+([a-z][a-z'’-]+)(?=[ \t]+(?:" + _OBJECT + r")\b)"
)
# A given name that is an everyday word, capitalised first in a sentence before a verb,
# where the same word (or a form of it) is written small elsewhere in the text ("Hope hopes
# the results come back", "Sky painted the sky purple"): the writer told them apart.
_FIRST_BEFORE_VERB = re.compile(
    r"(?m)(?:^|(?<=[.!?])[ \t]+)[ \t>*•-]*(" + UPPER + r"[a-z]+)[ \t]+"
    r"([a-z]+(?:ed|s)|" + "|".join(PERSON_VERBS) + r"|may|might|can|could|would|should|"
    r"must|went|got|took|made|spent|swam|ran|ate|saw|gave|drove|wrote|lost|won|fell|kept|"
    r"bought|thought|found|met|sold|sat|stood|slept|flew|knew|broke|spoke|woke|wore)\b"
)

# Who is writing, saying so: "Hi, it's Precious from the regional office", "This is Grace
# speaking", "hey, frank here". The name is a listed given name, everyday word or not.
_SELF_NAMED = re.compile(
    r"\b(?:[Ii]t['’]s|[Ii]t[ \t]+is|[Tt]his[ \t]+is)[ \t]+" + _CUED_NAME
    + r"(?=[ \t]*(?:,|[ \t](?:here|from|speaking|calling|again)\b))"
)  # fmt: skip
_HERE_SMALL = re.compile(
    r"(?m)(?:^|\b(?i:hi|hey|hello|morning|evening|ok|okay)\b[ \t,!]*)([a-z][a-z'’-]+)"
    r"[ \t]+(?i:here)\b"
)
# A family called by its surname: "Baker family reunion", "the Okafor household"; not an
# adjective that a surname list holds too ("the Royal family", "a Young family").
_FAMILY = re.compile(r"(?<![\w'’-])(" + UPPER + r"[a-z'’-]+)[ \t]+(?:family|families|household)\b")
_FAMILY_ADJECTIVES = frozenset(
    """royal holy first crime host foster nuclear extended blended modern whole same new
    old big small young little happy entire immediate ruling sacred good great""".split()
)

# The same request written small, anywhere in a line ("running late, tell alexa to
# start"): only a listed given name no dictionary holds, since capitals tell nothing.
_ASKED_SMALL = re.compile(
    r"\b(?:call|ring|text|email|ask|tell|remind|invite|thank|message|ping|cc|meet|"
    r"pick up|drop off|collect)[ \t]+"
    r"([a-zß-ÿ][^\W\d_]+)(?![\w'’-])"
)
_NOT_NAMES_SMALL = frozenset(word.lower() for word in NOT_NAMES)


def _with_surname(match: re.Match[str], lists: NameLists) -> Span:
    """The given name a cue matched (group 1), with the word after it (group 2) when that
    is a listed surname."""
    second = match.group(2)
    end = match.end(2) if second and lists.is_last(second) else match.end(1)
    return Span(match.start(1), end, "PERSON", 0.7, "cued")


def find_cued_names(text: str, lists: NameLists) -> list[Span]:
    """PERSON spans of the names a request, a family word or role, or a verb of giving puts
    after it, or a trade or relation after them: a listed given name, everyday word or not
    ("Remind Sunny to pay", "Grandpa Frank", "Nurse Hope Wood", "Sent Ivy the link", "Dawn
    the accountant called"), with the capitalised word after it when that is a listed
    surname; and "Will" first in a sentence before a verb ("Will is picking them up"). A
    word no name list holds is not one ("Call Support", "Father Christmas"). Written
    small, a request names a listed given name no dictionary holds ("tell alexa"). The
    writer naming themself ("Hi, it's Precious from…", "hey, frank here") and a listed
    surname before "family" ("Baker family reunion") are names too."""
    spans = []
    for pattern in (*_CUES_BEFORE_NAMES, _NAME_BEFORE_ROLE):
        for match in pattern.finditer(text):
            if not lists.is_first(match.group(1)) or fold(match.group(1)) in _ASKING:
                continue  # "Ask the driver to stop": a request ("Ask" is a given name too)
            spans.append(_with_surname(match, lists))
    for match in _WILL_FIRST.finditer(text):
        if match.group(1):
            spans.append(Span(*match.span(1), "PERSON", 0.7, "cued"))
            continue
        before = _WORD_BEFORE.search(text, max(0, match.start(2) - _BEFORE_CHARS), match.start(2))
        if before and before.group(1)[0].islower():  # "with Will", not "What Will Happen"
            spans.append(Span(*match.span(2), "PERSON", 0.7, "cued"))
    for pattern in (_FAMILY_SMALL, _GIVING_SMALL, _HERE_SMALL):
        for match in pattern.finditer(text):
            word = match.group(1)
            if lists.is_first(word) and word not in _NOT_NAMES_SMALL:
                spans.append(Span(*match.span(1), "PERSON", 0.7, "cued"))
    small: dict[str, bool] = {}  # whether the text writes a word small: a search of all of it
    for match in _FIRST_BEFORE_VERB.finditer(text):
        word = match.group(1)
        if lists.is_first(word) and lists.is_word(word):
            if word not in small:
                form = rf"(?<![\w'’-]){re.escape(word.lower())}(?:e?s|e?d|ing)?\b"
                small[word] = re.search(form, text) is not None
            if small[word]:
                spans.append(Span(*match.span(1), "PERSON", 0.7, "cued"))
    for match in _SELF_NAMED.finditer(text):
        if lists.is_first(match.group(1)):
            spans.append(_with_surname(match, lists))
    for match in _FAMILY.finditer(text):
        word = match.group(1)
        if lists.is_last(word) and fold(word) not in _FAMILY_ADJECTIVES:
            spans.append(Span(*match.span(1), "PERSON", 0.7, "cued"))
    for match in _ASKED_SMALL.finditer(text):
        word = match.group(1)
        if lists.is_first(word) and not lists.is_word(word) and word not in _NOT_NAMES_SMALL:
            spans.append(Span(match.start(1), match.end(1), "PERSON", 0.7, "cued"))
    return spans


# One to three initials, then a capitalised word: "R. Toft", "A. J. Cook", "J.R.R. Tolkien".
_INITIALLED = re.compile(
    r"(?<![\w.])((?:"
    + UPPER
    + r"\.[ \t]?){1,3})[ \t]*("
    + UPPER
    + r"[^\W\d_]+(?:['’-][^\W\d_]+)?)\b"
)
# The word before initials that are not a person's: a label ("Plan B.", "Section A.").
_WORD_BEFORE = re.compile(r"([^\W\d_]+)[ \t]*$")
_BEFORE_CHARS = 40  # how far back the word before initials is looked for (not the whole text)


def find_initialled(text: str, lists: NameLists) -> list[Span]:
    """PERSON spans of listed surnames after initials ("Regards, J. Mason", "by K.
    Church"): initials stand before names, so a surname that is also an everyday word is
    a name there. Initials after a capitalised word other than an honorific ("Plan B.",
    "Section A.") label something; they, and the words after them, stay as they are."""
    spans = []
    for match in _INITIALLED.finditer(text):
        before = _WORD_BEFORE.search(text, max(0, match.start() - _BEFORE_CHARS), match.start())
        if before and before.group(1)[0].isupper() and before.group(1) not in _HONORIFICS:
            continue
        if lists.is_last(match.group(2)):
            spans.append(Span(match.start(2), match.end(2), "PERSON", 0.7, "initials"))
    return spans


def find_guessed_entities(text: str) -> list[Span]:
    """Places after prepositions and chat speakers: guesses for `ordinary` to vet."""
    spans = [
        Span(m.start(1), m.end(1), "LOCATION", 0.45, "place-cue")
        for m in _PLACE_AFTER.finditer(text)
    ]
    spans += [
        Span(m.start(1), m.end(1), "PERSON", 0.5, "speaker")
        for m in _SPEAKER.finditer(text)
        if _names_speaker(m.group(1))
    ]
    return spans


def _names_speaker(label: str) -> bool:
    """False for a label written like a sentence: "Trip plan:", "Amount due:" (a capital, then
    a lower-case word); "Anna Weber:" and a chat's "anna weber:" name their speaker."""
    words = label.split()
    return len(words) == 1 or not (words[0][0].isupper() and words[1][0].islower())


def _end_of(text: str, start: int, words: str) -> int:
    """End offset of `words` (joined by single spaces) as they appear from `start`.

    Plain string steps, not a pattern built from the words: a regular expression per name
    would fill `re`'s cache of compiled patterns and push out the fixed ones that every
    text needs (phonenumbers' above all), which then compile again.
    """
    position = start
    for index, word in enumerate(words.split()):
        if index:
            gap = position
            while gap < len(text) and text[gap].isspace():
                gap += 1
            if gap == position:
                return start + len(words)
            position = gap
        if not text.startswith(word, position):
            return start + len(words)
        position += len(word)
    return position
