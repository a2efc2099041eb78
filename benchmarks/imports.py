"""Import benchmark: a generated ChatGPT export and mbox, imported by the real command.

    python -m benchmarks.imports [--conversations 2000] [--messages 40000] [--mails 20000]
        [--scale 1.0] [--attachment-kb 0 --attachment-every 4] [--only chatgpt|mbox]
        [--index | --no-index | --index-for S] [--into VAULT] [--keep DIR] [--seed N] [--json]

Writes a ChatGPT `conversations.json` of `--conversations` conversations holding
`--messages` messages in all (each conversation with a system root, an abandoned branch
and the kept one), and an mbox of `--mails` messages (a third of them replies, some
multipart with a text attachment); `--scale` multiplies every count. A real mailbox is mostly
attachments: `--attachment-kb N` gives every `--attachment-every`-th mail a binary one of N
KB (a PDF's worth of random bytes, base64 as mailers send it), which is how a mailbox of
gigabytes is made (`--mails 60000 --attachment-kb 250` writes ~5 GB). Each export is then
imported by `privault add --from KIND PATH --json`, one fresh process each, as a user runs it
(`--only` imports one of the two):

* `searchable_s`: the import command's wall time; when it returns, every item is stored
  and found by its words (checked: a word only the last item holds is searched for);
* `indexed_s`: that plus `privault index --limit 0` — the PII scan and embedding of every
  section with the real detector and embedder (not the strong model's separate pass), so
  agents may see it (`--no-index` skips it: on a shared 2-core machine it is the slow part;
  `--index-for S` stops it after S seconds and reports `sections_per_second`, loading the
  models included: give it minutes);
* `reimport_s` and `reimport_ratio`: the same command again on the unchanged file (every
  item skipped; the aim is ≤ 10% of the first import); `*_cpu_s` and `reimport_cpu_ratio`
  are the same in CPU seconds (user + system, from the OS), steadier on a shared machine;
* `peak_rss_mb`: the largest resident memory of each process (import, index, re-import),
  from the OS (`wait4`); the aim is ≤ 500 MB whatever the file's size.

Each export goes into a new vault, or with `--into VAULT` into a copy of that vault (e.g.
the million-section one `benchmarks.perf --keep` builds), to see what its size costs.

The load average is reported at the start and end: the machine may be shared.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, TextIO

from benchmarks.scale import in_child

_INSTALLED = Path(sys.executable).with_name("privault")
PRIVAULT = (
    [str(_INSTALLED)]
    if _INSTALLED.exists()
    else [sys.executable, "-c", "from privault.interfaces.cli import main; main()"]
)
WORDS = (
    "boiler invoice garden meeting budget holiday flight recipe doctor school contract "
    "insurance pension mortgage bicycle kitchen window report deadline project release "
    "server backup laptop printer battery charger ticket museum concert library passport "
    "appointment prescription vaccine allergy dentist plumber electrician carpenter roof "
    "gutter fence hedge lawn tomato pepper onion garlic basil thyme oven kettle fridge"
).split()
NAMES = ["Maria Quelvik", "John Smith", "Ana Lopez", "Wei Chen", "Olga Petrova"]


def sentence(rng: random.Random) -> str:
    """A short sentence of everyday words, sometimes with a name or an address in it."""
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 18))]
    if rng.random() < 0.15:
        words.insert(rng.randint(0, len(words)), rng.choice(NAMES))
    if rng.random() < 0.05:
        words.append(f"{rng.choice(WORDS)}{rng.randint(1, 99)}@example.com")
    return " ".join(words).capitalize() + "."


def paragraph(rng: random.Random, sentences: int) -> str:
    """A few sentences."""
    return " ".join(sentence(rng) for _ in range(sentences))


def write_chatgpt(path: Path, conversations: int, messages: int, rng: random.Random) -> str:
    """Stream a conversations.json; return a word only its last conversation holds."""
    per = max(2, messages // max(conversations, 1))
    marker = "zqmarker" + str(rng.randint(10**6, 10**7))
    start = 1_600_000_000.0
    with path.open("w", encoding="utf-8") as out:
        out.write("[")
        for number in range(conversations):
            if number:
                out.write(",")
            last = number == conversations - 1
            json.dump(
                _conversation(number, per, start + number * 3600, rng, marker if last else ""), out
            )
        out.write("]")
    return marker


def _conversation(
    number: int, per: int, created: float, rng: random.Random, marker: str
) -> dict[str, Any]:
    mapping: dict[str, Any] = {
        "root": {"id": "root", "message": None, "parent": None, "children": ["sys"]}
    }
    system = _message("sys", "system", "", created)
    system["metadata"] = {"is_visually_hidden_from_conversation": True}
    mapping["sys"] = {"id": "sys", "message": system, "parent": "root", "children": ["x0", "m0"]}
    # An abandoned branch: an edited first prompt.
    mapping["x0"] = {
        "id": "x0",
        "message": _message("x0", "user", paragraph(rng, 1), created),
        "parent": "sys",
        "children": [],
    }
    parent = "sys"
    for turn in range(per):
        node = f"m{turn}"
        role = "user" if turn % 2 == 0 else "assistant"
        text = paragraph(rng, 2 if role == "user" else 4)
        if marker and turn == per - 1:
            text += f" {marker}"
        mapping[parent]["children"] = [*mapping[parent]["children"], node]
        mapping[node] = {
            "id": node,
            "message": _message(node, role, text, created + turn * 30),
            "parent": parent,
            "children": [],
        }
        parent = node
    mapping["sys"]["children"] = ["x0", "m0"]
    return {
        "title": f"Conversation {number}: {rng.choice(WORDS)} and {rng.choice(WORDS)}",
        "create_time": created,
        "update_time": created + per * 30,
        "mapping": mapping,
        "current_node": parent,
        "conversation_id": f"conv-{number:06d}",
        "id": f"conv-{number:06d}",
        "default_model_slug": "gpt-4o",
        "is_archived": False,
    }


def _message(node: str, role: str, text: str, created: float) -> dict[str, Any]:
    return {
        "id": node,
        "author": {"role": role, "name": None, "metadata": {}},
        "create_time": created,
        "update_time": None,
        "content": {"content_type": "text", "parts": [text]},
        "status": "finished_successfully",
        "end_turn": True,
        "weight": 1.0,
        "metadata": {},
        "recipient": "all",
    }


def write_mbox(
    path: Path, mails: int, rng: random.Random, attachment_kb: int = 0, attachment_every: int = 4
) -> str:
    """Stream an mbox; return a word only its last message holds. With `attachment_kb`,
    every `attachment_every`-th mail carries a binary attachment of that size."""
    marker = "zqmail" + str(rng.randint(10**6, 10**7))
    # A few distinct attachments, reused: writing gigabytes of fresh random bytes would
    # time the generator, not the import.
    blobs = [
        base64.encodebytes(rng.randbytes(attachment_kb * 1024)).decode("ascii")
        for _ in range(8 if attachment_kb else 0)
    ]
    with path.open("w", encoding="utf-8") as out:
        for number in range(mails):
            binary = (
                blobs[number % len(blobs)]
                if blobs and number % attachment_every == attachment_every - 1
                else ""
            )
            _mail(out, number, rng, marker if number == mails - 1 else "", binary)
    return marker


def _mail(out: TextIO, number: int, rng: random.Random, marker: str, binary: str = "") -> None:
    day = 1 + number % 28
    sender = rng.choice(NAMES)
    address = sender.lower().replace(" ", ".") + "@example.com"
    reply = number > 0 and rng.random() < 0.33
    subject = f"{'Re: ' if reply else ''}{rng.choice(WORDS).capitalize()} {number}"
    body = paragraph(rng, rng.randint(2, 6)) + (f" {marker}" if marker else "")
    out.write(f"From {address} Mon Mar {day:2d} 10:{number % 60:02d}:00 2025\n")
    out.write(f"From: {sender} <{address}>\nTo: owner@example.com\nSubject: {subject}\n")
    out.write(f"Date: Mon, {day:02d} Mar 2025 10:{number % 60:02d}:00 +0000\n")
    out.write(f"Message-ID: <mail{number}@example.com>\n")
    if reply:
        parent = rng.randrange(number)
        out.write(f"In-Reply-To: <mail{parent}@example.com>\n")
        out.write(f"References: <mail{parent}@example.com>\n")
    if number % 10 == 0 or binary:
        out.write('MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="B"\n\n')
        out.write(f"--B\nContent-Type: text/plain; charset=utf-8\n\n{body}\n")
        if binary:
            out.write("--B\nContent-Type: application/pdf\nContent-Transfer-Encoding: base64\n")
            out.write(f'Content-Disposition: attachment; filename="scan{number}.pdf"\n\n')
            out.write(binary)
        if number % 10 == 0:
            out.write(
                '--B\nContent-Type: text/plain\nContent-Disposition: attachment; filename="n.txt"'
            )
            out.write(f"\n\n{paragraph(rng, 2)}\n")
        out.write("--B--\n\n")
    else:
        out.write(f"Content-Type: text/plain; charset=utf-8\n\n{body}\n\n")


def run(
    args: list[str], env: dict[str, str], stop_after: float = 0
) -> tuple[float, float, float, dict[str, Any]]:
    """Run the command; (wall seconds, CPU seconds, its peak resident memory in MB, its
    JSON output). CPU seconds say what the run costs when others share the machine.
    `stop_after` > 0: interrupt it (as Ctrl-C does) after that many seconds; its output is
    then `{}`."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [*PRIVAULT, *args, "--json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    stopper = threading.Timer(stop_after, proc.send_signal, (signal.SIGINT,))
    if stop_after > 0:
        stopper.start()
    out: list[bytes] = []
    err: list[bytes] = []
    readers = [
        threading.Thread(target=lambda: out.append(proc.stdout.read())),  # type: ignore[union-attr]
        threading.Thread(target=lambda: err.append(proc.stderr.read())),  # type: ignore[union-attr]
    ]
    for reader in readers:
        reader.start()
    # wait4, not Popen.wait: it gives this one process's resource use (its peak RSS).
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    for reader in readers:
        reader.join()
    stopper.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    stopped = stop_after > 0 and wall >= stop_after
    if proc.returncode != 0 and not stopped:
        raise SystemExit(f"privault {' '.join(args)} failed: {b''.join(err).decode()[-2000:]}")
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024, {} if stopped else json.loads(b"".join(out))


