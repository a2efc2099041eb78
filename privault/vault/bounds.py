"""The bounds of what a caller may ask for, defined once for every interface.

The facade checks them (an `InputError` names the bound); the MCP tools publish them in
their input schemas and the CLI uses the same defaults, so an agent, the owner's terminal
and a program meet the same limits. Nothing here imports anything: the CLI reads these
without loading the vault.
"""

from __future__ import annotations

SEARCH_LIMITS = (1, 100)  # sections one search returns
DEFAULT_SEARCH_LIMIT = 10
CONTEXT_BUDGETS = (50, 100_000)  # tokens a context pack may fill
# The most tokens `context` returns unless asked (the Python API, `privault context`, the
# MCP tool): a cap, not a size. The pack stops earlier where the candidates left are
# clearly weaker than the best (see `retrieval.relevance`): a hosted model pays little
# for 2,000 tokens, and a missing piece of evidence costs it the answer.
DEFAULT_CONTEXT_BUDGET = 2000
# Tokens of memory the local model reads for one answer. A small model is distracted by
# more text as much as it is helped: on LoCoMo this budget answers as well as twice as
# much in half the time (`benchmarks.ask --locomo`, docs/benchmarks.md).
DEFAULT_ASK_BUDGET = 300
ASK_BUDGETS = (50, 8000)  # more would not fit the local model's context
# SQLite's integers are 64-bit: a larger number asked for (a count, a cursor) cannot be
# compared with a stored one and is refused where it is read.
MAX_STORED_INT = 2**63 - 1
MAX_QUERY_CHARS = 2000  # a search query, a question or an instruction: words, not documents
LIST_LIMITS = (1, 200)  # documents one listing shows an agent (`memory_tree`)
DEFAULT_LIST_LIMIT = 50  # documents a listing shows unless asked (`memory_tree`, `privault docs`)
REMINDER_LIMITS = (1, 1000)  # reminders one listing shows (`list_reminders`, `reminders`)
DEFAULT_REMINDER_LIMIT = 100  # the rest are counted and reached by the listing's `next`
# The largest note the vault takes unless configured otherwise (`max_note_bytes`). The MCP
# `remember` tool refuses a longer text up front: a character is at least one byte.
MAX_NOTE_BYTES = 1024 * 1024
# Seconds without a question before the local answerer is unloaded to give back its memory
# (`chat_unload_after`): the questions of one sitting find it loaded.
CHAT_UNLOAD_AFTER = 300
# The largest value each setting may take (a day, a week, a tebibyte): times go into timers
# and clock arithmetic as floats (a 400-digit timeout broke every ask), sizes into reads.
SETTING_MOST = {
    "ask_timeout": 86_400,
    "chat_unload_after": 604_800,
    "max_note_bytes": 1 << 40,
    "max_file_bytes": 1 << 40,
}


def over_most(name: str, value: float) -> str | None:
    """What is wrong with a setting's number above its bound (`SETTING_MOST`), or None."""
    most = SETTING_MOST.get(name)
    if most is None or value <= most:
        return None
    written = str(value)
    return f"must be at most {most:,}, not {written[:20]}{'…' if len(written) > 20 else ''}"
