"""Detection: text in, PII spans out, with a version that says how they were found.

Spans are computed once when text is written and stored with `Detector.version`; reads
apply stored spans. So the detector is policy-independent: it runs every recognizer that
any policy might need (NER, the custom patterns of every loaded policy, the vault's known
entities) with a low floor, and each policy picks what it wants at read time (kinds,
thresholds, whether NER spans count). When the configuration or the known entities change,
the version changes and stored spans are re-scanned.

`Detector` runs presidio + spaCy (loaded lazily, once per process). `FakeDetector` is the
deterministic, regex-only stand-in for unit tests of everything above this package.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import astuple, dataclass, field
from pathlib import Path

from privault.models import catalog
from privault.privacy import recognizers as rec
from privault.privacy.cue_words import find_cued_names, find_guessed_entities, find_initialled
from privault.privacy.name_forms import find_display_names, find_handles, find_signed
from privault.privacy.names import load_name_lists
from privault.privacy.ordinary import trim_person
from privault.privacy.pieces import PIECE_CHARS
from privault.privacy.policy import Policy
from privault.privacy.propagation import has_lower_case_form, propagate
from privault.privacy.second_pass import second_pass_can_add
from privault.privacy.street_addresses import postcodes_beside_towns, regions_beside_towns
from privault.privacy.table_columns import find_column_values, header_labels
from privault.privacy.tagger import WEIGHTS_SHA256, load_tagger
from privault.privacy.things import may_name_a_named_day
from privault.spans import Span

# Bump when recognizer code changes in a way that changes spans: stored spans get rescanned.
DETECTOR_REVISION = "43"
# Revisions that could change the spans of some texts only, each with a test that holds
# for every text it could have changed: after such revisions alone, a text scanned before
# them that no test holds for keeps its spans, marked as the current version's without
# being read again (`Detector.rereads`); at a million sections a re-scan takes ~10 hours.
# A revision that may change any text's spans is not listed.
REVISION_SCOPES: dict[int, Callable[[str], bool]] = {
    38: lambda text: words_apart(text) != text,  # words joined by underscores read apart
    39: lambda text: bool(header_labels(words_apart(text))),  # tables read by their headers
    40: lambda text: len(text) > PIECE_CHARS,  # long texts read in pieces
    41: lambda text: has_lower_case_form(words_apart(text), load_name_lists().is_word),
    42: lambda text: may_name_a_named_day(words_apart(text)),  # "Black Friday", "Ash Wednesday"
}
_CACHE_CHARS = 500  # only short texts (queries, titles) are worth remembering
_CACHE_ENTRIES = 256
# Spans below this score are not worth storing: no shipped policy would mask them.
STORE_FLOOR = 0.3
# The second entity recogniser (see `privault.privacy.engine`), a model in the models folder.
SECOND_NER_MODEL = "en-core-web-md-ner"


def second_ner_folder(models_dir: Path) -> Path | None:
    """The verified folder of the second NER model, or None when it is not installed.

    Without it detection runs the small pipeline alone (and the detector version says
    so). Installed but altered or partial files raise `ModelError`: never a silent fallback.
    """
    model = catalog.manifest(models_dir, SECOND_NER_MODEL)
    if not any(catalog.file_path(models_dir, model, f).exists() for f in model.files):
        return None
    return catalog.verified_path(models_dir, SECOND_NER_MODEL)


@dataclass(frozen=True)
class CustomPattern:
    """A policy's own pattern recognizer, compiled."""

    name: str
    kind: str
    regex: str
    score: float
    context: tuple[str, ...] = ()


