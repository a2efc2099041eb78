"""The public names, listed: one appears or disappears only on purpose.

A name added to `privault`, `privault.vault`, the `Vault` or one of its facades is a promise
to every program that imports it; a name taken away breaks them. So is a key of an MCP
tool's reply, for every agent that reads it. This test lists them all, so either change
shows up in review with this list and CHANGELOG.md beside it.
"""

from __future__ import annotations

import inspect
import types
from typing import Any

import privault
import privault.vault
from privault.vault import Vault
from tests.helpers import mcp_session

# Names a module binds for its own use (`from __future__ import annotations`, typing).
PLUMBING = {"annotations", "TYPE_CHECKING", "Any"}

PACKAGE_NAMES = {
    "privault": ["Caller", "Vault", "__version__"],
    "privault.vault": ["Vault", "VaultContext", "VaultSettings", "create"],
}

VAULT_NAMES = [
    "add",
    "agents",
    "ask",
    "asking",
    "audit",
    "check",
    "close",
    "conn",
    "context",
    "docs",
    "documents",
    "embedder",
    "file_page",
    "forget",
    "hidden_shelves",
    "import_from",
    "importing",
    "indexing",
    "load_chat_model",
    "note",
    "note_many",
    "open",
    "path",
    "pii",
    "privacy",
    "read",
    "reindex",
    "search",
    "settings",
    "shared",
    "shelves",
    "sibling",
    "statements",
    "status",
    "strong",
    "sync",
    "tree",
    "vectors",
    "watches",
]

FACADE_NAMES = {
    "agents": [
        "by_token",
        "get",
        "issue",
        "list",
        "pause",
        "policy_loosens",
        "resume",
        "revoke",
        "revoked_holder",
        "set_policy",
        "set_read_only",
    ],
    "asking": ["ask", "chat", "chat_model", "close", "load", "remote", "tokens"],
    "audit": ["count", "entries", "last_calls", "record", "transaction"],
    "documents": [
        "add",
        "context",
        "count",
        "docs",
        "file_page",
        "forget",
        "note",
        "note_many",
        "read",
        "read_document",
        "reindex",
        "search",
        "tree",
    ],
    "importing": ["import_from", "max_file_bytes"],
    "indexing": ["has_work", "retry_failed", "status", "step"],
    "pii": [
        "mark",
        "marked_sections",
        "masking_for",
        "occurrences",
        "overrides",
        "redact",
        "remove_override",
        "remove_reveals",
        "rescan",
        "scan",
        "unmark",
        "unmark_reveals",
    ],
    "settings": [
        "ask_timeout",
        "chat_model",
        "chat_unload_after",
        "max_file_bytes",
        "max_note_bytes",
        "models_dir",
        "policies_dir",
        "privacy",
        "remote_chat",
        "strong_model",
    ],
    "shared": [
        "check_shelf_name",
        "check_write",
        "conn",
        "embedder",
        "engines",
        "filters",
        "hidden_shelves",
        "masked_kinds",
        "path",
        "privacy",
        "settings",
        "tag_denied",
    ],
    "shelves": [
        "add",
        "attach",
        "detach",
        "get",
        "list",
        "names",
        "policies",
        "policy_loosens",
        "publish",
        "restrict",
        "set_policy",
        "visible",
    ],
    "statements": [
        "add",
        "confirm",
        "conn",
        "dispute",
        "entities",
        "for_context",
        "get",
        "history",
        "invalidate",
        "query",
        "rescan",
        "revise",
        "scan",
        "stats",
        "supersede",
    ],
    "strong": ["coverage", "index"],
    "sync": [
        "device",
        "dump",
        "export",
        "export_markdown",
        "import_bundle",
        "shared",
        "statements",
        "sync",
    ],
    "watches": [
        "ack",
        "acknowledged",
        "add",
        "cancel",
        "close",
        "count_acknowledged",
        "fetcher",
        "filer",
        "list",
        "pause",
        "poll",
        "recent",
        "reminders",
        "resume",
        "run",
        "run_times",
        "search_backend",
        "show",
        "snooze",
        "snoozed",
    ],
}

