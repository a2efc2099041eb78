"""Fixed reply values: one of each type an agent or `--json` receives."""

from __future__ import annotations

from typing import Any

from privault.ask.pipeline import AskHeldBack, AskReply, Citation
from privault.models.supervisor import Health
from privault.privacy.gate import literal
from privault.statements.model import EntityCount, Statement
from privault.store.agents import Agent
from privault.store.audit import AuditEntry
from privault.store.documents import Document
from privault.vault.added import Added, AddReport
from privault.vault.doctor import BuildCheck, ModelCheck
from privault.vault.import_results import GoneItem
from privault.vault.import_results import ImportReport as ItemsImported
from privault.vault.markdown_export import MarkdownReport
from privault.vault.pii import Rescan
from privault.vault.results import (
    ContextPack,
    ContextSection,
    DocumentEntry,
    DocumentList,
    DocumentTree,
    Hit,
    Privacy,
    SearchResponse,
    SectionView,
    TreeNode,
)
from privault.vault.shelves import Shelf
from privault.vault.statement_results import (
    EntityList,
    GatedStatement,
    StatementList,
    StatementResponse,
    StatementTexts,
)
from privault.vault.status import IndexHealth, IndexingStatus, PrivacyStatus, VaultStatus
from privault.vault.strong import StrongCoverage
from privault.vault.sync_results import ExportReport, ImportReport, SyncReport
from privault.vault.watch_results import (
    GatedReminder,
    GatedWatch,
    ReminderList,
    ReminderResponse,
    WatchList,
)
from privault.watches.model import Reminder, Watch

T0 = 1_700_000_000_000
G = literal
PRIVACY = Privacy("standard", "redact", {"PERSON": 2}, 1)


def hit() -> Hit:
    """A search hit."""
    return Hit(
        "n1",
        "d1",
        G("Title"),
        (G("Title"), G("Part")),
        G("Text <PERSON_1>"),
        0.12345678,
        "note",
        "default",
        T0,
        False,
        False,
    )


def statement(score: float | None = None) -> GatedStatement:
    """A gated statement."""
    raw = Statement(
        id="s1",
        chain_id="c1",
        content="Ana leads",
        entities=("Ana",),
        source="mail",
        salience=0.5,
        confidence=0.9,
        occurred_at=None,
        valid_from=T0,
        valid_to=None,
        recorded_at=T0,
        invalidated_at=None,
        invalidation_reason=None,
        supersedes=None,
        superseded_by=None,
        revises=None,
        revised_by=None,
        metadata={"k": 1},
        confirmed_count=0,
        last_confirmed_at=None,
        disputed_with=(),
        as_of=T0 + 5,
        score=score,
        shelf="default",
        author="agent",
        entity_kinds=("person",),
    )
    texts = StatementTexts(G("<PERSON_1> leads"), (G("<PERSON_1>"),), G("mail"), None)
    return GatedStatement(raw, texts, current=True)


def watch() -> GatedWatch:
    """A gated watch."""
    raw = Watch(
        "w1",
        "url",
        "https://x",
        "",
        "default",
        "active",
        False,
        3,
        T0,
        None,
        None,
        None,
        0,
        0,
        0,
        T0,
        {"a": 1},
        "agent",
    )
    return GatedWatch.of(raw, target=G("https://x"), last_error=None)


def reminder() -> GatedReminder:
    """A gated reminder."""
    return GatedReminder.of(Reminder("r1", "w1", "d1", "pay", "default", T0, None), text=G("pay"))


