"""PII redaction benchmark: run the product's `standard` redaction over a labelled dataset.

    python -m benchmarks.pii --data ../shared/data/pii/synth_dataset_v2.json [--json] [--limit N]
        [--split even|odd] [--misses N]
    python -m benchmarks.pii --data DEV.json benchmarks/pii_synth_v1.json   # several sets

`--data` takes one or more datasets: the dev set and privault's own frozen set
(`benchmarks/pii_synth_v1.json`, made by `benchmarks.pii_synth`); each is reported on its
own, with the engine loaded once. `--split` keeps only the even- or odd-indexed sentences
of every set (tune on one half, report the other). `--misses N` also lists up to N leaked
gold values and N over-redacted stretches per set, for looking at what goes wrong (use it
on the half you tune on).

Reports, for the identifying kinds:

* **leak-based recall** — the share of gold values that do *not* survive in the redacted
  text. A value survives when its text (whitespace-normalised, case-insensitive) can still
  be found in the output. This is what matters for privacy: a value masked under a
  different kind, or as part of a larger span, has not leaked.
* **strict recall** — the share of gold values every letter and digit of which was masked
  (partial masking does not count), a harder number reported next to it.
* **over-redaction** — the share of characters outside every gold PII span (of any kind)
  that were masked.
* milliseconds per sentence for detection plus gating (the engine is loaded first), as
  wall time and as this process's CPU time (steadier on a shared machine).

The dataset is a JSON list of {full_text, spans: [{entity_type, entity_value,
start_position, end_position}]}; labels are mapped onto privault kinds below.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from privault.interfaces.config import models_dir
from privault.privacy.detector import Detector, DetectorConfig, second_ner_folder
from privault.privacy.gate import Gate
from privault.privacy.policy import PolicySet
from privault.spans import merge_spans

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


def run(
    data: list[dict[str, Any]], policy_name: str = "standard", *, misses: int = 0
) -> dict[str, Any]:
    """Redact every sentence and score it; return the report as a dict."""
    policy = PolicySet.load().resolve(policy_name)
    # The vault's own detector: with the second NER model when it is installed.
    detector = Detector(DetectorConfig.build([policy], second_ner=second_ner_folder(models_dir())))
    detector.load()
    leaked: list[dict[str, str]] = []
    over: list[str] = []
    total, protected, strict = Counter[str](), Counter[str](), Counter[str]()
    other_chars = other_masked = 0
    started, cpu_started = time.perf_counter(), time.process_time()
    for item in data:
        text = item["full_text"]
        spans = detector.detect(text)
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
            if _norm(value) not in _norm(redacted):
                protected[kind] += 1
            elif len(leaked) < misses:
                leaked.append({"kind": kind, "value": value, "text": text})
            if all(masked[i] for i in range(start, end) if text[i].isalnum()):
                strict[kind] += 1
        outside = [not gold_chars[i] and not ch.isspace() for i, ch in enumerate(text)]
        other_chars += sum(outside)
        other_masked += sum(1 for i, out in enumerate(outside) if out and masked[i])
        if len(over) < misses:
            over.extend(_over_masked(text, spans, gold_chars, policy))
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    count = sum(total.values())
    return {
        "policy": policy_name,
        "sentences": len(data),
        "gold_values": count,
        "detector_version": detector.version,
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
        "ms_per_sentence": round(1000 * elapsed / max(1, len(data)), 2),
        # CPU time of this process: wall time means little on a machine shared with others.
        "cpu_ms_per_sentence": round(1000 * cpu / max(1, len(data)), 2),
        "ner_models": detector.ner_models,
        **({"leaked": leaked, "over_redacted": over[:misses]} if misses else {}),
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
    print(
        f"ms/sentence    {report['ms_per_sentence']:.1f} wall, "
        f"{report['cpu_ms_per_sentence']:.1f} CPU  (NER: {', '.join(report['ner_models'])})"
    )
    for miss in report.get("leaked", []):
        print(f"  leaked {miss['kind']:<14} {miss['value']!r}  in {miss['text']!r}")
    for stretch in report.get("over_redacted", []):
        print(f"  over   {stretch}")


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
    args = parser.parse_args(argv)
    reports = []
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
        report = {"data": str(path), "split": args.split}
        report.update(run(data, args.policy, misses=args.misses))
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
