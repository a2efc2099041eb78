"""The calls `benchmarks.fuzz` sends: hypothesis strategies built from the tools' published
input schemas, valid and malformed.

`generate(tools, ids, count, seed)` turns the `tools/list` answer into `count` calls, the
same ones for the same seed. Arguments come from each property's JSON schema (type,
bounds, enums, `anyOf`), with hints for what a type cannot say: ids are drawn from real
ones (the agent's own, taken from earlier answers at send time; the owner's, including a
restricted shelf's) or made up; times, intervals and shelves are often well-formed. Each
valid call may then be broken: a required field dropped, a wrong type, an unknown field,
a huge string or list, odd Unicode (including lone surrogates), an unknown tool name,
arguments that are not an object, or a body that is not JSON-RPC at all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as seeded
from hypothesis import strategies as st

ID_FIELDS = ("doc_id", "node_id", "statement_id", "other_id", "watch_id", "reminder_id")
TIME_FIELDS = {"since", "until", "valid_from", "valid_to", "valid_at", "known_at", "occurred_at"}
ASK = "ask_memory"
SESSION = "\x00from-session:"  # an id the session fills in from its own earlier answers
ODD = [
    "\x00",
    "\ud800",
    "\udfff abc",
    "e\u0301\u0301\u0301",
    "\u202eevil\u202c",
    "\u200b" * 50,
    "\U0001f9ea" * 300,
    "\uffff\ufffe",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ＦＵＬＬＷＩＤＴＨ",
    "%s%n%x' OR 1=1 --",
    "<script>alert(1)</script>",
    "../../../../etc/passwd",
    "\r\n\r\n\tHTTP/1.1 200 OK",
    "Ἀ" * 40 + "\u0345",
    "ß" * 30 + "İ" * 30,
    "# \n## \n### ",
    "<PERSON_1> <EMAIL_ADDRESS_1> <<WITHHELD>>",
]
SENTENCES = [
    "Call Jane Roe on +44 20 7946 0958 about the boiler.",
    "The garden budget is 300 euros; jane.roe@example.com sends the invoice.",
    "# Plan\n\n## Monday\n\nDentist at 10.\n\n## Tuesday\n\nRent to GB29 NWBK 6016 1331 9268 19.",
    "Met Dr. Maria Gonzalez at 12 Elm Road, Springfield.",
    "remind me to water the tulips",
]
TIMES = ["2026-01-05T00:00:00Z", "2030-12-31T23:59:59+02:00", "2020-02-29T12:00:00-05:00"]
BAD_TIMES = ["yesterday", "2026-13-45T99:99:99Z", "2026-01-05T00:00:00", "9" * 64, ""]
INTERVALS = ["30m", "15m", "1m", "6h", "1d", "1w", "1h30m", "* * * * *", "0 9 * * 1", "0s"]
URL_TARGETS = [
    "http://127.0.0.1:9/x",
    "http://[::1]/",
    "http://10.0.0.1/admin",
    "http://0x7f000001/",
    "http://169.254.169.254/latest/meta-data",
    "file:///etc/passwd",
    "not a url",
    "http://",
]
SHELVES = ["default", "vault-only", "no-such-shelf"]
RAW_BODIES = [
    b"",
    b"{",
    b"null",
    b"[]",
    b'[{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}]',
    b'{"jsonrpc": "1.0", "id": 1, "method": "tools/call"}',
    b'{"jsonrpc": "2.0", "id": 1}',
    b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/call", "params": {"name": 5}}',
    b"\xff\xfe\x00garbage",
    b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "memory_search"',
]


@dataclass(frozen=True)
class Call:
    """One request: `tool` named with `arguments` (None: left out), or a `raw` body."""

    tool: str
    kind: str  # how it was made: valid, missing, wrong_type, huge, unicode, ...
    arguments: Any = None
    raw: bytes | None = None
    has_arguments: bool = True

    def body(self, request_id: int, ids: dict[str, list[str]] | None = None) -> bytes:
        """The request body, with session ids filled in from `ids`."""
        if self.raw is not None:
            return self.raw
        params: dict[str, Any] = {"name": self.tool}
        if self.has_arguments:
            params["arguments"] = _fill(self.arguments, ids or {})
        message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
        return json.dumps(message, ensure_ascii=True).encode()


def _fill(value: Any, ids: dict[str, list[str]]) -> Any:
    if isinstance(value, str) and value.startswith(SESSION):
        wanted, _, fallback = value[len(SESSION) :].partition("|")
        pool = ids.get(wanted) or []
        return pool[hash(fallback) % len(pool)] if pool else fallback
    if isinstance(value, dict):
        return {key: _fill(item, ids) for key, item in value.items()}
    if isinstance(value, list):
        return [_fill(item, ids) for item in value]
    return value


@dataclass
class Harvest:
    """Ids seen in a session's answers, by the argument they can fill."""

    ids: dict[str, list[str]] = field(default_factory=dict)

    def take(self, answer: Any, parent: str = "") -> None:
        """Collect ids from one JSON-RPC answer's structured content."""
        if isinstance(answer, dict):
            for key, value in answer.items():
                if isinstance(value, str) and key in ID_FIELDS:
                    self._add(key, value)
                elif isinstance(value, str) and key == "id":
                    self._add(_id_kind(value, parent), value)
                else:
                    self.take(value, key)
        elif isinstance(answer, list):
            for item in answer:
                self.take(item, parent)

    def _add(self, kind: str, value: str) -> None:
        pool = self.ids.setdefault(kind, [])
        if value not in pool:
            pool.append(value)
            del pool[:-50]  # the newest few are the ones worth trying