# Every MCP tool an agent with write access sees, and the top-level keys of its reply.
MCP_REPLY_KEYS = {
    "ack_reminder": ["held_back", "mode", "policy", "reminder", "withheld_sections"],
    "ask_memory": [
        "answer",
        "citations",
        "followup",
        "held_back",
        "mode",
        "model",
        "policy",
        "refused",
    ],
    "cancel_watch": ["held_back", "mode", "policy", "watch", "withheld_sections"],
    "confirm_statement": ["held_back", "mode", "policy", "statement", "withheld_sections"],
    "dispute_statements": ["held_back", "mode", "policy", "statements", "withheld_sections"],
    "invalidate_statement": ["held_back", "mode", "policy", "statement", "withheld_sections"],
    "list_entities": ["entities", "held_back", "mode", "policy", "withheld_sections"],
    "list_reminders": [
        "held_back",
        "mode",
        "more",
        "next",
        "policy",
        "reminders",
        "withheld_sections",
    ],
    "list_shelves": ["can_write", "shelves"],
    "list_watches": ["held_back", "mode", "policy", "watches", "withheld_sections"],
    "memory_context": [
        "budget",
        "dropped",
        "held_back",
        "mode",
        "policy",
        "query",
        "sections",
        "statements",
        "text",
        "used_tokens",
        "withheld_sections",
    ],
    "memory_forget": ["doc_id", "forgotten"],
    "memory_read": [
        "breadcrumb",
        "children",
        "created_at",
        "doc_id",
        "held_back",
        "kind",
        "mode",
        "node_id",
        "policy",
        "shelf",
        "text",
        "title",
        "untrusted",
        "withheld_sections",
    ],
    "memory_search": [
        "held_back",
        "mode",
        "policy",
        "query",
        "results",
        "statements",
        "withheld_sections",
    ],
    "memory_tree": ["document", "documents"],
    "query_statements": ["held_back", "mode", "policy", "statements", "withheld_sections"],
    "remember": ["doc_id", "sections", "status", "title"],
    "revise_statement": ["held_back", "mode", "policy", "statement", "withheld_sections"],
    "statement_history": ["held_back", "mode", "policy", "statements", "withheld_sections"],
    "supersede_statement": ["held_back", "mode", "policy", "statement", "withheld_sections"],
    "watch": ["held_back", "mode", "policy", "watch", "withheld_sections"],
    "write_statement": ["held_back", "mode", "policy", "statement", "withheld_sections"],
}


def _public(names: Any) -> list[str]:
    return sorted(name for name in names if not name.startswith("_"))


def _module_names(module: types.ModuleType) -> list[str]:
    """What a module offers: its `__all__`, and anything else public it binds (a name bound
    but not listed is a name a reader will import anyway)."""
    bound = {
        name
        for name, value in vars(module).items()
        if not isinstance(value, types.ModuleType) and name not in PLUMBING
    }
    return sorted(set(module.__all__) | set(_public(bound)))


def _facades(vault: Vault) -> dict[str, list[str]]:
    """The public methods and attributes of each facade the vault hands out."""
    found = {}
    for name in VAULT_NAMES:
        value = inspect.getattr_static(vault, name, None)
        if isinstance(value, property):
            value = getattr(vault, name)
        if type(value).__module__.startswith("privault.vault.") and type(value).__name__.startswith(
            "Vault"
        ):
            found[name] = _public(dir(value))
    return found


def test_the_packages_offer_the_names_listed() -> None:
    assert {
        "privault": _module_names(privault),
        "privault.vault": _module_names(privault.vault),
    } == PACKAGE_NAMES
    for module in (privault, privault.vault):
        for name in module.__all__:
            assert getattr(module, name) is not None


def test_the_vault_and_its_facades_offer_the_names_listed(vault: Vault) -> None:
    assert _public(set(dir(Vault)) | set(vars(vault))) == VAULT_NAMES
    assert _facades(vault) == FACADE_NAMES


def test_the_mcp_tools_and_their_reply_keys_are_listed(vault: Vault) -> None:
    vault.agents.issue("claude")
    listed = mcp_session(vault, "claude", lambda client: client.list_tools())
    found = {
        tool.name: sorted((tool.output_schema or {}).get("properties", {})) for tool in listed.tools
    }
    assert found == MCP_REPLY_KEYS
