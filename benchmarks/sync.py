"""Export, import and incremental sync of a 10,000-document vault.

    python -m benchmarks.sync [--json] [--docs 10000] [--changes 100] [--real] [--data VAULT]

Builds a vault of `--docs` notes (two sections each, a few tags, on three shelves) and
one statement per ten notes, then times: a full export (bundle bytes against the vault
file's bytes), importing that bundle into an empty vault, and one sync round through a
shared folder after `--changes` changes on one device (new notes, re-tags, forgets,
superseded statements): the writer's and the reader's seconds.

Import re-cuts, re-embeds and re-scans every section for PII, so its cost is the cost of
indexing. By default the deterministic fake embedder and regex detector run (the real
ones would take tens of minutes for 10,000 notes on 2 cores); `--real` uses the installed
MiniLM embedder and the presidio + spaCy detector (use a smaller `--docs`).

With `--data VAULT` (e.g. the million-section vault `benchmarks.perf --keep` builds) the
same steps that do not re-index the whole vault run on a copy of it: its full export
(seconds, bundle bytes), `--changes` changes and the export of only those, and merging
another device's bundle of `--changes` new notes (then the same bundle again, every row
unchanged); `peak_rss_mb` is the process's peak over all of it.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from privault import Caller
from privault.privacy.detector import FakeDetector
from privault.retrieval.embedder import FakeEmbedder
from privault.store import documents
from privault.store.connection import write
from privault.sync import bundle
from privault.vault import Vault

OWNER = Caller.owner()
SECRET = "benchmark passphrase"
WORDS = (
    "invoice plumber dentist garden budget train meeting project release boiler insurance "
    "holiday recipe tomato contract landlord rent school report doctor bicycle repair "
    "flight hotel museum concert payment deadline quarterly review notes list"
).split()


def _open(path: Path, real: bool, models: Path) -> Vault:
    if real:
        return Vault.open(path, models_dir=models)
    return Vault.open(
        path, models_dir=models, embedder=FakeEmbedder(), detector_factory=FakeDetector
    )


def _text(rng: random.Random, i: int) -> str:
    def sentence() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16))).capitalize() + "."

    body = " ".join(sentence() for _ in range(3))
    more = " ".join(sentence() for _ in range(3))
    return f"# Note {i}: {rng.choice(WORDS)}\n{body}\n\n## Details\n{more}"


def _fill(vault: Vault, docs: int, rng: random.Random) -> None:
    for start in range(0, docs, 500):
        vault.note_many(
            [
                {
                    "text": _text(rng, i),
                    "tags": rng.sample(["home", "work", "money", "health"], 2),
                    "shelf": rng.choice(["default", "work", "home"]),
                }
                for i in range(start, min(start + 500, docs))
            ],
            caller=OWNER,
        )
    for i in range(docs // 10):
        vault.statements.add(
            f"{rng.choice(WORDS)} {i} is handled by {rng.choice(WORDS)}",
            caller=OWNER,
            entities=[f"entity{i % 50}"],
        )


def _file_bytes(vault: Vault) -> int:
    vault.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return sum(p.stat().st_size for p in (vault.path, Path(f"{vault.path}-wal")) if p.exists())


def _changes(vault: Vault, count: int, rng: random.Random) -> None:
    ids = [d.id for d in documents.list_documents(vault.conn, shelves=None, limit=100_000)]
    statements = [s for (s,) in vault.conn.execute("SELECT id FROM statements LIMIT 1000")]
    for i in range(count):
        kind = i % 4
        if kind == 0:
            vault.note(_text(rng, 1_000_000 + i), caller=OWNER)
        elif kind == 1:
            with write(vault.conn):
                documents.set_tags(vault.conn, rng.choice(ids), ["retagged", f"t{i}"])
        elif kind == 2:
            victim = ids.pop(rng.randrange(len(ids)))
            vault.forget(victim, caller=OWNER)
        elif statements:
            vault.statements.supersede(statements.pop(), f"changed {i}", caller=OWNER)
        else:  # a vault without statements (the large ones `perf` builds) gets one
            vault.statements.add(f"change {i} was made", caller=OWNER, entities=[f"entity{i}"])


def run(docs: int, changes: int, real: bool, models: Path) -> dict[str, Any]:
    """Measure and return the numbers."""
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        source = _open(root / "a" / "vault.db", real, models)
        started = time.perf_counter()
        _fill(source, docs, rng)
        built = time.perf_counter() - started
        vault_bytes = _file_bytes(source)
        started = time.perf_counter()
        report = source.sync.export(root / "all.pvb", secret=SECRET, caller=OWNER)
        export_s = time.perf_counter() - started
        target = _open(root / "b" / "vault.db", real, models)
        started = time.perf_counter()
        imported = target.sync.import_bundle(root / "all.pvb", secret=SECRET, caller=OWNER)
        import_s = time.perf_counter() - started
        same = source.sync.dump() == target.sync.dump()
        # Incremental: both devices in step through a folder, then `changes` on one.
        shared = root / "shared"
        source.sync.sync(shared, secret=SECRET, caller=OWNER)
        target.sync.sync(shared, secret=SECRET, caller=OWNER)
        _changes(source, changes, rng)
        started = time.perf_counter()
        wrote = source.sync.sync(shared, secret=SECRET, caller=OWNER)
        write_s = time.perf_counter() - started
        started = time.perf_counter()
        read = target.sync.sync(shared, secret=SECRET, caller=OWNER)
        read_s = time.perf_counter() - started
        converged = source.sync.dump() == target.sync.dump()
        source.close()
        target.close()
    return {
        "engines": "real" if real else "fake",
        "documents": docs,
        "statements": docs // 10,
        "build_s": round(built, 1),
        "vault_bytes": vault_bytes,
        "export_s": round(export_s, 2),
        "bundle_bytes": report.bytes,
        "bundle_to_vault": round(report.bytes / vault_bytes, 3),
        "rows_exported": report.rows,
        "import_s": round(import_s, 2),
        "rows_applied": sum(imported.applied.values()),
        "import_converged": same,
        "changes": changes,
        "sync_rows_written": wrote.written.rows if wrote.written else 0,
        "sync_write_s": round(write_s, 3),
        "sync_change_file_bytes": wrote.written.bytes if wrote.written else 0,
        "sync_read_s": round(read_s, 3),
        "sync_rows_applied": sum(sum(item.applied.values()) for item in read.imported),
        "sync_converged": converged,
        "scrypt": bundle.SCRYPT,
    }


def run_at_size(data: Path, changes: int, real: bool, models: Path) -> dict[str, Any]:
    """The steps of `run` that a vault of any size takes, on a copy of `data`."""
    rng = random.Random(7)
    with tempfile.TemporaryDirectory(dir=data.parent) as folder:
        root = Path(folder)
        (root / "a").mkdir()
        shutil.copyfile(data, root / "a" / "vault.db")
        large = _open(root / "a" / "vault.db", real, models)
        started = time.perf_counter()
        full = large.sync.export(root / "all.pvb", secret=SECRET, caller=OWNER)
        export_s = time.perf_counter() - started
        _changes(large, changes, rng)
        started = time.perf_counter()
        since = large.sync.export(root / "new.pvb", secret=SECRET, caller=OWNER, since=full.cursor)
        changes_s = time.perf_counter() - started
        small = _open(root / "b" / "vault.db", real, models)
        _fill(small, changes, rng)
        small.sync.export(root / "peer.pvb", secret=SECRET, caller=OWNER)
        small.close()
        started = time.perf_counter()
        merged = large.sync.import_bundle(root / "peer.pvb", secret=SECRET, caller=OWNER)
        merge_s = time.perf_counter() - started
        started = time.perf_counter()
        again = large.sync.import_bundle(root / "peer.pvb", secret=SECRET, caller=OWNER)
        again_s = time.perf_counter() - started
        large.close()
    return {
        "engines": "real" if real else "fake",
        "data": str(data),
        "vault_bytes": data.stat().st_size,
        "export_s": round(export_s, 1),
        "rows_exported": full.rows,
        "bundle_bytes": full.bytes,
        "changes": changes,
        "changes_export_s": round(changes_s, 2),
        "changes_rows": since.rows,
        "changes_bytes": since.bytes,
        "merge_rows": sum(merged.applied.values()),
        "merge_s": round(merge_s, 2),
        "merge_again_unchanged": again.unchanged,
        "merge_again_s": round(again_s, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--changes", type=int, default=100)
    parser.add_argument("--real", action="store_true", help="real embedder and PII detector")
    parser.add_argument(
        "--models", type=Path, default=Path.home() / ".privault" / "models", help="models folder"
    )
    parser.add_argument("--data", type=Path, help="measure on a copy of this (large) vault")
    args = parser.parse_args()
    if args.data and not args.data.is_file():
        parser.error(f"--data: no vault at {args.data}")
    result = (
        run_at_size(args.data, args.changes, args.real, args.models)
        if args.data
        else run(args.docs, args.changes, args.real, args.models)
    )
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:24} {value}")


if __name__ == "__main__":
    main()
