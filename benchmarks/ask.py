"""Ask benchmark: answer quality and latency of each local chat model over a fixed note set.

    python -m benchmarks.ask --json [--models smollm2-135m,qwen2.5-coder-0.5b,...]
                             [--models-dir DIR] [--limit N] [--via-vault]
    python -m benchmarks.ask --locomo PATH [--limit N] [--budgets 300,600,1000] [--no-strong]

`--locomo` answers sampled LoCoMo questions through `Vault.ask` instead (see
`benchmarks/ask_locomo.py`: token F1 and gold-contained, MiniLM-only against the strong
leg, per budget); `--models` then names the one answering model (default: the vault's).

33 questions about invoices, appointments, contacts and lists, each with accepted answers
(normalised substring match; `a&b` means both must appear). For each model it reports
accuracy, p50/p95 latency of the whole privault ask (warm: one unscored warm-up ask
first), the prompt tokens reused from the KV cache, and privault's overhead over a bare
llama.cpp completion of the very same prompt on a second, identically warmed instance.

Direct mode (default) picks each question's sections with a small keyword ranking and
calls `privault.ask.ask()` as the owner (mode `off`, so nothing is masked and quality is
the model's). `--via-vault` stores the notes in a temporary vault and asks through
`Vault.ask` instead, so retrieval and gating are included; `--after-unload N` then asks
the first N questions once more, each after the answerer was unloaded for want of
questions (`chat_unload_after`), and reports their times beside the warm ones.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from privault.ask import AskEngines, AskRequest, AskSection, FollowupTokens, ask
from privault.ask.briefing import build_messages
from privault.models.chat import chatml
from privault.models.handles import local_chat
from privault.models.llama import LlamaChat
from privault.store.connection import connect
from privault.store.migrations import migrate
from privault.vault.bounds import DEFAULT_ASK_BUDGET

DEFAULT_MODELS = "smollm2-135m,qwen2.5-coder-0.5b,qwen2.5-coder-1.5b"
MAX_TOKENS = 48
TOP_K = 3

NOTES: list[tuple[str, str]] = [
    (
        "Invoice ACME Hosting",
        "Invoice INV-2026-031 from ACME Hosting GmbH. Amount: 1,240.50 EUR. "
        "Issued 2026-03-15, due 2026-04-15. Status: unpaid.",
    ),
    (
        "Electricity bill February",
        "Electricity bill from Stadtwerke Köln for February 2026: "
        "86.20 EUR, due 2026-03-10. Customer number 44-2281-07. Status: paid on 2026-03-02.",
    ),
    (
        "Invoice Bauer Elektro",
        "Invoice BE-7731 from Bauer Elektro for the kitchen wiring: 465.00 EUR, due 2026-05-01.",
    ),
    (
        "Flight to Lisbon",
        "Flight booking LH 1234 from Berlin to Lisbon on 2026-06-12. Ticket "
        "price 318.40 EUR, booking code QX7P2M.",
    ),
    (
        "Dentist appointment",
        "Dentist: Dr. Ana Weber, check-up on 2026-03-12 at 09:30, "
        "Hauptstraße 5, Bonn. Bring the insurance card.",
    ),
    (
        "Car service",
        "Car service at Autohaus Schmitt on 2026-04-03 at 08:00. Oil change and "
        "brake check, estimated cost 240 EUR.",
    ),
    (
        "Parent-teacher meeting",
        "Parent-teacher meeting with Mrs. Okafor on 2026-03-19 at 17:15 in room B12.",
    ),
    (
        "Physiotherapy",
        "Physiotherapy with Lukas Brandt every Tuesday at 18:00, starting "
        "2026-03-03, six sessions in total.",
    ),
    (
        "Plumber",
        "Plumber: Jonas Richter, phone +49 221 555 0142, email "
        "jonas@richter-sanitaer.de. He fixed the boiler in January.",
    ),
    (
        "Landlord",
        "Landlord: Petra Vogel, phone +49 221 555 0199, email p.vogel@example.org. "
        "Rent is 1,150 EUR, due on the 1st of each month.",
    ),
    (
        "Babysitter",
        "Babysitter: Mia Schneider, phone +49 176 555 0133. Available on Wednesdays "
        "and Fridays; she charges 12 EUR per hour.",
    ),
    ("Shopping list", "Shopping list: oat milk, eggs, basmati rice, tomatoes, dish soap."),
    (
        "Packing list Lisbon",
        "Packing list for the Lisbon trip: passport, sunscreen, phone "
        "charger, swimsuit, hiking shoes.",
    ),
    ("Reading list", "Books to read: The Overstory, Piranesi, Klara and the Sun, Educated."),
    (
        "Gift ideas for Dad",
        "Dad's birthday is on 2026-05-20. Gift ideas: fountain pen, jazz "
        "vinyl record, hiking socks.",
    ),
]

# (question, category, accepted answers: any alternative; `a&b` = all parts must appear)
QUESTIONS: list[tuple[str, str, list[str]]] = [
    ("How much is the ACME Hosting invoice?", "invoices", ["1240.50", "1240.5"]),
    ("When is the ACME Hosting invoice due?", "invoices", ["2026-04-15", "april15", "15april"]),
    ("What is the invoice number of the ACME Hosting invoice?", "invoices", ["inv-2026-031"]),
    ("How much was the February electricity bill?", "invoices", ["86.20", "86.2"]),
    ("When was the February electricity bill paid?", "invoices", ["2026-03-02", "march2"]),
    ("What is my customer number at Stadtwerke Köln?", "invoices", ["44-2281-07"]),
    ("How much is the Bauer Elektro invoice?", "invoices", ["465"]),
    ("When is the Bauer Elektro invoice due?", "invoices", ["2026-05-01", "may1", "1may"]),
    ("What did the flight ticket to Lisbon cost?", "invoices", ["318.40", "318.4"]),
    ("What is the booking code of the Lisbon flight?", "invoices", ["qx7p2m"]),
    ("When is the dentist appointment?", "appointments", ["2026-03-12", "march12", "12march"]),
    ("What time is the dentist check-up?", "appointments", ["09:30", "9:30"]),
    ("What should I bring to the dentist?", "appointments", ["insurancecard"]),
    ("When is the car service?", "appointments", ["2026-04-03", "april3", "3april"]),
    ("How much will the car service cost?", "appointments", ["240"]),
    ("In which room is the parent-teacher meeting?", "appointments", ["b12"]),
    ("What time is the parent-teacher meeting?", "appointments", ["17:15", "5:15"]),
    ("On which weekday is physiotherapy?", "appointments", ["tuesday"]),
    ("How many physiotherapy sessions are there?", "appointments", ["six", "6"]),
    (
        "On what date does the flight to Lisbon leave?",
        "appointments",
        ["2026-06-12", "june12", "12june"],
    ),
    ("What is the plumber's phone number?", "contacts", ["2215550142"]),
    ("What is the plumber's email address?", "contacts", ["jonas@richter-sanitaer.de"]),
    ("What is the plumber's name?", "contacts", ["jonasrichter"]),
    ("What is the landlord's email address?", "contacts", ["p.vogel@example.org"]),
    ("How much is the rent?", "contacts", ["1150", "1.150"]),
    ("What is the babysitter's name?", "contacts", ["miaschneider"]),
    ("How much does the babysitter charge per hour?", "contacts", ["12eur", "€12", "12euro"]),
    ("On which days is the babysitter available?", "contacts", ["wednesday&friday"]),
    ("What is on the shopping list?", "lists", ["oatmilk&eggs&rice"]),
    ("Which shoes should I pack for Lisbon?", "lists", ["hikingshoes"]),
    ("Which books are on my reading list?", "lists", ["overstory&piranesi"]),
    ("What gift ideas do I have for Dad?", "lists", ["fountainpen&vinyl"]),
    ("When is Dad's birthday?", "lists", ["2026-05-20", "may20", "20may"]),
]

# Questions whose answer is itself an identifying value under `standard` (a person's name or
# a contact detail): an agent cannot be told these, by design. Labelled from what the answer
# *is*, not from what the detector happened to mask: a value it masks wrongly (a customer
# number taken for a phone, a book title for a place) is over-redaction, and the question
# still counts against the agent's accuracy.
IDENTIFYING_ANSWERS = frozenset(
    {
        "What is the plumber's phone number?",
        "What is the plumber's email address?",
        "What is the plumber's name?",
        "What is the landlord's email address?",
        "What is the babysitter's name?",
    }
)

_STOP = set(
    "a an the is are was were what when which who how much many my i do does did of on "
    "in at to for and or be will should".split()
)


def normalise(text: str) -> str:
    """Lower case, no whitespace or thousands separators: `1,240.50 EUR` → `1240.50eur`."""
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text.casefold())
    return re.sub(r"\s+", "", text)


def correct(answer: str, accepted: list[str]) -> bool:
    """True if any accepted alternative (all its `&` parts) is in the normalised answer."""
    plain = normalise(answer)
    return any(all(part in plain for part in option.split("&")) for option in accepted)


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-zäöüß0-9-]+", text.casefold()) if w not in _STOP}


def sections_for(question: str) -> list[AskSection]:
    """The TOP_K notes sharing the most words with the question (a stand-in for retrieval)."""
    asked = _words(question)
    ranked = sorted(
        range(len(NOTES)),
        key=lambda i: (-len(asked & _words(NOTES[i][0] + " " + NOTES[i][1])), i),
    )
    return [
        AskSection(f"n{i}", f"d{i}", NOTES[i][0], NOTES[i][1], True, False, ())
        for i in ranked[:TOP_K]
    ]


def percentile(values: list[float], share: float) -> float:
    """The `share` percentile (nearest rank) of `values`."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered) + 0.5) - 1))]


