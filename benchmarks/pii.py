"""PII redaction benchmark: run the product's `standard` redaction over a labelled dataset.

    python -m benchmarks.pii --data ../shared/data/pii/synth_dataset_v2.json [--json] [--limit N]
        [--split even|odd] [--misses N] [--batch N] [--repeat N]
    python -m benchmarks.pii --data DEV.json benchmarks/pii_synth_v1.json \
        benchmarks/pii_synth2_v1.json benchmarks/pii_labels_v1.json   # several sets

`--data` takes one or more datasets: the dev set and privault's own frozen sets — two
sentence sets from two unrelated generators (`benchmarks.pii_synth`: Faker values in its
templates; `benchmarks.pii_synth2`: Mimesis and invented names in other templates) and
the labels set of short titles and tags (`benchmarks.pii_labels`); each is reported on its
own, with the engine loaded once. `--split` keeps only the even- or odd-indexed sentences
of every set (tune on one half, report the other). `--misses N` also lists up to N leaked
gold values and N over-redacted stretches per set, for looking at what goes wrong (use it
on the half you tune on).

Reports, for the identifying kinds:

* **leak-based recall** — the share of gold values that do *not* survive in the redacted
  text. A value survives when its text (whitespace-normalised, case-insensitive) can still
  be found in the output, placeholders left out. This is what matters for privacy: a
  value masked under a different kind, or as part of a larger span, has not leaked.
* **strict recall** — the share of gold values every letter and digit of which was masked
  (partial masking does not count), a harder number reported next to it.
* **over-redaction** — the share of characters outside every gold PII span (of any kind)
  that were masked.
* **clean over-masking** — of the texts with no gold span at all, the share that lost any
  letter or digit to a mask. On the labels set (`benchmarks/pii_labels_v1.json`: short
  titles, headings and tags) this is the figure that matters: one masked word in a
  three-word title makes it useless, and the character share hides that.
* the write-time cost: milliseconds per sentence for detection as the write path runs it
  (`Detector.detect_many` over batches of `--batch` texts, a fresh detector per run, after
  the models are loaded), as wall time and as this process's CPU time (steadier on a shared
  machine), the median of `--repeat` runs, with the load average it ran under; the time to
  load the models is reported apart (`engine_load`).

The dataset is a JSON list of {full_text, spans: [{entity_type, entity_value,
start_position, end_position}]}; labels are mapped onto privault kinds below.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from privault.interfaces.config import models_dir
from privault.privacy.detector import Detector, DetectorConfig, second_ner_folder
from privault.privacy.gate import Gate
from privault.privacy.policy import Policy, PolicySet
from privault.privacy.tagger import Tagger
from privault.spans import Span, merge_spans

# Dataset label -> the kind reported for it. Labels not listed are not identifying here.
GOLD_KINDS = {
    "PERSON": "PERSON",
    "STREET_ADDRESS": "ADDRESS",
    "ADDRESS": "ADDRESS",
    "GPE": "LOCATION",
    "LOCATION": "LOCATION",
    "PHONE_NUMBER": "PHONE_NUMBER",
    "EMAIL_ADDRESS": "EMAIL_ADDRESS",
    "CREDIT_CARD": "CREDIT_CARD",
    "IBAN_CODE": "IBAN_CODE",
    "US_SSN": "US_SSN",
    "IP_ADDRESS": "IP_ADDRESS",
    "US_DRIVER_LICENSE": "US_DRIVER_LICENSE",
}
# Gold values that are dataset artefacts, not text anyone could leak (pandas' "nan").
_JUNK = {"nan", ""}


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


_PLACEHOLDER = re.compile(r"<[A-Z]+(?:_[A-Z]+)*_\d+>")


def survives(value: str, redacted: str) -> bool:
    """True when `value` can still be read in `redacted` (whitespace-normalised, in any
    case). A placeholder's letters are no text of the note's: "ON" (Ontario), masked
    inside an address, is not found again in "<PERSON_1>"."""
    return _norm(value) in _norm(_PLACEHOLDER.sub(" ", redacted))


def _detector(policy: Policy) -> Detector:
    # The vault's own detector: with the second NER model when it is installed.
    return Detector(DetectorConfig.build([policy], second_ner=second_ner_folder(models_dir())))


_WARM_UP = (
    "Warm-up: Ann Example, 1 Test Street, Springfield, calls +44 20 7946 0958 or (212) 555-0199, "
    "writes ann@example.org from 192.168.0.1 or ::1, reads www.example.org on 12/31/2024; "
    "card 4111 1111 1111 1111, IBAN GB33BUKB20201555555555, SSN 078-05-1120, licence D1234567."
)


def load_engine(policy_name: str = "standard") -> dict[str, float]:
    """Load the detection models (once per process) and say how long that took.

    One text with a value of every kind is scanned too, so the first timed batch does not
    pay for one-time set-up (spaCy's first call, presidio's patterns and phonenumbers'
    regions compiled on first use).
    """
    detector = _detector(PolicySet.load().resolve(policy_name))
    started, cpu_started = time.perf_counter(), time.process_time()
    detector.load()
    detector.detect(_WARM_UP)
    return {
        "wall_s": round(time.perf_counter() - started, 2),
        "cpu_s": round(time.process_time() - cpu_started, 2),
    }


def detect_batched(
    make_detector: Callable[[], Detector], texts: Sequence[str], batch: int, repeat: int = 1
) -> tuple[list[list[Span]], dict[str, Any]]:
    """Spans of every text, found as a write finds them (`detect_many`, `batch` at a time),
    and what that cost per text: the median of `repeat` runs, each with a fresh detector
    (so none is served from another's memory of recent texts)."""
    load_before = os.getloadavg()[0]
    found: list[list[Span]] = []
    cpu_runs, wall_runs = [], []
    for _ in range(repeat):
        detector = make_detector()
        Tagger.forget()  # nor from the tagger's memory of the last texts it read
        spans: list[list[Span]] = []
        started, cpu_started = time.perf_counter(), time.process_time()
        for first in range(0, len(texts), batch):
            spans.extend(detector.detect_many(texts[first : first + batch]))
        wall_runs.append(1000 * (time.perf_counter() - started) / max(1, len(texts)))
        cpu_runs.append(1000 * (time.process_time() - cpu_started) / max(1, len(texts)))
        found = found or spans
    return found, {
        "batch": batch,
        "wall_ms_per_sentence": round(statistics.median(wall_runs), 2),
        # CPU time of this process: wall time means little on a machine shared with others.
        "cpu_ms_per_sentence": round(statistics.median(cpu_runs), 2),
        "cpu_ms_runs": [round(value, 2) for value in cpu_runs],
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }


def run(
    data: list[dict[str, Any]],
    policy_name: str = "standard",
    *,
    misses: int = 0,
    batch: int = 64,
    repeat: int = 1,
) -> dict[str, Any]:
    """Detect in every sentence (batched, as a write does), redact and score; the report."""
    policy = PolicySet.load().resolve(policy_name)
    texts = [item["full_text"] for item in data]
    found, cost = detect_batched(lambda: _detector(policy), texts, batch, repeat)
    leaked: list[dict[str, str]] = []
    over: list[str] = []
    over_clean: list[str] = []
    total, protected, strict = Counter[str](), Counter[str](), Counter[str]()
    other_chars = other_masked = clean_texts = clean_masked = 0
    for item, spans in zip(data, found, strict=True):
        text = item["full_text"]
        redacted = Gate(policy).apply(text, spans).text
        masked = [False] * len(text)
        for span in merge_spans(s for s in spans if policy.counts(s)):
            masked[span.start : span.end] = [True] * (span.end - span.start)
        gold_chars = [False] * len(text)
        for gold in item["spans"]:
            start, end = gold["start_position"], gold["end_position"]
            gold_chars[start:end] = [True] * (end - start)
            kind = GOLD_KINDS.get(gold["entity_type"])
            value = text[start:end]
            if kind is None or _norm(value) in _JUNK:
                continue
            total[kind] += 1
            if not survives(value, redacted):
                protected[kind] += 1
            elif len(leaked) < misses:
                leaked.append({"kind": kind, "value": value, "text": text})
            if all(masked[i] for i in range(start, end) if text[i].isalnum()):
                strict[kind] += 1
        outside = [not gold_chars[i] and not ch.isspace() for i, ch in enumerate(text)]
        other_chars += sum(outside)
        other_masked += sum(1 for i, out in enumerate(outside) if out and masked[i])
        if not item["spans"]:
            clean_texts += 1
            clean_masked += any(masked[i] for i, ch in enumerate(text) if ch.isalnum())
            if len(over_clean) < misses and any(masked):
                over_clean.append(redacted)
        if len(over) < misses:
            over.extend(_over_masked(text, spans, gold_chars, policy))
    count = sum(total.values())
    return {
        "policy": policy_name,
        "sentences": len(data),
        "gold_values": count,
        "detector_version": _detector(policy).version,
        "leak_recall": round(sum(protected.values()) / max(1, count), 4),
        "strict_recall": round(sum(strict.values()) / max(1, count), 4),
        "per_kind": {
            kind: {
                "values": total[kind],
                "leak_recall": round(protected[kind] / total[kind], 4),
                "strict_recall": round(strict[kind] / total[kind], 4),
            }
            for kind in sorted(total)
        },
        "over_redaction": round(other_masked / max(1, other_chars), 4),
        "clean_texts": clean_texts,
        "clean_over_masking": round(clean_masked / max(1, clean_texts), 4),
        "write_cost": cost,
        "ner_models": _detector(policy).ner_models,
        **(
            {"leaked": leaked, "over_redacted": over[:misses], "clean_masked": over_clean}
            if misses
            else {}
        ),
    }


def _over_masked(text: str, spans: list[Any], gold: list[bool], policy: Any) -> list[str]:
    """The counted spans that cover letters or digits outside every gold span."""
    found = []
    for span in spans:
        if policy.counts(span) and any(
            not gold[i] and text[i].isalnum() for i in range(span.start, span.end)
        ):
            found.append(f"{span.kind}/{span.source} {text[span.start : span.end]!r}")
    return found


def _print(report: dict[str, Any]) -> None:
    print(
        f"policy {report['policy']}: {report['sentences']} sentences, "
        f"{report['gold_values']} gold values, detector {report['detector_version']}"
    )
    print(f"leak recall   {report['leak_recall']:.3f}   (strict {report['strict_recall']:.3f})")
    for kind, row in report["per_kind"].items():
        print(
            f"  {kind:<18} {row['leak_recall']:.3f}  strict {row['strict_recall']:.3f}"
            f"  n={row['values']}"
        )
    print(f"over-redaction {report['over_redaction']:.3f}")
    if report["clean_texts"]:
        print(
            f"clean over-masking {report['clean_over_masking']:.3f} "
            f"(texts without PII with anything masked, of {report['clean_texts']})"
        )
    cost, load = report["write_cost"], report["engine_load"]
    print(
        f"write time     {cost['cpu_ms_per_sentence']:.1f} ms/sentence CPU, "
        f"{cost['wall_ms_per_sentence']:.1f} wall (batches of {cost['batch']}, load average "
        f"{cost['load_average'][0]:.1f}-{cost['load_average'][1]:.1f}; "
        f"NER: {', '.join(report['ner_models'])})"
    )
    if len(cost["cpu_ms_runs"]) > 1:
        print(f"  CPU ms/sentence of each run: {cost['cpu_ms_runs']} (median above)")
    print(f"engine load    {load['cpu_s']:.1f} s CPU, {load['wall_s']:.1f} s wall (once)")
    for miss in report.get("leaked", []):
        print(f"  leaked {miss['kind']:<14} {miss['value']!r}  in {miss['text']!r}")
    for stretch in report.get("over_redacted", []):
        print(f"  over   {stretch}")
    for text in report.get("clean_masked", []):
        print(f"  masked {text!r}")


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.pii", description="PII redaction benchmark."
    )
    parser.add_argument(
        "--data", required=True, type=Path, nargs="+", help="labelled datasets (JSON lists)"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--limit", type=int, default=None, help="only the first N sentences")
    parser.add_argument("--policy", default="standard", help="shipped policy to apply")
    parser.add_argument(
        "--split",
        choices=("even", "odd"),
        default=None,
        help="only even- or odd-indexed sentences (tune on one half, check on the other)",
    )
    parser.add_argument("--misses", type=int, default=0, help="list up to N misses per set")
    parser.add_argument(
        "--batch", type=int, default=64, help="texts per detect_many call (a write's batch)"
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="time detection N times, report the median"
    )
    args = parser.parse_args(argv)
    if args.batch < 1 or args.repeat < 1:
        parser.error("--batch and --repeat must be at least 1")
    reports = []
    datasets = []
    for path in args.data:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            print(f"error: cannot read {path}: {exc}", file=sys.stderr)
            return 2
        if args.split is not None:
            data = data[0 if args.split == "even" else 1 :: 2]
        if args.limit is not None:
            data = data[: args.limit]
        datasets.append((path, data))
    engine_load = load_engine(args.policy)  # every file read first: a bad path fails fast
    for path, data in datasets:
        report = {"data": str(path), "split": args.split}
        report.update(
            run(data, args.policy, misses=args.misses, batch=args.batch, repeat=args.repeat)
        )
        report["engine_load"] = engine_load
        reports.append(report)
        if not args.json:
            print(f"== {path}" + (f" ({args.split} half)" if args.split else ""))
            _print(report)
    if args.json:
        json.dump(reports[0] if len(reports) == 1 else reports, sys.stdout, indent=2)
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