@dataclass(frozen=True)
class DetectorConfig:
    """Everything that decides which spans are found (and so the detector version)."""

    ner: bool = True
    custom_patterns: tuple[CustomPattern, ...] = ()
    known_entities: tuple[tuple[str, str], ...] = ()  # (value, kind), sorted
    floor: float = STORE_FLOOR
    second_ner: Path | None = None  # folder of the second NER model (versioned by name)

    @classmethod
    def build(
        cls,
        policies: Iterable[Policy] = (),
        known_entities: Iterable[str] | Mapping[str, str] = (),
        *,
        ner: bool = True,
        second_ner: Path | None = None,
    ) -> DetectorConfig:
        """The union of what the given policies need, plus the vault's known entities."""
        patterns = {
            (p.name, p.kind, p.regex, p.score, tuple(p.context))
            for policy in policies
            for p in policy.patterns
        }
        known = rec.as_known(known_entities)
        return cls(
            ner=ner,
            custom_patterns=tuple(CustomPattern(*spec) for spec in sorted(patterns)),
            known_entities=tuple(sorted(known.items())),
            second_ner=second_ner if ner else None,
        )

    @property
    def version(self) -> str:
        """A short stable hash of this configuration and the recognizer revision."""
        return self.version_at(DETECTOR_REVISION)

    def version_at(self, revision: str) -> str:
        """`version` as the recognizers of `revision` made it with this configuration."""
        payload = json.dumps(
            [
                revision,
                self.ner,
                [astuple(pattern) for pattern in self.custom_patterns],
                self.known_entities,
                self.floor,
                SECOND_NER_MODEL if self.second_ner else None,
                WEIGHTS_SHA256 if self.ner else None,  # retrained tagger: scan again
            ],
            sort_keys=True,
            default=list,
        )
        return f"r{revision}-" + hashlib.sha256(payload.encode()).hexdigest()[:16]


@dataclass
class _Compiled:
    patterns: list[tuple[CustomPattern, re.Pattern[str]]] = field(default_factory=list)
    known: dict[str, str] = field(default_factory=dict)


def _compile(config: DetectorConfig) -> _Compiled:
    compiled = _Compiled(known=dict(config.known_entities))
    for pattern in config.custom_patterns:
        compiled.patterns.append((pattern, re.compile(pattern.regex)))
    return compiled


# A run of visible characters holding one of these keeps its underscores (`words_apart`):
# an address, a handle or a link is read whole.
_KEEP_JOINED = ("@", "://", "www.")
_VISIBLE = re.compile(r"\S+")


def words_apart(text: str) -> str:
    """`text` as the recognizers read it: an underscore between words is a space there
    ("scan_passport_maria_gonzalez.jpg", "trip_to_lisbon"), except in a run that holds an
    address, a handle or a link. The same length: spans found in it are spans of `text`.

    A name joined to other words by underscores is one token to spaCy and the tagger, so
    "Brno_conference_2024.pdf" passed unmasked, and a lone word such a token starts with
    ("fourier_transform_notes.pdf") was judged a name on its own.
    """
    if "_" not in text:
        return text
    return _VISIBLE.sub(
        lambda run: (
            run.group()
            if any(mark in run.group() for mark in _KEEP_JOINED)
            else run.group().replace("_", " ")
        ),
        text,
    )


def _own_spans(text: str, compiled: _Compiled, read: str | None = None) -> list[Span]:
    """Spans from privault's regex recognizers (shared by the real and the fake detector),
    those that read words in `read` (`words_apart(text)`, the same length) where given;
    the vault's known entities and the policies' own patterns match `text` as written."""
    read = text if read is None else read
    spans = rec.find_addresses(read) + rec.find_phone_numbers(read) + rec.find_cards(read)
    spans += rec.find_ibans(read) + rec.find_emails(read) + rec.find_driver_licenses(read)
    spans += rec.find_known_entities(text, compiled.known)
    for pattern, regex in compiled.patterns:
        spans += rec.find_pattern(
            text, regex, pattern.kind, pattern.score, pattern.context, f"custom:{pattern.name}"
        )
    return spans


