"""Watch tools: pages to re-read, web searches to re-run, reminders to file when due.

Agents get the kinds that reach only the public web or the vault itself (`url`, `search`,
`remind`). Folder watches (the owner's files) and `allow_private` (loopback and LAN
addresses) have no MCP surface: the facade refuses them for agents anyway, and a tool
that cannot express them keeps a model from trying.
"""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server import MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from privault.caller import Caller
from privault.interfaces.mcp.runtime import Outcome, ToolRuntime
from privault.interfaces.mcp.shapes import reply, shape
from privault.vault import Vault
from privault.vault.bounds import DEFAULT_REMINDER_LIMIT, REMINDER_LIMITS
from privault.vault.watch_results import ReminderList, ReminderResponse, WatchList, WatchResponse

WatchReply = Annotated[CallToolResult, shape(WatchResponse)]
WatchesReply = Annotated[CallToolResult, shape(WatchList)]
RemindersReply = Annotated[CallToolResult, shape(ReminderList)]
ReminderReply = Annotated[CallToolResult, shape(ReminderResponse)]

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
# Adding a watch makes the vault reach the web later, on its schedule.
WATCH = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=True)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
WRITE_TOOLS = {"watch", "cancel_watch", "ack_reminder"}

WatchId = Annotated[
    str, Field(description="A watch id from watch or list_watches.", max_length=100)
]


def register(server: MCPServer, runtime: ToolRuntime) -> None:
    """Add the watch tools to `server` (the vault must have `watches`)."""
    runtime.write_tools |= WRITE_TOOLS
    for add in (_watch, _list_watches, _cancel_watch, _list_reminders, _ack_reminder):
        add(server, runtime)


def _watch(server: MCPServer, runtime: ToolRuntime) -> None:
    """Add the `watch` tool."""

    @server.tool(annotations=WATCH)
    async def watch(
        kind: Annotated[
            Literal["url", "search", "remind"],
            Field(
                description="url: re-read a web page and file it when its text changes; "
                "search: re-run a web search and file new results; "
                "remind: file a reminder note when it comes due."
            ),
        ],
        target: Annotated[
            str,
            Field(
                description="The page URL (http/https), the search query, or the reminder text.",
                min_length=1,
                max_length=4000,
            ),
        ],
        every: Annotated[
            str | None,
            Field(
                description="Repeat interval (30m, 6h, 1d, 1w, 1h30m) or a 5-field cron "
                "expression in UTC. Leave out for a one-off at `at`.",
                max_length=100,
            ),
        ] = None,
        at: Annotated[
            str | None,
            Field(
                description="First (or only) run, ISO 8601 with an offset, "
                "e.g. 2027-01-15T09:00:00+01:00.",
                max_length=64,
            ),
        ] = None,
        shelf: Annotated[
            str,
            Field(description="Where its findings are filed (see list_shelves).", max_length=64),
        ] = "default",
    ) -> WatchReply:
        """Ask the vault to keep an eye on something for the user, on a schedule, even
        while no one is chatting: a web page (kind url), a web search (kind search), or a
        reminder (kind remind). Give `every`, `at`, or both. What a watch finds is filed in
        memory (memory_search finds it); due reminders show in list_reminders. Use it when
        the user asks to be reminded, or to follow a page or topic over time. Returns the
        watch with its id (for cancel_watch) and next_run_at."""

        def body(vault: Vault, caller: Caller) -> tuple[CallToolResult, Outcome]:
            added = vault.watches.add(kind, target, caller=caller, every=every, at=at, shelf=shelf)
            return reply(added), Outcome([added.watch.id], added.privacy)

        return await runtime.write("watch", body)


def _list_watches(server: MCPServer, runtime: ToolRuntime) -> None:
    """Add the `list_watches` tool."""

    @server.tool(annotations=READ)
    async def list_watches(
        include_cancelled: Annotated[
            bool, Field(description="Also list cancelled and finished watches.")
        ] = False,
    ) -> WatchesReply:
        """List the watches on shelves you can see, oldest first: kind, target, schedule,
        status, next and last run, last error. Check it before adding a watch, so you do
        not add the same one twice. Targets may hold placeholders such as <PERSON_1>:
        personal data withheld by the vault's privacy policy."""

        def body(vault: Vault, caller: Caller) -> tuple[CallToolResult, Outcome]:
            found = vault.watches.list(caller=caller, include_cancelled=include_cancelled)
            ids = [item.id for item in found.watches]
            return reply(found), Outcome(ids, found.privacy)

        return await runtime.read("list_watches", body)


def _cancel_watch(server: MCPServer, runtime: ToolRuntime) -> None:
    """Add the `cancel_watch` tool."""

    @server.tool(annotations=WRITE)
    async def cancel_watch(watch_id: WatchId) -> WatchReply:
        """Stop a watch for good (when the user no longer wants it). What it already
        filed stays in memory. Returns the watch with status cancelled."""

        def body(vault: Vault, caller: Caller) -> tuple[CallToolResult, Outcome]:
            done = vault.watches.cancel(watch_id, caller=caller)
            return reply(done), Outcome([watch_id], done.privacy)

        return await runtime.write("cancel_watch", body)


def _list_reminders(server: MCPServer, runtime: ToolRuntime) -> None:
    """Add the `list_reminders` tool."""

    @server.tool(annotations=READ)
    async def list_reminders(
        include_acked: Annotated[
            bool, Field(description="Also list reminders already acknowledged.")
        ] = False,
        limit: Annotated[
            int,
            Field(ge=REMINDER_LIMITS[0], le=REMINDER_LIMITS[1], description="Reminders to list."),
        ] = DEFAULT_REMINDER_LIMIT,
        after: Annotated[
            str | None,
            Field(
                description="The `next` of a previous list_reminders reply (with the same "
                "include_acked), to list the reminders that follow it.",
                max_length=100,
            ),
        ] = None,
    ) -> RemindersReply:
        """List reminders that came due and are not yet acknowledged, oldest first (with
        include_acked, all of them, newest first). Check it at the start of a conversation
        and tell the user what is due. At most `limit`: `more` counts the rest, and passing
        `next` back as `after` lists them. Text may hold placeholders such as <PERSON_1>:
        personal data withheld by the vault's privacy policy; do not guess it."""

        def body(vault: Vault, caller: Caller) -> tuple[CallToolResult, Outcome]:
            found = vault.watches.reminders(
                caller=caller, include_acked=include_acked, limit=limit, after=after
            )
            ids = [item.id for item in found.reminders]
            return reply(found), Outcome(ids, found.privacy)

        return await runtime.read("list_reminders", body)


def _ack_reminder(server: MCPServer, runtime: ToolRuntime) -> None:
    """Add the `ack_reminder` tool."""

    @server.tool(annotations=WRITE)
    async def ack_reminder(
        reminder_id: Annotated[
            str, Field(description="A reminder id from list_reminders.", max_length=100)
        ],
    ) -> ReminderReply:
        """Mark a due reminder as dealt with, once the user has seen it or said it is done,
        so it stops showing in list_reminders. Acknowledging twice changes nothing."""

        def body(vault: Vault, caller: Caller) -> tuple[CallToolResult, Outcome]:
            done = vault.watches.ack(reminder_id, caller=caller)
            return reply(done), Outcome([reminder_id], done.privacy)

        return await runtime.write("ack_reminder", body)
