"""Watches, runs and reminders that reach a caller are typed `Gated` like every other result.

`vault.watches` replies hold `GatedWatch`, `GatedRun` and `GatedReminder`: the domain values
with their text fields re-typed `Gated`, a `str` only the gate makes, so mypy refuses a
reply built from a raw target, summary or reminder text. These tests keep the types honest
(a new text field must be `Gated` or be named here as one that never carries stored text)
and check that what the facade returns really is gated text, for the owner and an agent.
"""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path

import pytest

from privault import Caller
from privault.privacy.gate import Gated
from privault.vault import watch_results
from privault.vault.watch_results import GatedReminder, GatedRun, GatedWatch
from privault.watches.poll import PollReport
from tests.helpers import fake_vault

# Plain `str` on purpose: ids, kinds, states, shelf and agent names, a schedule (an
# interval or cron expression the vault parsed: it cannot hold free text) and options (flags
# the vault sets, such as fetch_pages).
NOT_STORED_TEXT = {
    "id",
    "watch_id",
    "doc_id",
    "doc_ids",
    "kind",
    "schedule",
    "shelf",
    "status",
    "last_status",
    "author",
    "options",
}

REPLIES = [
    watch_results.WatchResponse,
    watch_results.WatchList,
    watch_results.RunResponse,
    watch_results.PollResponse,
    watch_results.ReminderList,
    watch_results.ReminderResponse,
]
GATED_VALUES = [GatedWatch, GatedRun, GatedReminder]


def _hints(cls: type) -> dict[str, object]:
    return typing.get_type_hints(cls, vars(watch_results) | {"PollReport": PollReport})


def _mentions(hint: object, kind: type) -> bool:
    return hint is kind or any(_mentions(arg, kind) for arg in typing.get_args(hint))


@pytest.mark.parametrize("cls", GATED_VALUES, ids=lambda cls: cls.__name__)
def test_every_text_field_of_a_gated_watch_value_is_gated(cls: type) -> None:
    for item in dataclasses.fields(cls):
        hint = _hints(cls)[item.name]
        if _mentions(hint, str) and item.name not in NOT_STORED_TEXT:
            raise AssertionError(f"{cls.__name__}.{item.name} is typed {hint}: must be Gated")


@pytest.mark.parametrize("cls", REPLIES, ids=lambda cls: cls.__name__)
def test_replies_hold_only_gated_values(cls: type) -> None:
    raw = {"Watch", "WatchRun", "Reminder"}
    for item in dataclasses.fields(cls):
        hint = _hints(cls)[item.name] if item.name != "report" else None
        named = {getattr(arg, "__name__", "") for arg in _flatten(hint)}
        assert not named & raw, f"{cls.__name__}.{item.name} holds ungated {named & raw}"


def _flatten(hint: object) -> list[object]:
    return [hint, *(inner for arg in typing.get_args(hint) for inner in _flatten(arg))]


def test_a_gated_value_cannot_be_made_from_raw_text() -> None:
    with pytest.raises(TypeError):
        Gated("Call Thaddeus")


@pytest.mark.parametrize("caller", [Caller.owner(), Caller.agent("claude")], ids=str)
def test_the_facade_returns_gated_text_in_every_text_field(tmp_path: Path, caller: Caller) -> None:
    with fake_vault(tmp_path / "v.db") as vault:
        watches = vault.watches
        text = "Call Mr Thaddeus Quillfeather at +44 20 7946 0321 about the boiler"
        added = watches.add("remind", text, caller=Caller.owner(), at="2020-01-01T09:00:00Z")
        watches.poll(caller=Caller.owner(), now="2020-01-01T10:00:00Z")
        shown = [
            watches.list(caller=caller).watches[0],
            watches.show(added.watch.id, caller=caller).watch,
            *watches.show(added.watch.id, caller=caller).runs,
            *watches.reminders(caller=caller).reminders,
        ]
        assert len(shown) == 4
        for value in shown:
            for item in dataclasses.fields(value):
                field = getattr(value, item.name)
                if item.name in NOT_STORED_TEXT or not isinstance(field, str):
                    continue
                assert isinstance(field, Gated), (type(value).__name__, item.name)
                if not caller.is_owner:
                    assert "Quillfeather" not in field and "7946" not in field


UNGATED = """
from privault.vault.results import Privacy
from privault.vault.watch_results import GatedReminder, RunResponse, WatchList
from privault.watches.model import Reminder, Watch, WatchRun


def listed(watch: Watch, privacy: Privacy) -> WatchList:
    return WatchList((watch,), privacy)


def ran(run: WatchRun, privacy: Privacy) -> RunResponse:
    return RunResponse(run, privacy)


def reminded(reminder: Reminder) -> GatedReminder:
    return GatedReminder.of(reminder, text=reminder.text)
"""


def test_mypy_refuses_a_reply_holding_ungated_watch_text(tmp_path: Path) -> None:
    from mypy import api

    probe = tmp_path / "ungated.py"
    probe.write_text(UNGATED)
    out, _err, status = api.run([str(probe), "--no-error-summary"])
    assert status == 1
    assert 'incompatible type "tuple[Watch]"; expected "tuple[GatedWatch, ...]"' in out
    assert 'incompatible type "WatchRun"; expected "GatedRun | None"' in out
    assert 'Argument "text" to "of" of "GatedReminder" has incompatible type "str"' in out