def searchable(vault: Path, word: str) -> bool:
    """Whether the owner's keyword search finds `word`, asked in a child process: a search
    here would grow this process by the vault's index, and each later command's `wait4`
    peak would count it (Linux records the peak of the memory a child shares with its
    parent until its exec)."""
    found = in_child("benchmarks.imports", "searchable_here", vault, word)
    if "error" in found:
        raise SystemExit(f"the search check failed: {found['error']}")
    return bool(found["found"])


def searchable_here(vault: str, word: str) -> dict[str, bool]:
    """The body of `searchable` (no model needed for the check)."""
    from privault.caller import Caller
    from privault.privacy.detector import FakeDetector
    from privault.retrieval.embedder import FakeEmbedder
    from privault.vault import Vault

    path = Path(vault)
    with Vault.open(
        path, models_dir=path.parent, embedder=FakeEmbedder(), detector_factory=FakeDetector
    ) as opened:
        return {"found": bool(opened.search(word, caller=Caller.owner(), limit=1).results)}


def measure(
    kind: str, path: Path, marker: str, env: dict[str, str], index: bool, index_for: float = 0
) -> dict[str, Any]:
    """Import, index (all, or for `index_for` seconds), re-import one export; the figures
    of each step."""
    vault = Path(env["PRIVAULT_VAULT"])
    first_s, first_cpu, first_mb, first = run(["add", "--from", kind, str(path)], env)
    found = searchable(vault, marker)
    result: dict[str, Any] = {
        "file_mb": round(path.stat().st_size / 2**20, 1),
        "items": first["added"],
        "failed": len(first["failed"]),
        "searchable_s": round(first_s, 1),
        "import_cpu_s": round(first_cpu, 1),
        "searchable_checked": found,
        "import_peak_rss_mb": round(first_mb),
    }
    if index_for > 0:  # a rate: what `privault index` does in that time
        waiting = run(["status"], env)[3]["indexing"]["sections"]
        index_s, index_cpu, index_mb, _ = run(["index", "--limit", "0"], env, index_for)
        left = run(["status"], env)[3]["indexing"]["sections"]
        result.update(
            index_only_s=round(index_s, 1),
            index_cpu_s=round(index_cpu, 1),
            index_peak_rss_mb=round(index_mb),
            sections_indexed=waiting - left,
            sections_left=left,
            sections_per_second=round((waiting - left) / index_s, 2),
        )
    elif index:
        index_s, index_cpu, index_mb, indexed = run(["index", "--limit", "0"], env)
        result.update(
            indexed_s=round(first_s + index_s, 1),
            index_only_s=round(index_s, 1),
            index_cpu_s=round(index_cpu, 1),
            index_peak_rss_mb=round(index_mb),
            sections_indexed=indexed["done"],
            sections_left=indexed["remaining"],
        )
    again_s, again_cpu, again_mb, again = run(["add", "--from", kind, str(path)], env)
    result.update(
        reimport_s=round(again_s, 2),
        reimport_cpu_s=round(again_cpu, 2),
        reimport_ratio=round(again_s / first_s, 3),
        reimport_cpu_ratio=round(again_cpu / first_cpu, 3),
        reimport_skipped=again["skipped"],
        reimport_added_or_updated=again["added"] + again["updated"],
        reimport_peak_rss_mb=round(again_mb),
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=40000)
    parser.add_argument("--mails", type=int, default=20000)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument(
        "--attachment-kb", type=int, default=0, help="Binary attachments of this size (KB)."
    )
    parser.add_argument("--attachment-every", type=int, default=4, help="On every Nth mail.")
    parser.add_argument("--only", choices=("chatgpt", "mbox"), help="Import only this export.")
    parser.add_argument("--index", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument(
        "--index-for", type=float, default=0, help="Index for this many seconds only: a rate."
    )
    parser.add_argument(
        "--into", type=Path, help="Import into a copy of this vault instead of a new one."
    )
    parser.add_argument("--keep", type=Path, help="Build in this folder and keep it.")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.into and not args.into.is_file():
        parser.error(f"--into: no vault at {args.into}")
    if args.attachment_kb < 0 or args.attachment_every < 1:
        parser.error("--attachment-kb must be ≥ 0 and --attachment-every ≥ 1")
    conversations = max(1, round(args.conversations * args.scale))
    messages = max(2, round(args.messages * args.scale))
    mails = max(1, round(args.mails * args.scale))
    folder = args.keep or Path(tempfile.mkdtemp(prefix="privault-imports-"))
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    load_start = os.getloadavg()
    gpt = folder / "conversations.json"
    gpt_marker = write_chatgpt(gpt, conversations, messages, rng) if args.only != "mbox" else ""
    mbox = folder / "mail.mbox"
    mail_marker = (
        write_mbox(mbox, mails, rng, args.attachment_kb, args.attachment_every)
        if args.only != "chatgpt"
        else ""
    )
    kinds = [args.only] if args.only else ["chatgpt", "mbox"]
    report: dict[str, Any] = {
        "into": str(args.into) if args.into else None,
        "scale": args.scale,
        "conversations": conversations,
        "messages": messages,
        "mails": mails,
        "attachment_kb": args.attachment_kb,
        "load_start": [round(x, 2) for x in load_start],
    }
    exports = {"chatgpt": (gpt, gpt_marker), "mbox": (mbox, mail_marker)}
    for kind in kinds:
        path, marker = exports[kind]
        home = folder / kind
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir()
        if args.into:
            shutil.copyfile(args.into, home / "vault.db")
        env = {
            **os.environ,
            "PRIVAULT_HOME": str(home),
            "PRIVAULT_VAULT": str(home / "vault.db"),
            "PRIVAULT_INDEXER": "off",  # indexing is timed on its own, not left to a worker
            "PRIVAULT_WARM": "off",
            # The installed models, wherever the vault's home is.
            "PRIVAULT_MODELS": os.environ.get(
                "PRIVAULT_MODELS", str(Path.home() / ".privault" / "models")
            ),
        }
        report[kind] = measure(kind, path, marker, env, args.index, args.index_for)
    report["load_end"] = [round(x, 2) for x in os.getloadavg()]
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for kind in kinds:
        print(kind, json.dumps(report[kind]))
    print("load average", report["load_start"], "→", report["load_end"])


if __name__ == "__main__":
    main()
