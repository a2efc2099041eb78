"""A small vault for the web page tests: notes with PII, a restricted shelf, an XSS note,
statements with a history, a due reminder and a changed page with a diff, two agents and
some audit rows. Shared by the route tests and the browser tests."""

from __future__ import annotations

from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler

from test_watches_support import LocalServer, html_page, send

from privault.caller import Caller
from privault.timeutil import now_ms
from privault.vault import Vault
from privault.vault.agents import AuditEntry

OWNER = Caller.owner()
HOUR = 3_600_000
DAY = 24 * HOUR
XSS = '<script>alert("pwned")</script> and <img src=x onerror="alert(2)">'
PAGE = {"paragraphs": ["The boiler service costs 90 euros.", "Open Monday to Friday."]}

PLUMBER = """# Plumber
Dr. Maria Gonzalez repaired the boiler. Invoice 4471: 312.50 EUR,
due 15 March. Questions to maria.gonzalez@example.com.

## Parts
New pressure valve and a flush of the heating circuit."""

TEAM = """# Boiler project
Kofi Mensah leads the boiler project; the site visit is on Thursday.
Kofi Mensah asked for the invoice by email."""


def csrf_of(text: str) -> str:
    """The CSRF token a page's forms carry."""
    return text.split('name="csrf" value="', 1)[1].split('"', 1)[0]


def shop_page(handler: BaseHTTPRequestHandler) -> None:
    """The watched page; tests change PAGE between runs."""
    send(handler, html_page("Boiler service", *PAGE["paragraphs"]))


@dataclass
class Site:
    """What the seeded vault holds, by id."""

    plumber: str
    team: str
    evil: str
    health: str
    reminder: str
    watch: str
    tokens: dict[str, str]


def seed(vault: Vault, server: LocalServer | None = None) -> Site:
    """Fill `vault` (see the module docstring); with `server`, a url watch that changed."""
    plumber = vault.note(PLUMBER, caller=OWNER, tags=["money"]).doc_id
    team = vault.note(TEAM, caller=OWNER, tags=["work"]).doc_id
    evil = vault.note(
        f"# Pasted {XSS}\nA boiler note that pasted {XSS} from a web page.", caller=OWNER
    ).doc_id
    vault.shelves.add("health", restricted=True)
    health = vault.note(
        "# Boiler fumes\nThe boiler fumes gave me a headache; doctor on Friday.",
        caller=OWNER,
        shelf="health",
    ).doc_id
    tokens = {
        "claude": vault.agents.issue("claude"),
        "reader": vault.agents.issue("reader", read_only=True),
    }
    start = now_ms() - 90 * DAY
    first = vault.statements.add(
        "Acme's account contact is Dana",
        caller=OWNER,
        entities=["Acme", "Dana"],
        valid_from=start,
    ).statement.statement
    vault.statements.supersede(
        first.id, "Acme's account contact is Lee", caller=OWNER, valid_from=start + 45 * DAY
    )
    due = vault.watches.add("remind", "Pay the plumber", caller=OWNER, at=now_ms() - HOUR)
    watch = due.watch.id
    if server is not None:
        added = vault.watches.add(
            "url", server.url("/shop"), caller=OWNER, every="1d", allow_private=True
        )
        watch = added.watch.id
    vault.watches.poll(caller=OWNER, now=now_ms() + 1000)
    if server is not None:
        PAGE["paragraphs"] = ["The boiler service costs 95 euros.", "Open Monday to Saturday."]
        try:
            vault.watches.run(watch, caller=OWNER)
        finally:
            PAGE["paragraphs"] = ["The boiler service costs 90 euros.", "Open Monday to Friday."]
    [reminder] = vault.watches.reminders(caller=OWNER).reminders
    vault.audit.record(
        AuditEntry(
            agent="claude",
            tool="memory_search",
            ok=True,
            ids=(f"{plumber}.1",),
            policy="standard",
            held_back={"PERSON": 1, "EMAIL_ADDRESS": 1},
            arguments={"query": "who repaired the boiler", "limit": 5},
        ),
    )
    vault.audit.record(
        AuditEntry(agent="reader", tool="remember", ok=False, refused=True, reason="read-only"),
    )
    return Site(plumber, team, evil, health, reminder.id, watch, tokens)