def bench_model(
    models_dir: Path, name: str, questions: list[Any], bare_every: int = 3
) -> dict[str, Any]:
    """Run every question through privault and through a bare llama.cpp call."""
    started = time.perf_counter()
    chat = local_chat(models_dir, name, threads=2)  # privault's way: in its worker process
    chat.start()
    load_s = time.perf_counter() - started
    bare = LlamaChat(models_dir, name, n_threads=2)  # same weights, in this process
    with tempfile.TemporaryDirectory() as scratch:
        conn = connect(Path(scratch) / "bench.db")
        migrate(conn)
        engines = AskEngines(chat, None, FollowupTokens(conn))

        def request(question: str) -> AskRequest:
            return AskRequest(
                question,
                tuple(sections_for(question)),
                caller_name="owner",
                policy_name="open",
                mode="off",
                max_tokens=MAX_TOKENS,
            )

        warm = QUESTIONS[-1][0]
        ask(request(warm), engines)  # load pages, fill the briefing prefix
        bare.complete(chatml(build_messages(warm, sections_for(warm))), max_tokens=MAX_TOKENS)
        rows = []
        for number, (question, category, accepted) in enumerate(questions):
            asked = request(question)
            t0 = time.perf_counter()
            reply = ask(asked, engines)
            privault_s = time.perf_counter() - t0
            bare_s = None
            if number % bare_every == 0:  # the same prompt, straight into llama.cpp
                prompt = chatml(build_messages(question, asked.sections))
                t1 = time.perf_counter()
                bare.complete(prompt, max_tokens=MAX_TOKENS)
                bare_s = round(time.perf_counter() - t1, 3)
            print(f"{name}: {privault_s:.2f}s  {question}", file=sys.stderr)
            rows.append(
                {
                    "question": question,
                    "category": category,
                    "answer": reply.answer,
                    "correct": correct(reply.answer, accepted),
                    "seconds": round(privault_s, 3),
                    "model_seconds": round(reply.timings["model_ms"] / 1000, 3),
                    "bare_seconds": bare_s,
                    "prompt_tokens": reply.timings["prompt_tokens"],
                    "cached_tokens": reply.timings["cached_tokens"],
                    "completion_tokens": reply.timings["completion_tokens"],
                }
            )
        conn.close()
    return summarise(name, rows, load_s)


