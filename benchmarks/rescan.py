"""The re-scan after a detector change, with the real detector, on a kept vault.

    python -m benchmarks.rescan --data VAULT.db [--batches 10] [--batch 200] [--in-place]
        [--scanned-by REVISION] [--models DIR] [--json]

A vault `benchmarks.perf --sections N --keep FILE` built holds spans of the regex detector
(its build replaces batched detection by it), so with the real detector every section is
stale, as after a change of detector revision. The benchmark copies the vault (unless
`--in-place`), opens the copy with the real detector and the embedder, and times
`--batches` batches of `--batch` sections as `serve`'s background re-scan runs them
(`privacy.rescan`: sections, then labels; masked index entries rewritten too), then
closes the vault, opens it again and runs one more batch: what was re-scanned stays done
(nothing is read twice) and the count left falls by what each batch read. Reported:
sections per second (wall and CPU), each batch's time, the sections left and how long the
whole re-scan would take at the measured rate.

`--scanned-by 37` first makes every stored scan look as if detector revision 37 had made
it (with the real detector's configuration), so a re-scan after the revisions since then
re-reads only the texts they could have changed (`privacy.detector.REVISION_SCOPES`);
`texts_detected` says how many it read.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, cast

from benchmarks.scale import _load, _summary
from privault.privacy.detector import Detector
from privault.store.connection import write
from privault.vault import Vault


def _left(vault: Vault) -> int:
    return vault.status().privacy.sections_to_rescan


def _batches(vault: Vault, count: int, size: int) -> tuple[list[float], list[float], int]:
    """Wall and CPU milliseconds of `count` batches, and how many sections they read."""
    walls, cpus, read = [], [], 0
    for _ in range(count):
        wall, cpu = time.perf_counter(), time.process_time()
        read += vault.privacy.rescan(size, vault.embedder)
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return walls, cpus, read


def scanned_by(path: Path, opener: Callable[[Path], Vault], revision: str) -> None:
    """Make every section and label of the vault at `path` read as scanned by detector
    `revision` with the configuration it is opened with (the owner's text and agents'
    apart), as a vault that revision scanned through holds them: a section never scanned
    (a kept vault's build scans few) keeps the spans it has, none."""
    with opener(path) as vault:
        owner = cast(Detector, vault.privacy.detector).config.version_at(revision)
        agent = cast(Detector, vault.privacy.plain_detector).config.version_at(revision)
        with write(vault.conn):
            vault.conn.execute(
                "INSERT INTO pii_scans (section_id, detector_version, scanned_at)"
                " SELECT s.id, CASE WHEN d.author = '' THEN ? ELSE ? END, 0 FROM sections s"
                " JOIN documents d ON d.id = s.doc_id WHERE true"
                " ON CONFLICT (section_id) DO UPDATE"
                " SET detector_version = excluded.detector_version",
                (owner, agent),
            )
            vault.conn.execute(
                "UPDATE label_spans SET detector_version = CASE WHEN (SELECT d.author FROM"
                " documents d WHERE d.id = label_spans.doc_id) = '' THEN ? ELSE ? END",
                (owner, agent),
            )


def measure(path: Path, opener: Callable[[Path], Vault], batches: int, size: int) -> dict[str, Any]:
    """Open `path` (with the real detector, as `main` opens it) and re-scan `batches`
    batches, then one more after opening it again."""
    loads = [_load()]
    detected = [0]
    with opener(path) as vault:
        vault.privacy.rescan(1, vault.embedder)  # the detector loads here, not in a lap
        before = _left(vault)
        for detector in {
            id(d): d for d in (vault.privacy.detector, vault.privacy.plain_detector)
        }.values():
            real = detector.detect_many

            def counted(texts: Any, real: Any = real) -> Any:
                detected[0] += len(texts)
                return real(texts)

            detector.detect_many = counted  # type: ignore[method-assign]
        walls, cpus, read = _batches(vault, batches, size)
        after = _left(vault)
    loads.append(_load())
    with opener(path) as vault:
        reopened = _left(vault)
        again_walls, _, again = _batches(vault, 1, size)
        last = _left(vault)
    loads.append(_load())
    seconds, cpu_seconds = sum(walls) / 1000, sum(cpus) / 1000
    sections = before - after  # a batch reads labels (titles) too: `read` counts both
    rate = sections / seconds if seconds else 0.0
    return {
        "sections_left_before": before,
        "sections_rescanned": sections,
        "texts_read": read,
        "texts_detected": detected[0],  # the rest kept their spans (`--scanned-by`)
        "sections_left_after": after,
        "batch_ms": _summary(walls),
        "sections_per_second": round(rate, 1),
        "cpu_ms_per_section": round(cpu_seconds * 1000 / max(1, sections), 2),
        "hours_for_the_rest_at_this_rate": round(after / rate / 3600, 2) if rate else None,
        "reopened": {
            "sections_left": reopened,
            "kept_what_was_done": reopened == after,
            "one_more_batch_read": again,
            "sections_left_after_it": last,
            "batch_ms": round(again_walls[0], 1),
        },
        "load_average": loads,
        "cpu": os.cpu_count(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, type=Path, help="a kept vault")
    parser.add_argument("--batches", type=int, default=10)
    parser.add_argument("--batch", type=int, default=200, help="sections per batch")
    parser.add_argument("--in-place", action="store_true", help="re-scan the vault itself")
    parser.add_argument(
        "--scanned-by", default=None, help="first mark every scan as this detector revision's"
    )
    parser.add_argument("--models", type=Path, default=Path.home() / ".privault" / "models")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if not args.data.exists():
        parser.error(f"no vault at {args.data}")
    with tempfile.TemporaryDirectory(dir=args.data.parent) as folder:
        path = args.data
        if not args.in_place:
            path = Path(folder) / args.data.name
            started = time.perf_counter()
            shutil.copyfile(args.data, path)
            for extra in args.data.parent.glob(args.data.name + ".*"):
                if not extra.name.endswith(".lock"):
                    shutil.copyfile(extra, Path(folder) / extra.name)
            print(f"copied in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        result = {"data": str(args.data), "batch": args.batch}
        opener = partial(Vault.open, models_dir=args.models)
        if args.scanned_by:
            scanned_by(path, opener, args.scanned_by)
            result["scanned_by"] = args.scanned_by
        result |= measure(path, opener, args.batches, args.batch)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(
        f"{result['sections_rescanned']} sections in {args.batches} batches: "
        f"{result['sections_per_second']} sections/s, {result['cpu_ms_per_section']} CPU-ms "
        f"each; {result['sections_left_after']} left, "
        f"{result['hours_for_the_rest_at_this_rate']} h at this rate"
    )
    print(f"reopened: {result['reopened']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
