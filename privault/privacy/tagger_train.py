"""Train the name tagger (`privault.privacy.tagger`) on its generated corpus.

    python -m privault.privacy.tagger_train [--count 120000] [--epochs 4] [--models 4] [--write]

Multinomial logistic regression over the tagger's hashed features, fitted with AdaGrad in
mini-batches of shuffled tokens, four times on four corpora and averaged (see `build`),
everything seeded: the same lists and numpy give the same weights. On two cores the
default takes about four minutes of CPU and half a GB of memory. `--write` stores the
weights as `tagger_weights.bin` beside the module (float16: the model does not need more)
and prints the sha256 to pin as `WEIGHTS_SHA256`.

The corpus and its features read the dictionary as printed (`training_lexicon`): names it
lists as words ("tom", "henry") are drawn as everyday words too, as "rose" is. At run
time the lexicon reads those names as names (`names.load_name_lists` leaves the name words
out of the ordinary ones), and the tagger reads them as it learned to read names no
dictionary holds. Trained on that run-time reading instead, the tagger found those names
as well but masked more clean titles (1.3% / 4.1% -> 2.0% / 4.8% of the labels set's,
even / odd half) and changed the redaction of 130 of the four sets' 4,400 texts; the
weights trained on the dictionary as printed, read through the run-time lexicon, lost
nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import time
import zlib
from typing import Any

from privault.privacy import tagger, tagger_features
from privault.privacy.names import NameLists, load_name_lists
from privault.privacy.places import load_gazetteer
from privault.privacy.tagger_corpus import Example, corpus
from privault.privacy.tagger_lexicon import Lexicon, spacy_vocabulary

DEFAULT_COUNT = 120000
DEFAULT_EPOCHS = 4
SEED = 37
MODELS = 4  # classifiers averaged (see `build`)
BATCH = 4096
RATE = 0.3
L2 = 3e-5


def labelled(example: Example) -> tuple[str, list[tagger_features.Token], list[int]]:
    """The text of `example`, its tokens and each token's label index."""
    text = "".join(piece for piece, _ in example)
    marks = [0] * len(text)
    position = 0
    for piece, label in example:
        if label != "O":
            marks[position : position + len(piece)] = [tagger.LABELS.index(label)] * len(piece)
        position += len(piece)
    tokens = tagger_features.tokenize(text)
    return text, tokens, [marks[token.start] for token in tokens]


def training_lexicon() -> Lexicon:
    """The lexicon the tagger is trained with: the dictionary as printed, its names
    (`NameLists.name_words`) among its words, no British spellings and no words run
    together (see the module docstring)."""
    lists = load_name_lists()
    printed = NameLists(lists.first, lists.last, lists.dictionary)
    return Lexicon(printed, load_gazetteer(), spacy_vocabulary(), british=False, compounds=False)


def matrices(examples: list[Example], lex: Lexicon) -> tuple[Any, Any]:
    """Feature indices (tokens x features) and labels of every token of `examples`."""
    import numpy as np

    rows: list[Any] = []  # one small array per example: a list of ints would take gigabytes
    labels: list[int] = []
    for example in examples:
        text, tokens, marks = labelled(example)
        if tokens:
            rows.append(np.asarray(tagger_features.features(text, tokens, lex), dtype=np.int32))
        labels.extend(marks)
    return np.concatenate(rows), np.asarray(labels, dtype=np.int64)


def train(features: Any, labels: Any, epochs: int, seed: int = SEED) -> Any:
    """Weights (BUCKETS x labels) fitted to `features` and `labels`."""
    import numpy as np

    classes = len(tagger.LABELS)
    weights = np.zeros((tagger_features.BUCKETS, classes), dtype=np.float64)
    squares = np.full((tagger_features.BUCKETS, classes), 1e-8)
    rng = np.random.default_rng(seed)
    width = features.shape[1]
    for _ in range(epochs):
        order = rng.permutation(len(labels))
        for first in range(0, len(order), BATCH):
            batch = order[first : first + BATCH]
            index = features[batch]
            scores = weights[index].sum(axis=1)
            scores -= scores.max(axis=1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=1, keepdims=True)
            probs[np.arange(len(batch)), labels[batch]] -= 1.0
            flat = index.ravel()
            used = np.unique(flat)
            gradient = np.zeros((len(used), classes))
            where = np.searchsorted(used, flat)
            for label in range(classes):
                gradient[:, label] = np.bincount(
                    where, weights=np.repeat(probs[:, label], width), minlength=len(used)
                )
            gradient = gradient / len(batch) + L2 * weights[used]
            squares[used] += gradient**2
            weights[used] -= RATE * gradient / np.sqrt(squares[used])
            weights[0] = 0.0  # the padding bucket (see `tagger_features.features`) adds nothing
    return weights.astype(np.float32)


def common_words(lex: Lexicon) -> list[str]:
    """Everyday English words: the lower-case words of the small spaCy pipeline's
    vocabulary (built from its training text) that are dictionary words or inflections
    of one ("felines")."""
    lists = lex.lists
    return sorted(
        w
        for w in spacy_vocabulary()
        if lex.flags(w)[2] in "Ww" and (w in lists.words or w not in lists.first)
    )


def build(
    count: int = DEFAULT_COUNT,
    epochs: int = DEFAULT_EPOCHS,
    seed: int = SEED,
    models: int = MODELS,
) -> Any:
    """The mean weights of `models` classifiers, each trained on its own corpus of `count`
    examples (seeds `seed`, `seed + 1`, ...).

    One classifier's figures move with its seed as much as with a change of features or
    corpus (the share of titles it over-masks went from 2% to 5% between two seeds). A
    linear model's mean weights are the mean of its members' scores: the averaged model
    keeps what every corpus teaches and little of what one draw happened to teach.
    """
    import numpy as np

    lex = training_lexicon()
    common = common_words(lex)
    total = np.zeros((tagger_features.BUCKETS, len(tagger.LABELS)), dtype=np.float64)
    for member in range(models):
        examples = corpus(lex.lists, lex.places, common, count, seed + member)
        features, labels = matrices(examples, lex)
        del examples
        total += train(features, labels, epochs, seed + member)
    return (total / models).astype(np.float32)


def serialise(weights: Any) -> bytes:
    """The weights as the shipped file's bytes: little-endian float16, zlib-compressed
    (the model needs no more precision; no archive format, so no timestamps)."""
    return zlib.compress(weights.astype("<f2").tobytes(), 9)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: train, report, optionally write the weights."""
    parser = argparse.ArgumentParser(prog="python -m privault.privacy.tagger_train")
    parser.add_argument("--count", type=int, default=DEFAULT_COUNT)
    parser.add_argument("--epochs", type=int, default=DEFAULT_EPOCHS)
    parser.add_argument("--models", type=int, default=MODELS, help="classifiers averaged")
    parser.add_argument("--write", action="store_true", help="store the weights in the package")
    args = parser.parse_args(argv)
    started = time.process_time()
    if args.models < 1:
        parser.error("--models must be at least 1")
    data = serialise(build(args.count, args.epochs, models=args.models))
    print(f"trained in {time.process_time() - started:.1f} s CPU; {len(data)} bytes")
    print(f"sha256 {hashlib.sha256(data).hexdigest()}")
    if args.write:
        tagger.WEIGHTS_FILE.write_bytes(data)
        print(f"wrote {tagger.WEIGHTS_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