def _id_kind(value: str, parent: str) -> str:
    if value.startswith("s_"):
        return "statement_id"
    if parent in ("watch", "watches"):
        return "watch_id"
    if parent in ("reminder", "reminders"):
        return "reminder_id"
    return "id"


# ---- strategies --------------------------------------------------------------------------


def _string(name: str, schema: dict[str, Any], ids: dict[str, list[str]]) -> Any:
    low = int(schema.get("minLength", 0))
    high = min(int(schema.get("maxLength", 200)), 200)
    plain = st.text(min_size=low, max_size=max(low, high))
    if name in ID_FIELDS:
        wanted = "statement_id" if name == "other_id" else name
        known = ids.get(wanted, [])
        own = st.builds(lambda tail: f"{SESSION}{wanted}|{tail}", st.text(max_size=8))
        choices = [own, plain, st.sampled_from(["d_000000000000", "s_0000000000", "n0"])]
        return st.one_of(*choices, *([st.sampled_from(known)] if known else []))
    if name in TIME_FIELDS or name == "at":
        return st.one_of(st.sampled_from(TIMES), st.sampled_from(BAD_TIMES), plain)
    if name == "every":
        return st.one_of(st.sampled_from(INTERVALS), plain)
    if name == "shelf":
        return st.one_of(st.sampled_from(SHELVES), plain)
    if name in ("text", "content", "question", "query", "target"):
        return st.one_of(st.sampled_from(SENTENCES), plain.filter(lambda s: len(s) >= low))
    return plain


def from_schema(name: str, schema: dict[str, Any], ids: dict[str, list[str]]) -> Any:
    """A strategy for values `schema` accepts (strings bounded to keep calls quick)."""
    if "anyOf" in schema:
        return st.one_of(*(from_schema(name, option, ids) for option in schema["anyOf"]))
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "string":
        return _string(name, schema, ids)
    if kind == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        return st.integers(min_value=low, max_value=high)
    if kind == "number":
        return st.floats(schema.get("minimum"), schema.get("maximum"), allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        items = from_schema(name, schema.get("items", {}), ids)
        return st.lists(items, max_size=min(int(schema.get("maxItems", 5)), 5))
    if kind == "object":
        return st.dictionaries(st.text(max_size=10), st.integers(), max_size=3)
    return st.none()


def valid_arguments(tool: dict[str, Any], ids: dict[str, list[str]]) -> Any:
    schema = tool.get("inputSchema") or {}
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    return st.fixed_dictionaries(
        {key: from_schema(key, properties[key], ids) for key in properties if key in required},
        optional={
            key: from_schema(key, properties[key], ids) for key in properties if key not in required
        },
    )


OTHER_TYPES = st.one_of(
    st.integers(),
    st.floats(allow_nan=True),
    st.booleans(),
    st.none(),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=2),
    st.text(max_size=20),
)