def summarise(name: str, rows: list[dict[str, Any]], load_s: float) -> dict[str, Any]:
    """Accuracy (overall and per category), latency percentiles and overhead for one model."""
    seconds = [r["seconds"] for r in rows]
    paired = [r for r in rows if r.get("bare_seconds")]
    inside = sum(r["seconds"] - r["model_seconds"] for r in rows)
    by_category: dict[str, list[bool]] = {}
    for r in rows:
        by_category.setdefault(r["category"], []).append(r["correct"])
    return {
        "model": name,
        "questions": len(rows),
        "accuracy": round(sum(r["correct"] for r in rows) / len(rows), 3),
        "accuracy_by_category": {k: round(sum(v) / len(v), 3) for k, v in by_category.items()},
        "p50_s": round(statistics.median(seconds), 3),
        "p95_s": round(percentile(seconds, 0.95), 3),
        # Against a second, identically warmed llama.cpp instance given the same prompt
        # (noisy on shared cores: both sides see other processes' load).
        "bare_pairs": len(paired),
        "overhead_vs_bare_pct": round(
            (sum(r["seconds"] for r in paired) / sum(r["bare_seconds"] for r in paired) - 1) * 100,
            2,
        )
        if paired
        else None,
        # Time privault spends outside the llama.cpp call (briefing, scan, token), exact.
        "pipeline_overhead_pct": round(inside / sum(r["model_seconds"] for r in rows) * 100, 3),
        "mean_prompt_tokens": round(statistics.mean(r["prompt_tokens"] for r in rows), 1),
        "mean_cached_tokens": round(statistics.mean(r["cached_tokens"] for r in rows), 1),
        "load_s": round(load_s, 2),
        "rows": rows,
    }


