"""Names and ids checked by a pattern end where the text ends: `$` also matches before a
final newline, so `work\n` passed as a shelf name and `d…\n` as a synced document id."""

from __future__ import annotations

import pytest

from privault.errors import InputError
from privault.store.agents import check_name
from privault.sync import bundle, folder, shapes
from privault.sync.hlc import Stamp
from privault.vault.ingest import check_shelf


@pytest.mark.parametrize("check", [check_shelf, check_name])
def test_a_name_with_a_final_newline_is_refused(check) -> None:
    check("work")  # accepted as written
    with pytest.raises(InputError):
        check("work\n")


@pytest.mark.parametrize(
    ("pattern", "value"),
    [
        (shapes.DOCUMENT_ID, "d0123456789ab"),
        (shapes.STATEMENT_ID, "s_0123456789"),
        (shapes.WATCH_ID, "w01234567"),
        (shapes.DEVICE_ID, "dev_0123456789ab"),
        (shapes.SHELF_NAME, "work"),
        (shapes.POLICY_NAME, "standard"),
        (folder._NAME, "000000000001-deadbeef.pvb"),
        (bundle._DEVICE, "dev_0123456789ab"),
    ],
)
def test_ids_from_another_device_end_where_the_text_ends(pattern, value) -> None:
    assert pattern.match(value)
    assert not pattern.match(value + "\n")


def test_a_clock_value_with_a_final_newline_is_refused() -> None:
    assert Stamp.parse("001767225600000.000003.dev_a1b2").counter == 3
    with pytest.raises(InputError):
        Stamp.parse("001767225600000.000003.dev_a1b2\n")
