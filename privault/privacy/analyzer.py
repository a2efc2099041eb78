"""presidio's side of detection: its pattern recognizers over the spaCy parse we already made.

Built once by `privault.privacy.engine.load_engine`. Two things differ from presidio's
defaults, both for cost at write time and neither for what is found:

* the small pipeline runs without its lemmatizer (and the tagger-to-POS mapping it needs);
  presidio's context words ("phone", "license", ...) are matched against the lower-cased
  words instead. presidio matches a context word as a *part* of a nearby word ("number" in
  "numbers", "call" in "called"), so the inflections a lemma would undo still match;
* each pattern recognizer first checks that the text holds what every one of its patterns
  needs (`PRECHECKS`: a digit for card, date, IBAN and licence numbers, a dot before a
  letter for URLs, ...), and a text without it is not matched at all: nothing there could
  match. The phone recognizer (python-phonenumbers, tried in every listed region, by far
  the most expensive) needs as many digits as the shortest valid number of any region.

presidio's `EmailRecognizer` is not used: it validates domains against the public suffix
list (fetched from the internet by default) and so misses addresses on private domains.
privault's own `find_emails` takes any dotted domain.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

# spaCy labels presidio's engine has no entity for (it logs a warning for each, once).
_UNMAPPED_LABELS = [
    "CARDINAL", "ORDINAL", "QUANTITY", "MONEY", "PERCENT", "WORK_OF_ART", "LAW", "LANGUAGE",
    "EVENT", "PRODUCT", "FAC",
]  # fmt: skip

# python-phonenumbers validates per region; these cover the common European, North
# American and Commonwealth formats (privault's own phone recognizer covers the rest).
PHONE_REGIONS = ("US", "GB", "DE", "FR", "IT", "ES", "NL", "BE", "CH", "AT", "SE", "AU", "IN")
# The fewest digits a valid number of any region has (its national number: Austrian and
# German numbers can be four digits long). A test checks this against phonenumbers' data.
PHONE_MIN_DIGITS = 4


def nlp_engine(nlp: Any) -> Any:
    """presidio's spaCy engine over a pipeline we loaded (its own load may download)."""
    from presidio_analyzer.nlp_engine import NerModelConfiguration, NlpArtifacts, SpacyNlpEngine

    class _LoadedSpacyEngine(SpacyNlpEngine):
        def __init__(self) -> None:
            super().__init__(
                models=[{"lang_code": "en", "model_name": nlp.meta.get("name", "en")}],
                # Our spans come from the spaCy doc itself; telling presidio to ignore the
                # labels it has no mapping for only stops a warning per label.
                ner_model_configuration=NerModelConfiguration(labels_to_ignore=_UNMAPPED_LABELS),
            )
            self.nlp = {"en": nlp}  # type: ignore[assignment]

        def load(self) -> None:
            """Nothing to load: the pipeline was given."""

        def artifacts(self, doc: Any) -> Any:
            """presidio's artifacts of an English doc the caller parsed."""
            return self._doc_to_nlp_artifact(doc, "en")

        def _doc_to_nlp_artifact(self, doc: Any, language: str) -> Any:
            # As presidio's, except that lower-cased words stand in for the lemmas (no
            # lemmatizer runs, see the module docstring).
            entities, scores = self._get_updated_entities(
                self._get_entities(doc), self._get_scores_for_entities(doc)
            )
            return NlpArtifacts(
                entities=entities,
                tokens=doc,
                tokens_indices=[token.idx for token in doc],
                lemmas=[token.lower_ for token in doc],
                nlp_engine=self,
                language=language,
                scores=scores,
            )

    return _LoadedSpacyEngine()


def analyzer(nlp_engine: Any) -> Any:
    """presidio's analyzer with the pattern recognizers privault keeps (no NER of its own)."""
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry

    registry = RecognizerRegistry(supported_languages=["en"])
    for recognizer_class, check in prechecks().items():
        kwargs = {"supported_regions": PHONE_REGIONS} if check is has_phone_digits else {}
        registry.add_recognizer(_prechecked(recognizer_class, check)(**kwargs))
    return AnalyzerEngine(registry=registry, nlp_engine=nlp_engine, supported_languages=["en"])


def prechecks() -> dict[type[Any], Callable[[str], bool]]:
    """Each presidio recognizer privault runs, and what a text needs for it to match at all.

    Read off the recognizers' patterns: every alternative of every pattern of a
    digit-checked recognizer holds a digit (a digit class or escape), every IP pattern a digit or
    a colon (`::` is an address), every URL pattern a dot before its top-level domain.
    """
    from presidio_analyzer.predefined_recognizers import (
        CreditCardRecognizer,
        CryptoRecognizer,
        DateRecognizer,
        IbanRecognizer,
        IpRecognizer,
        MedicalLicenseRecognizer,
        PhoneRecognizer,
        UrlRecognizer,
        UsBankRecognizer,
        UsItinRecognizer,
        UsLicenseRecognizer,
        UsPassportRecognizer,
        UsSsnRecognizer,
    )

    return {
        CreditCardRecognizer: has_digit,
        CryptoRecognizer: has_digit,
        DateRecognizer: has_digit,
        IbanRecognizer: has_digit,
        IpRecognizer: lambda text: ":" in text or has_digit(text),
        MedicalLicenseRecognizer: has_digit,
        PhoneRecognizer: has_phone_digits,
        UrlRecognizer: lambda text: _DOT_LETTER.search(text) is not None,
        UsBankRecognizer: has_digit,
        UsItinRecognizer: has_digit,
        UsLicenseRecognizer: has_digit,
        UsPassportRecognizer: has_digit,
        UsSsnRecognizer: has_digit,
    }


def _prechecked(recognizer_class: type[Any], check: Callable[[str], bool]) -> type[Any]:
    """`recognizer_class` that returns nothing at once for a text failing `check`."""

    def analyze(self: Any, text: str, *args: Any, **kwargs: Any) -> Any:
        if not check(text):
            return []
        return recognizer_class.analyze(self, text, *args, **kwargs)

    # The same class name: presidio names a recognizer (and its results) after its class.
    return type(recognizer_class.__name__, (recognizer_class,), {"analyze": analyze})


# A dot before a letter (of any script: presidio matches top-level domains ignoring case).
_DOT_LETTER = re.compile(r"\.[^\W\d_]")


# A decimal digit of any script: what presidio's patterns (`\d`, `[0-9]`) and the phone
# number parser can match. A regex scans in C: the check runs for each of a dozen
# recognizers on every text written, and a Python loop over the characters showed in the
# write profile (`benchmarks.pii_profile`).
_DIGIT = re.compile(r"\d")


def has_digit(text: str) -> bool:
    """True when `text` holds a decimal digit of any script."""
    return _DIGIT.search(text) is not None


def has_phone_digits(text: str) -> bool:
    """True when `text` has enough digits (of any script) to hold a valid phone number."""
    found = itertools.islice(_DIGIT.finditer(text), PHONE_MIN_DIGITS)
    return sum(1 for _ in found) >= PHONE_MIN_DIGITS
