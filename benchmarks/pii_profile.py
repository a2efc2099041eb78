"""Where detection's write-time CPU goes: each stage of `Detector.detect_many`, timed apart.

    python -m benchmarks.pii_profile --data ../shared/data/pii/synth_dataset_v2.json
        [benchmarks/pii_synth_v1.json ...] [--split even|odd] [--batch N] [--json]

Runs the vault's detector (with the second NER model when installed) over every sentence of
the given sets in batches of `--batch`, as a write does, once to warm up and once timed,
and reports this process's CPU milliseconds per sentence for the whole of `detect_many` and
for its stages, each timed by wrapping the stage's own entry point:

* `small_pipeline` — spaCy's small English pipeline over the batch (tokenizer, tok2vec,
  tagger, its entity recogniser; the parser for texts of several lines: `Engine.parse`);
* `presidio.<Recognizer>` — each of presidio's pattern recognizers (the phone recognizer
  runs python-phonenumbers in every listed region);
* `second_ner` — the second entity recogniser, on the texts `second_pass_can_add` picks
  (`second_ner_share` says what share that was);
* `privault_own` — privault's regex recognizers, cues and guesses (`Detector._own`);
* `finishing` — trimming ordinary words, spreading names, dropping weak spans.

What is left (`other`) is presidio's own bookkeeping and the glue between stages. CPU time
is steadier than wall time on a shared machine; the load average is reported with it.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from benchmarks.pii import _detector
from benchmarks.pii import load_engine as warm_up
from privault.privacy import detector as detector_module
from privault.privacy.detector import Detector, second_ner_folder
from privault.privacy.engine import Engine, load_engine
from privault.privacy.policy import PolicySet


@contextmanager
def _timed(owner: Any, name: str, label: str, spent: dict[str, float]) -> Iterator[None]:
    """Replace `owner.name` with a wrapper that adds its CPU time to `spent[label]`; a
    generator's time is what its steps take (spaCy's pipe does its work lazily)."""
    original = getattr(owner, name)

    def steps(generator: Iterator[Any]) -> Iterator[Any]:
        while True:
            started = time.process_time()
            try:
                item = next(generator)
            except StopIteration:
                return
            finally:
                spent[label] += time.process_time() - started
            yield item

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            result = original(*args, **kwargs)
        finally:
            spent[label] += time.process_time() - started
        return steps(result) if inspect.isgenerator(result) else result

    setattr(owner, name, wrapper)
    try:
        yield
    finally:
        setattr(owner, name, original)


def profile(texts: list[str], batch: int) -> dict[str, Any]:
    """CPU milliseconds per sentence for `detect_many` and each of its stages."""
    policy = PolicySet.load().resolve("standard")
    warm_up()
    engine: Engine = load_engine(second_ner_folder_or_none())
    spent: dict[str, float] = defaultdict(float)
    picked = Counter[str]()

    def run(detector: Detector) -> float:
        started = time.process_time()
        for first in range(0, len(texts), batch):
            detector.detect_many(texts[first : first + batch])
        return time.process_time() - started

    run(_detector(policy))  # warm: spaCy's vocabulary learns the sets' words once
    wraps: list[tuple[Any, str, str]] = [
        (engine, "parse", "small_pipeline"),
        (engine, "second_entities", "second_ner"),
        (Detector, "_own", "privault_own"),
        (detector_module, "_finished", "finishing"),
    ]
    wraps += [
        (recognizer, "analyze", f"presidio.{type(recognizer).__name__}")
        for recognizer in engine._analyzer.registry.recognizers
    ]
    original_second = engine.second_entities

    def count_second(texts_in: Any) -> Any:
        picked["texts"] += len(texts_in)
        return original_second(texts_in)

    engine.second_entities = count_second  # type: ignore[method-assign,assignment]
    try:
        with ExitStack() as stack:
            for owner, name, label in wraps:
                stack.enter_context(_timed(owner, name, label, spent))
            total = run(_detector(policy))
    finally:
        del engine.second_entities
    per = {label: round(1000 * seconds / len(texts), 3) for label, seconds in spent.items()}
    total_ms = 1000 * total / len(texts)
    return {
        "sentences": len(texts),
        "batch": batch,
        "cpu_ms_per_sentence": round(total_ms, 3),
        "stages_cpu_ms_per_sentence": dict(sorted(per.items(), key=lambda kv: -kv[1])),
        "other": round(total_ms - sum(per.values()), 3),
        "second_ner_share": round(picked["texts"] / len(texts), 3),
        "load_average": round(os.getloadavg()[0], 2),
    }


def second_ner_folder_or_none() -> Path | None:
    """The second NER model's folder, as the benchmark's detector uses it."""
    from privault.interfaces.config import models_dir

    return second_ner_folder(models_dir())


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.pii_profile", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--data", required=True, type=Path, nargs="+", help="labelled sets")
    parser.add_argument("--split", choices=("even", "odd"), default=None)
    parser.add_argument("--batch", type=int, default=64, help="texts per detect_many call")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    if args.batch < 1:
        parser.error("--batch must be at least 1")
    texts: list[str] = []
    for path in args.data:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            print(f"error: cannot read {path}: {exc}", file=sys.stderr)
            return 2
        if args.split is not None:
            data = data[0 if args.split == "even" else 1 :: 2]
        texts += [item["full_text"] for item in data]
    report = profile(texts, args.batch)
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
        return 0
    print(
        f"detect_many {report['cpu_ms_per_sentence']:.2f} ms CPU/sentence over "
        f"{report['sentences']} sentences (batches of {report['batch']}, load average "
        f"{report['load_average']})"
    )
    for label, ms in report["stages_cpu_ms_per_sentence"].items():
        print(f"  {label:<40} {ms:7.3f}")
    print(f"  {'other':<40} {report['other']:7.3f}")
    print(f"second NER pass on {report['second_ner_share']:.0%} of the sentences")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