UNLOAD_AFTER = 2.0  # seconds: `--after-unload`'s short `chat_unload_after`


def bench_via_vault(
    models_dir: Path, name: str, questions: list[Any], agent: bool = False, after_unload: int = 0
) -> dict[str, Any]:
    """The same questions through the `Vault` facade (retrieval, packing, gating included).

    With `agent`, asked as an agent under `standard`: the model sees placeholders, so
    questions whose answer is a name or a contact detail cannot be right by design.
    """
    from privault import Caller, Vault

    asker = Caller.agent("bench") if agent else Caller.owner()

    with tempfile.TemporaryDirectory() as scratch:
        vault = Vault.open(
            Path(scratch) / "vault.db",
            models_dir=models_dir,
            chat_model=name,
            chat_unload_after=UNLOAD_AFTER if after_unload else None,
        )
        for title, text in NOTES:
            vault.note(text, title=title, caller=Caller.owner())
        warm = QUESTIONS[-1][0]
        vault.ask(warm, caller=asker)
        rows = []
        for question, category, accepted in questions:
            t0 = time.perf_counter()
            reply = vault.ask(question, caller=asker)
            rows.append(
                {
                    "question": question,
                    "category": category,
                    "answer": reply.answer,
                    "correct": correct(reply.answer, accepted),
                    "seconds": round(time.perf_counter() - t0, 3),
                    "bare_seconds": None,
                    "model_seconds": reply.timings.get("model_ms", 0.0) / 1000,
                    "prompt_tokens": reply.timings.get("prompt_tokens", 0),
                    "cached_tokens": reply.timings.get("cached_tokens", 0),
                    "completion_tokens": reply.timings.get("completion_tokens", 0),
                }
            )
        masked = _masked_values(vault, asker) if agent else set()
        reloaded = [_after_unload(vault, asker, q) for q, _, _ in questions[:after_unload]]
        vault.close()
    summary = summarise(name, rows, 0.0)
    if after_unload:
        warm = [row["seconds"] for row in rows[:after_unload]]
        summary["after_unload"] = {
            "questions": after_unload,
            "p50_seconds": round(statistics.median(reloaded), 2),
            "same_questions_warm_p50_seconds": round(statistics.median(warm), 2),
            "seconds": reloaded,
        }
    summary["budget"] = DEFAULT_ASK_BUDGET  # what `Vault.ask` packs when not told otherwise
    if agent:
        summary.update(_agent_figures(rows, questions, masked))
    return summary


def _after_unload(vault: Any, asker: Any, question: str) -> float:
    """Seconds `question` takes once the answerer has been unloaded."""
    from benchmarks.scale import wait_unloaded

    wait_unloaded(vault, UNLOAD_AFTER)
    started = time.perf_counter()
    vault.ask(question, caller=asker)
    return round(time.perf_counter() - started, 3)


def _masked_values(vault: Any, asker: Any) -> set[str]:
    """Every value the asker's policy masks in the stored notes (normalised)."""
    from privault import Caller
    from privault.store import sections

    owner = Caller.owner()
    reading = vault.shared.privacy.reading(asker)
    found: set[str] = set()
    for doc in vault.docs(caller=owner, limit=1000).documents:
        for node in vault.tree(doc.doc_id, caller=owner).nodes:
            row = sections.section_by_node(vault.conn, node.node_id)
            if row is None:
                continue
            for span in reading.spans(row):
                if reading.base.counts(span):
                    found.add(normalise(row.text[span.start : span.end]))
    return {value for value in found if len(value) >= 3}