def samples() -> dict[str, Any]:
    """One value per reply type, by name."""
    section = ContextSection("n1", "d1", G("T"), (G("T"),), G("body"), T0, True, False)
    entry = DocumentEntry(
        "d1",
        "note",
        G("T"),
        G("/home/ana/x.md"),
        "default",
        (G("tag"),),
        T0,
        T0 + 1,
        False,
        True,
        None,
    )
    return {
        "search": SearchResponse("q", (hit(),), PRIVACY, (statement(0.5),), 2),
        "context": ContextPack("q", G("pack"), (section,), 10, 100, 1, PRIVACY, (statement(),), 0),
        "section": SectionView(
            "n1",
            "d1",
            G("T"),
            (G("T"),),
            G("body"),
            "page",
            "default",
            T0,
            True,
            ("n2",),
            PRIVACY,
            ("d9",),
        ),
        "tree": DocumentTree(
            "d1", G("T"), "note", "default", (TreeNode("n1", G("H"), 1, None, 4),)
        ),
        "docs": DocumentList((entry,), PRIVACY),
        "added": Added("d1", "added", "T", 2, "/x"),
        "shelf": Shelf("work", "strict", True, False, ("bot",), 3),
        "statement": StatementResponse(statement(), PRIVACY),
        "statements": StatementList((statement(), statement(0.25)), PRIVACY),
        "entities": EntityList((EntityCount("Ana", "ana", 2, "x"),), PRIVACY),
        "watches": WatchList((watch(),), PRIVACY),
        "reminders": ReminderList((reminder(),), 2, f"{T0}.r1", PRIVACY),
        "reminder": ReminderResponse(reminder(), PRIVACY),
        "ask": AskReply(
            "answer",
            (Citation("n1", "d1", "T"),),
            "standard",
            "redact",
            AskHeldBack({"PERSON": 1}, 1, {"plain": 1}, 0, {"EMAIL": 1}),
            None,
            "tok",
            "m",
            "local",
            None,
            {"total": 1.5},
            0,
        ),
        "strong": StrongCoverage("gemma", 3, 4),
        "rescan": Rescan(2, 1, "v3"),
        "model_check": ModelCheck("m", "chat", "ok", "fast", ""),
        "build_check": BuildCheck(("AVX", "AVX2"), True, None),
        "markdown": MarkdownReport("/x", 2, 1),
        "gone": GoneItem("k", "d1", None),
        "export": ExportReport("/b", 3, 0, 9, 100),
        "sync_import": ImportReport("/b", "dev", 3, {"documents": 2}, 1, 0, 0, ("work",)),
        "document": Document(
            "d1",
            "note",
            "T",
            "/x",
            "default",
            ("a",),
            "h",
            T0,
            T0 + 1,
            False,
            True,
            None,
            {"m": 1},
            "bot",
        ),
        "add_report": AddReport(
            (Added("d1", "added", "T", 2, "/x"), Added("d2", "unchanged", "U", 1, None)),
            (("/bad", "unreadable"),),
        ),
        "import_report": ItemsImported(
            "chatgpt",
            "/c.zip",
            False,
            {"conversation": {"added": 2, "updated": 1, "skipped": 0}},
            (("c9", "broken"),),
            (GoneItem("k", "d1", None),),
            0,
        ),
        "sync_report": SyncReport(
            "dev",
            ExportReport("/b", 3, 0, 9, 100),
            (ImportReport("/p", "other", 1, {"documents": 1}, 0, 0, 0),),
            (("/q", "bad mac"),),
        ),
        "status": VaultStatus(
            "/v.db",
            100,
            14,
            2,
            3,
            4,
            IndexHealth(4, 4, 4, True, None, 4, False, 0),
            PrivacyStatus("v3", 1, ("standard",)),
            IndexingStatus(1, 1, 0, T0, ("boom",)),
            StrongCoverage("g", 1, 2),
            ({"name": "m", "state": "idle"},),
        ),
        "status_broken": VaultStatus(
            "/v.db",
            100,
            14,
            2,
            3,
            4,
            IndexHealth(4, 4, 4, True, None),
            PrivacyStatus(error="bad policy"),
        ),
        "health": Health("m", "chat", "ready", 1, 2, "oom", 42, 1.5),
        "agent": Agent("bot", False, T0, None, ("work",)),
        "audit_entry": AuditEntry(
            "bot",
            "memory_search",
            True,
            ("n1",),
            "standard",
            {"PERSON": 1},
            False,
            None,
            T0,
            7,
            {"query": "q"},
        ),
    }
