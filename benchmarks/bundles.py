"""Sync-bundle fuzzer: hostile files in a sync folder must never hurt the vault reading them.

    python -m benchmarks.bundles [--cases 5000] [--batch 100] [--seed 1] [--json]

Builds a small vault (notes on three shelves, one restricted with a policy, statements
with supersedes, confirmations and disputes, a reminder watch, an owner PII mark), seals
it into a valid bundle, then makes `--cases` hostile variants of it:

* header mutations: every field set to a hostile value (scrypt costs like n=3, r=2^20,
  p=2^20, wrong types, huge numbers, bad base64, wrong lengths), fields dropped or added,
  the length prefix, truncation, flipped bytes, junk appended;
* row mutations of the decrypted rows, re-sealed with the known passphrase (so they pass
  authentication): a field of a row set to a hostile value (a path as an id, a wrong
  type, a huge number, NUL, a lone surrogate, rich markup, terminal escapes), rows
  dropped, duplicated, re-kinded, fields added or removed, deep nesting.

Each variant is imported on its own (`Vault.sync.import_bundle`), its CPU time measured;
every `--batch` variants are dropped into a sync folder as other devices' files beside
one valid file from a real peer, and one `privault sync` round must merge that valid file.
At the end the vault is exported as Markdown and the whole sandbox is searched for files
written outside the vault, the sync folder and the export folder.

Reported: cases, accepted (a re-sealed variant that is well-formed merges), refused
(one-line BundleError), tracebacks (any other exception: must be 0), merges stopped by
another file (must be 0), writes outside (must be 0), the slowest refusal's CPU seconds
(must be <= 1).
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import struct
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

from privault import Caller
from privault.errors import BundleError, PrivaultError
from privault.privacy.detector import FakeDetector
from privault.retrieval.embedder import FakeEmbedder
from privault.store.migrations import known_migrations
from privault.sync import bundle, bundle_reader, bundle_writer, folder
from privault.vault import Vault

OWNER = Caller.owner()
SECRET = "benchmark passphrase for hostile bundles"

HOSTILE_VALUES: list[Any] = [
    None,
    "",
    "../../../x",
    "/etc/passwd",
    "..",
    "C:\\Windows\\system32",
    "[/]",
    "[bold red]spoof[/]",
    "\x1b]0;owned\x07\x1b[2J",
    "\x1b]52;c;aGVsbG8=\x07",
    "a\x00b",
    "\ud800",
    "x" * 5000,
    0,
    -1,
    1.5,
    float("inf"),
    2**63,
    2**70,
    -(2**70),
    True,
    False,
    [],
    {},
    [1, 2, 3],
    {"a": 1},
    ["x"] * 9,
    "dev_0123456789ab",
    "d0123456789ab",
    "s_0123456789",
    "000000000000001.000000.dev_0123456789ab",
]
SCRYPT_VALUES: list[Any] = [3, 0, -1, 1, 2**14, 2**16, 2**20, 2**31, True, "32768", None, 1.5]


def _open(path: Path) -> Vault:
    return Vault.open(
        path,
        models_dir=path.parent / "models",
        embedder=FakeEmbedder(),
        detector_factory=FakeDetector,
    )


def _fill(vault: Vault) -> None:
    vault.shelves.add("health", policy="strict", restricted=True, private=True)
    for i, shelf in enumerate(["default", "work", "health", "default", "work", "default"]):
        vault.note(
            f"# Note {i}\nThe plumber came on Tuesday, invoice {4400 + i}.\n\n"
            f"## More\nDetails {i}.",
            caller=OWNER,
            shelf=shelf,
            tags=["home", f"t{i}"],
        )
    first = vault.statements.add("The boiler is a Vaillant", caller=OWNER, entities=["boiler"])
    second = vault.statements.add("Dana is the dentist", caller=OWNER, entities=["Dana"])
    vault.statements.supersede(
        first.statement.statement.id, "The boiler is a Worcester", caller=OWNER
    )
    vault.statements.confirm(second.statement.statement.id, caller=OWNER)
    other = vault.statements.add("Dana is the plumber", caller=OWNER, entities=["Dana"])
    vault.statements.dispute(
        second.statement.statement.id, other.statement.statement.id, caller=OWNER, reason="x"
    )
    vault.watches.add("remind", "Pay the plumber", caller=OWNER, every="1h")
    doc = vault.docs(caller=OWNER).documents[0]
    vault.pii.mark(doc.doc_id, "Tuesday", caller=OWNER)


def _seal_raw(rows: list[Any], keys: bundle.KeyCache, salt: bytes, schema: int) -> bytes:
    class Raw:
        def __init__(self, item: Any) -> None:
            self.item = item

        def as_list(self) -> Any:
            return self.item

    sealed = bundle.Bundle(
        "dev_0123456789ab",
        schema,
        0,
        1,
        0,
        tuple(Raw(item) for item in rows),  # type: ignore[misc]
    )
    return bundle_writer.seal(sealed, keys, salt=salt)


def _rebuild(header: dict[str, Any], ciphertext: bytes) -> bytes:
    head = json.dumps(header, sort_keys=True).encode()
    return bundle.MAGIC + struct.pack(">I", len(head)) + head + ciphertext


def _header_case(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    header, head, ciphertext = bundle.read_header(data)
    choice = rng.randrange(9)
    if choice == 0:
        name = rng.choice(["n", "r", "p"])
        header["kdf"][name] = rng.choice(SCRYPT_VALUES)
        return f"header kdf {name}", _rebuild(header, ciphertext)
    if choice == 1:
        name = rng.choice(sorted(header))
        header[name] = rng.choice(HOSTILE_VALUES)
        return f"header {name}", _rebuild(header, ciphertext)
    if choice == 2:
        name = rng.choice(["salt", "name"])
        header["kdf"][name] = rng.choice(
            [*HOSTILE_VALUES, base64.b64encode(rng.randbytes(rng.randrange(40))).decode()]
        )
        return f"header kdf {name}", _rebuild(header, ciphertext)
    if choice == 3:
        del header[rng.choice(sorted(header))]
        return "header field dropped", _rebuild(header, ciphertext)
    if choice == 4:
        header[rng.choice(["extra", "rows", "__proto__"])] = rng.choice(HOSTILE_VALUES)
        return "header field added", _rebuild(header, ciphertext)
    if choice == 5:
        size = rng.choice([0, 1, len(head) - 1, len(head) + 1, 2**31, 2**32 - 1])
        prefix = bundle.MAGIC + struct.pack(">I", size)
        return "header length", prefix + data[len(prefix) :]
    if choice == 6:
        return "truncated", data[: rng.randrange(len(data))]
    if choice == 7:
        flipped = bytearray(data)
        at = rng.randrange(len(flipped))
        flipped[at] ^= 1 << rng.randrange(8)
        return "flipped byte", bytes(flipped)
    replaced = rng.choice([b"[" * 60000, b'"x"', b"null", b"[]", b'{"kdf": 1}'])
    return "header replaced", bundle.MAGIC + struct.pack(
        ">I", len(replaced)
    ) + replaced + ciphertext


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


def _row_case(rng: random.Random, rows: list[list[Any]]) -> tuple[str, list[Any]]:
    rows = json.loads(json.dumps(rows))  # a deep copy
    row = rng.choice(rows)
    choice = rng.randrange(8)
    if choice == 0 and row[4] is not None:
        name = rng.choice(sorted(row[4]))
        row[4][name] = rng.choice(HOSTILE_VALUES)
        return f"row {row[0]}.{name}", rows
    if choice == 1:
        at = rng.randrange(4)
        row[at] = rng.choice(HOSTILE_VALUES)
        return f"row {row[0]} slot {at}", rows
    if choice == 2 and row[4] is not None:
        name = rng.choice(sorted(row[4]))
        del row[4][name]
        return f"row {row[0]} field dropped", rows
    if choice == 3 and row[4] is not None:
        row[4][rng.choice(["extra", "seq", "id"])] = rng.choice(HOSTILE_VALUES)
        return f"row {row[0]} field added", rows
    if choice == 4:
        row[0] = rng.choice(["shelf", "document", "statement", "watch", "closure", "x"])
        return "row re-kinded", rows
    if choice == 5:
        rows.append(rng.choice([_nested(rng.choice([10, 400])), "row", 5, None, [1, 2]]))
        return "row of the wrong shape", rows
    if choice == 6:
        rows.append(list(row))
        rows.reverse()
        return "rows duplicated and reordered", rows
    # A plausible edit that is well-formed: it must merge (hostile text is data).
    if row[0] == "document" and row[4] is not None:
        row[4]["title"] = rng.choice(["[/]", "\x1b[2J", "../../../etc/passwd", "con"])
        return "document title edited", rows
    return "rows unchanged", rows


def run(cases: int, batch: int, seed: int) -> dict[str, Any]:
    """Run the fuzzer and return its figures."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        source = _open(root / "a" / "vault.db")
        peer = _open(root / "c" / "vault.db")
        target = _open(root / "b" / "vault.db")
        _fill(source)
        base_path = root / "base.pvb"
        source.sync.export(base_path, secret=SECRET, caller=OWNER)
        base = base_path.read_bytes()
        schema = known_migrations()[-1].version
        keys = bundle.KeyCache(SECRET)
        sync_keys = target.sync._key_cache(SECRET)
        opened = bundle_reader.open_bundle(base, keys, schema)
        base_rows = [row.as_list() for row in opened.rows]
        header, _, _ = bundle.read_header(base)
        salt = base64.b64decode(header["kdf"]["salt"])
        shared = root / "shared"
        cases_dir = root / "cases"
        cases_dir.mkdir()
        outcomes: Counter[str] = Counter()
        tracebacks: list[str] = []
        refusal_cpu: list[float] = []
        accepted_cpu: list[float] = []
        stopped = 0
        crashed = 0
        rounds = 0
        pending: list[bytes] = []
        started = time.perf_counter()
        for case in range(cases):
            if rng.random() < 0.5:
                what, data = _header_case(rng, base)
            else:
                what, mutated = _row_case(rng, base_rows)
                try:
                    data = _seal_raw(mutated, keys, salt, schema)
                except (ValueError, TypeError, RecursionError):  # not even JSON: the header path
                    what, data = _header_case(rng, base)
            path = cases_dir / f"{case}.pvb"
            path.write_bytes(data)
            cpu = time.process_time()
            try:
                # What `privault sync` does with each peer file: keys derived once per salt.
                target.sync._merge(path, sync_keys)
                accepted_cpu.append(time.process_time() - cpu)
                outcomes["accepted"] += 1
            except BundleError as exc:
                refusal_cpu.append(time.process_time() - cpu)
                outcomes["refused"] += 1
                if "\n" in str(exc):
                    outcomes["multi-line refusals"] += 1
            except PrivaultError as exc:  # a deliberate error, but not the bundle's
                refusal_cpu.append(time.process_time() - cpu)
                outcomes[f"refused as {type(exc).__name__}"] += 1
            except Exception:  # noqa: BLE001 - exactly what the fuzzer counts
                outcomes["tracebacks"] += 1
                if len(tracebacks) < 5:
                    tracebacks.append(f"{what}: {traceback.format_exc(limit=3)}")
            path.unlink()
            pending.append(data)
            if len(pending) == batch or case == cases - 1:
                rounds += 1
                missed, died = _sync_round(rng, pending, peer, target, shared, rounds, tracebacks)
                stopped += missed
                crashed += died
                pending = []
        elapsed = time.perf_counter() - started
        markdown = root / "markdown"
        target.sync.export_markdown(markdown, caller=OWNER)
        allowed = (root / "a", root / "b", root / "c", shared, cases_dir, markdown)
        outside = [
            str(p.relative_to(root))
            for p in root.rglob("*")
            if p.is_file() and p != base_path and not any(p.is_relative_to(a) for a in allowed)
        ]
        outside += [str(p) for p in markdown.rglob("*") if p.parent != markdown]
        for vault in (source, peer, target):
            vault.close()
    return {
        "cases": cases,
        "accepted": outcomes["accepted"],
        "refused": outcomes["refused"],
        "refused_other": {k: v for k, v in outcomes.items() if k.startswith("refused as")},
        "multi_line_refusals": outcomes["multi-line refusals"],
        "tracebacks": outcomes["tracebacks"] + crashed,
        "traceback_samples": tracebacks,
        "sync_rounds": rounds,
        "merges_stopped_by_another_file": stopped,
        "writes_outside": len(outside),
        "writes_outside_samples": outside[:5],
        "max_refusal_cpu_s": round(max(refusal_cpu, default=0.0), 3),
        "median_refusal_cpu_s": round(sorted(refusal_cpu)[len(refusal_cpu) // 2], 4)
        if refusal_cpu
        else 0.0,
        "max_accepted_cpu_s": round(max(accepted_cpu, default=0.0), 3),
        "elapsed_s": round(elapsed, 1),
    }


def _sync_round(
    rng: random.Random,
    hostile: list[bytes],
    peer: Vault,
    target: Vault,
    shared: Path,
    number: int,
    tracebacks: list[str],
) -> tuple[int, int]:
    """Drop the batch into the folder as other devices' files beside one valid file from
    `peer`: (1 when that file was not merged — a merge stopped by another file, 1 when
    the sync itself died)."""
    peer.note(f"# Round {number}\nA valid change from a real peer.", caller=OWNER)
    peer.sync.sync(shared, secret=SECRET, caller=OWNER)  # before the hostile files land
    devices = []
    for data in hostile:
        device = f"dev_{rng.randrange(16**12):012x}"
        (shared / device).mkdir(parents=True, exist_ok=True)
        folder.write_file(shared, device, 1, lambda out, blob=data: out.write(blob))
        devices.append(device)
    try:
        report = target.sync.sync(shared, secret=SECRET, caller=OWNER)
    except Exception:  # noqa: BLE001 - a sync that dies is what the fuzzer looks for
        tracebacks.append(f"sync round {number}: {traceback.format_exc(limit=3)}")
        return 1, 1
    finally:
        for device in devices:  # refused files would be tried again every round
            for path in (shared / device).iterdir():
                path.unlink()
            (shared / device).rmdir()
    merged = peer.sync.device in {item.device for item in report.imported}
    if not merged:
        done = target.conn.execute(
            "SELECT count(*) FROM sync_files WHERE peer = ?", (peer.sync.device,)
        ).fetchone()[0]
        merged = done >= number  # already merged by an earlier round's file
    return (0 if merged else 1), 0


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--batch", type=int, default=100, help="hostile files per sync round")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    result = run(args.cases, args.batch, args.seed)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:32} {value}")


if __name__ == "__main__":
    main()