class Detector:
    """presidio pattern recognizers + spaCy NER + privault's recognizers, fully offline.

    Construction is cheap; the engine loads on the first `detect` (or `load()`), once per
    process. A detector that cannot load raises `ModelError`, never returns "no spans".
    """

    def __init__(self, config: DetectorConfig | None = None) -> None:
        self.config = config or DetectorConfig()
        self.version: str = self.config.version
        self._compiled = _compile(self.config)
        # A query is scanned by search and again by the statements it includes; short texts
        # repeat, and a spaCy call costs more than the rest of a search, so recent short
        # results are kept.
        self._recent: OrderedDict[str, list[Span]] = OrderedDict()
        # The versions of this configuration under the revisions scoped since (see
        # REVISION_SCOPES), each with the tests of the revisions after it.
        self._scoped: dict[str, list[Callable[[str], bool]]] = {}
        current = int(DETECTOR_REVISION)
        for later in range(current, 0, -1):
            if later not in REVISION_SCOPES:
                break
            tests = [REVISION_SCOPES[r] for r in range(later, current + 1)]
            self._scoped[self.config.version_at(str(later - 1))] = tests

    def rereads(self, text: str, version: str | None) -> bool:
        """Whether `text`, whose stored spans came from `version` (None: never scanned),
        must be read again to have this detector's spans: False only after revisions
        scoped to texts like it none of whose tests holds for it (`REVISION_SCOPES`)."""
        tests = self._scoped.get(version) if version is not None else None
        return tests is None or any(test(text) for test in tests)

    @property
    def ner_models(self) -> list[str]:
        """The NER pipelines this detector runs (after `load`), for reports."""
        from privault.privacy.engine import SPACY_MODELS, load_engine

        if not self.config.ner:
            return []
        second = [SECOND_NER_MODEL] if self.config.second_ner else []
        return [load_engine(self.config.second_ner).model_name or SPACY_MODELS[0], *second]

    def load(self) -> None:
        """Load the engine now (the CLI calls this to fail early with a clear error)."""
        from privault.privacy.engine import load_engine

        load_engine(self.config.second_ner)
        if self.config.ner:
            load_tagger()

    def detect(self, text: str) -> list[Span]:
        """Every span found in `text` at or above the storage floor, sorted by position."""
        return self.detect_many([text])[0]

    def detect_many(self, texts: Sequence[str]) -> list[list[Span]]:
        """`detect` for each text, with spaCy run over all of them in batches.

        One call per write batch: the same spans as `detect` text by text, at a fraction
        of spaCy's per-call cost. Repeated texts are scanned once; recent short ones not
        again.
        """
        todo = list(
            dict.fromkeys(text for text in texts if text.strip() and text not in self._recent)
        )
        found = dict(zip(todo, self._scan(todo), strict=True)) if todo else {}
        results = []
        for text in texts:
            if text in found:
                results.append(list(found[text]))
            elif text in self._recent:
                self._recent.move_to_end(text)
                results.append(list(self._recent[text]))
            else:
                results.append([])  # blank
        for text, spans in found.items():
            if len(text) <= _CACHE_CHARS:
                self._recent[text] = spans
                if len(self._recent) > _CACHE_ENTRIES:
                    self._recent.popitem(last=False)
        return results

    def _scan(self, texts: list[str]) -> list[list[Span]]:
        """The finished spans of each text: the first pass, then the second where it can add.

        The second entity recogniser reads only the texts `second_pass_can_add` picks; a
        text it adds entities to is finished again from the union.
        """
        from privault.privacy.engine import load_engine

        engine = load_engine(self.config.second_ner)
        read = [words_apart(text) for text in texts]
        analyzed = engine.analyze_many(read, ner=self.config.ner)
        # Each text finished straight after its own spans: both read the tagger's
        # probabilities of it, kept for the last texts it read (`tagger.KEPT_TEXTS`).
        own: list[list[Span]] = []
        found: list[list[Span]] = []
        for text, words, spans in zip(texts, read, analyzed, strict=True):
            own.append(self._own(text, words))
            found.append(self._finished(words, spans + own[-1]))
        if self.config.ner and engine.has_second:
            lists = load_name_lists()
            again = [
                index
                for index, words in enumerate(read)
                if second_pass_can_add(words, found[index], lists)
            ]
            extra = engine.second_entities([read[index] for index in again])
            for index, spans in zip(again, extra, strict=True):
                if spans:  # entity spans before privault's own, as in the first pass
                    union = analyzed[index] + spans + own[index]
                    found[index] = self._finished(read[index], union)
        return found

    def _finished(self, text: str, spans: list[Span]) -> list[Span]:
        """`_finished`, after the name tagger has judged the guessed spans (with NER on)."""
        if self.config.ner:
            spans = load_tagger().judge(text, spans)
        return _finished(text, spans, self.config.floor)

    def _own(self, text: str, read: str) -> list[Span]:
        """privault's recognizers that need no parse (the same whatever NER finds), those
        that read words reading `read` (`words_apart(text)`)."""
        spans = _own_spans(text, self._compiled, read) + rec.find_context_entities(read)
        lists = load_name_lists()
        spans += find_guessed_entities(read) + find_handles(read, lists)
        spans += find_initialled(read, lists) + find_display_names(read)
        spans += find_signed(read, lists) + find_cued_names(read, lists)
        spans += find_column_values(read)
        if self.config.ner:
            spans += load_tagger().spans(read)
        return spans