def _agent_figures(
    rows: list[dict[str, Any]], questions: list[Any], masked: set[str]
) -> dict[str, Any]:
    """Accuracy on questions whose answer is not an identifying value, masked values that
    came back in answers (should be 0), and the open questions whose accepted answer the
    detector masked anyway (over-redaction that costs the agent its answer)."""
    open_rows, leaks, over_masked = [], [], []
    for row, (question, _category, accepted) in zip(rows, questions, strict=True):
        by_design = question in IDENTIFYING_ANSWERS
        row["answer_is_masked"] = by_design
        if not by_design:
            open_rows.append(row)
            parts = [part for option in accepted for part in option.split("&")]
            if any(part in value for part in parts for value in masked if len(part) >= 3):
                over_masked.append(question)
        plain = normalise(row["answer"])
        leaks += [(value, value in normalise(question)) for value in masked if value in plain]
    return {
        "open_questions": len(open_rows),
        "open_accuracy": round(sum(r["correct"] for r in open_rows) / len(open_rows), 3)
        if open_rows
        else None,
        "open_wrong": [r["question"] for r in open_rows if not r["correct"]],
        "open_answers_masked": over_masked,
        "masked_values_in_answers": len(leaks),
        "masked_values_found": sorted({value for value, _ in leaks}),
        # Of those, the ones the question did not hold itself: what came from the vault.
        "masked_values_not_in_question": len([value for value, asked in leaks if not asked]),
    }


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=DEFAULT_MODELS, help="comma-separated model names")
    parser.add_argument("--models-dir", type=Path, default=Path.home() / ".privault" / "models")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    parser.add_argument("--via-vault", action="store_true", help="ask through Vault.ask")
    parser.add_argument(
        "--as-agent", action="store_true", help="with --via-vault: ask as an agent (redact)"
    )
    parser.add_argument(
        "--after-unload",
        type=int,
        default=0,
        metavar="N",
        help="with --via-vault: ask the first N questions again, each after an unload",
    )
    parser.add_argument("--json", action="store_true", help="print the full JSON report")
    parser.add_argument("--locomo", type=Path, default=None, help="LoCoMo JSON: answer benchmark")
    parser.add_argument("--budgets", default="300,600,1000", help="with --locomo: token budgets")
    parser.add_argument("--no-strong", action="store_true", help="with --locomo: MiniLM only")
    parser.add_argument(
        "--strong-only", action="store_true", help="with --locomo: the strong leg's vault only"
    )
    parser.add_argument(
        "--conversations", default=None, help="with --locomo: sample from these (e.g. 4-5)"
    )
    parser.add_argument(
        "--categories", default=None, help="with --locomo: ask these categories only (e.g. 1,3)"
    )
    parser.add_argument("--cache", type=Path, default=None, help="with --locomo: strong vectors")
    parser.add_argument(
        "--oracle", action="store_true", help="with --locomo: answer from the gold evidence only"
    )
    args = parser.parse_args(argv)
    if (args.as_agent or args.after_unload) and not args.via_vault:
        parser.error("--as-agent and --after-unload ask through the vault: add --via-vault")
    if args.locomo is not None:
        return _locomo(args)
    questions = QUESTIONS[: args.limit] if args.limit else QUESTIONS
    names = [name.strip() for name in args.models.split(",")]
    if args.via_vault:
        reports = [
            bench_via_vault(args.models_dir, n, questions, args.as_agent, args.after_unload)
            for n in names
        ]
    else:
        reports = [bench_model(args.models_dir, n, questions) for n in names]
    if args.json:
        json.dump(
            {"mode": "vault" if args.via_vault else "direct", "models": reports},
            sys.stdout,
            indent=2,
            ensure_ascii=False,
        )
        print()
    else:
        for r in reports:
            print(
                f"{r['model']:22} accuracy {r['accuracy']:.0%}  p50 {r['p50_s']:.2f}s  "
                f"p95 {r['p95_s']:.2f}s  overhead {r.get('overhead_vs_bare_pct')}% vs bare, "
                f"{r['pipeline_overhead_pct']}% in pipeline"
            )
    return 0


def _locomo(args: argparse.Namespace) -> int:
    import os

    from benchmarks.ask_locomo import run
    from privault.vault.ask import DEFAULT_CHAT_MODEL

    model = DEFAULT_CHAT_MODEL if args.models == DEFAULT_MODELS else args.models
    budgets = [int(b) for b in args.budgets.split(",")]
    conversations = None
    if args.conversations:
        low, _, high = args.conversations.partition("-")
        conversations = set(range(int(low), int(high or low) + 1))
    report = run(
        args.locomo,
        args.models_dir,
        model,
        args.limit or 150,
        budgets,
        not args.no_strong,
        args.cache,
        conversations,
        args.strong_only,
        {int(c) for c in args.categories.split(",")} if args.categories else None,
        args.oracle,
    )
    report["load_average"] = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        for part in ("summary", "by_category"):
            for key, figures in report[part].items():
                print(f"{key:28} {figures}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