@st.composite
def broken(draw: Any, tool: dict[str, Any], ids: dict[str, list[str]]) -> Call:
    """A call of `tool`, valid or broken in one way."""
    name = tool["name"]
    arguments = dict(draw(valid_arguments(tool, ids)))
    properties = (tool.get("inputSchema") or {}).get("properties") or {}
    required = list((tool.get("inputSchema") or {}).get("required") or ())
    if name == "watch" and arguments.get("kind") == "url":
        # Never a name that needs resolving: nothing may leave the machine.
        arguments["target"] = draw(st.sampled_from(URL_TARGETS))
    how = draw(
        st.sampled_from(
            ["valid"] * 8
            + ["missing", "wrong_type", "unknown_field", "huge", "unicode", "unicode"]
            + ["bad_id", "not_object", "null_arguments"]
        )
    )
    fields = sorted(properties)
    if how == "missing" and required:
        del arguments[draw(st.sampled_from(required))]
    elif how == "wrong_type" and fields:
        arguments[draw(st.sampled_from(fields))] = draw(OTHER_TYPES)
    elif how == "unknown_field":
        arguments[draw(st.sampled_from(["policy", "pii", "model", "caller", "zz"]))] = draw(
            OTHER_TYPES
        )
    elif how == "huge" and fields:
        size = draw(st.sampled_from([5_000, 100_000, 1_100_000]))
        piece = draw(st.sampled_from(["a", "boiler ", "é", "\U0001f9ea", "Jane Roe "]))
        big: Any = (piece * size)[:size]
        if draw(st.booleans()):
            big = [big[:2000]] * draw(st.sampled_from([21, 60, 1000]))
        arguments[draw(st.sampled_from(fields))] = big
    elif how == "unicode" and fields:
        odd = draw(st.sampled_from(ODD))
        target = draw(st.sampled_from(fields))
        arguments[target] = odd + draw(st.text(max_size=20)) if draw(st.booleans()) else odd
    elif how == "bad_id":
        present = [key for key in fields if key in ID_FIELDS]
        if present:
            arguments[draw(st.sampled_from(present))] = draw(
                st.one_of(st.text(max_size=100), st.sampled_from(sum(ids.values(), []) or ["x"]))
            )
    elif how == "not_object":
        return Call(name, how, draw(OTHER_TYPES.filter(lambda v: not isinstance(v, dict))))
    elif how == "null_arguments":
        return Call(name, how, None, has_arguments=draw(st.booleans()))
    else:
        how = "valid" if how in ("missing", "bad_id") else how
    return Call(name, how, arguments)


def call_strategy(tools: list[dict[str, Any]], ids: dict[str, list[str]]) -> Any:
    """Every kind of call, most of them through a published tool (`ask_memory` an eighth
    as often as the others: each one that gets through runs the local model for seconds,
    and asks run one at a time)."""
    weighted = [tool for tool in tools for _ in range(1 if tool["name"] == ASK else 8)]
    by_tool = st.sampled_from(weighted).flatmap(lambda tool: broken(tool, ids))
    unknown = st.builds(
        lambda name, args: Call(name, "unknown_tool", args),
        st.one_of(st.text(max_size=120), st.sampled_from(["memory_searchx", "", "admin"])),
        st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=2),
    )
    raw = st.builds(lambda body: Call("(raw)", "not_json", raw=body), st.sampled_from(RAW_BODIES))
    return st.one_of(by_tool, by_tool, by_tool, by_tool, by_tool, by_tool, unknown, raw)


def generate(
    tools: list[dict[str, Any]], ids: dict[str, list[str]], count: int, *, seed: int = 1
) -> list[Call]:
    """`count` calls for these tools, the same ones for the same seed."""
    out: list[Call] = []
    strategy = call_strategy(tools, ids)

    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(call: Call) -> None:
        out.append(call)

    run = seed
    while len(out) < count:  # hypothesis may end a run early: another seed draws more
        seeded(run)(collect)()
        run += 1_000_003
    return out[:count]