class FakeDetector:
    """Deterministic regex-only detector for unit tests: no spaCy, no presidio.

    Finds emails, phone numbers, addresses, card numbers, US SSNs, IPv4 addresses, known
    entities, custom patterns, and "Firstname Lastname" after Mr/Mrs/Ms/Dr as PERSON.
    """

    _REGEXES = (
        (re.compile(r"\b\d{3}-\d{2}-\d{4}\b"), "US_SSN", 0.85),
        (re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b"), "IP_ADDRESS", 0.9),
        (re.compile(r"\b(?:Mr|Mrs|Ms|Dr)\.?\s+[A-Z]\w+(?:\s+[A-Z]\w+)?"), "PERSON", 0.85),
    )

    def __init__(self, config: DetectorConfig | None = None) -> None:
        self.config = config or DetectorConfig(ner=False)
        self.version: str = "fake-" + self.config.version
        self._compiled = _compile(self.config)

    def load(self) -> None:
        """Nothing to load."""

    def rereads(self, text: str, version: str | None) -> bool:
        """Always: the fake has no revisions."""
        return True

    def detect(self, text: str) -> list[Span]:
        """Spans from the fixed regexes and privault's own recognizers."""
        spans = [
            Span(match.start(), match.end(), kind, score, "pattern")
            for regex, kind, score in self._REGEXES
            for match in regex.finditer(text)
        ]
        return _finish(spans + _own_spans(text, self._compiled), self.config.floor)

    def detect_many(self, texts: Sequence[str]) -> list[list[Span]]:
        """`detect` for each text."""
        return [self.detect(text) for text in texts]


def _finished(text: str, spans: list[Span], floor: float) -> list[Span]:
    """All spans of `text` finished: ordinary words trimmed, names spread, weak ones dropped."""
    lists = load_name_lists()
    labels = header_labels(text)
    if labels:  # a table's field names ("Last Name", "City") are no one's
        spans = [s for s in spans if not any(a <= s.start and s.end <= b for a, b in labels)]
    spans = [kept for span in spans for kept in trim_person(text, span, lists)]
    spread = propagate(text, spans, lists.is_word)
    spans += [kept for span in spread for kept in trim_person(text, span, lists)]
    towns = [span for span in spans if span.kind == "LOCATION" and span.score >= 0.5]
    spans += postcodes_beside_towns(text, towns) + regions_beside_towns(text, towns)
    return _finish(spans, floor)


def _finish(spans: list[Span], floor: float) -> list[Span]:
    """Drop weak and duplicate spans; keep overlaps of different kinds for the gate to pick."""
    best: dict[tuple[int, int, str], Span] = {}
    for span in spans:
        if span.score < floor:
            continue
        key = (span.start, span.end, span.kind)
        if key not in best or span.score > best[key].score:
            best[key] = span
    return sorted(best.values())
