"""Names the dictionary lists as words, told from everyday words by how text writes them."""

from __future__ import annotations

from pathlib import Path

import pytest

from privault.errors import ModelError
from privault.privacy import names
from privault.privacy.name_words import NAME_RATIO, candidates, derive
from privault.privacy.names import CALENDAR, NameLists, load_name_lists

# log probabilities, as the lookups table holds them: "Tom" is written 9.7 times as often
# as "tom", "Garden" 2.6 times less often than "garden"
TABLE = {
    "tom": -13.17, "Tom": -10.90,
    "garden": -11.55, "Garden": -12.49,
    "frank": -12.87, "Frank": -11.57,
    "Zebedee": -15.0,  # never written in lower case: the rarest word the table holds
    "quill": -14.0,  # never written capitalised
    "rare": -19.5,
}  # fmt: skip


def test_a_word_written_capitalised_far_more_often_than_not_is_a_name() -> None:
    assert derive(["tom", "garden", "frank", "zebedee", "quill", "absent"], TABLE) == [
        "tom",
        "zebedee",
    ]


def test_the_ratio_decides_and_a_lower_one_takes_more_words() -> None:
    assert derive(["frank"], TABLE) == derive(["frank"], TABLE, ratio=NAME_RATIO) == []
    assert derive(["frank", "garden"], TABLE, ratio=3.0) == ["frank"]


def test_candidates_are_listed_names_the_dictionary_holds_calendar_words_aside() -> None:
    lists = NameLists(
        first=frozenset({"tom", "june", "zelda"}),
        last=frozenset({"baker"}),
        words=frozenset({"june", "baker", "garden"}),
        name_words=frozenset({"tom"}),
    )
    assert candidates(lists) == ["baker", "tom"]


def test_the_shipped_name_words_are_names_and_not_ordinary_words() -> None:
    lists = load_name_lists()
    assert {"tom", "anna", "timothy", "henry", "laura"} <= lists.name_words
    assert not {"rose", "mark", "grace", "garden", "will"} & lists.name_words
    assert not lists.name_words & CALENDAR
    assert lists.name_words <= lists.first | lists.last
    assert not lists.name_words & lists.words
    assert not lists.is_word("Tom") and lists.is_word("Rose")


def test_the_shipped_file_is_sorted_one_lower_case_word_a_line() -> None:
    lines = [
        line for line in names.NAME_WORDS_FILE.read_text().splitlines() if not line.startswith("#")
    ]
    assert lines == sorted(set(lines)) and all(line.isalpha() and line.islower() for line in lines)


def test_a_missing_name_word_list_is_a_model_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(names, "NAME_WORDS_FILE", tmp_path / "gone.txt")
    with pytest.raises(ModelError, match="name word list"):
        names._name_words()
