"""The owner's web page: server time of every page on a vault of `--sections` sections,
or of `--documents` documents.

    python -m benchmarks.web --json [--sections 10000] [--repeat 20] [--keep FILE]
    python -m benchmarks.web --json --documents 100000 --keep FILE  # the 100,000-document vault
    python -m benchmarks.web --json --data FILE [--repeat 20]     # time a built vault again
    python -m benchmarks.web --json --fast-build                  # a smoke run in a minute

`--documents N` adds N short notes (a heading and two sentences, one with a person's name, a
reference code of its own and an e-mail address) to the same statements, reminders and
audit rows; so many are written by the fake embedder and the fake (regex) PII detector, as
`--fast-build` does: embedding 100,000 notes with the real model takes hours on two cores.
Reads still run the real engines, so search pages find fewer vector neighbours than on a
real vault of that size (their vector leg is no cheaper: it scans every vector).

Builds a temporary vault (or copies `--data`, a vault file an earlier run saved with
`--keep`): `--sections` sections in notes of ten parts, each part three Zipf-distributed
sentences over the perf benchmark's vocabulary (a few very common words, a long tail), a
"Dr. First Last" and an e-mail address; 300 statements about 30 entities with supersede
chains, whose person names are then known entities found in nearly every section; 100
due reminders; 5,000 audit rows and two agents. The notes are embedded by the real
embedder and scanned by the fake PII detector (it finds the same names and addresses in
this text as the real one, in a fraction of the time); `--fast-build` embeds them with
the fake embedder too, which makes the vector leg of search find almost nothing above
its similarity floor, so search pages are cheaper than on a real vault: use it to check
the benchmark runs, not for figures.

The vault is then reopened as `privault serve` opens it (real embedder, real presidio +
spaCy detector) and every page is requested `--repeat` times in-process through
Starlette's test client: no network, so the time is the server's, the `Server-Timing`
the page guard sets (from the request reaching the app to the response starting), and
the process CPU time of each request (the client's share of it is small). The search
page's second part, the agent's own results it loads once shown, is timed as a page too.
Reports p50 / p95 / max per page in ms against the 150 ms target, and the load average before and
after, since the machine may be shared. Marking a value (which re-scans and re-indexes the
sections holding it) is timed too, with the document page it redirects to, as an action
apart from the pages: the target is for rendering a page.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privault.filters import Filters

if TYPE_CHECKING:
    from privault.caller import Caller
    from privault.vault import Vault

WORDS = (
    "boiler invoice garden budget meeting travel hotel doctor school tax insurance car "
    "repair holiday birthday recipe project deadline contract rent energy bill garage "
    "bicycle passport museum concert dentist kitchen window painting library laptop"
).split()
NAMES = "Dana Lee Priya Tomasz Amara Jonas Keiko Mateo Ingrid Samir".split()
TARGET_MS = 150.0
SECTIONS_PER_NOTE = 11  # the note's own heading, then ten parts


def build(
    path: Path, sections: int, models: Path, *, fake_embedder: bool = False, documents: int = 0
) -> None:
    """Fill a new vault at `path` (see the module docstring).

    Statements come first: their entities are known entities, so notes written after them
    are scanned and masked with those names once. Written the other way round, every
    statement would re-mask each section that names its entity (all of them, here): hours
    at 10k sections, for the same end state.
    """
    from privault.caller import Caller
    from privault.privacy.detector import FakeDetector
    from privault.retrieval.embedder import FakeEmbedder
    from privault.timeutil import now_ms
    from privault.vault import Vault
    from privault.vault.embedding import default_embedder

    owner = Caller.owner()
    rng = random.Random(11)
    with tempfile.TemporaryDirectory() as no_models:
        # The writes run the fake detector, which needs no model: an empty models folder
        # keeps the vault from re-verifying the NER model's hash each time a statement
        # teaches it a name. The embedder is given explicitly.
        embedder = FakeEmbedder() if fake_embedder else default_embedder(models)
        vault = Vault.open(
            path, models_dir=no_models, detector_factory=FakeDetector, embedder=embedder
        )
        try:
            _fill(vault, owner, sections, rng, now_ms(), documents)
        finally:
            vault.close()


def _fill(
    vault: Vault, owner: Caller, sections: int, rng: random.Random, now: int, documents: int = 0
) -> None:
    from privault.vault.agents import AuditEntry

    day = 86_400_000
    begin = now - 400 * day
    vault.shelves.add("work", restricted=True)
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
    from benchmarks.perf import Sentences, vocabulary

    text = Sentences(vocabulary(None), seed=11)
    notes = []
    for index in range(max(1, sections // SECTIONS_PER_NOTE)):
        parts = [f"# Note {index}"]
        for part in range(SECTIONS_PER_NOTE - 1):
            body = " ".join(text.sentence() for _ in range(3))
            who = f"Dr. {rng.choice(NAMES)} {rng.choice(NAMES)}"
            parts.append(f"## Part {part}\n\n{who} wrote: {body} Mail {index}.{part}@example.com")
        notes.append({"text": "\n\n".join(parts), "shelf": "work" if index % 7 == 0 else "default"})
    for start in range(0, len(notes), 100):
        vault.note_many(notes[start : start + 100], caller=owner)
    for start in range(0, documents, 500):
        batch = [
            {
                "text": f"# {rng.choice(WORDS).title()} {number}\n\n{text.sentence()} "
                f"{rng.choice(NAMES)} {rng.choice(NAMES)} has ref {code(number)}. "
                f"{text.sentence()} Mail m{number}@example.com",
                "shelf": "work" if number % 7 == 0 else "default",
                "tags": [rng.choice(WORDS)],
            }
            for number in range(start, min(documents, start + 500))
        ]
        vault.note_many(batch, caller=owner)
    for number in range(100):
        vault.watches.add(
            "remind", f"Renew {rng.choice(WORDS)} {number}", caller=owner, at=now - day
        )
    vault.watches.poll(caller=owner)
    vault.agents.issue("bench")
    vault.agents.issue("auditor", read_only=True)
    with vault.audit.transaction():  # one commit, not 5,000 synchronous ones
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


def code(number: int) -> str:
    """A reference code found in one note only: what the benchmark marks as PII."""
    return f"KX{number:06d}Q"


PAGES = {
    "search": "/?q=budget+meeting+invoice&agent=bench",
    "search (a name in the query)": "/?q=what+did+Dana+Lee+say+about+the+garden&agent=bench",
    "search: the agent's own results (loaded by the page)": "{own}",
    "search: the agent's context pack": "/pack?q=budget+meeting+invoice&agent=bench",
    "document (11 sections)": "/doc/{doc}?agent=bench",
    "documents": "/docs",
    "documents (page 2)": "{docs_page_2}",
    "documents (title words)": "/docs?q=garden",
    "documents (kind, tag, days)": "/docs?kind=note&tag=budget&since=2020-01-01",
    "documents (a kind it has none of)": "/docs?kind=page",
    "statements": "/statements?entity=Client+3",
    "statements (as known at)": "/statements?entity=Client+3&known_at=2020-01-01",
    "watches (100)": "/watches",
    "agents": "/agents",
    "audit": "/audit",
    "audit (filtered)": "/audit?agent=auditor&outcome=refused",
    "audit (page 2)": "{audit_page_2}",
    "status": "/status",
}


def measure(path: Path, models: Path, repeat: int) -> dict[str, Any]:
    """Time every page; return per-page server and CPU time (ms) and the set-up facts."""
    from starlette.testclient import TestClient

    from privault.caller import Caller
    from privault.interfaces.cli.serve import settle_heap
    from privault.interfaces.web.app import build_web_app
    from privault.interfaces.web.auth import LoginLinks
    from privault.vault import Vault

    vault = Vault.open(path, models_dir=models)  # the real detector, as `privault serve` has
    owner = Caller.owner()
    doc = vault.docs(caller=owner, filters=Filters(kind="note"), limit=1).documents[0].doc_id
    reminder = vault.watches.reminders(caller=owner).reminders[0].id
    # What `privault serve` does before its first request (less the chat model, which no
    # page uses): load the engines, then freeze the heap they leave.
    vault.embedder.embed_query("warm up")
    vault.privacy.detector.detect("Warm up with Dana Lee in Paris.")
    settle_heap()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as folder:
        links = LoginLinks(Path(folder))
        client = TestClient(build_web_app(vault, links=links, hosts=["testserver"]))
        client.get(f"/login?token={links.issue()}")
        results: dict[str, Any] = {}
        following = {
            "docs_page_2": _next(client.get("/docs").text, "docs"),
            "audit_page_2": _next(client.get("/audit").text, "audit"),
            "own": _own(client.get(PAGES["search (a name in the query)"]).text),
        }
        for name, template in PAGES.items():
            url = template.format(doc=doc, **following)
            client.get(url)  # warm: first-use caches (policies, templates, index views)
            server, cpu = [], []
            for _ in range(repeat):
                began = time.process_time()
                reply = client.get(url)
                cpu.append((time.process_time() - began) * 1000)
                assert reply.status_code == 200, (name, reply.status_code, reply.text[:300])
                server.append(float(reply.headers["server-timing"].split("dur=")[1]))
            results[name] = _summary(server, cpu)
        csrf = client.get("/").text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        server, cpu = [], []
        targets = _mark_targets(vault, owner, repeat)
        for number in range(repeat):
            target, value = targets[number % len(targets)]
            began, began_cpu = time.perf_counter(), time.process_time()
            reply = client.post(
                f"/doc/{target}/mark?agent=bench", data={"value": value, "csrf": csrf}
            )
            # The POST and the document page it redirects to, as the browser sees them.
            server.append((time.perf_counter() - began) * 1000)
            cpu.append((time.process_time() - began_cpu) * 1000)
            assert reply.status_code == 200 and "Marked" in reply.text, reply.text[:300]
        actions = {"mark a value + reload the document": _summary(server, cpu)}
        client.post(f"/reminders/{reminder}/ack", data={"csrf": csrf})
    status = vault.status()
    vault.close()
    return {
        "sections": status.sections,
        "documents": status.documents,
        "chunks": status.chunks,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "pages": results,
        "actions": actions,  # state changes, timed apart: the target is for page renders
    }


def _next(page: str, name: str) -> str:
    """The address of the next page a list page links to (the list's first page if none)."""
    found = page.split(f'rel="next" id="{name}-next"', 1)[0].rsplit('href="', 1)
    if len(found) < 2 or f'id="{name}-next"' not in page:
        return f"/{name}"
    return found[1].split('"', 1)[0].replace("&amp;", "&")


def _own(page: str) -> str:
    """The address the search page loads the agent's own results from (its second search,
    with the owner's results to rank)."""
    found = page.split('<div id="own" hx-get="', 1)
    assert len(found) == 2, "the search page loads no agent's own results"
    return found[1].split('"', 1)[0].replace("&amp;", "&")


def _mark_targets(vault: Vault, owner: Caller, count: int) -> list[tuple[str, str]]:
    """(document, value) pairs to mark: a value each document holds (its reference code, or
    on a vault built by sections its e-mail address), so every mark changes something."""
    listed = vault.docs(caller=owner, filters=Filters(kind="note"), limit=count * 3).documents
    found = []
    for entry in listed:
        text = "\n".join(s.text for s in vault.pii.marked_sections(entry.doc_id, caller=owner))
        for word in text.replace("\n", " ").split():
            if (word.startswith("KX") and word.endswith("Q.")) or word.endswith("@example.com"):
                found.append((entry.doc_id, word.rstrip(".")))
                break
        if len(found) == count:
            break
    return found or [(listed[0].doc_id, "Dr.")]


def _summary(server: list[float], cpu: list[float]) -> dict[str, float]:
    return {
        "p50_ms": _rank(server, 0.5),
        "p95_ms": _rank(server, 0.95),
        "max_ms": round(max(server), 1),
        "cpu_p50_ms": _rank(cpu, 0.5),
        "cpu_p95_ms": _rank(cpu, 0.95),
    }


def _rank(values: list[float], share: float) -> float:
    """The nearest-rank percentile."""
    ordered = sorted(values)
    return round(ordered[max(0, math.ceil(share * len(ordered)) - 1)], 1)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print a table or JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sections", type=int, default=10_000)
    parser.add_argument(
        "--documents",
        type=int,
        default=0,
        help="also add this many short notes (fake embedder and regex PII detector)",
    )
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--data", type=Path, help="a vault file to time (copied first)")
    parser.add_argument("--keep", type=Path, help="also save the built vault file here")
    parser.add_argument(
        "--fast-build",
        action="store_true",
        help="embed the notes with the fake embedder (a minute instead of ten; reads still "
        "use the real one, but search finds fewer vector neighbours: no figures from it)",
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
            build(
                path,
                args.sections,
                args.models,
                fake_embedder=args.fast_build or args.documents > 0,
                documents=args.documents,
            )
            if args.keep:
                shutil.copy(path, args.keep)
        built = time.perf_counter() - began
        report = measure(path, args.models, args.repeat)
    report["build_seconds"] = None if args.data else round(built, 1)
    report["fast_build"] = bool((args.fast_build or args.documents) and not args.data)
    report["target_ms"] = TARGET_MS
    report["all_within_target"] = all(  # every page; actions are reported apart
        page["p95_ms"] <= TARGET_MS for page in report["pages"].values()
    )
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"{report['sections']} sections in {report['documents']} documents; load average "
            f"{report['load_average_before']} before, {report['load_average_after']} after"
        )
        for name, page in {**report["pages"], **report["actions"]}.items():
            print(
                f"{name:40s} p50 {page['p50_ms']:7.1f}  p95 {page['p95_ms']:7.1f}  "
                f"max {page['max_ms']:7.1f} ms   CPU p50 {page['cpu_p50_ms']:7.1f} ms"
            )
    return 0 if report["all_within_target"] else 1


if __name__ == "__main__":
    sys.exit(main())
