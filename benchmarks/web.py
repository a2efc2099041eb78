"""The owner's web page: server time of every page on a vault of `--sections` sections.

    python -m benchmarks.web --json [--sections 10000] [--repeat 20] [--data PATH] [--keep PATH]
                             [--fast-build]

Builds a temporary vault (or opens `--data`, a vault file to copy first): `--sections`
sections in ten-section notes (real embedder; the fake PII detector at write time only, to
keep set-up short), 300 statements about 30 entities with supersede chains, 100 watches
with due reminders, 5,000 audit rows and two agents. The vault is then reopened as
`privault serve` opens it — real embedder, real presidio + spaCy detector — and every page
is requested `--repeat` times in-process (Starlette's test client: no network, so the time
is the server's: the `Server-Timing` header the page guard sets, from the request reaching
the app to the response starting). Reports p50 / p95 / max per page in ms against the
150 ms target.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

WORDS = (
    "boiler invoice garden budget meeting travel hotel doctor school tax insurance car "
    "repair holiday birthday recipe project deadline contract rent energy bill garage "
    "bicycle passport museum concert dentist kitchen window painting library laptop"
).split()
NAMES = "Dana Lee Priya Tomasz Amara Jonas Keiko Mateo Ingrid Samir".split()
TARGET_MS = 150.0


def build(path: Path, sections: int, models: Path, *, fake_embedder: bool = False) -> None:
    """Fill a new vault at `path` (see the module docstring)."""
    from privault.caller import Caller
    from privault.privacy.detector import FakeDetector
    from privault.timeutil import now_ms
    from privault.vault import Vault
    from privault.vault.agents import AuditEntry

    owner = Caller.owner()
    rng = random.Random(11)
    from privault.retrieval.embedder import FakeEmbedder

    vault = Vault.open(
        path,
        models_dir=models,
        detector_factory=FakeDetector,
        embedder=FakeEmbedder() if fake_embedder else None,  # same 384 dims: same read cost
    )
    notes = []
    for index in range(max(1, sections // 10)):
        parts = [f"# Note {index}"]
        for part in range(10):
            words = " ".join(rng.choice(WORDS) for _ in range(40))
            who = f"Dr. {rng.choice(NAMES)} {rng.choice(NAMES)}"
            parts.append(f"## Part {part}\n\n{who} wrote: {words}. Mail {index}.{part}@example.com")
        notes.append({"text": "\n\n".join(parts), "shelf": "work" if index % 7 == 0 else "default"})
    for start in range(0, len(notes), 100):
        vault.note_many(notes[start : start + 100], caller=owner)
    vault.shelves.add("work", restricted=True)
    day = 86_400_000
    begin = now_ms() - 400 * day
    for number in range(300):
        entity = f"Client {number % 30}"
        made = vault.statements.add(
            f"{entity} pays {rng.choice(WORDS)} invoices on day {number % 28 + 1}",
            caller=owner,
            entities=[entity, rng.choice(NAMES)],
            valid_from=begin + number * day,
        ).statement.statement
        if number % 3 == 0:
            vault.statements.supersede(
                made.id, f"{entity} now pays monthly", caller=owner, valid_from=begin + 350 * day
            )
    for number in range(100):
        vault.watches.add(
            "remind", f"Renew {rng.choice(WORDS)} {number}", caller=owner, at=now_ms() - day
        )
    vault.watches.poll(caller=owner)
    vault.agents.issue("bench")
    vault.agents.issue("auditor", read_only=True)
    for number in range(5000):
        vault.audit.record(
            AuditEntry(
                agent=rng.choice(["bench", "auditor"]),
                tool=rng.choice(["memory_search", "memory_read", "ask_memory", "remember"]),
                ok=number % 10 != 0,
                refused=number % 10 == 0,
                ids=(f"n{number}",),
                policy="standard",
                held_back={"PERSON": number % 3},
            ),
        )
    vault.close()


def measure(path: Path, models: Path, repeat: int) -> dict[str, Any]:
    """Time every page; return per-page p50/p95/max (ms) and the set-up facts."""
    from starlette.testclient import TestClient

    from privault.caller import Caller
    from privault.interfaces.web.app import build_web_app
    from privault.interfaces.web.auth import LoginLinks
    from privault.vault import Vault

    vault = Vault.open(path, models_dir=models)  # the real detector, as `privault serve` has
    owner = Caller.owner()
    docs = vault.docs(caller=owner, limit=5).documents
    reminder = vault.watches.reminders(caller=owner).reminders[0].id
    vault.embedder.embed_query("warm up")
    vault.privacy.detector.detect("Warm up with Dana Lee in Paris.")
    with tempfile.TemporaryDirectory() as folder:
        links = LoginLinks(Path(folder))
        client = TestClient(build_web_app(vault, links=links, hosts=["testserver"]))
        client.get(f"/login?token={links.issue()}")
        doc = docs[-1].doc_id
        pages = {
            "search": "/?q=boiler+invoice+dentist&agent=bench",
            "search (a name in the query)": "/?q=what+did+Dana+Lee+say&agent=bench",
            "document": f"/doc/{doc}?agent=bench",
            "documents": "/docs",
            "statements": "/statements?entity=Client+3",
            "statements (as known at)": "/statements?entity=Client+3&known_at=2020-01-01",
            "watches": "/watches",
            "agents": "/agents",
            "audit": "/audit",
            "audit (filtered)": "/audit?agent=auditor&outcome=refused",
            "status": "/status",
        }
        results: dict[str, Any] = {}
        for name, url in pages.items():
            client.get(url)  # warm: first-use caches (policies, templates)
            times = []
            for _ in range(repeat):
                reply = client.get(url)
                assert reply.status_code == 200, (name, reply.status_code, reply.text[:300])
                times.append(float(reply.headers["server-timing"].split("dur=")[1]))
            results[name] = _summary(times)
        csrf = client.get("/").text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        times = []
        for number in range(repeat):
            began = time.perf_counter()
            reply = client.post(
                f"/doc/{doc}/mark?agent=bench", data={"value": f"Codename{number}", "csrf": csrf}
            )
            times.append((time.perf_counter() - began) * 1000)  # the POST and the page after it
            assert reply.status_code == 200
        results["mark a value + reload the document"] = _summary(times)
        client.post(f"/reminders/{reminder}/ack", data={"csrf": csrf})
    status = vault.status()
    vault.close()
    return {"sections": status.sections, "documents": status.documents, "pages": results}


def _summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[max(0, int(len(ordered) * 0.95) - 1)], 1),
        "max_ms": round(ordered[-1], 1),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print a table or JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sections", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--data", type=Path, help="an existing vault file to time (copied)")
    parser.add_argument("--keep", type=Path, help="also save the built vault file here")
    parser.add_argument(
        "--fast-build",
        action="store_true",
        help="write the vault with the fake embedder (384 dims, so reads cost the same; the "
        "pages still embed queries with the real one): minutes less on a busy machine",
    )
    parser.add_argument("--models", type=Path, default=Path.home() / ".privault" / "models")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "vault.db"
        began = time.perf_counter()
        if args.data:
            shutil.copy(args.data, path)
        else:
            build(path, args.sections, args.models, fake_embedder=args.fast_build)
            if args.keep:
                shutil.copy(path, args.keep)
        built = time.perf_counter() - began
        report = measure(path, args.models, args.repeat)
    report["build_seconds"] = round(built, 1)
    report["target_ms"] = TARGET_MS
    report["all_within_target"] = all(
        page["p95_ms"] <= TARGET_MS for page in report["pages"].values()
    )
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{report['sections']} sections in {report['documents']} documents")
        for name, page in report["pages"].items():
            print(
                f"{name:40s} p50 {page['p50_ms']:7.1f}  p95 {page['p95_ms']:7.1f}  "
                f"max {page['max_ms']:7.1f} ms"
            )
    return 0 if report["all_within_target"] else 1


if __name__ == "__main__":
    sys.exit(main())
